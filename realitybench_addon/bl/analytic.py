"""Small scenes with known answers: for tests that pin each primitive, the demo and benchmarks. The mesh
helpers they are built with live in `bl/meshes.py`, the scene reset in `bl/reset.py` (both re-exported here)."""
from __future__ import annotations

import math

import bpy
from mathutils import Matrix

from . import compat
from .camera import look_at
from .meshes import add_box, add_mesh, add_rectangle, add_wire, frame_matrix  # noqa: F401  (tests import them here)
from .reset import reset_scene  # noqa: F401  (tests and scripts import it here)


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
