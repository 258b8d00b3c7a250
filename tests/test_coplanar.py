"""Coplanar overlapping tops (`core.coplanar`, `bl.scene_checks`): the exact overlap area, and built scenes of
every kind free of them (two asphalt repairs at one height rendered a black square on a lot, issue 41)."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from realitybench_addon.core.coplanar import convex_overlap_area, overlapping_tops, polygon_area

coord = st.floats(-5.0, 5.0, allow_nan=False)
size = st.floats(0.01, 4.0, allow_nan=False)


def rect(x, y, w, h):
    return np.array([(x, y), (x + w, y), (x + w, y + h), (x, y + h)])


@settings(max_examples=200, deadline=None)
@given(coord, coord, size, size, coord, coord, size, size, st.floats(0.0, 2 * math.pi))
def test_overlap_of_rectangles_is_the_product_of_their_shared_spans(x0, y0, w0, h0, x1, y1, w1, h1, turn):
    a, b = rect(x0, y0, w0, h0), rect(x1, y1, w1, h1)
    shared = max(0.0, min(x0 + w0, x1 + w1) - max(x0, x1)) * max(0.0, min(y0 + h0, y1 + h1) - max(y0, y1))
    assert convex_overlap_area(a, b) == pytest.approx(shared, abs=1e-9)
    assert convex_overlap_area(b[::-1], a) == pytest.approx(shared, abs=1e-9)  # either winding, either order
    c, s = math.cos(turn), math.sin(turn)
    spin = np.array([[c, -s], [s, c]])
    # turning both changes nothing
    assert convex_overlap_area(a @ spin.T, b @ spin.T) == pytest.approx(shared, abs=1e-8)


def test_a_triangle_inside_a_square_overlaps_by_its_own_area():
    tri = np.array([(0.2, 0.2), (0.8, 0.2), (0.5, 0.9)])
    assert convex_overlap_area(tri, rect(0, 0, 1, 1)) == pytest.approx(polygon_area(tri)) == pytest.approx(0.21)


def test_only_tops_at_one_height_that_overlap_by_more_than_the_floor_are_reported():
    square = rect(0, 0, 1, 1)
    tops = {"a": [(0.002, square)], "b": [(0.002, square + 0.5)], "c": [(0.0022, square)],
            "d": [(0.002, square + (1.0, 0.0))]}  # c higher; d only touches a along an edge
    assert overlapping_tops(tops, 1e-4) == [("a", "b", 0.002, pytest.approx(0.25)),
                                            ("b", "d", 0.002, pytest.approx(0.25))]
    assert overlapping_tops(tops, 0.3) == []


@pytest.mark.parametrize("environment, index", [("ro_board", 0), ("car_view", 0), ("rail_attachment", 0),
                                                ("horizon_peak", 0)])
def test_built_scenes_have_no_coplanar_overlapping_tops(environment, index):
    """ro_board 0 had two asphalt repairs at one height; rail_attachment the door step and the foundation strip;
    car_view upright grilles topped at the headlamps' height."""
    import bpy

    from realitybench_addon import pipeline
    from realitybench_addon.bl.scene_checks import coplanar_overlaps

    pipeline.SHARED_CACHE.get(pipeline.plan_frame(environment, 0, "random", index))
    assert coplanar_overlaps(bpy.context.scene, min_area_m2=1e-4) == []
