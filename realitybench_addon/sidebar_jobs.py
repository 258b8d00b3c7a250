"""The sidebar's background jobs: Check (with a render) and Suggest a Pose in a separate Blender process.

The sidebar (ui/jobs.py) writes a job file (the frame's id, the camera as it is held, the render options,
the edited preset) and starts this module's `main` in a background Blender (or this Python, where Blender is
the bpy module), as its Export does. The process rebuilds the frame's scene from its id, puts the camera as
the designer held it, runs the check or the search, and writes `progress.json` while it works and
`result.json` at the end (with the phone's JPEG and the target mask of a Check's render, or of Suggest's
confirming render at the suggested pose, written by the API: `keep_pictures`). The interface stays alive
and Esc kills the process; nothing here touches the designer's scene.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from . import api
from .setio import atomic_write


def _progress(folder: Path, stage: str, started: float) -> None:
    data = {"stage": stage, "elapsed_s": round(time.perf_counter() - started, 2)}
    atomic_write(folder / "progress.json", json.dumps(data).encode())


def _hold_camera(camera: dict, render: dict):
    """Put the scene camera as the sidebar's camera was: pose, lens, focus, capture and the render size."""
    import bpy
    from mathutils import Matrix

    scene = bpy.context.scene
    cam = scene.camera  # its hand-shake animation (a capture's) stays, as in the designer's scene
    cam.matrix_world = Matrix(camera["matrix"])
    data = cam.data
    data.lens, data.sensor_width, data.sensor_height = camera["lens"], camera["sensor_width"], camera["sensor_height"]
    data.sensor_fit, data.shift_x, data.shift_y = camera["sensor_fit"], camera["shift_x"], camera["shift_y"]
    data.dof.use_dof, data.dof.aperture_fstop = camera["use_dof"], camera["fstop"]
    data.dof.focus_distance = camera["focus_distance"]
    for key in ("realitybench_capture", "realitybench_phone"):
        if camera.get(key) is not None:
            cam[key] = camera[key]
    scene.render.resolution_x, scene.render.resolution_y = render["resolution"]
    scene.render.resolution_percentage = render["percentage"]
    if render.get("threads"):  # leave the designer's Blender a core: its interface stays responsive
        scene.render.threads_mode, scene.render.threads = "FIXED", render["threads"]
    bpy.context.view_layer.update()
    return cam


def _preset(job: dict):
    if not job.get("preset_dir"):
        return None
    return api.saved_preset(job["environment"], job["preset_dir"])


def _check(job: dict, cam, preset, folder: Path) -> dict:
    """The sidebar's Check with a render (`api.check_active`, as in the designer's Blender), keeping the phone's
    JPEG and the target mask in the job's folder."""
    return api.check_active(job["environment"], job["seed"], job["index"], camera=cam.name, stratum=job["stratum"],
                            samples=job["samples"], resolution_scale=job["resolution_scale"], preset=preset,
                            build=False, denoise=job["denoise"], device=job["device"], keep_pictures=folder)


def _suggest(job: dict, cam, preset, folder: Path) -> dict:
    """Suggest a Pose (`api.suggest_pose`), keeping its confirming render's JPEG and mask at the suggested pose."""
    return api.suggest_pose(job["environment"], job["seed"], job["index"], camera=cam.name, stratum=job["stratum"],
                            render_check=job["render_check"], preset=preset, denoise=job["denoise"],
                            device=job["device"], keep_pictures=folder)


def run(job_path: str | Path) -> dict:
    """Run one job file; returns (and writes into the job's folder) {"ok": True, "result": ...} or
    {"ok": False, "error": one line}."""
    job_path = Path(job_path)
    folder = job_path.parent
    started = time.perf_counter()
    job = json.loads(job_path.read_text(encoding="utf-8"))
    try:
        _progress(folder, "building the scene", started)
        api.build_frame(job["environment"], job["seed"], job["index"], stratum=job["stratum"],
                        long_side_px=job["long_side_px"])
        cam = _hold_camera(job["camera"], job["render"])
        preset = _preset(job)
        if job["kind"] == "check":
            _progress(folder, "rendering", started)
            result = _check(job, cam, preset, folder)
        else:
            _progress(folder, "searching poses" + (" and rendering" if job["render_check"] else ""), started)
            result = _suggest(job, cam, preset, folder)
        out = {"ok": True, "result": api.jsonable(result)}
    except api.RealityBenchError as exc:
        out = {"ok": False, "error": str(exc)}
    atomic_write(folder / "result.json", json.dumps(out).encode())
    _progress(folder, "done", started)
    return out


def main(argv: list[str]) -> int:
    out = run(argv[0])
    if not out["ok"]:
        print(out["error"], file=sys.stderr)
    return 0 if out["ok"] else 1
