"""Coplanar overlapping surfaces: two upward faces of different objects at one height that overlap in plan.

Cycles renders such an overlap black or speckled: a ray shading one face starts its shadow and bounce rays
on the other, which hides the sky and the sun from it. A blind panel saw one as a "black square" on a
parking lot (two asphalt repairs at the same 2 mm height). `bl.scene_checks` reads a built scene's faces
into what this module compares.
"""
from __future__ import annotations

import itertools

import numpy as np

HEIGHT_TOLERANCE_M = 1e-5  # two tops closer than this count as one plane (Cycles offsets its rays by less)


def polygon_area(poly: np.ndarray) -> float:
    x, y = np.asarray(poly, float).T
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def _counter_clockwise(poly: np.ndarray) -> np.ndarray:
    x, y = poly.T
    return poly if np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)) >= 0 else poly[::-1]


def convex_overlap_area(a: np.ndarray, b: np.ndarray) -> float:
    """Area of the intersection of two convex polygons ((n, 2) arrays of plan points), by clipping `a` with
    each edge of `b` (Sutherland-Hodgman)."""
    out = [tuple(p) for p in _counter_clockwise(np.asarray(a, float))]
    clip = _counter_clockwise(np.asarray(b, float))
    for p, q in zip(clip, np.roll(clip, -1, axis=0)):
        edge = q - p

        tolerance = 1e-12 * float(np.dot(edge, edge)) ** 0.5  # a point on the edge, up to rounding, is inside

        def inside(r, p=p, edge=edge, tolerance=tolerance):
            return edge[0] * (r[1] - p[1]) - edge[1] * (r[0] - p[0]) >= -tolerance

        def cross(r, s, p=p, edge=edge):
            d = np.subtract(s, r)
            den = edge[0] * d[1] - edge[1] * d[0]
            if den == 0.0:  # a segment along the edge (only rounding put one end outside): keep its far end
                return tuple(s)
            t = min(1.0, max(0.0, (edge[0] * (p[1] - r[1]) - edge[1] * (p[0] - r[0])) / den))
            return (r[0] + t * d[0], r[1] + t * d[1])

        points, out = out, []
        for k, s in enumerate(points):
            r = points[k - 1]
            if inside(s):
                if not inside(r):
                    out.append(cross(r, s))
                out.append(s)
            elif inside(r):
                out.append(cross(r, s))
        if len(out) < 3:
            return 0.0
    return polygon_area(np.array(out))


def overlapping_tops(tops: dict[str, list[tuple[float, np.ndarray]]],
                     min_area_m2: float) -> list[tuple[str, str, float, float]]:
    """Pairs of objects whose upward faces lie at one height and overlap in plan by more than `min_area_m2`.

    `tops[name]`: (z, plan polygon (n, 2)) per horizontal upward convex face. Returns (name_a, name_b, z,
    largest overlap area) per pair, largest first."""
    boxes = {name: np.array([(z, *poly.min(axis=0), *poly.max(axis=0)) for z, poly in faces]).reshape(-1, 5)
             for name, faces in tops.items()}
    found = []
    for a, b in itertools.combinations(sorted(tops), 2):
        A, B = boxes[a], boxes[b]
        if not len(A) or not len(B):
            continue
        same = np.abs(A[:, None, 0] - B[None, :, 0]) < HEIGHT_TOLERANCE_M
        wide = np.minimum(A[:, None, 3], B[None, :, 3]) - np.maximum(A[:, None, 1], B[None, :, 1])
        deep = np.minimum(A[:, None, 4], B[None, :, 4]) - np.maximum(A[:, None, 2], B[None, :, 2])
        candidates = np.argwhere(same & (wide * deep > min_area_m2) & (wide > 0))
        largest = max((convex_overlap_area(tops[a][i][1], tops[b][j][1]) for i, j in candidates), default=0.0)
        if largest > min_area_m2:
            found.append((a, b, float(A[candidates[0][0], 0]), largest))
    return sorted(found, key=lambda f: -f[3])
