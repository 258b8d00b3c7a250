"""Wheels as a camera sees them (issue 41: "cartoon wheel", "flat cartoon spokes", "toy wheels"): a tyre of
revolution with a rounded shoulder and a sidewall that bulges and tucks into the rim flange, and an alloy rim
with a lip, a barrel falling back into a dark dish, spokes with thickness that run from the lip down to a
recessed hub, and lug nuts.

Cosmetic, like the mirror dressing: every vertex lies inside the measured wheel (`vehicle_details._add_wheel`:
a closed tyre cylinder and the rim discs at most 5 mm proud of its face), which stays what the measurements
sample and ray-cast; the renderer hides the measured tyre and rims (bl/vehicle.RAY_ONLY_PARTS).
"""
from __future__ import annotations

import math

import numpy as np

from .vehicle import VehiclePlan
from .vehicle_details import spoke_layout
from .vehicle_loft import PartBuilder

WHEEL_DRESSING = "dress_wheels"
SEGMENTS = 48  # round the axle
RIM_SHARE = 0.64  # the rim's radius over the tyre's (as the measured rim)
LIP_PROUD_M = 0.004  # the rim lip stands this far out of the tyre's face (the measured rim: 5 mm)
DISH_DEPTH_M = 0.065  # the dark dish behind the spokes, from the tyre's face


def lathe(center, sgn: float, profile, segments: int = SEGMENTS) -> tuple[np.ndarray, np.ndarray]:
    """A surface of revolution about the y axis through `center`: `profile` is (radius, dy) points, dy measured
    outward from the wheel's mid-plane towards the car's `sgn` side. (vertices, triangles); triangles wound so
    that a profile running outward (from the mid-plane towards the face, then in towards the axle) faces out."""
    cx, cy, cz = center
    prof = np.asarray(profile, float)
    a = np.linspace(0.0, 2 * np.pi, segments, endpoint=False)
    r, dy = prof[:, 0][:, None], prof[:, 1][:, None]
    verts = np.stack([cx + r * np.cos(a), np.broadcast_to(cy + sgn * dy, (len(prof), segments)),
                      cz + r * np.sin(a)], -1).reshape(-1, 3)
    i = np.arange(len(prof) - 1)[:, None] * segments
    j = np.arange(segments)[None, :]
    j1 = (j + 1) % segments
    a0, a1, b0, b1 = i + j, i + j1, i + segments + j, i + segments + j1
    tris = np.concatenate([np.stack([a0, b0, b1], -1).reshape(-1, 3), np.stack([a0, b1, a1], -1).reshape(-1, 3)])
    return verts, (tris if sgn > 0 else tris[:, ::-1])


def _prism(b: PartBuilder, bottom: np.ndarray, top: np.ndarray, material: str) -> None:
    """A closed solid between two quads (4 corners each, same order)."""
    verts = np.vstack([bottom, top])
    tris = [(0, 2, 1), (0, 3, 2), (4, 5, 6), (4, 6, 7)]
    for k in range(4):
        n = (k + 1) % 4
        tris += [(k, n, 4 + n), (k, 4 + n, 4 + k)]
    b.add(WHEEL_DRESSING, verts, np.array(tris), material)


def add_wheel_dressing(plan: VehiclePlan, b: PartBuilder) -> None:
    """Every wheel of `plan`, dressed (see the module's docstring). Spokes: 5 to 7 by the plan's seed, as the
    measured rims."""
    p = plan.profile
    R, half = p.tyre_radius, p.tyre_width / 2
    rim_r = RIM_SHARE * R
    lip_in = 0.84 * rim_r
    n_spokes, spoke_half, phase = spoke_layout(plan)
    for center in plan.wheel_centers():
        x, y, z = center
        sgn = 1.0 if y > 0 else -1.0
        tyre = [(rim_r + 0.006, -half + 0.01), (0.78 * R, -half), (0.93 * R, -half + 0.004),
                (R - 0.012, -half + 0.018), (R, -half + 0.04), (R, half - 0.04), (R - 0.012, half - 0.018),
                (0.93 * R, half - 0.004), (0.84 * R, half), (0.74 * R, half - 0.003), (rim_r + 0.006, half - 0.01)]
        v, t = lathe(center, sgn, tyre)
        b.add(WHEEL_DRESSING, v, t, "tyre")
        v, t = lathe(center, sgn, [(0.0, -half + 0.01), (rim_r + 0.006, -half + 0.01)])  # the inner side, closed
        b.add(WHEEL_DRESSING, v, t, "wheel_dark")
        rim = [(rim_r + 0.004, half - 0.012), (rim_r, half + LIP_PROUD_M), (lip_in, half + LIP_PROUD_M),
               (0.8 * rim_r, half - 0.02), (0.77 * rim_r, half - DISH_DEPTH_M + 0.005)]
        v, t = lathe(center, sgn, rim)
        b.add(WHEEL_DRESSING, v, t, "wheel_metal")
        v, t = lathe(center, sgn, [(0.77 * rim_r, half - DISH_DEPTH_M + 0.005), (0.77 * rim_r, half - DISH_DEPTH_M),
                                   (0.0, half - DISH_DEPTH_M)])
        b.add(WHEEL_DRESSING, v, t, "wheel_dark")
        hub_r = 0.26 * rim_r
        hub_dy = half - 0.03
        v, t = lathe(center, sgn, [(hub_r, half - DISH_DEPTH_M), (hub_r, hub_dy), (0.6 * hub_r, hub_dy + 0.004),
                                   (0.0, hub_dy + 0.004)], segments=24)
        b.add(WHEEL_DRESSING, v, t, "wheel_metal")
        c = np.array([x, y, z])
        axle = np.array([0.0, sgn, 0.0])
        for k in range(n_spokes):  # from the hub's rim, rising to the lip: a dished wheel
            ang = 2 * np.pi * k / n_spokes + phase
            radial = np.array([math.cos(ang), 0.0, math.sin(ang)])
            tangent = np.array([-math.sin(ang), 0.0, math.cos(ang)])
            inner = c + radial * 0.9 * hub_r + axle * (hub_dy - 0.002)
            outer = c + radial * lip_in + axle * (half + LIP_PROUD_M - 0.001)
            face = np.array([inner - tangent * spoke_half * 0.75, outer - tangent * spoke_half,
                             outer + tangent * spoke_half, inner + tangent * spoke_half * 0.75])
            _prism(b, face - axle * 0.022, face, "wheel_metal")
        for k in range(5):  # lug nuts round the hub: squat hexagons with a chamfered top, a washer under each
            ang = 2 * np.pi * k / 5 + phase + np.pi / 5
            lug = c + 0.6 * hub_r * np.array([math.cos(ang), 0.0, math.sin(ang)])
            v, t = lathe(lug, sgn, [(0.0115, hub_dy), (0.0115, hub_dy + 0.0015), (0.0095, hub_dy + 0.0015),
                                    (0.0095, hub_dy + 0.0075), (0.0075, hub_dy + 0.0095), (0.0, hub_dy + 0.0095)],
                         segments=6)
            b.add(WHEEL_DRESSING, v, t, "wheel_metal")
