"""Mesh construction from numpy arrays (fast `foreach_set`, no per-vertex Python loops)."""
from __future__ import annotations

import math

import bpy
import numpy as np
from mathutils import Matrix

# A unit box's corners and quads (outward normals), corners at 0/1 on each axis.
_BOX_CORNERS = np.array([[x, y, z] for z in (0, 1) for y in (0, 1) for x in (0, 1)], float)
_BOX_QUADS = np.array([[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]])


def mesh_object(name: str, vertices: np.ndarray, faces: np.ndarray, collection, *, matrix=None, materials=(),
                face_materials=None, face_attributes: dict | None = None, smooth: bool = False):
    """An object from (V, 3) vertices and (F, k) faces of one size k (3 or 4)."""
    vertices = np.asarray(vertices, np.float32).reshape(-1, 3)
    faces = np.asarray(faces, np.int32)
    k = faces.shape[1]
    mesh = bpy.data.meshes.new(name)
    mesh.vertices.add(len(vertices))
    mesh.vertices.foreach_set("co", vertices.ravel())
    mesh.loops.add(faces.size)
    mesh.loops.foreach_set("vertex_index", faces.ravel())
    mesh.polygons.add(len(faces))
    mesh.polygons.foreach_set("loop_start", np.arange(0, faces.size, k, dtype=np.int32))
    mesh.polygons.foreach_set("loop_total", np.full(len(faces), k, np.int32))
    for mat in materials:
        mesh.materials.append(mat)
    if face_materials is not None:
        mesh.polygons.foreach_set("material_index", np.asarray(face_materials, np.int32))
    # Explicitly either way: Blender 4.1+ makes faces built from Python smooth unless told, which shades
    # boxes with shared corners like cylinders (3.4 made them flat).
    mesh.polygons.foreach_set("use_smooth", np.full(len(faces), smooth, bool))
    mesh.update(calc_edges=True)
    mesh.validate()
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


def ngon_object(name: str, vertices, faces, collection, *, matrix=None, materials=()):
    """An object from faces of mixed sizes (small parts: prisms, L-brackets)."""
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata([tuple(map(float, v)) for v in vertices], [], [tuple(f) for f in faces])
    mesh.polygons.foreach_set("use_smooth", np.zeros(len(mesh.polygons), bool))  # flat, as in mesh_object
    for mat in materials:
        mesh.materials.append(mat)
    mesh.update()
    obj = bpy.data.objects.new(name, mesh)
    if matrix is not None:
        obj.matrix_world = Matrix(np.asarray(matrix).tolist())
    collection.objects.link(obj)
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
