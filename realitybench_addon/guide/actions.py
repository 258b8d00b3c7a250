"""The worker's actions in closed-loop guidance (pure; no bpy): the JSON grammar a model replies in, its strict
parser, and the moves in the worker's pose space.

The worker's pose is held in coordinates about the photo's subject (`WorkerState`): the horizontal distance to
it, the direction around it (azimuth, degrees counter-clockwise seen from above), the phone's height, where the
phone points relative to the line to the subject (yaw and pitch offsets: 0, 0 is aimed at it), the roll, and
the capture (core/phone.Capture: lens, zoom, orientation, focus, steadiness). Each action changes one of them:

    step_closer / step_back  m    the horizontal distance (the phone's height and aim offsets kept)
    move_left / move_right   deg  around the subject at the same distance and height (right: counter-clockwise
                                  seen from above, as core/hints.py says it)
    raise / lower            m    the phone's height
    turn_left / turn_right   deg  the aim's yaw offset;  tilt_up / tilt_down deg: its pitch offset
    hold_level                    roll 0
    tap_to_focus, hold_still      the capture's focus on the subject, a steady hand
    switch_lens {lens, zoom}, rotate_phone {orientation}
    done                          this photo meets the requirement (alone in a reply)

So every pose is reachable, and the oracle's move (Suggest a Pose's suggestion) is an exact list of actions
(`oracle_actions`). `apply_clamped` applies one action as far as where a worker can be allows (a `feasible`
function of the position), and says so when it could not be done in full.
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, replace
from typing import Callable, Optional

import numpy as np

from ..core.phone import FOCUS_ELSEWHERE, HAND_SHAKE, LANDSCAPE, PORTRAIT, STEADY, Capture, Phone

MAX_ACTIONS = 8
MAX_PITCH_DEG = 89.0  # the phone never points straight up or down (the aim's heading would be undefined)
MIN_DISTANCE_M = 0.1  # core.phone.MIN_FOCUS_M: nearer than this no phone focuses
EPS = 1e-6
LENSES = ("main", "ultra_wide", "telephoto")
# do -> (amount key, largest amount) for the moves; the other actions take no amount
MOVES = {"step_closer": ("m", 20.0), "step_back": ("m", 20.0), "move_left": ("deg", 180.0),
         "move_right": ("deg", 180.0), "raise": ("m", 5.0), "lower": ("m", 5.0), "turn_left": ("deg", 180.0),
         "turn_right": ("deg", 180.0), "tilt_up": ("deg", 90.0), "tilt_down": ("deg", 90.0)}
PLAIN = ("hold_level", "tap_to_focus", "hold_still", "done")
ACTION_KEYS = {**{k: {"do", v[0]} for k, v in MOVES.items()}, **{k: {"do"} for k in PLAIN},
               "switch_lens": {"do", "lens", "zoom"}, "rotate_phone": {"do", "orientation"}}
WALKS = ("step_closer", "step_back", "move_left", "move_right", "raise", "lower")  # the ones that move the phone


def grammar_schema() -> dict:
    """The reply's JSON schema, as the model is shown it."""
    moves = [{"type": "object", "properties": {"do": {"enum": [k for k in MOVES if MOVES[k][0] == unit]},
                                               unit: {"type": "number", "exclusiveMinimum": 0}},
              "required": ["do", unit], "additionalProperties": False} for unit in ("m", "deg")]
    return {"type": "object", "required": ["actions"], "additionalProperties": False, "properties": {"actions": {
        "type": "array", "minItems": 1, "maxItems": MAX_ACTIONS, "items": {"oneOf": moves + [
            {"type": "object", "properties": {"do": {"enum": list(PLAIN)}}, "required": ["do"],
             "additionalProperties": False},
            {"type": "object", "properties": {"do": {"const": "switch_lens"}, "lens": {"enum": list(LENSES)},
                                              "zoom": {"type": "number", "minimum": 1}},
             "required": ["do", "lens", "zoom"], "additionalProperties": False},
            {"type": "object", "properties": {"do": {"const": "rotate_phone"},
                                              "orientation": {"enum": [LANDSCAPE, PORTRAIT]}},
             "required": ["do", "orientation"], "additionalProperties": False}]}}}}


