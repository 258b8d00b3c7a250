"""Mesh construction: from numpy arrays (fast `foreach_set`, no per-vertex Python loops) for the environments,
and a part at a time (`add_mesh`, `add_rectangle`, `add_box` axis-aligned or turned, `add_wire`, `frame_matrix`)
for small scenes."""
from __future__ import annotations

import math

import bpy
import numpy as np
from mathutils import Matrix

from . import compat

# A unit box's corners and quads (outward normals), corners at 0/1 on each axis.
_BOX_CORNERS = np.array([[x, y, z] for z in (0, 1) for y in (0, 1) for x in (0, 1)], float)
_BOX_QUADS = np.array([[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]])


def mesh_object(name: str, vertices: np.ndarray, faces: np.ndarray, collection, *, matrix=None, materials=(),
                face_materials=None, face_attributes: dict | None = None, point_vectors: dict | None = None,
                smooth: bool = False):
    """An object from (V, 3) vertices and (F, k) faces of one size k (3 or 4). `face_attributes`: name -> a
    float per face; `point_vectors`: name -> (V, 3) floats per vertex, which a shader's Attribute node reads
    (its Vector output) interpolated across the faces."""
    faces = np.asarray(faces, np.int32)
    obj = _mesh_from_arrays(name, vertices, faces.ravel(), np.full(len(faces), faces.shape[1], np.int32),
                            collection, matrix=matrix, materials=materials, face_materials=face_materials,
                            face_attributes=face_attributes, smooth=smooth)
    for attr_name, values in (point_vectors or {}).items():
        attr = obj.data.attributes.new(attr_name, "FLOAT_VECTOR", "POINT")
        attr.data.foreach_set("vector", np.asarray(values, np.float32).reshape(-1))
    if _has_collapsed_face(faces):  # a loft's ring shrunk to a point (car seats): Blender drops those faces
        obj.data.validate()
    return obj


def _has_collapsed_face(faces: np.ndarray) -> bool:
    """Does any face name one vertex twice? (Checking here costs a fraction of mesh.validate().)"""
    k = faces.shape[1]
    return any(bool((faces[:, i] == faces[:, j]).any()) for i in range(k) for j in range(i + 1, k))


def _mesh_from_arrays(name, vertices, corner_verts, face_sizes, collection, *, matrix=None, materials=(),
                      face_materials=None, face_attributes=None, smooth=False):
    vertices = np.asarray(vertices, np.float32).reshape(-1, 3)
    missing = corner_verts[(corner_verts < 0) | (corner_verts >= len(vertices))]
    if len(missing):  # Blender would read past the vertices (mesh.validate() repairs this only after the fact)
        raise ValueError(f"mesh {name!r}: a face refers to vertex {int(missing[0])}, but there are "
                         f"{len(vertices)} vertices")
    mesh = bpy.data.meshes.new(name)
    compat.fill_mesh(mesh, vertices, corner_verts, face_sizes)
    for mat in materials:
        mesh.materials.append(mat)
    if face_materials is not None:
        compat.set_face_materials(mesh, face_materials)
    compat.set_face_shading(mesh, smooth)
    mesh.update(calc_edges=True)
    for attr_name, values in (face_attributes or {}).items():
        attr = mesh.attributes.new(attr_name, "FLOAT", "FACE")
        attr.data.foreach_set("value", np.asarray(values, np.float32))
    obj = bpy.data.objects.new(name, mesh)
    if matrix is not None:
        obj.matrix_world = Matrix(np.asarray(matrix).tolist())
    collection.objects.link(obj)
    return obj


