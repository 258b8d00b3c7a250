"""Moulded product shapes (pure numpy): rounded outlines and the solids lofted from them.

Props read as products when their bodies are moulded, not boxes: a tape measure's case is a
rounded outline extruded across its thickness with bevelled edges, its rubber overmould a
rim around that outline, a gauge's bezel a rounded frame, its buttons pills. Everything here
works in a part's local frame: an outline lies in a plane (coordinates a, b) and is lofted
along the third axis (c); `to_axes` places (a, b, c) onto the part's own X, Y, Z.

Solids come as (vertices (V, 3), faces: list of index lists) for `bl.meshes.ngon_object`:
side quads plus one n-gon cap per open end (the outlines are convex).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

Mesh = tuple[np.ndarray, list[list[int]]]


@dataclass(frozen=True)
class RoundedRect:
    """An axis-aligned rectangle [a0, a1] x [b0, b1] with a rounded corner each: radii in the order
    (low a, low b), (high a, low b), (high a, high b), (low a, high b), counter-clockwise."""

    a0: float
    a1: float
    b0: float
    b1: float
    radii: tuple[float, float, float, float]

    def __post_init__(self):
        half = min(self.a1 - self.a0, self.b1 - self.b0) / 2
        if half <= 0:
            raise ValueError(f"an empty rectangle: a {self.a0}..{self.a1}, b {self.b0}..{self.b1}")
        if any(r <= 0 or r > half + 1e-12 for r in self.radii):
            raise ValueError(f"corner radii {self.radii} must lie in (0, {half:g}] (half the shorter side)")

    def corner_centres(self) -> np.ndarray:
        """The centres of the four corner arcs, in the radii's order."""
        r = self.radii
        return np.array([[self.a0 + r[0], self.b0 + r[0]], [self.a1 - r[1], self.b0 + r[1]],
                         [self.a1 - r[2], self.b1 - r[2]], [self.a0 + r[3], self.b1 - r[3]]])

    def inset(self, d: float) -> "RoundedRect":
        """The outline moved `d` inwards: sides by d, each radius by d (kept at least a tenth of a mm)."""
        radii = tuple(max(r - d, 1e-4) for r in self.radii)
        return replace(self, a0=self.a0 + d, a1=self.a1 - d, b0=self.b0 + d, b1=self.b1 - d, radii=radii)

    def outline(self, per_corner: int = 6) -> np.ndarray:
        """(4 * (per_corner + 1), 2) points counter-clockwise, starting at the low-a, low-b corner's arc.
        Every outline of every RoundedRect has the same count, so two can be joined point to point."""
        points = []
        for k, (centre, r) in enumerate(zip(self.corner_centres(), self.radii)):
            start = math.pi + k * math.pi / 2  # corner 0 spans 180..270 degrees
            t = start + np.linspace(0.0, math.pi / 2, per_corner + 1)
            points.append(centre + r * np.column_stack([np.cos(t), np.sin(t)]))
        return np.vstack(points)


def place(mesh: Mesh, axes: str) -> Mesh:
    """A mesh built in (a, b, c) placed onto the local axes `axes` (see `to_axes`), its faces turned over
    where the placement mirrors (an odd permutation), so they still face outwards."""
    verts, faces = mesh
    odd = axes in ("xzy", "zyx", "yxz")
    return to_axes(verts, axes), [face[::-1] for face in faces] if odd else list(faces)


def to_axes(points_abc: np.ndarray, axes: str) -> np.ndarray:
    """Place (a, b, c) columns onto the local axes named by `axes`: "yzx" puts a on Y, b on Z, c on X."""
    if sorted(axes) != ["x", "y", "z"]:
        raise ValueError(f"axes must name x, y and z once each, got {axes!r}")
    out = np.empty_like(np.asarray(points_abc, float))
    for col, name in enumerate(axes):
        out[:, "xyz".index(name)] = points_abc[:, col]
    return out


def loft(rings: list[np.ndarray], levels: list[float], *, cap_start: bool = True, cap_end: bool = True) -> Mesh:
    """Join outlines of equal point count, each at its level along c, by quads; cap the open ends.
    Vertices are (a, b, c); the caps face away from the solid (outward normals with counter-clockwise rings
    and rising levels)."""
    n = len(rings[0])
    if any(len(r) != n for r in rings) or len(rings) != len(levels) or len(rings) < 2:
        raise ValueError("loft needs two or more rings of one point count, one level each")
    verts = np.vstack([np.column_stack([r, np.full(n, c)]) for r, c in zip(rings, levels)])
    faces = [[k * n + i, k * n + (i + 1) % n, (k + 1) * n + (i + 1) % n, (k + 1) * n + i]
             for k in range(len(rings) - 1) for i in range(n)]
    if cap_start:
        faces.append(list(range(n))[::-1])
    if cap_end:
        last = (len(rings) - 1) * n
        faces.append(list(range(last, last + n)))
    return verts, faces


