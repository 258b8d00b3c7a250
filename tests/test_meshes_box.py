"""bl/meshes.py's box for small scenes (bpy wheel): axis-aligned at a location, or turned by a matrix; its corners
where the size and the placement say."""
import math

import numpy as np
import pytest

bpy = pytest.importorskip("bpy")

from realitybench_addon.bl.meshes import add_box, frame_matrix  # noqa: E402
from realitybench_addon.bl.reset import reset_scene  # noqa: E402


def world_corners(obj) -> np.ndarray:
    co = np.empty(3 * len(obj.data.vertices))
    obj.data.vertices.foreach_get("co", co)
    m = np.array(obj.matrix_world)
    return co.reshape(-1, 3) @ m[:3, :3].T + m[:3, 3]


def test_an_axis_aligned_box_spans_its_size_about_its_location():
    scene = reset_scene()
    box = add_box(scene, "Box", (0.4, 0.2, 1.0), (1.0, 2.0, 0.5))
    corners = world_corners(box)
    assert corners.min(axis=0) == pytest.approx([0.8, 1.9, 0.0])
    assert corners.max(axis=0) == pytest.approx([1.2, 2.1, 1.0])
    assert len(box.data.polygons) == 6


def test_a_box_turned_by_a_matrix_has_its_long_side_along_the_turned_axis():
    scene = reset_scene()
    c, s = math.cos(math.radians(30)), math.sin(math.radians(30))
    matrix = frame_matrix((1.0, 0.0, 0.5), (0, 0, 1), (c, s, 0))  # local x turned 30 degrees about z
    box = add_box(scene, "Turned", (2.0, 0.2, 1.0), matrix=matrix)
    corners = world_corners(box)
    # the four corners at +x lie 1 m along the turned axis from the centre
    along = (corners - [1.0, 0.0, 0.5]) @ np.array([c, s, 0.0])
    assert sorted(np.round(along, 6)) == [-1.0] * 4 + [1.0] * 4
    assert corners[:, 2].min() == pytest.approx(0.0) and corners[:, 2].max() == pytest.approx(1.0)


def test_a_box_needs_its_location_or_its_matrix_not_both():
    scene = reset_scene()
    with pytest.raises(ValueError, match="location or its matrix"):
        add_box(scene, "Both", (1, 1, 1), (0, 0, 0), matrix=np.eye(4))
    with pytest.raises(ValueError, match="location or its matrix"):
        add_box(scene, "Neither", (1, 1, 1))