def boxes(lows: np.ndarray, highs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Axis-aligned boxes (in the local frame) from their low and high corners: vertices and quads."""
    lows = np.atleast_2d(lows).astype(float)
    highs = np.atleast_2d(highs).astype(float)
    verts = lows[:, None, :] + _BOX_CORNERS[None] * (highs - lows)[:, None, :]
    faces = _BOX_QUADS[None] + 8 * np.arange(len(lows))[:, None, None]
    return verts.reshape(-1, 3), faces.reshape(-1, 4)


def prism(radius: float, height: float, sides: int, z0: float = 0.0) -> tuple[np.ndarray, list]:
    """A vertical n-sided prism (hex head, washer, cylinder) centred on the local Z axis: vertices, faces."""
    a = np.linspace(0, 2 * math.pi, sides, endpoint=False)
    ring = np.stack([radius * np.cos(a), radius * np.sin(a)], axis=1)
    verts = np.concatenate([np.column_stack([ring, np.full(sides, z0)]), np.column_stack([ring, np.full(sides, z0 + height)])])
    faces = [[i, (i + 1) % sides, sides + (i + 1) % sides, sides + i] for i in range(sides)]
    faces.append(list(range(sides))[::-1])
    faces.append(list(range(sides, 2 * sides)))
    return verts, faces


def ngon_object(name: str, vertices, faces, collection, *, matrix=None, materials=(), smooth_angle=None):
    """An object from faces of mixed sizes (small parts: prisms, L-brackets), flat as in mesh_object; with
    `smooth_angle` (radians) shaded smooth across the edges where faces meet at less than it (rounded corners)."""
    sizes = np.array([len(f) for f in faces], np.int32)
    corners = np.fromiter((i for f in faces for i in f), np.int32, count=int(sizes.sum()))
    obj = _mesh_from_arrays(name, vertices, corners, sizes, collection, matrix=matrix, materials=materials)
    if smooth_angle is not None:
        compat.smooth_by_angle(obj.data, smooth_angle)
    return obj


def curve_object(name: str, points: np.ndarray, radius: float, collection, *, material=None, matrix=None):
    """A cable: a poly curve through `points` with a round bevel of `radius`."""
    curve = bpy.data.curves.new(name, "CURVE")
    curve.dimensions = "3D"
    curve.bevel_depth = radius
    curve.bevel_resolution = 3
    curve.use_fill_caps = True
    spline = curve.splines.new("POLY")
    spline.points.add(len(points) - 1)
    co = np.column_stack([np.asarray(points, float), np.ones(len(points))]).astype(np.float32)
    spline.points.foreach_set("co", co.ravel())
    if material is not None:
        curve.materials.append(material)
    obj = bpy.data.objects.new(name, curve)
    if matrix is not None:
        obj.matrix_world = Matrix(np.asarray(matrix).tolist())
    collection.objects.link(obj)
    return obj


def set_vertex_uv(obj, uv_by_vertex: np.ndarray) -> None:
    """A UV map on `obj`'s mesh whose every corner takes its vertex's (u, v) from `uv_by_vertex` (V, 2)."""
    mesh = obj.data
    corners = np.empty(len(mesh.loops), np.int32)
    mesh.loops.foreach_get("vertex_index", corners)
    layer = mesh.uv_layers.new(name="UVMap")
    layer.data.foreach_set("uv", np.asarray(uv_by_vertex, np.float32)[corners].ravel())


def textured_quad(name: str, width: float, height: float, collection, material, *, matrix=None,
                  center=(0.0, 0.0, 0.0)):
    """A flat quad in its local XY plane facing +Z, its image mapped once over it upright:
    image x along +X, image top at +Y (labels, displays, cards at true size)."""
    cx, cy, cz = map(float, center)
    w, h = width / 2, height / 2
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata([(cx - w, cy - h, cz), (cx + w, cy - h, cz), (cx + w, cy + h, cz), (cx - w, cy + h, cz)], [],
                     [(0, 1, 2, 3)])
    uv = mesh.uv_layers.new(name="UVMap")
    uv.data.foreach_set("uv", np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32).ravel())
    mesh.materials.append(material)
    obj = bpy.data.objects.new(name, mesh)
    if matrix is not None:
        obj.matrix_world = Matrix(np.asarray(matrix).tolist())
    collection.objects.link(obj)
    return obj


# Small scenes and test scenes, built a part at a time (bl/analytic.py, the demo, benchmarks).

def add_mesh(scene, name: str, vertices, faces, matrix=None, materials=(), face_materials=None):
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata([tuple(map(float, v)) for v in vertices], [], [tuple(f) for f in faces])
    for mat in materials:
        mesh.materials.append(mat)
    if face_materials is not None:
        mesh.polygons.foreach_set("material_index", list(face_materials))
    mesh.update()
    obj = bpy.data.objects.new(name, mesh)
    if matrix is not None:
        obj.matrix_world = Matrix(np.asarray(matrix).tolist())
    scene.collection.objects.link(obj)
    return obj


def frame_matrix(origin, normal, x_axis) -> np.ndarray:
    """Object matrix with local +Z along `normal` and local +X along `x_axis` (made orthogonal)."""
    z = np.asarray(normal, float)
    z /= np.linalg.norm(z)
    x = np.asarray(x_axis, float)
    x = x - np.dot(x, z) * z
    x /= np.linalg.norm(x)
    m = np.eye(4)
    m[:3, 0], m[:3, 1], m[:3, 2], m[:3, 3] = x, np.cross(z, x), z, origin
    return m


def add_rectangle(scene, name: str, width: float, height: float, matrix=None, material=None, divisions: int = 1):
    """A width x height rectangle in the local XY plane (normal +Z), centred on the origin."""
    n = divisions
    xs = np.linspace(-width / 2, width / 2, n + 1)
    ys = np.linspace(-height / 2, height / 2, n + 1)
    verts = [(x, y, 0.0) for y in ys for x in xs]
    faces = [(j * (n + 1) + i, j * (n + 1) + i + 1, (j + 1) * (n + 1) + i + 1, (j + 1) * (n + 1) + i)
             for j in range(n) for i in range(n)]
    return add_mesh(scene, name, verts, faces, matrix, [material] if material else ())


def add_box(scene, name: str, size, location=None, material=None, *, matrix=None):
    """A box of `size` (x, y, z) centred on its origin: at `location` with its sides along the world axes, or
    placed (turned, tilted) by `matrix`, an object-to-world 4x4 (e.g. `frame_matrix`'s)."""
    if (location is None) == (matrix is None):
        raise ValueError(f"box {name!r}: give its location or its matrix, one of them")
    sx, sy, sz = (s / 2 for s in size)
    verts = [(x, y, z) for z in (-sz, sz) for y in (-sy, sy) for x in (-sx, sx)]
    faces = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
    if matrix is None:
        matrix = np.eye(4)
        matrix[:3, 3] = location
    return add_mesh(scene, name, verts, faces, matrix, [material] if material else ())


def add_wire(scene, name: str, points, radius: float, material=None):
    """A cable: a poly curve through `points` with a round bevel of `radius`."""
    return curve_object(name, np.asarray(points, float), radius, scene.collection, material=material)
