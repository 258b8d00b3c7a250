"""Where a worker on a roof holds the phone (pure): shared by the roof environments.

The worker's feet are on the shingles at a horizontal distance from the target, mostly
downslope of it (installers work up from the eave); the phone is at a posture's height
above the roof surface; the aim has a few degrees of hand error, and some frames are aimed
elsewhere (a wide "array" shot). Feet never land on installed modules or off the roof.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.rng import log_uniform, pick
from ..core.roof import RoofPlan
from .base import FieldPose
from .poses import Posture, aim_with_error


@dataclass(frozen=True)
class RoofPoseModel:
    postures: tuple[Posture, ...]
    distance_m: tuple[float, float]  # horizontal distance, log-uniform
    azimuth_sd_deg: float  # spread around "downslope of the target"
    aim_sd_deg: float
    miss_share: float  # frames aimed at some other point of the array
    roll_sd_deg: float = 4.0
    azimuth_center_deg: float = 0.0  # 0: the worker stands downslope of the target; 90: to its +u side


def on_modules(plan: RoofPlan, u: float, v: float, margin: float = 0.1) -> bool:
    for row in range(plan.rows):
        u0, v0 = plan.module_origin(row, 0)
        if v0 - margin <= v <= v0 + plan.module_length_m + margin:
            u_end = plan.module_origin(row, plan.installed_cols - 1)[0] + plan.module_width_m if plan.installed_cols else u0
            if plan.installed_cols and u0 - margin <= u <= u_end + margin:
                return True
    return False


EAVE_REACH_M = 1.2  # a worker on the ladder or scaffold at the eave stands this far below the roof edge


def _foot_point(plan: RoofPlan, target_uvh, d: float, az: float) -> tuple[float, float]:
    """Roof coordinates of the spot `d` metres (horizontally) from the target, at azimuth `az` from downslope."""
    du, dy = d * math.sin(az), -d * math.cos(az)
    return target_uvh[0] + du, target_uvh[1] + dy / math.cos(math.radians(plan.pitch_deg))


def _standable(plan: RoofPlan, u: float, v: float) -> bool:
    """On the roof (or on a ladder just below the eave), not on installed modules."""
    on_roof = 0.15 <= u <= plan.eave_length_m - 0.15 and -EAVE_REACH_M <= v <= plan.slope_length_m - 0.25
    return on_roof and not on_modules(plan, u, v)


ARM_CLEARANCE_M = 0.12  # a held-out phone stays this far above the module tops under it


def _reach_towards(plan: RoofPlan, position: np.ndarray, target: np.ndarray, reach: float) -> np.ndarray:
    """The phone moved horizontally up to `reach` towards the target, never closer than 0.1 m to it
    and never lower than ARM_CLEARANCE_M above the module tops (the roof rises under an outstretched arm)."""
    flat = np.array([target[0] - position[0], target[1] - position[1], 0.0])
    horizontal = float(np.linalg.norm(flat))
    if horizontal < 1e-6:
        return position
    top = plan.module_bottom_h + plan.module_thickness_m
    for step in np.linspace(min(reach, max(horizontal - 0.1, 0.0)), 0.0, 6):
        moved = position + flat / horizontal * step
        if plan.frame.to_roof(moved)[2] >= top + ARM_CLEARANCE_M:
            return moved
    return position


def draw_roof_pose(plan: RoofPlan, target_uvh, model: RoofPoseModel, rng: np.random.Generator,
                   elsewhere=None, azimuth_center_deg: float | None = None) -> FieldPose:
    """A field pose around roof point `target_uvh`. `elsewhere(rng)` gives a miss-aim point (world)."""
    center = model.azimuth_center_deg if azimuth_center_deg is None else azimuth_center_deg
    frame = plan.frame
    target = frame.to_world(target_uvh)
    posture = pick(rng, model.postures)
    for _attempt in range(64):
        d = log_uniform(rng, *model.distance_m)
        az = math.radians(center + rng.normal(0.0, model.azimuth_sd_deg))
        u, v = _foot_point(plan, target_uvh, d, az)
        if _standable(plan, u, v):
            break
    else:  # nothing standable drawn: step straight back from the target until there is
        for d in np.linspace(model.distance_m[0], model.distance_m[1], 32):
            u, v = _foot_point(plan, target_uvh, float(d), math.radians(center))
            if _standable(plan, u, v):
                break
    height = float(rng.uniform(*posture.height_m))
    position = frame.to_world([u, v, 0.0]) + np.array([0.0, 0.0, height])
    if posture.reach_m[1] > 0:
        position = _reach_towards(plan, position, target, float(rng.uniform(*posture.reach_m)))
    if elsewhere is not None and rng.random() < model.miss_share:
        aim = np.asarray(elsewhere(rng), float)
        posture_name = f"{posture.name}, aimed elsewhere"
    else:
        aim = aim_with_error(rng, position, target, model.aim_sd_deg)
        posture_name = posture.name
    return FieldPose(tuple(map(float, position)), tuple(map(float, aim)), float(rng.normal(0.0, model.roll_sd_deg)),
                     posture_name)


def random_array_point(plan: RoofPlan):
    """A miss-aim target: somewhere over the array's area."""
    def draw(rng):
        u = rng.uniform(plan.array_u0, plan.array_u1)
        v = rng.uniform(plan.array_v0, plan.array_v0 + plan.rows * plan.module_length_m)
        return plan.frame.to_world([u, v, plan.module_bottom_h])
    return draw