GRAMMAR_WORDS = """\
- {"do": "step_closer", "m": M} or {"do": "step_back", "m": M}: walk M metres toward or away from the subject \
(0 < M <= 20), the phone kept at its height
- {"do": "move_left", "deg": D} or {"do": "move_right", "deg": D}: walk D degrees around the subject, at the same \
distance (0 < D <= 180)
- {"do": "raise", "m": M} or {"do": "lower", "m": M}: hold the phone M metres higher or lower (0 < M <= 5)
- {"do": "turn_left", "deg": D}, {"do": "turn_right", "deg": D}, {"do": "tilt_up", "deg": D}, \
{"do": "tilt_down", "deg": D}: point the phone elsewhere
- {"do": "hold_level"}: straighten the phone (no roll)
- {"do": "tap_to_focus"}: tap the subject on the screen to focus on it
- {"do": "hold_still"}: hold the phone still (brace the elbows) while it takes the photo
- {"do": "switch_lens", "lens": "main" | "ultra_wide" | "telephoto", "zoom": Z}: another camera of the phone, \
Z >= 1 its digital zoom
- {"do": "rotate_phone", "orientation": "landscape" | "portrait"}
- {"do": "done"}: this photo meets the requirement; the worker keeps it (alone in the list)"""


@dataclass(frozen=True)
class Parsed:
    in_grammar: bool
    actions: tuple = ()
    problem: Optional[str] = None

    @property
    def done(self) -> bool:
        return self.in_grammar and len(self.actions) == 1 and self.actions[0]["do"] == "done"


def _no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError("a key appears twice")
    return dict(pairs)


def _bad_constant(name):
    raise ValueError(f"{name} is not JSON")


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def action_problem(action) -> Optional[str]:
    """Why one action is out of the grammar, or None."""
    if not isinstance(action, dict) or not isinstance(action.get("do"), str):
        return "an action is not an object with a string \"do\""
    do = action["do"]
    if do not in ACTION_KEYS:
        return f"unknown action {do!r}"
    if set(action) != ACTION_KEYS[do]:
        return f"{do} takes the keys {sorted(ACTION_KEYS[do])}, got {sorted(action)}"
    if do in MOVES:
        key, high = MOVES[do]
        if not _number(action[key]) or not 0 < action[key] <= high:
            return f"{do}: {key} must be a number above 0 and at most {high:g}"
    if do == "switch_lens" and (action["lens"] not in LENSES or not _number(action["zoom"]) or action["zoom"] < 1):
        return "switch_lens: lens must be main, ultra_wide or telephoto and zoom a number of at least 1"
    if do == "rotate_phone" and action["orientation"] not in (LANDSCAPE, PORTRAIT):
        return "rotate_phone: orientation must be landscape or portrait"
    return None


def parse_actions(text: Optional[str]) -> Parsed:
    """A reply strictly in the grammar: one JSON object, its only key `actions`, 1 to MAX_ACTIONS actions each
    in the grammar, `done` alone. No prose, no code fence, no duplicate key (as the benchmark's strict parse)."""
    if not isinstance(text, str) or not text.strip():
        return Parsed(False, problem="empty reply")
    try:
        obj = json.JSONDecoder(object_pairs_hook=_no_duplicates, parse_constant=_bad_constant).decode(text.strip())
    except ValueError as exc:
        return Parsed(False, problem=f"not one JSON object ({str(exc)[:80]})")
    if not isinstance(obj, dict) or set(obj) != {"actions"}:
        return Parsed(False, problem="not an object whose only key is \"actions\"")
    actions = obj["actions"]
    if not isinstance(actions, list) or not 1 <= len(actions) <= MAX_ACTIONS:
        return Parsed(False, problem=f"\"actions\" is not a list of 1 to {MAX_ACTIONS} actions")
    for action in actions:
        problem = action_problem(action)
        if problem:
            return Parsed(False, problem=problem)
    if any(a["do"] == "done" for a in actions) and len(actions) > 1:
        return Parsed(False, problem="done must be alone in the list")
    return Parsed(True, tuple(actions))


