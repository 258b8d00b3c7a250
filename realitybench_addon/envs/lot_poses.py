"""Where a vehicle-intake technician holds the phone in the parking lot (pure): shared by the lot
environments.

The worker stands (or crouches) on the ground at a horizontal distance from a target point,
at an azimuth around the direction the target faces (a car's face, a panel's normal, the
board's front); the phone is at the stance's height; the aim has a few degrees of hand error,
and some frames are aimed at something else. Feet never land inside a car (with a body's
width of margin), the building, a pole or a tree: a drawn spot there is redrawn, and when
nothing standable is drawn the worker steps back along the target's facing direction.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from ..core.parking_lot import Box, LotPlan, car_boxes
from ..core.rng import log_uniform, pick
from .base import FieldPose
from .poses import Posture, aim_with_error

BODY_MARGIN_M = 0.3  # feet stay this far from a car's body


@dataclass(frozen=True)
class LotPoseModel:
    postures: tuple[Posture, ...]  # height_m above the ground; distance_m: a posture's own range
    distance_m: tuple[float, float]  # horizontal distance from the target, log-uniform
    azimuth_sd_deg: float  # spread around the target's facing direction
    aim_sd_deg: float
    miss_share: float = 0.0  # frames aimed at something else (`elsewhere`)
    roll_sd_deg: float = 4.0


def inside_box(box: Box, x: float, y: float, margin: float = 0.0) -> bool:
    h = math.radians(box.heading_deg)
    dx, dy = x - box.x, y - box.y
    along = dx * math.cos(h) + dy * math.sin(h)
    across = -dx * math.sin(h) + dy * math.cos(h)
    return abs(along) <= box.half_l + margin and abs(across) <= box.half_w + margin


def obstacle_boxes(plan: LotPlan) -> list[Box]:
    """Footprints a worker cannot stand in: every car, the building, poles, tree trunks, extras."""
    out = []
    for i, car in enumerate(plan.cars):
        out += car_boxes(car, f"Car{i}")
    for b in plan.scenery_boxes():
        if b.owner.startswith("Curb"):
            continue  # one can stand on a curb
        if b.owner.startswith("Tree") and b.z0 > 0.0:
            continue  # a crown is overhead
        out.append(b)
    return out


def standable(plan: LotPlan, x: float, y: float, boxes: Optional[list[Box]] = None) -> bool:
    boxes = obstacle_boxes(plan) if boxes is None else boxes
    if y < plan.building_front_y + 0.3 or abs(x) > 80.0 or abs(y) > 80.0:
        return False
    return not any(inside_box(b, x, y, BODY_MARGIN_M if b.owner.startswith("Car") else 0.2) for b in boxes)


def sight_blocked(position, target, boxes: list[Box], skip=("Car0", "Technician"), samples: int = 40) -> bool:
    """Does the straight line from `position` to `target` pass through a box (other than `skip`'s)
    below its top? Sampled along the line; the boxes are conservative, so this errs on "blocked".
    The subject car and the technician holding the board are part of the picture, not in its way."""
    p, t = np.asarray(position, float), np.asarray(target, float)
    for s in np.linspace(0.04, 0.96, samples):
        q = p + s * (t - p)
        for b in boxes:
            if b.owner not in skip and q[2] < b.z1 and inside_box(b, q[0], q[1]):
                return True
    return False


def _fallback_spot(plan, target, facing_deg, d, d_range, height, boxes, line_of_sight) -> tuple[float, float]:
    """Out along the facing direction at the drawn distance if there is room (and, with `line_of_sight`, a
    view); else the standable (clear) spot whose azimuth, then distance, is nearest the drawn ones, within
    the distance range; else straight out along the facing until there is room."""
    lo, hi = d_range
    candidates = []
    for k, dd in enumerate(np.geomspace(lo, hi, 8)):
        for off in np.arange(-180.0, 180.0, 10.0):
            az = math.radians(facing_deg + off)
            xy = (target[0] + dd * math.cos(az), target[1] + dd * math.sin(az))
            candidates.append((abs(off), abs(math.log(dd / d)), xy))
    candidates.sort(key=lambda c: (c[0], c[1]))
    for _off, _dist, xy in candidates:
        if standable(plan, *xy, boxes) and not (line_of_sight and sight_blocked((*xy, height), target, boxes)):
            return xy
    az = math.radians(facing_deg)
    spots = [(target[0] + dd * math.cos(az), target[1] + dd * math.sin(az)) for dd in np.linspace(lo, hi + 12.0, 60)]
    return next((xy for xy in spots if standable(plan, *xy, boxes)), spots[-1])


def draw_lot_pose(plan: LotPlan, target, facing_deg: float, model: LotPoseModel, rng: np.random.Generator, *,
                  aim=None, elsewhere: Optional[Callable] = None, distance_m: Optional[tuple] = None,
                  line_of_sight: bool = False) -> FieldPose:
    """A field pose around world point `target`; `facing_deg`: the azimuth the target faces (the worker
    stands out along it); `aim`: the point aimed at (default the target); `elsewhere(rng)` a miss point.
    `line_of_sight`: the worker picks a spot from which no other car stands between the phone and the
    target (drawn spots that fail are redrawn like unstandable ones)."""
    target = np.asarray(target, float)
    boxes = obstacle_boxes(plan)
    posture = pick(rng, model.postures)
    lo, hi = distance_m or posture.distance_m or model.distance_m
    height = float(rng.uniform(*posture.height_m))
    for _attempt in range(48):
        d = log_uniform(rng, lo, hi)
        az = math.radians(facing_deg + rng.normal(0.0, model.azimuth_sd_deg))
        x, y = target[0] + d * math.cos(az), target[1] + d * math.sin(az)
        if standable(plan, x, y, boxes) and not (line_of_sight and sight_blocked((x, y, height), target, boxes)):
            break
    else:  # nothing drawn fits: the nearest spot with room (and a view) to the drawn direction and distance
        x, y = _fallback_spot(plan, target, facing_deg, d, (lo, hi), height, boxes, line_of_sight)
    position = np.array([x, y, height])
    aimed = np.asarray(aim if aim is not None else target, float)
    name = posture.name
    if elsewhere is not None and rng.random() < model.miss_share:
        aimed = np.asarray(elsewhere(rng), float)
        name = f"{name}, aimed elsewhere"
    else:
        aimed = aim_with_error(rng, position, aimed, model.aim_sd_deg)
    return FieldPose(tuple(map(float, position)), tuple(map(float, aimed)),
                     float(rng.normal(0.0, model.roll_sd_deg)), name)
