"""benchmarks/calibrate_envs.py: bad input is refused in one line before any scene is built, and --dump writes one
whole JSON line per frame with its verdict and every measurement."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "calibrate_envs.py"


def _run(*args, timeout=600):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=timeout)


@pytest.mark.parametrize("args, message", [
    (["--env", "ro_board,nosuch"], "unknown environment nosuch"),
    (["--env", "ro_board", "--frames", "0"], "--frames must be at least 1 (got 0)"),
    (["--env", "ro_board", "--dump", "/proc/no/such/dir/out.jsonl"], "cannot write --dump /proc/no/such/dir/out.jsonl"),
])
def test_bad_input_gets_one_line(args, message):
    result = _run(*args)
    assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr


def test_dump_holds_each_frame_with_its_verdict_and_measurements(tmp_path):
    pytest.importorskip("bpy")
    dump = tmp_path / "frames.jsonl"
    result = _run("--env", "ro_board", "--frames", "2", "--geometric-only", "--dump", str(dump))
    assert result.returncode == 0, result.stderr[-2000:]
    rows = [json.loads(line) for line in dump.read_text().splitlines()]
    assert [(r["env"], r["seed"], r["index"]) for r in rows] == [("ro_board", 0, 0), ("ro_board", 0, 1)]
    # frame 0 is turned away by view_angle alone under the calibrated pose model (tests/test_pose_variants.py)
    assert rows[0]["verdict"] == "reject" and rows[0]["measurements"]["view_angle"] > 40
    assert {"view_angle", "text_row_px", "board_in_frame"} <= set(rows[1]["measurements"])
