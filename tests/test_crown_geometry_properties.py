"""The crown queries behind leaf-card placement (`core.vegetation.winding_numbers`, `surface_distance`), checked on
drawn crowns against direct per-triangle formulas.

The product computes both as matrix products of expanded dot products, about the mesh's centroid (a scene's card
placement was a quarter of its build); here each point-triangle pair is computed the plain way: the closest point
on the triangle by its Voronoi regions (Ericson, Real-Time Collision Detection 5.1.5) and each triangle's solid
angle from the corner vectors themselves. Hypothesis draws the clusters (size, squash, place: near the origin and
hundreds of metres out, where the expansion would lose digits without the centring) and the points.
"""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from realitybench_addon.core import vegetation as cv


def closest_point_on_triangle(p, a, b, c) -> np.ndarray:
    ab, ac, ap = b - a, c - a, p - a
    d1, d2 = ab @ ap, ac @ ap
    if d1 <= 0 and d2 <= 0:
        return a
    bp = p - b
    d3, d4 = ab @ bp, ac @ bp
    if d3 >= 0 and d4 <= d3:
        return b
    vc = d1 * d4 - d3 * d2
    if vc <= 0 and d1 >= 0 and d3 <= 0:
        return a + d1 / (d1 - d3) * ab
    cp = p - c
    d5, d6 = ab @ cp, ac @ cp
    if d6 >= 0 and d5 <= d6:
        return c
    vb = d5 * d2 - d1 * d6
    if vb <= 0 and d2 >= 0 and d6 <= 0:
        return a + d2 / (d2 - d6) * ac
    va = d3 * d6 - d5 * d4
    if va <= 0 and d4 - d3 >= 0 and d5 - d6 >= 0:
        return b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b)
    denom = 1.0 / (va + vb + vc)
    return a + ab * (vb * denom) + ac * (vc * denom)


def direct_distances(points, verts, tris) -> np.ndarray:
    corners = verts[tris]
    return np.array([min(np.linalg.norm(p - closest_point_on_triangle(p, *tri)) for tri in corners) for p in points])


def direct_winding(points, verts, tris) -> np.ndarray:
    corners = verts[tris]
    out = []
    for p in points:
        x, y, z = (corners[:, k] - p for k in range(3))
        lx, ly, lz = (np.linalg.norm(v, axis=1) for v in (x, y, z))
        num = np.einsum("ij,ij->i", x, np.cross(y, z))
        den = lx * ly * lz + (x * y).sum(1) * lz + (x * z).sum(1) * ly + (y * z).sum(1) * lx
        out.append(2 * np.arctan2(num, den).sum() / (4 * np.pi))
    return np.array(out)


clusters = st.fixed_dictionaries({
    "seed": st.integers(0, 2**32 - 1),
    "radius": st.floats(0.05, 4.0),
    "squash": st.floats(0.3, 1.0),
    "far": st.sampled_from([0.0, 40.0, 600.0]),  # metres out from the origin: the surroundings reach hundreds
})


def drawn_cluster(draw: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A leaf cluster as the trees are made of, and 40 points in and around it (some within a hair of it)."""
    rng = np.random.default_rng(draw["seed"])
    centre = rng.uniform(-1, 1, 3) * draw["far"]
    verts, tris = cv.lumpy_cluster(centre, draw["radius"], draw["squash"], rng)
    lo, hi = verts.min(0), verts.max(0)
    span = hi - lo
    points = lo - 0.25 * span + 1.5 * span * rng.random((30, 3))
    on_faces = verts[tris[rng.integers(len(tris), size=10)]].mean(1)  # triangle centroids, nudged off the surface
    points = np.vstack([points, on_faces + rng.normal(0, 1e-4 * draw["radius"], (10, 3))])
    return verts, np.asarray(tris), points


@settings(max_examples=60)
@given(clusters)
def test_surface_distance_equals_the_closest_point_on_each_triangle(draw):
    verts, tris, points = drawn_cluster(draw)
    dist, nearest = cv.surface_distance(points, verts, tris)
    expected = direct_distances(points, verts, tris)
    np.testing.assert_allclose(dist, expected, rtol=0, atol=1e-9 * max(1.0, draw["radius"]))
    # the triangle it names is one at that distance (several share an edge or a corner)
    at_nearest = direct_distances_to(points, verts, tris[nearest])
    np.testing.assert_allclose(at_nearest, expected, rtol=0, atol=1e-9 * max(1.0, draw["radius"]))


def direct_distances_to(points, verts, one_tri_each) -> np.ndarray:
    return np.array([np.linalg.norm(p - closest_point_on_triangle(p, *verts[t])) for p, t in zip(points, one_tri_each)])


@settings(max_examples=60)
@given(clusters)
def test_winding_numbers_equal_the_summed_solid_angles(draw):
    verts, tris, points = drawn_cluster(draw)
    winding = cv.winding_numbers(points, verts, tris)
    np.testing.assert_allclose(winding, direct_winding(points, verts, tris), rtol=0, atol=1e-9)
    clear = direct_distances(points, verts, tris) > 1e-3 * draw["radius"]
    # a closed, outward cluster: 1 inside, 0 outside, nothing between (away from the surface itself)
    assert np.all(np.minimum(np.abs(winding[clear]), np.abs(winding[clear] - 1)) < 1e-6)
