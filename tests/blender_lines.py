"""The Blender lines RealityBench is tested on, and the interpreter whose bpy wheel is each.

The running interpreter's bpy is one line (the default: 5.2 LTS in `.venv`, or 4.5 LTS where no
Python 3.13 was found); `bash scripts/setup.sh --tests` puts each other line in `.venv-bpy<line>`.
Read without importing bpy: its wheel's version comes from the package metadata.
"""
from __future__ import annotations

import importlib.metadata
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINES = ("4.5", "5.2", "5.3")  # 4.5 LTS on Python 3.11; 5.2 LTS and 5.3 on Python 3.13

# The other lines' runs of this session ({line: process}), kept by the process that started them (conftest.py: the
# session, or xdist's controller), and the folder where each run writes line<N>.out and, once it has ended, line<N>.rc.
LINE_RUNS = pytest.StashKey[dict]()
LINE_DIR = pytest.StashKey[Path]()
LINE_DIR_WORKER_INPUT = "realitybench_line_dir"  # how xdist's controller tells its workers the folder
LINE_FILE = "tests/test_blender_lines.py"
LINE_TESTS = f"{LINE_FILE}::test_bpy_suites_pass_on_each_other_line"


# The longest files (minutes each on two cores), handed out first: under xdist a worker that draws one of them near
# the end would run alone for its whole length while the other waits (longest-first packs two workers tightly).
# xdist keeps this order only with --no-loadscope-reorder (the README's command); by default it hands out the files
# with the most tests first, which put the one-test sidebar flow last.
LONGEST_FILES = ("tests/test_gui_sidebar.py", "tests/test_envs_gauge_label.py", "tests/test_hostile_set.py",
                 "tests/test_legibility.py", "tests/test_envs_roof.py", "tests/test_export.py",
                 "tests/test_adding_an_environment.py")


def selected_lines(nodeids) -> list[str]:
    """The lines whose checks are among `nodeids` ("...::test_bpy_suites_pass_on_each_other_line[4.5]" -> "4.5")."""
    return [nodeid.rsplit("[", 1)[1].rstrip("]") for nodeid in nodeids if nodeid.startswith(LINE_TESTS + "[")]


def line_directory(config) -> Path | None:
    """Where this session's line runs write (None where none started): an xdist worker is told by its controller."""
    worker_input = getattr(config, "workerinput", None)
    if worker_input is not None:
        return Path(worker_input[LINE_DIR_WORKER_INPUT]) if LINE_DIR_WORKER_INPUT in worker_input else None
    return config.stash.get(LINE_DIR, None)


def running_line() -> str | None:
    """The line of this interpreter's bpy wheel ("5.2"), or None without one."""
    try:
        version = importlib.metadata.version("bpy")
    except importlib.metadata.PackageNotFoundError:
        return None
    return ".".join(version.split(".")[:2])


def line_python(line: str) -> Path:
    """The interpreter whose bpy is Blender `line` (it may not exist: see scripts/setup.sh)."""
    if line == running_line():
        return Path(sys.executable)
    return ROOT / f".venv-bpy{line}" / "bin" / "python"


def other_lines() -> tuple[str, ...]:
    """The lines tested beside the running one."""
    return tuple(line for line in LINES if line != running_line())


# Set in each other line's suite run (tests/test_blender_lines.py): the line's name.
OTHER_LINE_ENV = "REALITYBENCH_OTHER_LINE"


def cases(default_line: int, other_line: int) -> int:
    """How many seeds or frames a many-case test draws: `default_line` where the whole suite runs, `other_line` in
    an other line's run, which checks that the same code builds and measures under another Blender (the default
    line is where the many cases are checked)."""
    return other_line if os.environ.get(OTHER_LINE_ENV) else default_line


# Builds and measures frames without rendering in a line's own interpreter and writes {frame_id: record} as JSON:
#   python -c RECORDS_SCRIPT FRAMES SEED OUT.json [RENDERS LONG_SIDE SAMPLES IMAGE_DIR]
# (the first RENDERS frames of each environment are rendered too, and their seconds kept under "render_seconds").
RECORDS_SCRIPT = r"""
import json, sys, time
from pathlib import Path
from realitybench_addon import api
from realitybench_addon.envs import registry

frames, seed, out = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
renders, long_side, samples = (int(v) for v in (sys.argv[4:7] or (0, 96, 1)))
images = Path(sys.argv[7]) if len(sys.argv) > 7 else out.parent / "images"
records, seconds = {}, {}
for env in registry.available():
    for index in range(frames):
        render = index < renders
        started = time.perf_counter()
        record = api.frame(env, seed, index, images, long_side_px=long_side, samples=samples, render=render)
        if render:
            seconds[record["frame_id"]] = time.perf_counter() - started
        records[record["frame_id"]] = record
out.write_text(json.dumps({"records": records, "render_seconds": seconds}))
"""
RELATIVE_TOLERANCE = 1e-9  # floats that differ only in their last digits (numpy 1 vs 2 summation order)


def line_records(line: str, out: Path, frames: int, seed: int, renders: int = 0, long_side: int = 96,
                 samples: int = 1, timeout_s: float = 1800) -> dict:
    """{"records": {frame_id: record}, "render_seconds": {...}} of frames 0..frames-1 of every environment, built
    in `line`'s own interpreter."""
    args = [str(frames), str(seed), str(out), str(renders), str(long_side), str(samples), str(out.parent / line)]
    done = subprocess.run([str(line_python(line)), "-c", RECORDS_SCRIPT, *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout_s)
    if done.returncode != 0:
        raise RuntimeError(f"Blender {line}: {done.stderr[-3000:]}")
    return json.loads(out.read_text())


def record_differences(a, b, path: str = "") -> list[str]:
    """The paths where two records differ beyond the last float digits (NaN equals NaN); the Blender version
    (`versions`) is not compared."""
    if not path and isinstance(a, dict) and isinstance(b, dict):
        a, b = ({k: v for k, v in r.items() if k != "versions"} for r in (a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return [path or "(keys)"]
        return [d for k in a for d in record_differences(a[k], b[k], f"{path}.{k}" if path else k)]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [path]
        named = all(isinstance(x, dict) and "name" in x for x in a)
        return [d for i, (x, y) in enumerate(zip(a, b))
                for d in record_differences(x, y, f"{path}.{x['name']}" if named else f"{path}[{i}]")]
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) and math.isnan(b):
            return []
        return [] if math.isclose(a, b, rel_tol=RELATIVE_TOLERANCE, abs_tol=1e-12) else [path]
    return [] if a == b else [path]
