"""How workers hold a phone, the vocabulary every environment's pose sampler shares (pure).

A pose model lists `Posture`s, each drawn with probability proportional to its `share`: how high
the phone is held, how far from the target the worker stands, how far the arm reaches out. The
aim then carries a hand's angular error. Environment modules (roof_poses, lot_poses, the panel
room, the ridge) decide where a worker can stand; these pieces are the same everywhere.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np


@dataclass(frozen=True)
class Posture:
    """One way of holding the phone.

    height_m:    the phone's height above what the worker stands on (roof, ground, floor, ridge),
                 uniform; None where the sampler derives it (the panel room: the aimed point's height
                 plus a normal offset of `height_sd_m`)
    distance_m:  this posture's own distance range from the target (log-uniform); None: the model's
    reach_m:     how far the arm holds the phone out towards the target (uniform; 0: not at all)
    """

    name: str
    share: float
    height_m: Optional[tuple[float, float]] = None
    distance_m: Optional[tuple[float, float]] = None
    reach_m: tuple[float, float] = (0.0, 0.0)
    height_sd_m: float = 0.0


def aim_with_error(rng: np.random.Generator, position: np.ndarray, target: np.ndarray, sd_deg: float) -> np.ndarray:
    """`target` moved sideways by a hand's angular error (normal, sd_deg per axis)."""
    target = np.asarray(target, float)
    forward = target - np.asarray(position, float)
    dist = float(np.linalg.norm(forward))
    forward /= dist
    side = np.cross(forward, [0.0, 0.0, 1.0])
    side = side / np.linalg.norm(side) if np.linalg.norm(side) > 1e-6 else np.array([1.0, 0.0, 0.0])
    up = np.cross(side, forward)
    ex, ey = np.radians(rng.normal(0.0, sd_deg, 2))
    return target + dist * (math.tan(ex) * side + math.tan(ey) * up)