# ---- the worker's pose space ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class WorkerState:
    """Where the worker holds the phone, about the subject at `centre`, and how the photo is taken."""

    centre: tuple
    distance_m: float  # horizontal distance to the centre
    azimuth_deg: float  # of the phone seen from the centre, counter-clockwise from +X
    height_m: float  # the phone's world Z
    yaw_deg: float  # the aim's heading off the line to the centre (positive: to the left)
    pitch_deg: float  # the aim's pitch off the line to the centre (positive: up)
    roll_deg: float
    capture: Capture

    def position(self) -> np.ndarray:
        a = math.radians(self.azimuth_deg)
        c = np.asarray(self.centre, float)
        return np.array([c[0] + self.distance_m * math.cos(a), c[1] + self.distance_m * math.sin(a), self.height_m])

    def forward(self) -> np.ndarray:
        p, c = self.position(), np.asarray(self.centre, float)
        d = c - p
        heading = math.atan2(d[1], d[0]) + math.radians(self.yaw_deg)
        pitch = math.atan2(d[2], math.hypot(d[0], d[1])) + math.radians(self.pitch_deg)
        pitch = max(-math.radians(MAX_PITCH_DEG), min(math.radians(MAX_PITCH_DEG), pitch))
        return np.array([math.cos(pitch) * math.cos(heading), math.cos(pitch) * math.sin(heading), math.sin(pitch)])

    def pose(self) -> tuple:
        """(position, aim point, roll): the aim at the centre's distance along the phone's view."""
        p = self.position()
        reach = max(float(np.linalg.norm(np.asarray(self.centre, float) - p)), MIN_DISTANCE_M)
        return p, p + self.forward() * reach, self.roll_deg

    def to_dict(self) -> dict:
        out = asdict(self)
        out["centre"] = [float(v) for v in self.centre]
        out["capture"] = self.capture.to_dict()
        return out

    @staticmethod
    def from_dict(data: dict) -> "WorkerState":
        data = dict(data)
        data["centre"] = tuple(float(v) for v in data["centre"])
        data["capture"] = Capture.from_dict(data["capture"])
        return WorkerState(**data)


def _heading_pitch(v) -> tuple[float, float]:
    v = np.asarray(v, float)
    return math.atan2(v[1], v[0]), math.atan2(v[2], math.hypot(v[0], v[1]))


def _wrap_deg(a: float) -> float:
    return (a + 180.0) % 360.0 - 180.0


def state_of(position, aim, roll_deg: float, centre, capture: Capture) -> WorkerState:
    """The worker's state of a pose (position, aim point, roll) about `centre`."""
    p, c = np.asarray(position, float), np.asarray(centre, float)
    offset = p - c
    to_centre_h, to_centre_p = _heading_pitch(c - p)
    heading, pitch = _heading_pitch(np.asarray(aim, float) - p)
    return WorkerState(tuple(float(v) for v in c), float(math.hypot(offset[0], offset[1])),
                       math.degrees(math.atan2(offset[1], offset[0])), float(p[2]),
                       _wrap_deg(math.degrees(heading - to_centre_h)), math.degrees(pitch - to_centre_p),
                       float(roll_deg), capture)


