"""Term outcomes and the spec's verdict rules."""
import pytest

from realitybench_addon.core.terms import Outcome, TermSpec, Verdict, evaluate, evaluate_term

IN_FRAME = TermSpec("in_frame", "In frame", "geometric", "fraction", ">=", 0.9)
DISTANCE = TermSpec("distance", "Distance", "geometric", "m", "<=", 1.8)
YAW = TermSpec("yaw", "|Yaw|", "geometric", "deg", "<=", 15.0, gray=(15.0, 45.0))
BAND = TermSpec("lengths", "Car lengths", "geometric", "car_lengths", "between", (1.5, 3.0), gray=(3.0, 4.0))
TILT = TermSpec("tilt", "Tape tilt", "geometric", "deg", "<=", 5.0, gray=(0.0, 5.0), gray_measure="apparent_tilt")
CONTRAST = TermSpec("weber_contrast", "Contrast", "image", "weber", ">=", 0.3)
ON_MODULE = TermSpec("on_module", "On module", "geometric", "bool", "is_true")


@pytest.mark.parametrize("spec,value,outcome", [
    (IN_FRAME, 0.9, Outcome.PASS), (IN_FRAME, 0.8999, Outcome.FAIL),
    (DISTANCE, 1.8, Outcome.PASS), (DISTANCE, 1.81, Outcome.FAIL),
    (YAW, 10.0, Outcome.PASS), (YAW, 15.0, Outcome.PASS), (YAW, 30.0, Outcome.GRAY), (YAW, 45.1, Outcome.FAIL),
    (BAND, 1.4, Outcome.FAIL), (BAND, 2.0, Outcome.PASS), (BAND, 3.5, Outcome.GRAY), (BAND, 4.5, Outcome.FAIL),
    (ON_MODULE, True, Outcome.PASS), (ON_MODULE, False, Outcome.FAIL),
    (IN_FRAME, float("nan"), Outcome.NOT_APPLICABLE),
])
def test_outcomes(spec, value, outcome):
    result = evaluate_term(spec, {spec.name: value})
    assert result.outcome is outcome
    assert result.threshold == spec.threshold and result.unit == spec.unit


def test_gray_on_a_companion_measurement():
    # a real lean of 8 degrees that shows as 4 in the image is gray; shown as 7 it fails
    assert evaluate_term(TILT, {"tilt": 8.0, "apparent_tilt": 4.0}).outcome is Outcome.GRAY
    assert evaluate_term(TILT, {"tilt": 8.0, "apparent_tilt": 7.0}).outcome is Outcome.FAIL
    assert evaluate_term(TILT, {"tilt": 3.0, "apparent_tilt": 7.0}).outcome is Outcome.PASS


def test_image_term_without_a_render_needs_one():
    assert evaluate_term(CONTRAST, {}).outcome is Outcome.NEEDS_RENDER
    assert evaluate_term(CONTRAST, {"weber_contrast": None}).outcome is Outcome.NOT_APPLICABLE


def test_verdict_rules():
    specs = [IN_FRAME, YAW, CONTRAST]
    _, v = evaluate(specs, {"in_frame": 1.0, "yaw": 5.0, "weber_contrast": 0.5})
    assert v.verdict is Verdict.ACCEPT and v.scored
    _, v = evaluate(specs, {"in_frame": 1.0, "yaw": 20.0, "weber_contrast": 0.5})
    assert v.verdict is Verdict.GRAY and v.gray == ("yaw",) and not v.scored
    _, v = evaluate(specs, {"in_frame": 0.5, "yaw": 20.0, "weber_contrast": 0.5})
    assert v.verdict is Verdict.REJECT and v.failing == ("in_frame",)
    _, v = evaluate(specs, {"in_frame": 1.0, "yaw": 5.0})
    assert v.verdict is Verdict.PENDING and v.pending == ("weber_contrast",)
    # a geometric failure rejects before any render
    _, v = evaluate(specs, {"in_frame": 0.1, "yaw": 5.0})
    assert v.verdict is Verdict.REJECT
    _, v = evaluate(specs, {"in_frame": 1.0, "yaw": 5.0, "weber_contrast": 0.5}, unscored_reason="lag bolt missing")
    assert v.verdict is Verdict.UNSCORED and v.unscored_reason == "lag bolt missing" and not v.scored


def test_unmeasurable_term_rejects():
    results, v = evaluate([IN_FRAME], {"in_frame": float("nan")})
    assert v.verdict is Verdict.REJECT and v.not_applicable == ("in_frame",)


def test_results_serialise_with_value_threshold_and_unit():
    results, v = evaluate([YAW], {"yaw": 30.0})
    d = results[0].to_dict()
    assert d == {"name": "yaw", "label": "|Yaw|", "kind": "geometric", "unit": "deg", "comparator": "<=",
                 "threshold": 15.0, "gray": (15.0, 45.0), "value": 30.0, "outcome": "gray", "gray_value": 30.0}
    assert v.to_dict()["verdict"] == "gray"
    assert YAW.describe_threshold() == "<= 15 deg" and BAND.describe_threshold() == "1.5–3 car_lengths"
