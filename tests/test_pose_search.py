"""Suggest a Pose's search on scenes made of formulas (pure; no Blender): a card too far away is approached
until its rows just pass, a card behind an occluder is orbited into view, a leaning tape is reported as a
property of the scene, and no suggestion leaves where a worker can hold the phone."""
import math

import numpy as np
import pytest

from realitybench_addon.core.pose_search import (MARGIN, AimSpace, OrbitSpace, Pose, from_spherical, search_pose,
                                                 spherical, term_margin, term_scale, term_shortfall)
from realitybench_addon.core.terms import TermSpec

TARGET = np.zeros(3)
ROW_M = 0.008  # a card's row pitch
FOCAL_PX = 1400.0


def rows_px(pose: Pose) -> float:
    """A card facing +X at the origin: its row pitch in pixels, seen from the pose (pinhole, on axis)."""
    return FOCAL_PX * ROW_M / np.linalg.norm(np.asarray(pose.position) - TARGET)


def view_angle(pose: Pose) -> float:
    d = np.asarray(pose.position) - TARGET
    return math.degrees(math.acos(d[0] / np.linalg.norm(d)))


ROWS = TermSpec("text_row_px", "Rows", "geometric", "px", ">=", 11.0)
ANGLE = TermSpec("view_angle", "Angle", "geometric", "deg", "<=", 45.0)
UNOCCLUDED = TermSpec("card_unoccluded", "Unoccluded", "geometric", "fraction", ">=", 0.95)
TILT = TermSpec("tape_tilt", "Tape tilt", "geometric", "deg", "<=", 5.0)


def test_margins_are_in_each_terms_own_units_scaled_to_comparable_size():
    assert term_scale(ROWS) == pytest.approx(2.2) and term_scale(ANGLE) == 10.0 and term_scale(UNOCCLUDED) == 0.1
    assert term_margin(ROWS, 5.5) == pytest.approx(-2.5)  # half the rows' size: 2.5 units short
    assert term_margin(ANGLE, 65.0) == pytest.approx(-2.0) and term_margin(ANGLE, 40.0) == pytest.approx(0.5)
    between = TermSpec("camera_distance", "Distance", "geometric", "car_lengths", "between", (1.5, 3.0))
    assert term_margin(between, 3.5) == pytest.approx(-1.0) and term_margin(between, 2.0) == pytest.approx(1.0)
    assert term_shortfall(ROWS, 11.0) == pytest.approx(MARGIN)  # passing, but not by the margin
    assert term_shortfall(ROWS, 20.0) == 0.0
    assert term_shortfall(ROWS, float("nan")) > 1  # not measurable from there: far from passing
    flag = TermSpec("on_module", "On module", "geometric", "bool", "is_true")
    assert term_shortfall(flag, False) == 1.0 and term_shortfall(flag, True) == 0.0


def test_a_card_too_far_away_is_approached_until_its_rows_just_pass():
    """The search sees progress: halving the distance (5.5 -> 11 px) is most of the way even while still
    failing. It stops where the rows pass by the margin, not at the card."""
    start = Pose.of((2.0, 0.0, 0.0), TARGET)
    result = search_pose(lambda p: {"text_row_px": rows_px(p), "view_angle": view_angle(p)}, [ROWS, ANGLE], start,
                         OrbitSpace(TARGET), budget=60)
    assert result.fixed and result.before.failing() == ["text_row_px"]
    px = rows_px(result.after.pose)
    assert 11.0 + MARGIN * term_scale(ROWS) <= px <= 11.0 * 1.1  # just passes, with the margin
    needed = FOCAL_PX * ROW_M / 11.0
    moved = np.linalg.norm(np.asarray(result.after.pose.position) - start.position)
    assert moved == pytest.approx(2.0 - needed, abs=0.1)  # straight in, no detour
    assert result.evaluations <= 60


def test_a_card_behind_an_occluder_is_orbited_into_view_by_the_smallest_turn():
    """A post stands between the start and the card: every pose within 30 degrees of the start's direction
    is blocked. The field poses include unblocked ones; the suggestion turns just past the post's edge."""
    def measure(p: Pose):
        _, az, _ = spherical(p.position, TARGET)
        return {"card_unoccluded": 0.3 if abs(math.degrees(az)) < 30 else 1.0, "text_row_px": rows_px(p),
                "view_angle": view_angle(p)}

    start = Pose.of((0.8, 0.0, 0.0), TARGET)
    rng = np.random.default_rng(0)
    draws = [Pose.of(from_spherical(TARGET, rng.uniform(0.5, 1.0), math.radians(rng.uniform(-60, 60)), 0.0), TARGET)
             for _ in range(10)]
    result = search_pose(measure, [UNOCCLUDED, ROWS, ANGLE], start, OrbitSpace(TARGET), draws, budget=60)
    assert result.fixed and result.before.failing() == ["card_unoccluded"]
    _, az, _ = spherical(result.after.pose.position, TARGET)
    assert 30 <= abs(math.degrees(az)) <= 38  # just past the post's edge, not to the draw that first cleared it


def test_a_leaning_tape_is_reported_not_fixable_by_any_move():
    """The tape's lean is the scene's: declared, it is named with its reason and no move is claimed to fix it;
    undeclared, the search finds that no pose changes it."""
    def measure(p: Pose):
        return {"tape_tilt": 9.0, "text_row_px": rows_px(p), "view_angle": view_angle(p)}

    start = Pose.of((2.0, 0.0, 0.0), TARGET)
    declared = search_pose(measure, [TILT, ROWS, ANGLE], start, OrbitSpace(TARGET),
                           scene_state={"tape_tilt": "the tape itself leans; straighten it"})
    assert not declared.fixed and declared.unfixable == {"tape_tilt": "the tape itself leans; straighten it"}
    assert rows_px(declared.after.pose) >= 11.0  # what a move can fix, it still fixes
    found = search_pose(measure, [TILT, ROWS, ANGLE], start, OrbitSpace(TARGET))
    assert not found.fixed and set(found.unfixable) == {"tape_tilt"}
    assert found.unfixable["tape_tilt"].startswith("no pose changed it: 9.0 from each of the")


