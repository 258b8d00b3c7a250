"""benchmarks/record_shift.py compare: counts verdict changes and each measurement's shift (inf and nan equal to
themselves), and reads its inputs through the guarded layer: anything else handed over is one line of error and
exit status 2, never a traceback."""
import importlib.util
import json
import math
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("record_shift", ROOT / "benchmarks" / "record_shift.py")
shift = importlib.util.module_from_spec(spec)
spec.loader.exec_module(shift)


def _row(verdict, in_frame, sharp=math.inf):
    return {"verdict": verdict, "terms": [{"name": "car_in_frame", "outcome": "pass"}],
            "measurements": {"car_in_frame": in_frame, "sharp_at_target": sharp}, "ground_truth": {"end": "rear"}}


BEFORE = {"ro_board-random-s0-000017": _row("pending", 0.5137), "car_view-random-s0-000001": _row("accept", 0.9)}


def _write(path: Path, rows) -> str:
    path.write_text(json.dumps(rows, allow_nan=True))
    return str(path)


def test_compare_counts_verdicts_and_each_measurements_shift(tmp_path, capsys):
    after = {k: json.loads(json.dumps(v)) for k, v in BEFORE.items()}
    after["ro_board-random-s0-000017"] = _row("reject", 0.4785)
    status = shift.main(["compare", _write(tmp_path / "a.json", BEFORE), _write(tmp_path / "b.json", after)])
    out = capsys.readouterr().out
    assert status == 0
    assert "2 frames; 1 verdict changes" in out and "ro_board-random-s0-000017: pending -> reject" in out
    assert "car_in_frame: 1 frames, mean 0.0352, largest 0.0352" in out
    assert "sharp_at_target" not in out  # inf -> inf is no change
    assert "values moved per environment: ro_board 2" in out  # the verdict and car_in_frame


def test_different_frames_are_refused(tmp_path, capsys):
    after = {"car_view-random-s0-000001": BEFORE["car_view-random-s0-000001"]}
    assert shift.main(["compare", _write(tmp_path / "a.json", BEFORE), _write(tmp_path / "b.json", after)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: the two files hold different frames") and err.count("\n") == 1


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                        max_size=4), max_leaves=12)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(payload=st.one_of(st.binary(max_size=200), json_values.map(lambda v: json.dumps(v).encode())))
def test_any_file_handed_over_is_read_or_refused_in_one_line(tmp_path, capsys, payload):
    bad = tmp_path / "handed.json"
    bad.write_bytes(payload)
    status = shift.main(["compare", _write(tmp_path / "good.json", BEFORE), str(bad)])
    out, err = capsys.readouterr()
    assert status == 2  # nothing generated holds these two frames
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err


def test_a_folder_or_a_pipe_is_refused_without_waiting(tmp_path, capsys):
    import os

    good = _write(tmp_path / "good.json", BEFORE)
    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)  # no writer: a plain open would wait for ever
    for other in (tmp_path, pipe):
        assert shift.main(["compare", good, str(other)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and str(other) in err
