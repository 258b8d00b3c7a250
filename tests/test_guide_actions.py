"""Closed-loop guidance, the pure part (realitybench_addon/guide/actions.py, baselines.py, report.py): the reply
grammar, the worker's moves in the pose space, the oracle's move as actions, clamping, and the report's
numbers, against formulas written out here."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from realitybench_addon.core.phone import FOCUS_ELSEWHERE, HAND_SHAKE, STEADY, Capture
from realitybench_addon.guide import actions as A
from realitybench_addon.guide.baselines import random_walk_reply
from realitybench_addon.guide.report import episode_rows, group_stats

coord = st.floats(-20, 20, allow_nan=False)
CENTRE = (1.0, -2.0, 0.5)


def state(distance=3.0, azimuth=30.0, height=1.6, yaw=0.0, pitch=0.0, roll=0.0, capture=Capture()):
    return A.WorkerState(CENTRE, distance, azimuth, height, yaw, pitch, roll, capture)


@settings(max_examples=60, deadline=None)
@given(st.floats(0.3, 15), st.floats(-179, 179), st.floats(-3, 6), st.floats(-60, 60), st.floats(-40, 40),
       st.floats(-30, 30))
def test_a_pose_and_its_state_round_trip(distance, azimuth, height, yaw, pitch, roll):
    s = state(distance, azimuth, height, yaw, pitch, roll)
    position, aim, r = s.pose()
    back = A.state_of(position, aim, r, CENTRE, s.capture)
    assert np.allclose(back.position(), s.position(), atol=1e-9)
    assert np.allclose(back.forward(), s.forward(), atol=1e-9)
    # the position is the cylinder's point: distance and azimuth about the centre, the height its Z
    a = math.radians(azimuth)
    assert np.allclose(position, [1.0 + distance * math.cos(a), -2.0 + distance * math.sin(a), height])


@settings(max_examples=60, deadline=None)
@given(st.floats(0.5, 10), st.floats(0.01, 5), st.floats(0.01, 170))
def test_each_move_changes_one_coordinate_and_its_opposite_undoes_it(distance, metres, degrees):
    s = state(distance)
    closer, _ = A.apply_action(s, {"do": "step_closer", "m": metres})
    assert closer.distance_m == pytest.approx(distance - metres) and closer.height_m == s.height_m
    back, _ = A.apply_action(closer, {"do": "step_back", "m": metres})
    assert np.allclose(back.position(), s.position())
    right, _ = A.apply_action(s, {"do": "move_right", "deg": degrees})
    # around the subject: same horizontal distance and height; counter-clockwise seen from above
    p0, p1 = s.position() - np.array(CENTRE), right.position() - np.array(CENTRE)
    assert math.hypot(*p1[:2]) == pytest.approx(distance) and p1[2] == pytest.approx(p0[2])
    assert math.degrees(math.atan2(p0[0] * p1[1] - p0[1] * p1[0], p0[:2] @ p1[:2])) == pytest.approx(degrees)
    assert A.walked_m(s, right) == pytest.approx(math.radians(degrees) * distance)
    up, _ = A.apply_action(s, {"do": "raise", "m": metres})
    assert up.position()[2] - s.position()[2] == pytest.approx(metres)
    assert A.walked_m(s, up) == pytest.approx(metres)


@settings(max_examples=80, deadline=None)
@given(st.floats(0.4, 12), st.floats(-179, 179), st.floats(-2, 5), st.floats(-50, 50), st.floats(-30, 30),
       st.floats(0.4, 12), st.floats(-179, 179), st.floats(-2, 5), st.sampled_from([0.0, 7.0]))
def test_the_oracle_actions_reach_the_suggested_pose(d0, a0, h0, yaw, pitch, d1, a1, h1, roll):
    before = state(d0, a0, h0, yaw, pitch, roll, Capture(mode=FOCUS_ELSEWHERE, focus_factor=0.4))
    after = state(d1, a1, h1, 0.0, 0.0, 0.0, Capture(mode=STEADY, focus_factor=1.0, lens="telephoto"))
    acts = A.oracle_actions(before, after)
    assert all(A.action_problem(a) is None for a in acts)
    assert A.parse_actions(json.dumps({"actions": acts[:A.MAX_ACTIONS]})).in_grammar
    end, records, walked = A.apply_actions(before, acts, lambda p: None)
    assert np.linalg.norm(end.position() - after.position()) < 1e-3  # the file keeps 4 decimals
    assert np.allclose(end.forward(), after.forward(), atol=1e-3) and end.roll_deg == 0.0
    assert end.capture.lens == "telephoto" and end.capture.mode == STEADY and end.capture.focus_factor == 1.0
    assert walked == pytest.approx(sum(r["walked_m"] for r in records))


def test_capture_actions_fix_focus_and_shake():
    s = state(capture=Capture(mode=HAND_SHAKE, shake_rate_deg_s=5.0, shake_speed_m_s=0.02))
    steady, _ = A.apply_action(s, {"do": "hold_still"})
    assert steady.capture.mode == STEADY and steady.capture.shake_rate_deg_s == 0.0
    focused, _ = A.apply_action(state(capture=Capture(mode=FOCUS_ELSEWHERE, focus_factor=3.0)),
                                {"do": "tap_to_focus"})
    assert focused.capture.mode == STEADY and focused.capture.focus_factor == 1.0
    turned, _ = A.apply_action(s, {"do": "rotate_phone", "orientation": "portrait"})
    assert turned.capture.orientation == "portrait"


def test_a_move_into_a_wall_is_clamped_at_the_wall_and_said():
    # the worker may not stand beyond x = 2.5 (a building's wall): stepping back along +x stops there
    s = state(distance=1.0, azimuth=0.0)  # at x = 2.0
    wall = lambda p: "inside the building" if p[0] > 2.5 else None  # noqa: E731
    end, record = A.apply_clamped(s, {"do": "step_back", "m": 2.0}, wall)
    assert end.position()[0] == pytest.approx(2.5, abs=1e-3)
    assert record["done_share"] == pytest.approx(0.25, abs=1e-3) and "inside the building" in record["note"]
    assert record["walked_m"] == pytest.approx(0.5, abs=1e-3)
    stuck, record = A.apply_clamped(end, {"do": "step_back", "m": 1.0}, wall)
    assert "not possible" in record["note"] or record["done_share"] < 1e-3
    through, record = A.apply_clamped(s, {"do": "step_closer", "m": 5.0}, lambda p: None)
    assert through.distance_m >= 0 and record["done_share"] < 1.0  # never through the subject


@pytest.mark.parametrize("text, problem", [
    ('{"actions": [{"do": "done"}]}', None),
    ('{"actions": [{"do": "step_closer", "m": 0.5}, {"do": "hold_level"}]}', None),
    ('{"actions": [{"do": "switch_lens", "lens": "telephoto", "zoom": 2}]}', None),
    ('Sure: {"actions": [{"do": "done"}]}', "not one JSON object"),
    ('```json\n{"actions": [{"do": "done"}]}\n```', "not one JSON object"),
    ('{"actions": [{"do": "done"}], "actions": []}', "not one JSON object"),
    ('{"actions": [{"do": "done"}, {"do": "hold_level"}]}', "done must be alone"),
    ('{"actions": [{"do": "step_closer", "m": true}]}', "must be a number"),
    ('{"actions": [{"do": "step_closer", "m": 0}]}', "must be a number"),
    ('{"actions": [{"do": "raise", "m": 9}]}', "at most 5"),
    ('{"actions": [{"do": "fly", "m": 1}]}', "unknown action"),
    ('{"actions": [{"do": "step_closer", "deg": 1}]}', "takes the keys"),
    ('{"actions": []}', "1 to 8"),
    ('{"actions": [{"do": "step_closer", "m": NaN}]}', "not one JSON object"),
    ('', "empty reply"),
])
def test_the_reply_grammar(text, problem):
    parsed = A.parse_actions(text)
    assert parsed.in_grammar == (problem is None)
    if problem:
        assert problem in parsed.problem


def test_the_random_walk_keeps_the_oracle_step_sizes_and_says_done_last():
    episode = {"id": "e-1", "oracle": {"actions": [{"do": "tap_to_focus"}, {"do": "step_closer", "m": 0.7},
                                                   {"do": "move_left", "deg": 20.0}, {"do": "turn_right", "deg": 5}]}}
    first = random_walk_reply(episode, 1, 4)
    assert [a.get("m", a.get("deg")) for a in first] == [0.7, 20.0]
    assert first[0]["do"] in ("step_closer", "step_back", "raise", "lower")
    assert first[1]["do"] in ("move_left", "move_right")
    assert first == random_walk_reply(episode, 1, 4)  # one generator per (seed, episode, turn)
    assert random_walk_reply(episode, 4, 4) == [{"do": "done"}]


def test_report_numbers_by_hand():
    eps = [{"id": f"e{i}", "environment": env, "oracle": {"walked_m": w}}
           for i, (env, w) in enumerate([("a", 1.0), ("a", 2.0), ("b", 3.0)])]
    turns = {"e0": [{"turn": 1, "accepted": False, "done": False, "in_grammar": True, "walked_m": 1.5},
                    {"turn": 2, "accepted": True, "done": True, "in_grammar": True, "end": "done"}],
             "e1": [{"turn": 1, "accepted": False, "done": True, "in_grammar": True, "end": "done"}],
             "e2": [{"turn": 1, "accepted": False, "done": False, "in_grammar": True, "walked_m": 0.5},
                    {"turn": 2, "accepted": True, "done": False, "in_grammar": True, "walked_m": 0.25},
                    {"turn": 3, "accepted": False, "done": False, "in_grammar": False, "end": "out_of_grammar"}]}
    rows = episode_rows(eps, turns)
    assert [(r["solved"], r["premature"], r["missed"], r["turns"], r["walked_m"]) for r in rows] == [
        (1.0, 0.0, 0.0, 2.0, 1.5), (0.0, 1.0, 0.0, 1.0, 0.0), (0.0, 0.0, 1.0, 3.0, 0.75)]
    g = group_stats(rows, ["a", "a", "b"], seed=0)
    assert g["solved"]["value"] == pytest.approx(1 / 3) and g["turns"]["value"] == pytest.approx(2.0)
    assert g["in_grammar_share"] == pytest.approx(5 / 6) and g["oracle_m"] == pytest.approx(2.0)
    assert g["walked_m"]["value"] == pytest.approx(0.75)
    # stratified by environment, "b" (one episode) is always drawn once: solved ranges over {0, 1/3, 2/3}
    assert 0.0 <= g["solved"]["lo"] <= 1 / 3 <= g["solved"]["hi"] <= 2 / 3


def test_a_reply_whose_end_a_worker_can_reach_is_done_in_full():
    # past the wall and back: the end (x = 2.2) is a place a worker can be, so both moves are done in full
    s = state(distance=1.0, azimuth=0.0)  # at x = 2.0
    wall = lambda p: "inside the building" if p[0] > 2.5 else None  # noqa: E731
    end, records, walked = A.apply_actions(s, [{"do": "step_back", "m": 1.0}, {"do": "step_closer", "m": 0.8}], wall)
    assert end.position()[0] == pytest.approx(2.2) and [r["done_share"] for r in records] == [1.0, 1.0]
    assert walked == pytest.approx(1.8)
    # ending in the wall: each move in turn as far as it goes (back to the wall at 2.5, then 0.8 closer)
    end, records, _ = A.apply_actions(s, [{"do": "step_back", "m": 1.0}, {"do": "step_closer", "m": 0.2}], wall)
    assert end.position()[0] == pytest.approx(2.3, abs=1e-3) and records[0]["done_share"] == pytest.approx(0.5, abs=1e-3)