def test_no_suggestion_leaves_where_a_worker_can_hold_the_phone():
    """The card sits on the floor, seen best from straight above at 40 cm; the worker's phone stays at or
    above 0.5 m and outside a wall at x < 0.3: the search passes within those limits, or says it can't."""
    flat = TermSpec("view_angle", "Angle", "geometric", "deg", "<=", 30.0)

    def measure(p: Pose):
        d = np.asarray(p.position) - TARGET
        return {"text_row_px": rows_px(p), "view_angle": math.degrees(math.acos(d[2] / np.linalg.norm(d)))}

    def feasible(p: Pose):
        if p.position[2] < 0.5:
            return "below the worker's reach"
        if p.position[0] < 0.3:
            return "inside the wall"
        return None

    start = Pose.of((1.5, 0.0, 0.6), TARGET)
    result = search_pose(measure, [ROWS, flat], start, OrbitSpace(TARGET), feasible=feasible, budget=80)
    for e in result.tried[1:]:
        assert feasible(e.pose) is None
    assert result.fixed
    assert result.after.pose.position[2] >= 0.5 and result.after.pose.position[0] >= 0.3


def test_a_worker_turning_in_place_tilts_the_phone_until_the_horizon_is_in_the_band():
    """AimSpace: the photographer stays at the ridge; the horizon (at the eye's height, far away) must cross the
    frame's middle 80% and the roof (below 20 degrees down) must show along the bottom. Looking 40 degrees
    down shows only roof: the search tilts up, stays put, and keeps the yaw."""
    eye = np.array([0.0, 0.0, 6.0])
    half_fov = math.radians(25.0)
    band = TermSpec("horizon_in_band", "Horizon", "geometric", "fraction", ">=", 1.0)
    roof = TermSpec("own_roof_bottom", "Roof", "geometric", "fraction", ">=", 0.04)

    def measure(p: Pose):
        d = np.asarray(p.aim) - np.asarray(p.position)
        pitch = math.asin(d[2] / np.linalg.norm(d))
        y = 0.5 - math.tan(-pitch) / (2 * math.tan(half_fov))  # the horizon's height in the frame, 0 bottom
        in_band = 1.0 if 0.1 <= y <= 0.9 else 0.0
        bottom = math.tan(pitch - half_fov)  # the frame's bottom edge: below -20 degrees shows roof
        return {"horizon_in_band": in_band if np.isfinite(y) else float("nan"),
                "own_roof_bottom": max(0.0, min(1.0, (math.radians(-20) - math.atan(bottom)) / math.radians(10)))}

    start = Pose.of(eye, eye + np.array([math.cos(math.radians(-40)), 0.0, math.sin(math.radians(-40))]))
    result = search_pose(measure, [band, roof], start, AimSpace(eye), budget=60)
    assert result.fixed and "horizon_in_band" in result.before.failing()
    after = result.after.pose
    assert np.allclose(after.position, eye, atol=0.3)
    d = np.asarray(after.aim) - np.asarray(after.position)
    assert -40 < math.degrees(math.asin(d[2] / np.linalg.norm(d))) < 0  # tilted up, still looking down a little
    assert abs(math.degrees(math.atan2(d[1], d[0]))) < 5  # the same direction


def test_moves_are_said_in_a_workers_words_from_where_they_stand():
    from realitybench_addon.core.hints import move_steps, term_hints

    target = np.zeros(3)
    before = Pose.of((2.0, 0.0, 1.5), (0.0, 0.5, 1.0), roll_deg=12.0)  # facing -X, aimed off to one side
    # a worker at +X facing the target has +Y on their right: the orbit goes there, nearer and lower
    after = Pose.of(from_spherical(target, 1.2, math.radians(20), math.atan2(1.3, 2.0)), target)
    steps = move_steps(before, after, target)
    assert steps["distance"].startswith("step ") and steps["distance"].endswith("m closer")
    assert steps["sideways"] == "move 20 degrees to your right around it"  # (no subject named)
    assert steps["height"].startswith("lower the phone")
    assert steps["aim"] == "aim at it (26° off now)" and steps["level"] == "hold the phone level"
    mirrored = Pose.of(from_spherical(target, 1.2, math.radians(-20), math.atan2(1.3, 2.0)), target)
    assert move_steps(before, mirrored, target)["sideways"] == "move 20 degrees to your left around it"
    # turning in place: the aim's turn and tilt
    eye = np.array([0.0, 0.0, 6.0])
    look = Pose.of(eye, eye + np.array([1.0, 0.0, -1.0]))
    up_left = Pose.of(eye, eye + np.array([math.cos(math.radians(10)), math.sin(math.radians(10)), -0.2]))
    turned = move_steps(look, up_left, eye + np.array([10.0, 0, 0]), turning_in_place=True)
    assert turned["turn"] == "turn 10 degrees to your left" and turned["tilt"].startswith("tilt the phone up")
    hints = term_hints(["text_row_px", "view_angle", "tape_tilt", "sharp_at_target"], steps,
                       capture=["tap the target to focus"], unfixable={"tape_tilt": "the tape itself leans"})
    assert hints["text_row_px"] == steps["distance"]
    assert hints["view_angle"] == f"{steps['sideways']}, then {steps['height']}"
    assert hints["tape_tilt"] == "no move fixes this: the tape itself leans"
    assert hints["sharp_at_target"].startswith("tap the target to focus")
