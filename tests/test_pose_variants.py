"""benchmarks/pose_variants.py: a variant pose model is parsed as written, a bad one is refused with a message,
and a run measures the current model and each variant on the same frames (ro_board's first frame: the
pose model calibrated on 2026-12-05 turns away the frame the old one accepted)."""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "pose_variants.py"


def _run(*args, timeout=600):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=timeout)


def test_parse_variant_reads_numbers_and_tuples():
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        from pose_variants import parse_variant
    finally:
        sys.path.remove(str(SCRIPT.parent))
    assert parse_variant("old=azimuth_sd_deg:36;distance_m:0.5,12") == (
        "old", {"azimuth_sd_deg": 36.0, "distance_m": (0.5, 12.0)})
    with pytest.raises(SystemExit, match="expected NAME=field"):
        parse_variant("nobody")
    with pytest.raises(SystemExit, match="'abc' is not a number"):
        parse_variant("x=miss_share:abc")


@pytest.mark.parametrize("args, message", [
    (["--env", "nosuch"], "unknown environment 'nosuch'"),
    (["--env", "ro_board", "--variant", "x=bogus:1"], "ro_board.POSES has no field bogus"),
])
def test_bad_input_gets_one_line(args, message):
    result = _run(*args)
    assert result.returncode != 0 and message in result.stderr and "Traceback" not in result.stderr


def test_a_run_measures_now_and_each_variant_on_the_same_frame():
    pytest.importorskip("bpy")
    result = _run("--env", "ro_board", "--frames", "1", "--variant", "old=azimuth_sd_deg:36;distance_m:0.5,12")
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.splitlines()
    now = next(line for line in lines if line.strip().startswith("now"))
    old = next(line for line in lines if line.strip().startswith("old"))
    assert "'azimuth_sd_deg': 36.0" in old and "'distance_m': (0.5, 12.0)" in old
    assert "passes geometry 1.000" in old  # ro_board-random-s0-000000 passed every geometric term before ...
    assert "passes geometry 0.000" in now and "view_angle 1.00" in now  # ... and is turned too far off now
