"""Meshes from numpy arrays (`bl.meshes`): what Blender holds is what was written, on every Blender line.

From 4.0 positions, corners, flat shading and material slots are written as attributes in one copy each
(`bl.compat.fill_mesh`); these read them back through the per-element API every version has.
"""
import numpy as np
import pytest

bpy = pytest.importorskip("bpy")

from realitybench_addon.bl import analytic  # noqa: E402
from realitybench_addon.bl.meshes import mesh_object, ngon_object, prism  # noqa: E402


@pytest.fixture
def collection():
    return analytic.reset_scene().collection


def read_back(mesh):
    co = np.empty(len(mesh.vertices) * 3, np.float32)
    mesh.vertices.foreach_get("co", co)
    faces = [tuple(p.vertices) for p in mesh.polygons]
    smooth = np.array([p.use_smooth for p in mesh.polygons])
    slots = np.array([p.material_index for p in mesh.polygons])
    return co.reshape(-1, 3), faces, smooth, slots


def random_faces(rng, n_vertices, n_faces, k):
    return np.array([rng.choice(n_vertices, k, replace=False) for _ in range(n_faces)], np.int32)


@pytest.mark.parametrize("k", [3, 4])
@pytest.mark.parametrize("smooth", [False, True])
def test_vertices_faces_shading_and_slots_read_back_as_written(collection, k, smooth):
    rng = np.random.default_rng(k)
    vertices = rng.uniform(-2, 2, (300, 3))
    faces = random_faces(rng, 300, 200, k)
    slots = rng.integers(0, 3, 200)
    materials = [bpy.data.materials.new(f"RB_TestSlot{i}") for i in range(3)]
    obj = mesh_object("RB_TestMesh", vertices, faces, collection, materials=materials, face_materials=slots,
                      smooth=smooth, face_attributes={"rb_shade": np.linspace(0, 1, 200)})
    co, read_faces, read_smooth, read_slots = read_back(obj.data)
    assert np.array_equal(co, vertices.astype(np.float32))
    assert read_faces == [tuple(f) for f in faces.tolist()]
    assert (read_smooth == smooth).all()
    assert np.array_equal(read_slots, slots)
    shade = np.empty(200, np.float32)
    obj.data.attributes["rb_shade"].data.foreach_get("value", shade)
    assert np.allclose(shade, np.linspace(0, 1, 200))
    assert obj.name in collection.objects and not obj.data.validate()


def test_mixed_face_sizes_read_back_flat(collection):
    verts, faces = prism(0.5, 0.2, 6)  # six quads round the side, a hexagon at each end
    obj = ngon_object("RB_TestPrism", verts, faces, collection)
    co, read_faces, smooth, _ = read_back(obj.data)
    assert np.allclose(co, verts)
    assert read_faces == [tuple(f) for f in faces]
    assert not smooth.any() and len(obj.data.edges) == 18


def test_a_face_naming_a_missing_vertex_is_refused_before_blender_reads_it(collection):
    meshes = len(bpy.data.meshes)
    with pytest.raises(ValueError, match="RB_TestBroken.*vertex 4.*3 vertices"):
        mesh_object("RB_TestBroken", np.zeros((3, 3)), np.array([[0, 1, 4]]), collection)
    assert len(bpy.data.meshes) == meshes


def test_a_face_that_names_a_vertex_twice_is_dropped(collection):
    """A loft whose ring shrinks to a point (a car seat's) makes such faces: Blender's validation drops them."""
    vertices = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], float)
    obj = mesh_object("RB_TestCollapsed", vertices, np.array([[0, 1, 2], [0, 2, 2], [0, 2, 3]]), collection)
    assert read_back(obj.data)[1] == [(0, 1, 2), (0, 2, 3)]
