"""benchmarks/image_term_shift.py compare: reads measure outputs through the guarded layer; anything else handed
over (bytes, other JSON, a folder, a pipe) is one line of error and exit status 2, never a traceback."""
import importlib.util
import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("image_term_shift", ROOT / "benchmarks" / "image_term_shift.py")
shift = importlib.util.module_from_spec(spec)
spec.loader.exec_module(shift)

GOOD = {"damage_view-random-s77-000002": {"verdict": "accept", "damage_pixels": 1268, "damage_contrast": 32.5},
        "damage_view-random-s77-000035": {"verdict": "reject", "damage_pixels": 774, "damage_contrast": None}}


def test_compare_counts_verdict_changes_and_the_largest_shift(tmp_path, capsys):
    after = {k: dict(v) for k, v in GOOD.items()}
    after["damage_view-random-s77-000035"].update(verdict="accept", damage_pixels=901)
    after["damage_view-random-s77-000002"]["damage_pixels"] = 918
    (tmp_path / "a.json").write_text(json.dumps(GOOD))
    (tmp_path / "b.json").write_text(json.dumps(after))
    assert shift.main(["compare", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 0
    out = capsys.readouterr().out
    assert "2 frames; 1 verdict changes" in out
    assert "damage_pixels 27.6%" in out  # (1268 - 918) / 1268


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                        max_size=4), max_leaves=12)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(payload=st.one_of(st.binary(max_size=200), json_values.map(lambda v: json.dumps(v).encode())))
def test_any_file_handed_over_is_read_or_refused_in_one_line(tmp_path, capsys, payload):
    bad = tmp_path / "handed.json"
    bad.write_bytes(payload)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(GOOD))
    status = shift.main(["compare", str(good), str(bad)])
    out, err = capsys.readouterr()
    assert status in (0, 2)
    if status == 2:
        assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err
    else:
        assert "verdict changes" in out


def test_a_folder_or_a_pipe_is_refused_without_waiting(tmp_path, capsys):
    import os

    good = tmp_path / "good.json"
    good.write_text(json.dumps(GOOD))
    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)  # no writer: a plain open would wait for ever
    for other in (tmp_path, pipe):
        assert shift.main(["compare", str(good), str(other)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and str(other) in err