def apply_action(state: WorkerState, action: dict, phone: Optional[Phone] = None) -> tuple[WorkerState, Optional[str]]:
    """One action, unclamped. Returns the new state and a note when the phone cannot do it (no such lens, a zoom
    past the phone's; the zoom is then clamped)."""
    do = action["do"]
    amount = action.get(MOVES.get(do, ("",))[0]) if do in MOVES else None
    sign = -1.0 if do in ("step_closer", "move_left", "lower", "turn_right", "tilt_down") else 1.0
    if do in ("step_closer", "step_back"):
        return replace(state, distance_m=state.distance_m + sign * amount), None
    if do in ("move_left", "move_right"):  # facing the subject, a counter-clockwise walk goes right
        return replace(state, azimuth_deg=state.azimuth_deg + sign * amount), None
    if do in ("raise", "lower"):
        return replace(state, height_m=state.height_m + sign * amount), None
    if do in ("turn_left", "turn_right"):
        return replace(state, yaw_deg=_wrap_deg(state.yaw_deg + sign * amount)), None
    if do in ("tilt_up", "tilt_down"):
        return replace(state, pitch_deg=state.pitch_deg + sign * amount), None
    if do == "hold_level":
        return replace(state, roll_deg=0.0), None
    capture = state.capture
    if do == "tap_to_focus":
        mode = STEADY if capture.mode == FOCUS_ELSEWHERE else capture.mode
        return replace(state, capture=replace(capture, mode=mode, focus_factor=1.0)), None
    if do == "hold_still":
        mode = STEADY if capture.mode == HAND_SHAKE else capture.mode
        return replace(state, capture=replace(capture, mode=mode, shake_rate_deg_s=0.0, shake_speed_m_s=0.0)), None
    if do == "rotate_phone":
        return replace(state, capture=replace(capture, orientation=action["orientation"])), None
    if do == "switch_lens":
        return _switch_lens(state, action, phone)
    return state, None  # done


def _switch_lens(state: WorkerState, action: dict, phone: Optional[Phone]):
    lens, zoom = action["lens"], float(action["zoom"])
    if phone is not None and lens != "main" and getattr(phone, lens) is None:
        return state, f"switch_lens: this phone has no {lens} camera"
    top = phone.max_digital_zoom if phone is not None else zoom
    note = f"switch_lens: this phone zooms to {top:g}x at most" if zoom > top else None
    return replace(state, capture=replace(state.capture, lens=lens, zoom=min(zoom, top))), note


def walked_m(before: WorkerState, after: WorkerState) -> float:
    """How far the worker walked (or moved the phone) from one state to the next: the change in distance, the
    arc around the subject at the mean distance, and the change in height."""
    arc = math.radians(abs(_wrap_deg(after.azimuth_deg - before.azimuth_deg))) * \
        0.5 * (before.distance_m + after.distance_m)
    return abs(after.distance_m - before.distance_m) + arc + abs(after.height_m - before.height_m)


def scaled(action: dict, fraction: float) -> dict:
    key = MOVES[action["do"]][0]
    return {**action, key: action[key] * fraction}


def reach_problem(state: WorkerState) -> Optional[str]:
    """Why no worker can hold the phone so, whatever the scene: past the subject, nearer than a phone focuses.
    (A phone tilted past straight up or down points at MAX_PITCH_DEG: `WorkerState.forward`.)"""
    if state.distance_m < 0:
        return "the worker cannot walk through the subject"
    if float(np.linalg.norm(state.position() - np.asarray(state.centre, float))) < MIN_DISTANCE_M:
        return f"the phone would be nearer the subject than it focuses ({MIN_DISTANCE_M} m)"
    return None


def apply_clamped(state: WorkerState, action: dict, feasible: Callable[[np.ndarray], Optional[str]],
                  phone: Optional[Phone] = None, iterations: int = 14) -> tuple[WorkerState, dict]:
    """One action, as far as the worker can do it: a move whose end is not feasible (`feasible(position)` gives
    why, or None; `reach_problem` too) is done to the largest share of it that is, found by bisection. Returns
    the new state and the record of what was done: the action, the share done, a note when not all of it."""
    new, note = apply_action(state, action, phone)
    record = {"action": action, "done_share": 1.0, "note": note, "walked_m": 0.0}
    if action["do"] not in MOVES:
        return new, record

    def problem(s: WorkerState) -> Optional[str]:
        return reach_problem(s) or (feasible(s.position()) if action["do"] in WALKS else None)

    why = problem(new)
    if why is not None:
        lo, hi = 0.0, 1.0
        for _ in range(iterations):
            mid = 0.5 * (lo + hi)
            if problem(apply_action(state, scaled(action, mid), phone)[0]) is None:
                lo = mid
            else:
                hi = mid
        new = apply_action(state, scaled(action, lo), phone)[0] if lo > 0 else state
        key = MOVES[action["do"]][0]
        done = action[key] * lo
        record.update(done_share=round(lo, 4), note=(f"{action['do']} {action[key]:g} {key}: " + (
            f"only {done:.2f} {key} was possible" if lo > 0 else "not possible") + f" ({why})"))
    record["walked_m"] = walked_m(state, new)
    return new, record


