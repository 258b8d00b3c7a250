"""Suggest a Pose in a worker's words (pure): the move from one pose to another as short instructions
("step 0.7 m closer", "move 20 degrees to your left", "hold the phone level"), and a one-line hint for each
failing term, chosen by what the term measures.
"""
from __future__ import annotations

import math
from typing import Optional, Sequence

import numpy as np


STEP_M = 0.05  # moves smaller than these are not worth saying
TURN_DEG = 4.0
ROLL_DEG = 3.0


def _horizontal(v) -> np.ndarray:
    v = np.array(v, float)
    v[2] = 0.0
    return v


def _signed_angle_deg(a, b) -> float:
    """Angle from horizontal vector a to b, counter-clockwise seen from above (positive: to the left)."""
    return math.degrees(math.atan2(a[0] * b[1] - a[1] * b[0], a[0] * b[0] + a[1] * b[1]))


def _direction(pose) -> np.ndarray:
    d = np.asarray(pose.aim, float) - np.asarray(pose.position, float)
    return d / max(np.linalg.norm(d), 1e-9)


def _pitch_deg(d) -> float:
    return math.degrees(math.asin(max(-1.0, min(1.0, d[2]))))


def move_steps(before, after, target, *, turning_in_place: bool = False, walk_words: str = "",
               subject: str = "it") -> dict:
    """Each part of the move in a worker's words, keyed by kind: walk, distance, sideways, height, aim, turn,
    tilt, level. `target` is the point the worker photographs (for the orbit and the distance), `subject` what
    it is in words ("the directory card"); a worker turning in place who must first go elsewhere is told
    `walk_words`."""
    target = np.asarray(target, float)
    p0, p1 = np.asarray(before.position, float), np.asarray(after.position, float)
    out = {}
    if turning_in_place and walk_words and np.linalg.norm(_horizontal(p1 - p0)) >= 0.3:
        out["walk"] = f"{walk_words} ({np.linalg.norm(p1 - p0):.1f} m from here)"
    if not turning_in_place:
        d0, d1 = np.linalg.norm(p0 - target), np.linalg.norm(p1 - target)
        if abs(d1 - d0) >= STEP_M:
            out["distance"] = f"step {d0 - d1:.1f} m closer" if d1 < d0 else f"step back {d1 - d0:.1f} m"
        h0, h1 = _horizontal(p0 - target), _horizontal(p1 - target)
        if np.linalg.norm(h0) > 1e-6 and np.linalg.norm(h1) > 1e-6:
            # seen from the worker facing the target, a counter-clockwise orbit (seen from above) goes right
            orbit = _signed_angle_deg(h0, h1)
            if abs(orbit) >= TURN_DEG:
                side = "right" if orbit > 0 else "left"
                out["sideways"] = f"move {abs(orbit):.0f} degrees to your {side} around {subject}"
    if abs(p1[2] - p0[2]) >= STEP_M and "walk" not in out:
        out["height"] = (f"raise the phone {p1[2] - p0[2]:.1f} m" if p1[2] > p0[2]
                         else f"lower the phone {p0[2] - p1[2]:.1f} m")
    a0, a1 = _direction(before), _direction(after)
    if turning_in_place:
        turn = _signed_angle_deg(_horizontal(a0), _horizontal(a1))
        if abs(turn) >= TURN_DEG:
            out["turn"] = f"turn {abs(turn):.0f} degrees to your {'left' if turn > 0 else 'right'}"
        tilt = _pitch_deg(a1) - _pitch_deg(a0)
        if abs(tilt) >= TURN_DEG:
            out["tilt"] = f"tilt the phone {'up' if tilt > 0 else 'down'} {abs(tilt):.0f} degrees"
    else:
        # aimed at the target from the new spot vs as held: only say it when the aim was off
        on_target = (target - p0) / max(np.linalg.norm(target - p0), 1e-9)
        off = math.degrees(math.acos(max(-1.0, min(1.0, float(a0 @ on_target)))))
        if off >= TURN_DEG:
            out["aim"] = f"aim at {subject} ({off:.0f}° off now)"
    if abs(getattr(before, "roll_deg", 0.0)) >= ROLL_DEG and abs(getattr(after, "roll_deg", 0.0)) < ROLL_DEG:
        out["level"] = "hold the phone level"
    return out


# Which parts of a move answer which term, by what the term measures (its name).
TERM_KINDS = (
    (("sharp", "blur"), ("capture", "distance")),
    (("in_frame", "in_band", "in_view", "glass_in_frame", "bbox"), ("aim", "distance", "tilt", "turn", "sideways")),
    (("px", "cell", "digit", "pixels", "distance", "bar"), ("distance",)),
    (("angle", "face", "front"), ("sideways", "height")),
    (("unoccluded", "visible", "hides", "seen"), ("sideways", "height", "distance")),
    (("ridge", "bottom", "sky"), ("walk", "height", "tilt")),
)


def term_hints(failing: Sequence[str], steps: dict, capture: Sequence[str] = (),
               unfixable: Optional[dict] = None) -> dict:
    """A one-line hint per failing term: the parts of the move that answer it (by what it measures), or why
    no move does."""
    unfixable = unfixable or {}
    parts = dict(steps)
    if capture:
        parts["capture"] = "; ".join(capture)
    out = {}
    for term in failing:
        if term in unfixable:
            out[term] = f"no move fixes this: {unfixable[term]}"
            continue
        said = []
        for words, kinds in TERM_KINDS:
            if any(w in term for w in words):
                said = [parts[k] for k in kinds if k in parts]
                break
        out[term] = ", then ".join(said) if said else ", then ".join(parts.values()) or "no single move found"
    return out

