"""Grass blades as pure geometry, for the lawn where a camera stands close to it.

A lawn seen from a few metres is a material (`bl.vegetation.lawn_material`); at a phone's distance from
the ground its flat shading gives it away. So the lawn around the house and the lot's lawn strips carry
tufts of blades: a few tuft meshes (`tuft_variants`), each instanced on many small horizontal triangles
(`scatter_tufts`) whose size and turn scale and rotate it (Blender's face instancing), so thousands of
tufts cost a few hundred triangles of real geometry.

Grass is never a measured occluder: no tuft is taller than `MAX_BLADE_HEIGHT_M`, and no target or
measured point in a scene with grass lies that low over a lawn (`tests/test_realism_grass.py` checks it
for every environment that stands on one), so a ray from a camera to a target can never pass through it.
The measuring BVH (`bl.raycast`) leaves instancers and what they instance out.

Everything is fixed by plain numbers and a seed (derive it from plan values: no shared random state).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .noise import value_noise

MAX_BLADE_HEIGHT_M = 0.13  # the tallest blade any tuft can have, at the largest instance scale
BLADE_HEIGHT_M = (0.045, 0.095)  # a mown lawn's blades (unit tuft, before the instance's scale)
INSTANCE_SCALE = (0.8, 1.3)  # each tuft's size, relative to its mesh
TUFT_RADIUS_M = 0.035  # blades stand within this of a tuft's centre
TUFT_SPACING_M = 0.075  # the jittered grid the tufts stand on: about 180 tufts per square metre
# Face instancing scales a child by the square root of its face's area: an equilateral triangle of
# circumradius R has area (3 sqrt(3) / 4) R^2, so R = scale / EQUILATERAL_AREA_ROOT gives that scale.
EQUILATERAL_AREA_ROOT = math.sqrt(3.0 * math.sqrt(3.0) / 4.0)
FADE_M = 1.5  # over this much inside the area's outer edge, tufts thin out and shrink into the flat lawn
RAGGED_SHARE = 1.2  # where that fade starts wanders inward by up to this share of it...
RAGGED_WAVE_M = 2.5  # ...over a noise of this wavelength along the edge


BLADE_LEVELS = (0.0, 0.4, 0.75)  # where along its height a blade's pairs of edge vertices stand


def blade(base, height: float, width: float, lean_azimuth: float, lean: float, facing: float,
          levels=BLADE_LEVELS) -> tuple[np.ndarray, np.ndarray]:
    """One blade: a strip that narrows from `width` at its base to a point at its tip, bending over
    towards `lean_azimuth` (its tip `lean` x height out from the base, a quadratic bend), its face turned
    to `facing`. Vertices (2 per level, then the tip) and triangles."""
    verts, tris = blades(np.asarray(base, float)[None], np.array([height]), np.array([width]),
                         np.array([[math.cos(lean_azimuth), math.sin(lean_azimuth)]]), np.array([lean]),
                         np.array([[math.cos(facing), math.sin(facing)]]), levels)
    return verts, tris


def blades(base: np.ndarray, height: np.ndarray, width: np.ndarray, lean_direction: np.ndarray,
           lean: np.ndarray, facing_direction: np.ndarray, levels=BLADE_LEVELS) -> tuple[np.ndarray, np.ndarray]:
    """`blade` for N blades at once: `base` (N, 3); `height`, `width`, `lean` (N,); `lean_direction` and
    `facing_direction` (N, 2) the unit vectors (cos, sin) of the lean azimuth and the facing. Vertices
    blade after blade, and triangles indexing them."""
    t = np.append(np.asarray(levels, float), 1.0)
    n_blades, n_levels = len(base), len(levels)
    out = np.column_stack([lean_direction, np.zeros(n_blades)])
    # the bend keeps the blade's length: the higher it leans, the lower its tip
    drop = 1.0 - 0.5 * lean * lean
    sideways = (t * t)[None, :] * lean[:, None] * height[:, None]
    upwards = t[None, :] * height[:, None] * drop[:, None]
    spine = base[:, None, :] + sideways[:, :, None] * out[:, None, :]
    spine[:, :, 2] += upwards
    across = np.column_stack([facing_direction, np.zeros(n_blades)])
    half = (0.5 * width)[:, None] * (1.0 - 0.85 * t[:-1])[None, :]
    left = spine[:, :-1] - half[:, :, None] * across[:, None, :]
    right = spine[:, :-1] + half[:, :, None] * across[:, None, :]
    per_blade = 2 * n_levels + 1
    verts = np.concatenate([np.stack([left, right], 2).reshape(n_blades, 2 * n_levels, 3), spine[:, -1:]], 1)
    one = []
    for k in range(n_levels - 1):
        a, b, c, d = 2 * k, 2 * k + 1, 2 * k + 2, 2 * k + 3
        one += [(a, b, d), (a, d, c)]
    one.append((2 * (n_levels - 1), 2 * (n_levels - 1) + 1, 2 * n_levels))
    tris = np.array(one, np.int64)[None] + per_blade * np.arange(n_blades, dtype=np.int64)[:, None, None]
    return verts.reshape(-1, 3), tris.reshape(-1, 3)


def tuft(seed: int, blades_per_tuft: int = 24) -> tuple[np.ndarray, np.ndarray]:
    """A tuft of `blades_per_tuft` blades standing within `TUFT_RADIUS_M` of the origin, on z = 0 (unit
    scale)."""
    rng = np.random.default_rng([abs(int(seed)), 7331])
    draws = np.empty((blades_per_tuft, 10))
    for i in range(blades_per_tuft):  # one blade's draws after another's: the order fixes the tuft
        r = TUFT_RADIUS_M * math.sqrt(rng.random())
        a = rng.uniform(0.0, 2 * math.pi)
        lean_az = a + rng.normal(0.0, 0.6)  # blades lean outwards, roughly
        height, width = rng.uniform(*BLADE_HEIGHT_M), rng.uniform(0.003, 0.006)
        lean = rng.uniform(0.1, 0.55)
        facing = lean_az + math.pi / 2 + rng.normal(0.0, 0.5)
        draws[i] = (r * math.cos(a), r * math.sin(a), height, width, math.cos(lean_az), math.sin(lean_az), lean,
                    math.cos(facing), math.sin(facing), 0.0)
    base = np.column_stack([draws[:, 0], draws[:, 1], np.zeros(blades_per_tuft)])
    return blades(base, draws[:, 2], draws[:, 3], draws[:, 4:6], draws[:, 6], draws[:, 7:9])


def tuft_variants(seed: int, count: int = 6) -> list[tuple[np.ndarray, np.ndarray]]:
    """`count` different tufts from one seed."""
    return [tuft(seed * 31 + k) for k in range(count)]


def _inside(points: np.ndarray, rects) -> np.ndarray:
    hit = np.zeros(len(points), bool)
    for x0, y0, x1, y1 in rects:
        hit |= (points[:, 0] >= x0) & (points[:, 0] <= x1) & (points[:, 1] >= y0) & (points[:, 1] <= y1)
    return hit


def _patchiness(rng: np.random.Generator, points: np.ndarray) -> np.ndarray:
    """A smooth field in [0, 1] over the ground, metres across: a few plane waves with random directions
    and phases (lusher and thinner patches of a real lawn)."""
    total = np.zeros(len(points))
    for wavelength in (0.9, 1.7, 3.1):
        a = rng.uniform(0.0, 2 * math.pi)
        k = 2 * math.pi / wavelength * np.array([math.cos(a), math.sin(a)])
        total += np.sin(points @ k + rng.uniform(0.0, 2 * math.pi))
    return 0.5 + total / 6.0


@dataclass(frozen=True)
class GrassPatch:
    """Where blades grow: the rectangle `area` = (x0, y0, x1, y1) on a lawn whose top is at `z`, less the
    rectangles `holes`; `fade` = metres over which tufts thin out inside each edge (x0, y0, x1, y1): an edge
    that ends in flat lawn fades, one at a curb or a wall does not."""
    area: tuple[float, float, float, float]
    z: float = 0.0
    holes: tuple = ()
    fade: tuple[float, float, float, float] = (FADE_M, FADE_M, FADE_M, FADE_M)

    def volume(self) -> tuple[np.ndarray, np.ndarray]:
        """The box every blade of the patch stays inside: (low corner, high corner)."""
        x0, y0, x1, y1 = self.area
        return np.array([x0, y0, self.z]), np.array([x1, y1, self.z + MAX_BLADE_HEIGHT_M])


def segments_cross_box(origin, points, low, high) -> np.ndarray:
    """For each point, whether the segment from `origin` to it passes through the axis-aligned box
    [low, high] (slab test; touching counts)."""
    o = np.asarray(origin, float)
    d = np.asarray(points, float) - o
    with np.errstate(divide="ignore", invalid="ignore"):
        t0 = (np.asarray(low, float) - o) / d
        t1 = (np.asarray(high, float) - o) / d
    near = np.where(np.isnan(t0), -np.inf, np.minimum(t0, t1))
    far = np.where(np.isnan(t1), np.inf, np.maximum(t0, t1))
    # a zero direction component: inside the slab the whole way (or never)
    flat = d == 0
    inside = (o >= np.asarray(low, float)) & (o <= np.asarray(high, float))
    near = np.where(flat, np.where(inside, -np.inf, np.inf), near)
    far = np.where(flat, np.where(inside, np.inf, -np.inf), far)
    enter = np.maximum(near.max(axis=1), 0.0)
    leave = np.minimum(far.min(axis=1), 1.0)
    return enter <= leave


def scatter_patch(seed: int, patch: GrassPatch, **kwargs) -> dict:
    """`scatter_tufts` over a `GrassPatch`."""
    return scatter_tufts(seed, patch.area, z=patch.z, holes=patch.holes, fade=patch.fade, **kwargs)


def scatter_tufts(seed: int, area, *, z: float = 0.0, holes=(), spacing_m: float = TUFT_SPACING_M,
                  variants: int = 6, fade=(FADE_M, FADE_M, FADE_M, FADE_M)) -> dict:
    """Tufts over the rectangle `area` = (x0, y0, x1, y1) less the rectangles `holes`: one per cell of a
    `spacing_m` grid, jittered across its cell, each with its own turn, scale and variant. Tufts are
    smaller in thin patches (`_patchiness`), and thin out and shrink over `fade` (metres inside each edge:
    x0, y0, x1, y1), so the blades end in the flat lawn without a line.

    Returns {"centers": (N, 3), "variant": (N,) ints in [0, variants), "turn": (N,) radians,
    "scale": (N,)}."""
    x0, y0, x1, y1 = map(float, area)
    if not (x1 > x0 and y1 > y0 and spacing_m > 0):
        raise ValueError(f"scatter_tufts: an empty area {area!r} or spacing {spacing_m!r}")
    rng = np.random.default_rng([abs(int(seed)), 4177])
    xs = np.arange(x0, x1, spacing_m)
    ys = np.arange(y0, y1, spacing_m)
    gx, gy = np.meshgrid(xs, ys, indexing="ij")
    cells = np.stack([gx.ravel(), gy.ravel()], 1)
    points = cells + rng.random(cells.shape) * spacing_m
    n = len(points)
    variant = rng.integers(0, variants, n)
    turn = rng.uniform(0.0, 2 * math.pi, n)
    scale = rng.uniform(*INSTANCE_SCALE, n)
    lush = _patchiness(rng, points)
    gaps = [points[:, 0] - x0, points[:, 1] - y0, x1 - points[:, 0], y1 - points[:, 1]]
    inner = np.ones(n)
    # an open edge wanders inward, by up to RAGGED_SHARE of its fade over a few metres: a straight one read as
    # "a square patch of grass" on a lawn to a blind panel
    wander = 0.5 * (value_noise(points[:, 0] / RAGGED_WAVE_M, points[:, 1] / RAGGED_WAVE_M, abs(int(seed)) % 2 ** 31)
                    + 1.0)
    for gap, metres in zip(gaps, fade):
        if metres > 0:
            inner = np.minimum(inner, np.clip((gap - RAGGED_SHARE * metres * wander) / metres, 0.0, 1.0))
    keep = (np.minimum.reduce(gaps) > 0) & ~_inside(points, holes) & (rng.random(n) < np.sqrt(inner))
    scale = scale * (0.4 + 0.6 * inner) * (0.75 + 0.25 * lush)
    centers = np.column_stack([points, np.full(n, float(z))])
    return {"centers": centers[keep], "variant": variant[keep], "turn": turn[keep], "scale": scale[keep]}


def instancer_triangles(centers: np.ndarray, turn: np.ndarray, scale: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One small horizontal, upward-facing equilateral triangle per tuft, centred on it, turned by `turn`
    and sized so that face instancing (with face scale) scales the tuft by `scale`."""
    radius = np.asarray(scale, float) / EQUILATERAL_AREA_ROOT
    corners = np.asarray(turn, float)[:, None] + 2 * math.pi * np.arange(3)[None, :] / 3
    verts = np.stack([centers[:, None, 0] + radius[:, None] * np.cos(corners),
                      centers[:, None, 1] + radius[:, None] * np.sin(corners),
                      np.repeat(centers[:, None, 2], 3, 1)], -1).reshape(-1, 3)
    tris = np.arange(len(verts)).reshape(-1, 3)
    return verts, tris


def tallest_blade(variants) -> float:
    """The highest tip among `variants`, at the largest instance scale (metres above the ground)."""
    return max(float(v[:, 2].max()) for v, _ in variants) * INSTANCE_SCALE[1]
