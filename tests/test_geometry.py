"""Surface sampling and geometric fractions, against hand-computed cases."""
import math

import numpy as np
import pytest

from realitybench_addon.core import geometry
from realitybench_addon.core.optics import PinholeCamera


def square(size=1.0, z=0.0):
    v = np.array([[0, 0, z], [size, 0, z], [size, size, z], [0, size, z]], float)
    return v, np.array([[0, 1, 2], [0, 2, 3]])


def test_samples_are_deterministic_on_the_surface_and_include_vertices():
    v, t = square()
    p1, n1, tri1 = geometry.sample_surface(v, t, 500)
    p2, _, _ = geometry.sample_surface(v, t, 500)
    assert np.array_equal(p1, p2)
    assert len(p1) == 500 + 4 and (tri1 == -1).sum() == 4
    assert np.allclose(p1[:, 2], 0) and p1[:, :2].min() >= 0 and p1[:, :2].max() <= 1
    assert np.allclose(n1, [0, 0, 1])


def test_interior_samples_are_area_weighted_and_spread():
    v = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [10, 0, 0], [13, 0, 0], [10, 2, 0]], float)
    t = np.array([[0, 1, 2], [3, 4, 5]])  # areas 0.5 and 3
    _, _, tri = geometry.sample_surface(v, t, 700, include_vertices=False)
    assert (tri == 0).sum() == 100 and (tri == 1).sum() == 600
    # spread: the samples of the unit square cover its quadrants evenly
    sq_v, sq_t = square()
    p, _, _ = geometry.sample_surface(sq_v, sq_t, 4000, include_vertices=False)
    quadrants = np.histogram2d(p[:, 0], p[:, 1], bins=2, range=[[0, 1], [0, 1]])[0]
    assert np.allclose(quadrants, 1000, rtol=0.03)


def test_empty_mesh_is_a_clear_error():
    with pytest.raises(ValueError, match="no faces"):
        geometry.sample_surface(np.zeros((0, 3)), np.zeros((0, 3), int))


def test_bbox_fraction_clips_to_the_frame():
    cam = PinholeCamera(np.eye(4), 1000.0, 1000, 1000)
    # a square spanning u in [500, 1500] and v in [0, 500] at depth 1 -> half inside horizontally
    pts = np.array([[0.0, 0.0, -1], [1.0, 0.0, -1], [1.0, 0.5, -1], [0.0, 0.5, -1]])
    assert geometry.bbox_fraction(cam, pts) == pytest.approx(0.5 * 0.5)
    assert geometry.bbox_fraction(cam, np.array([[0, 0, 1.0]])) == 0.0


def test_curve_clearance_is_signed_and_finds_the_low_point():
    line = np.array([[0, 0, 0.10], [0.5, 0, 0.03], [1, 0, 0.08]])
    clearance, low = geometry.curve_clearance(line, 0.005, [0, 0, 0], [0, 0, 1])
    assert clearance == pytest.approx(0.025) and low == 1
    touching, _ = geometry.curve_clearance(line - [0, 0, 0.03], 0.005, [0, 0, 0], [0, 0, 2])
    assert touching == pytest.approx(-0.005)


def test_apparent_reading_reprojects_onto_the_edge():
    """The blade point at the apparent reading must project onto the projected edge line (independent check)."""
    rng = np.random.default_rng(np.random.SeedSequence(11))
    for _ in range(20):
        cam_pos = np.array([rng.uniform(-0.3, 0.3), -rng.uniform(0.3, 0.8), rng.uniform(0.1, 0.6)])
        edge_a, edge_b = np.array([-0.5, 0.0, 0.12]), np.array([0.5, 0.0, 0.12])
        origin = np.array([rng.uniform(-0.1, 0.1), -0.01, 0.0])
        lean = np.radians(rng.uniform(-20, 20))
        blade = np.array([0.0, -math.sin(lean), math.cos(lean)])
        reading = geometry.apparent_blade_reading(cam_pos, edge_a, edge_b, origin, blade)
        point = origin + reading * blade
        # the camera centre, the edge and the blade point are coplanar
        normal = np.cross(edge_b - edge_a, cam_pos - edge_a)
        assert abs(np.dot(normal, point - edge_a)) < 1e-12
    # level with the edge there is no parallax: the reading is the true height
    flat = geometry.apparent_blade_reading([0, -1, 0.12], [-1, 0, 0.12], [1, 0, 0.12], [0, -0.01, 0], [0, 0, 1])
    assert flat == pytest.approx(0.12)
    # from 45 degrees above the edge, the sight line crosses a blade 5 cm in front 5 cm higher
    above = geometry.apparent_blade_reading([0, -0.5, 0.62], [-1, 0, 0.12], [1, 0, 0.12], [0, -0.05, 0], [0, 0, 1])
    assert above == pytest.approx(0.12 + 0.05)


def test_blade_parallel_to_sight_plane_is_an_error():
    with pytest.raises(ValueError, match="parallel"):
        geometry.apparent_blade_reading([0, -1, 0], [-1, 0, 0], [1, 0, 0], [0, 0, 0], [1, 0, 0])


def test_ring_sphere_triangles_close_the_mesh_facing_outwards():
    from collections import Counter

    from realitybench_addon.core.geometry import ring_sphere_triangles

    rings, seg = 7, 12
    phi = np.pi * np.arange(1, rings) / rings
    th = 2 * np.pi * np.arange(seg) / seg
    verts = np.vstack([[0, 0, -1], np.column_stack([np.outer(np.sin(phi), np.cos(th)).ravel(),
                                                    np.outer(np.sin(phi), np.sin(th)).ravel(),
                                                    np.repeat(-np.cos(phi), seg)]), [0, 0, 1]])
    tris = ring_sphere_triangles(rings, seg)
    assert len(tris) == 2 * seg * (rings - 1) and tris.max() == len(verts) - 1
    edges = Counter(tuple(sorted(e)) for t in tris for e in ((t[0], t[1]), (t[1], t[2]), (t[2], t[0])))
    assert set(edges.values()) == {2}  # closed: every edge between exactly two triangles
    a, b, c = verts[tris[:, 0]], verts[tris[:, 1]], verts[tris[:, 2]]
    volume = np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6
    assert 0.9 * 4 / 3 * np.pi < volume < 4 / 3 * np.pi  # positive: the faces point outwards
