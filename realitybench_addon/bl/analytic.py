"""Small scenes with known answers: for tests that pin each primitive, the demo and benchmarks."""
from __future__ import annotations

import math

import bpy
import numpy as np
from mathutils import Matrix

from . import compat
from .camera import look_at
from .meshes import curve_object


# Data kinds a RealityBench scene creates; `reset_scene` empties all of them.
_SCENE_DATA = ("objects", "meshes", "curves", "materials", "lights", "cameras", "worlds", "node_groups",
               "actions", "collections", "textures")


def reset_scene():
    """Empty the current scene and the data blocks scenes are built from; return the scene.

    Not `read_homefile`/`read_factory_settings`: loading a file from inside an operator (the
    export and build operators call this) hangs or crashes Blender, and the factory reset
    also disables the running add-on.
    """
    from .material_cache import template_names
    from .render import release_render_rigs

    release_render_rigs()  # a render session's compositor nodes and images go first, cleanly
    scene = bpy.context.scene
    for other in [s for s in bpy.data.scenes if s != scene]:
        bpy.data.scenes.remove(other)
    keep = template_names()  # materials kept to be copied into later scenes (`bl.material_cache`)
    doomed = [block for kind in _SCENE_DATA for block in getattr(bpy.data, kind)
              if not (kind == "materials" and block.name in keep)]
    doomed += [img for img in bpy.data.images if img.type not in {"RENDER_RESULT", "COMPOSITING"}]
    bpy.data.batch_remove(doomed)
    scene.camera = None
    scene.world = None
    compat.clear_compositor(scene)
    scene.frame_set(1)
    scene.render.engine = "CYCLES"
    scene.render.use_motion_blur = False
    return scene


def _link(scene, obj):
    scene.collection.objects.link(obj)
    return obj


def diffuse_material(name: str, color, roughness: float = 0.9):
    mat = bpy.data.materials.get(name) or bpy.data.materials.new(name)
    compat.use_shader_nodes(mat)
    bsdf = mat.node_tree.nodes.get("Principled BSDF")
    compat.principled_input(bsdf, "Base Color").default_value = (*color, 1.0)
    compat.principled_input(bsdf, "Roughness").default_value = roughness
    compat.principled_input(bsdf, "Specular IOR Level").default_value = 0.0
    return mat


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
    return _link(scene, obj)


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


def add_box(scene, name: str, size, location, material=None):
    sx, sy, sz = (s / 2 for s in size)
    verts = [(x, y, z) for z in (-sz, sz) for y in (-sy, sy) for x in (-sx, sx)]
    faces = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
    m = np.eye(4)
    m[:3, 3] = location
    return add_mesh(scene, name, verts, faces, m, [material] if material else ())


def add_wire(scene, name: str, points, radius: float, material=None):
    """A cable: a poly curve through `points` with a round bevel of `radius`."""
    return curve_object(name, np.asarray(points, float), radius, scene.collection, material=material)


def add_camera(scene, name: str, position, target, *, focal_mm: float = 26.0, sensor_width_mm: float = 36.0,
               resolution=(1600, 1200), roll_deg: float = 0.0):
    cam = bpy.data.cameras.new(name)
    cam.lens = focal_mm
    cam.sensor_fit = "AUTO"
    cam.sensor_width = sensor_width_mm
    cam.clip_start = 0.01
    obj = _link(scene, bpy.data.objects.new(name, cam))
    obj.matrix_world = Matrix(look_at(position, target, roll_deg=roll_deg).tolist())
    scene.camera = obj
    scene.render.resolution_x, scene.render.resolution_y = resolution
    scene.render.resolution_percentage = 100
    return obj


def uniform_world(scene, strength: float = 1.0, color=(1.0, 1.0, 1.0)):
    """A uniformly lit white world: every unoccluded surface facing the sky gets the same light."""
    world = bpy.data.worlds.new("RB_UniformWorld")
    compat.use_shader_nodes(world)
    bg = world.node_tree.nodes["Background"]
    bg.inputs["Color"].default_value = (*color, 1.0)
    bg.inputs["Strength"].default_value = strength
    scene.world = world
    return world


def card_with_ink(scene, name: str, width: float, height: float, matrix, paper=0.8, ink=0.04):
    """A label card: left half ink, right half paper (one object, two materials) -> Weber contrast 1 - ink/paper."""
    verts = [(-width / 2, -height / 2, 0), (0, -height / 2, 0), (width / 2, -height / 2, 0),
             (-width / 2, height / 2, 0), (0, height / 2, 0), (width / 2, height / 2, 0)]
    faces = [(0, 1, 4, 3), (1, 2, 5, 4)]
    mats = [diffuse_material(f"{name}_ink", (ink,) * 3), diffuse_material(f"{name}_paper", (paper,) * 3)]
    return add_mesh(scene, name, verts, faces, matrix, mats, face_materials=[0, 1])


def demo_scene():
    """A wall with a label card, a box partly in front of it and a cable: the `demo` command's scene."""
    scene = reset_scene()
    uniform_world(scene, 1.0, (0.7, 0.8, 1.0))
    sun_data = bpy.data.lights.new("RB_Sun", "SUN")
    sun_data.energy = 3.0
    sun = bpy.data.objects.new("RB_Sun", sun_data)
    sun.rotation_euler = (math.radians(50), 0.0, math.radians(30))
    _link(scene, sun)
    wall = diffuse_material("RB_Wall", (0.45, 0.42, 0.38))
    add_rectangle(scene, "Wall", 6.0, 3.0, frame_matrix((0, 0, 1.5), (0, -1, 0), (1, 0, 0)), wall)
    add_rectangle(scene, "Ground", 8.0, 8.0, frame_matrix((0, -3, 0), (0, 0, 1), (1, 0, 0)),
                  diffuse_material("RB_Ground", (0.2, 0.2, 0.2)))
    card_with_ink(scene, "Label", 0.20, 0.12, frame_matrix((0.0, -0.001, 1.5), (0, -1, 0), (1, 0, 0)))
    add_box(scene, "Box", (0.3, 0.3, 0.5), (0.35, -0.6, 1.2), diffuse_material("RB_Box", (0.6, 0.3, 0.1)))
    add_wire(scene, "Cable", [(-1.0, -0.05, 2.0), (-0.6, -0.05, 1.2), (-0.2, -0.05, 0.9)], 0.006,
             diffuse_material("RB_Cable", (0.02, 0.02, 0.02)))
    return scene
