"""Ridge and hip caps as rows of cap pieces (core/ridge_caps.py): where the pieces lie, which way they step, and
that they stay on the cap the ray casts measure (core.house.cap_polygons). Pure: numpy only."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from realitybench_addon.core.house import cap_polygons, cap_sides, roof_planes
from realitybench_addon.core.house_draw import HOUSE_SHAPES, draw_house
from realitybench_addon.core.ridge_caps import (CAP_HALF_WIDTH_M, CAP_PIECE_EXPOSURE_M, CAP_PIECE_THICKNESS_M,
                                                CAP_RISE_M, PIECE_SHADE, CapSide, cap_rows, cap_side_pieces,
                                                level_ridge_sides)


def _normals(v, t):
    n = np.cross(v[t[:, 1]] - v[t[:, 0]], v[t[:, 2]] - v[t[:, 0]])
    return n / np.linalg.norm(n, axis=1, keepdims=True)


def _pieces(v, t):
    """Each piece's 8 vertices (`cap_side_pieces` writes 8 per piece)."""
    return v.reshape(-1, 8, 3)


def _strip_normal(side: CapSide):
    """The unit normal of the measured strip (through its fold and lower edge), on the side of the roof's."""
    a, b, c = side.top[0], side.top[1], side.inner[0]
    n = np.cross(b - a, c - a)
    n = n / np.linalg.norm(n)
    return n if n @ side.normal > 0 else -n


def _strip_plane_offset(points, side: CapSide):
    """Distance of each point above the plane of the measured strip."""
    return (np.asarray(points) - side.top[0]) @ _strip_normal(side)


def test_a_ten_metre_gable_ridge_is_72_pieces_a_side_stepping_at_the_same_places():
    front, back = level_ridge_sides([0.0, 5.0, 7.0], [10.0, 5.0, 7.0], 30.0)
    for side in (front, back):
        v, t, tone = cap_side_pieces(side)
        n = math.ceil(10.0 / CAP_PIECE_EXPOSURE_M)
        assert n == 72 and len(v) == 8 * n
        butts = _pieces(v, t)[:, 0, 0]  # each piece's raised fold corner at its butt: x along the ridge
        np.testing.assert_allclose(butts, np.arange(n) * 10.0 / n, atol=1e-9)  # 0.1389 m apart
        assert PIECE_SHADE[0] <= tone.min() and tone.max() <= PIECE_SHADE[1] and np.ptp(tone) > 0.3
    vf, _, tf = cap_side_pieces(front)
    vb, _, tb = cap_side_pieces(back)
    np.testing.assert_array_equal(tf, tb)  # both halves of a piece are one piece's tone
    np.testing.assert_allclose(vf[:, 2], vb[:, 2], atol=1e-12)  # a gable is symmetric about its ridge
    np.testing.assert_allclose(vf[:, 1] - 5.0, 5.0 - vb[:, 1], atol=1e-12)
    # the fold stands CAP_RISE_M over the ridge, each butt CAP_PIECE_THICKNESS_M more; the lower edge reaches
    # CAP_HALF_WIDTH_M down the slope
    assert vf[:, 2].max() == pytest.approx(7.0 + CAP_RISE_M + CAP_PIECE_THICKNESS_M * math.cos(math.radians(30)))
    assert vf[:, 1].max() - 5.0 == pytest.approx(CAP_HALF_WIDTH_M * math.cos(math.radians(30))
                                                 + (0.004 + CAP_PIECE_THICKNESS_M) * math.sin(math.radians(30)))


def test_a_hip_is_laid_from_its_low_end_so_every_butt_faces_down_the_hip():
    plan = draw_house(np.random.default_rng(5), "pyramid")  # four hips, each capped from both of its planes
    sides = cap_sides(plan)
    assert len(sides) == 8
    for side in sides:
        low, high = sorted(side.base, key=lambda p: p[2])
        assert side.laid_from_b() == (side.base[1] is low)
        up_the_hip = (high - low) / np.linalg.norm(high - low)
        v, t, _ = cap_side_pieces(side)
        normals = _normals(v, t)
        n = len(v) // 8
        starts = 6 * np.arange(n)
        # every butt faces down the hip (its upper half leans with the fold, raised plumb over the hip line)...
        assert (normals[starts + 2] @ up_the_hip).max() < -0.99
        assert (normals[starts + 3] @ up_the_hip).max() < -0.95
        assert (normals[starts] @ side.normal).min() > 0.9  # ...and every top out of the roof
        butts = _pieces(v, t)[:, 4]  # where each butt meets the roof: climbing from the eave to the apex
        assert np.all(np.diff(butts[:, 2]) > 0) and butts[0] == pytest.approx(low)