def apply_actions(state: WorkerState, actions, feasible, phone: Optional[Phone] = None):
    """Every action of a reply in order (`done` does nothing). The reply is where to go: when its end is a place a
    worker can be, every action is done in full (the worker finds the way there: a ladder to the ridge, around a
    car); otherwise each is done in turn as far as the worker can (`apply_clamped`). Returns the end state, each
    action's record and the metres walked."""
    end, records = state, []
    for action in actions:
        after, note = apply_action(end, action, phone)
        records.append({"action": action, "done_share": 1.0, "note": note, "walked_m": walked_m(end, after)})
        end = after
    walks = any(a["do"] in WALKS for a in actions)
    if reach_problem(end) is None and not (walks and feasible(end.position()) is not None):
        return end, records, sum(r["walked_m"] for r in records)
    records = []
    for action in actions:
        state, record = apply_clamped(state, action, feasible, phone)
        records.append(record)
    return state, records, sum(r["walked_m"] for r in records)


# ---- the oracle's move as actions -----------------------------------------------------------------------------

def _signed(amount: float, positive: str, negative: str, key: str, digits: int) -> list:
    """`amount` as actions of the grammar: one, or several of at most the action's largest amount each."""
    do = positive if amount > 0 else negative
    value, high = round(abs(amount), digits), MOVES[do][1]
    out = []
    while value > 0:
        part = min(value, high)
        out.append({"do": do, key: part})
        value = round(value - part, digits)
    return out


def capture_actions(before: Capture, after: Capture) -> list:
    out = []
    if before.mode == FOCUS_ELSEWHERE and after.mode == STEADY or after.focus_factor != before.focus_factor:
        out.append({"do": "tap_to_focus"})
    if before.mode == HAND_SHAKE and after.mode == STEADY:
        out.append({"do": "hold_still"})
    if (after.lens, after.zoom) != (before.lens, before.zoom):
        out.append({"do": "switch_lens", "lens": after.lens, "zoom": after.zoom})
    if after.orientation != before.orientation:
        out.append({"do": "rotate_phone", "orientation": after.orientation})
    return out


def move_actions(before: WorkerState, after: WorkerState, digits: int = 4) -> list:
    """The walking part of the move from one state to another: the distance, around, the height."""
    return (_signed(after.distance_m - before.distance_m, "step_back", "step_closer", "m", digits)
            + _signed(_wrap_deg(after.azimuth_deg - before.azimuth_deg), "move_right", "move_left", "deg", digits)
            + _signed(after.height_m - before.height_m, "raise", "lower", "m", digits))


def aim_actions(before: WorkerState, after: WorkerState, digits: int = 4) -> list:
    out = (_signed(_wrap_deg(after.yaw_deg - before.yaw_deg), "turn_left", "turn_right", "deg", digits)
           + _signed(after.pitch_deg - before.pitch_deg, "tilt_up", "tilt_down", "deg", digits))
    if abs(after.roll_deg) < 1e-6 and abs(before.roll_deg) >= 1e-6:
        out.append({"do": "hold_level"})
    return out


def feasible_order(state: WorkerState, moves: list, feasible, phone: Optional[Phone] = None) -> list:
    """The walking actions in the first order (of all orders, as given first) whose every step a worker can do in
    full; the given order when none can."""
    from itertools import permutations

    for order in permutations(moves):
        s, whole = state, True
        for action in order:
            s, record = apply_clamped(s, action, feasible, phone)
            if record["done_share"] < 1.0:
                whole = False
                break
        if whole:
            return list(order)
    return list(moves)


def oracle_actions(before: WorkerState, after: WorkerState, feasible=None, phone: Optional[Phone] = None) -> list:
    """The move from `before` to `after` as the grammar's actions: the capture's fixes, the walk (in an order a
    worker can do in full, given `feasible`), then the aim and the roll."""
    moves = move_actions(before, after)
    if feasible is not None:
        moves = feasible_order(before, moves, feasible, phone)
    return capture_actions(before.capture, after.capture) + moves + aim_actions(before, after)
