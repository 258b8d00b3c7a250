"""Check (with a render) and Suggest a Pose as background jobs: a separate Blender process, as the Export.

`start` writes the job file (the frame's id, the camera as held, the render options and the edited preset)
into a fresh temporary folder and starts `sidebar_jobs` there; `poll` reads its progress and, once it
exited, its result; `cancel` kills it. The operators (operators.py) poll from a window timer, so the
interface stays alive, the status bar shows the stage and the seconds, and Esc cancels.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

import bpy

from .. import api
from . import capabilities, live, results

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # realitybench_addon (or the extension's folder)
CHECK_SAMPLES, CHECK_SCALE = 8, 0.5  # the quick render of api.check_active's defaults
RUNNING: set = set()  # the jobs the modal operators are following (one at a time)


def job_command(job_path: Path) -> list[str]:
    """The process that runs one job: this Blender in the background, or this Python with the bpy module."""
    runner = (f"import sys; sys.path.insert(0, {str(PACKAGE_DIR.parent)!r}); import importlib; "
              f"sys.exit(importlib.import_module({PACKAGE_DIR.name + '.sidebar_jobs'!r}).main([{str(job_path)!r}]))")
    blender = bpy.app.binary_path  # empty in the bpy module
    if blender:
        return [blender, "-b", "--factory-startup", "--python-exit-code", "1", "--python-expr", runner]
    return [sys.executable, "-c", runner]


def describe(settings, kind: str) -> dict:
    """The job for the sidebar's frame as it is now; raises RealityBenchError for what a click cannot run."""
    scene = bpy.context.scene
    state = results.camera_state(scene.camera)
    if state is None:
        raise api.RealityBenchError("no active camera: Build Scene first")
    render = scene.render
    return {"kind": kind, "environment": settings.environment, "seed": settings.seed, "index": settings.index,
            "stratum": settings.stratum, "long_side_px": max(render.resolution_x, render.resolution_y),
            "camera": state, "render": {"resolution": [render.resolution_x, render.resolution_y],
                                        "percentage": render.resolution_percentage,
                                        "threads": max(1, (os.cpu_count() or 2) - 1)},
            "samples": CHECK_SAMPLES, "resolution_scale": CHECK_SCALE, "denoise": capabilities.denoise(settings),
            "device": capabilities.device(settings), "render_check": bool(settings.suggest_render),
            "key": results.key_now(settings)}


class BackgroundJob:
    def __init__(self, job: dict):
        self.job = job
        self._tmp = tempfile.TemporaryDirectory(prefix="rb-job-")
        self.folder = Path(self._tmp.name)
        if live.STATE.preset is not None:  # the edited thresholds travel as a preset file
            api.save_preset(live.STATE.preset, self.folder / "presets" / f"{job['environment']}.toml")
            job["preset_dir"] = str(self.folder / "presets")
        (self.folder / "job.json").write_text(json.dumps(job), encoding="utf-8")
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(job_command(self.folder / "job.json"), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)
        self.outcome: Optional[dict] = None

    def stage(self) -> str:
        try:
            return json.loads((self.folder / "progress.json").read_text(encoding="utf-8"))["stage"]
        except (OSError, ValueError, KeyError):
            return "starting Blender"

    def status(self, what: str) -> str:
        return f"RealityBench {what}: {self.stage()}, {time.perf_counter() - self.started:.0f} s (Esc cancels)"

    def poll(self) -> Optional[dict]:
        """None while it runs; then {"ok": True, "result": ...} or {"ok": False, "error": one line}."""
        if self.outcome is not None:
            return self.outcome
        code = self.proc.poll()
        if code is None:
            return None
        try:
            self.outcome = json.loads((self.folder / "result.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            last = (self.proc.stderr.read().strip().splitlines() or [f"exit code {code}"])[-1]
            self.outcome = {"ok": False, "error": last}
        return self.outcome

    def wait(self, timeout_s: float = 600.0) -> dict:
        """Block until done (scripts and tests; the operators poll from a timer instead)."""
        self.proc.wait(timeout=timeout_s)
        return self.poll()

    def cancel(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def keep_files(self) -> Path:
        """A folder that outlives the job for its JPEG and mask (the phone view shows them)."""
        keep = Path(bpy.app.tempdir or tempfile.gettempdir()) / "realitybench_phone_view"
        keep.mkdir(parents=True, exist_ok=True)
        return keep

    def close(self) -> None:
        self.cancel()
        if self.proc.stderr:
            self.proc.stderr.close()
        self._tmp.cleanup()