lengths = st.floats(0.05, 14.0)
pitches = st.floats(8.0, 60.0)
angles = st.floats(0.0, 360.0)


@settings(max_examples=60, deadline=None)
@given(length=lengths, pitch=pitches, azimuth=angles, x=st.floats(-30, 30), z=st.floats(2.0, 15.0))
def test_cap_pieces_lie_on_the_measured_strip_cover_it_and_face_outwards(length, pitch, azimuth, x, z):
    a = np.array([x, 0.5 * x, z])
    b = a + length * np.array([math.cos(math.radians(azimuth)), math.sin(math.radians(azimuth)), 0.0])
    for side in level_ridge_sides(a, b, pitch):
        v, t, tone = cap_side_pieces(side)
        n = max(1, math.ceil(length / CAP_PIECE_EXPOSURE_M - 1e-9))
        assert len(v) == 8 * n and len(t) == 6 * n + 2 and len(tone) == len(t)
        assert length / n <= CAP_PIECE_EXPOSURE_M + 1e-12
        assert np.isfinite(v).all() and np.linalg.norm(np.cross(v[t[:, 1]] - v[t[:, 0]], v[t[:, 2]] - v[t[:, 0]]),
                                                       axis=1).min() > 0  # no degenerate triangle
        # never more than a butt's thickness above the measured strip, never more than its lower edge below it
        height = _strip_plane_offset(v, side)
        assert height.max() <= CAP_PIECE_THICKNESS_M + 1e-9
        assert height.min() >= -(0.004 + CAP_RISE_M) - 1e-9
        # the tops cover the strip from end to end: their along-edge extents tile [0, length]
        along = (b - a) / length
        tops = _pieces(v, t)[:, [0, 3]] - (b if side.laid_from_b() else a)
        s = np.sort(np.abs(tops @ along), axis=1)
        assert s[:, 0].min() == pytest.approx(0.0, abs=1e-9) and s[:, 1].max() == pytest.approx(length, rel=1e-9)
        # the tops face out of the strip, tilted by at most their butt's step (atan(9 mm / 7 cm) = 7.3 degrees)
        top_normals = _normals(v, t)[np.concatenate([[6 * k, 6 * k + 1] for k in range(n)])]
        assert (top_normals @ _strip_normal(side)).min() > math.cos(math.radians(7.4))


def test_the_same_edge_gives_the_same_pieces_and_a_nearby_one_other_tones():
    sides = level_ridge_sides([0.0, 0.0, 6.0], [4.0, 0.0, 6.0], 25.0)
    first, again = cap_rows(sides), cap_rows(level_ridge_sides([0.0, 0.0, 6.0], [4.0, 0.0, 6.0], 25.0))
    for x, y in zip(first, again):
        np.testing.assert_array_equal(x, y)
    moved = cap_rows(level_ridge_sides([0.0, 3.0, 6.0], [4.0, 3.0, 6.0], 25.0))
    assert not np.array_equal(first[2], moved[2])


@pytest.mark.parametrize("shape", HOUSE_SHAPES)
def test_every_capped_edge_of_a_house_gets_a_row_on_its_measured_strip(shape):
    plan = draw_house(np.random.default_rng([41, len(shape)]), shape)
    sides = cap_sides(plan)
    polygons = cap_polygons(plan)
    assert len(sides) == len(polygons) > 0
    for side, polygon in zip(sides, polygons):
        np.testing.assert_array_equal(polygon, [side.top[0], side.inner[0], side.inner[1], side.top[1]])
        v, _, _ = cap_side_pieces(side)
        height = _strip_plane_offset(v, side)
        assert height.max() <= CAP_PIECE_THICKNESS_M + 1e-9 and len(v) >= 8
    assert all(abs(np.linalg.norm(p.normal) - 1) < 1e-12 for p in roof_planes(plan))