# Shading: faces that meet at less than this shade smooth across their edge. A rounded corner's segments turn by
# 90 / per_corner degrees (15 at the default 6), a bevel by 45 and a slab's sides by 90: corners shade round,
# bevels and edges stay crisp.
SMOOTH_ANGLE_RAD = math.radians(35.0)


def rounded_slab(rect: RoundedRect, c0: float, c1: float, bevel: float = 0.0, per_corner: int = 6) -> Mesh:
    """`rect` extruded from c0 to c1, its two end edges bevelled by `bevel` (45 degrees): a moulded part."""
    if c1 - c0 <= 2 * bevel:
        raise ValueError(f"a slab {c1 - c0:g} thick cannot take a {bevel:g} bevel on both ends")
    if bevel <= 0:
        return loft([rect.outline(per_corner)] * 2, [c0, c1])
    inner, outer = rect.inset(bevel).outline(per_corner), rect.outline(per_corner)
    return loft([inner, outer, outer, inner], [c0, c0 + bevel, c1 - bevel, c1])


def rim(outer: RoundedRect, inner: RoundedRect, c0: float, c1: float, per_corner: int = 6) -> Mesh:
    """The frame between `outer` and `inner` (which lies inside it), from c0 to c1: an overmould rim, a bezel.
    Closed: outer wall, inner wall, both annular ends."""
    if not (outer.a0 < inner.a0 and inner.a1 < outer.a1 and outer.b0 < inner.b0 and inner.b1 < outer.b1):
        raise ValueError("a rim's inner outline must lie inside its outer one")
    o, i = outer.outline(per_corner), inner.outline(per_corner)
    n = len(o)
    verts = np.vstack([np.column_stack([ring, np.full(n, c)]) for ring, c in ((o, c0), (o, c1), (i, c0), (i, c1))])
    faces = []
    for j in range(n):
        k = (j + 1) % n
        faces += [[j, k, n + k, n + j],  # outer wall
                  [2 * n + k, 2 * n + j, 3 * n + j, 3 * n + k],  # inner wall, facing the opening
                  [n + j, n + k, 3 * n + k, 3 * n + j],  # the end at c1
                  [k, j, 2 * n + j, 2 * n + k]]  # the end at c0
    return verts, faces


def strip(path_ac: np.ndarray, thickness: float, b0: float, b1: float) -> Mesh:
    """A bent flat strip (a spring-steel belt clip): the centreline `path_ac` (points in the a-c plane),
    `thickness` across it in that plane, spanning b0..b1. Closed box-section sweep."""
    path = np.asarray(path_ac, float)
    tangent = np.gradient(path, axis=0)
    tangent /= np.linalg.norm(tangent, axis=1, keepdims=True)
    normal = np.column_stack([-tangent[:, 1], tangent[:, 0]])
    lo, hi = path - normal * thickness / 2, path + normal * thickness / 2
    m = len(path)
    # per path point: the section's four corners (a, b, c), counter-clockwise seen along the path
    sections = [np.array([[lo[k, 0], b0, lo[k, 1]], [hi[k, 0], b0, hi[k, 1]], [hi[k, 0], b1, hi[k, 1]],
                          [lo[k, 0], b1, lo[k, 1]]]) for k in range(m)]
    verts = np.vstack(sections)
    faces = [[4 * k + i, 4 * k + (i + 1) % 4, 4 * (k + 1) + (i + 1) % 4, 4 * (k + 1) + i]
             for k in range(m - 1) for i in range(4)]
    faces += [[3, 2, 1, 0], [4 * (m - 1) + i for i in range(4)]]
    return verts, faces


def merge(*meshes: Mesh) -> Mesh:
    """Several parts as one mesh (one object, one material)."""
    verts, faces, offset = [], [], 0
    for v, f in meshes:
        verts.append(np.asarray(v, float))
        faces += [[i + offset for i in face] for face in f]
        offset += len(v)
    return np.vstack(verts), faces


def bounds(mesh: Mesh) -> tuple[np.ndarray, np.ndarray]:
    """The mesh's axis-aligned low and high corners."""
    v = np.asarray(mesh[0])
    return v.min(axis=0), v.max(axis=0)
