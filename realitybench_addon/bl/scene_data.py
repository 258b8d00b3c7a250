"""Scene data as numpy: evaluated mesh triangles in world space and the camera as a PinholeCamera."""
from __future__ import annotations

from typing import Iterable, Optional, Sequence

import bpy
import numpy as np

from ..core.errors import RealityBenchError
from ..core.optics import PinholeCamera
from . import compat

# Object types Blender can turn into a mesh (`to_mesh`); any other (empty, light, camera) has no surface.
SURFACE_TYPES = ("MESH", "CURVE", "SURFACE", "META", "FONT")
# A target whose faces add up to less than this share of its bounding box's squared diagonal is flat
# noise, not a surface: collinear corners stored as float32 still leave ~1e-7 of it.
MIN_AREA_SHARE = 1e-6


class SceneDataError(RealityBenchError, LookupError):
    """A named object or camera that is not in the scene or cannot be measured (a user error: the
    message says which and why)."""


def get_object(name: str, kind: Optional[str] = None) -> "bpy.types.Object":
    obj = bpy.data.objects.get(name)
    if obj is None:
        raise SceneDataError(f"no object named {name!r} in the file")
    if kind is not None and obj.type != kind:
        raise SceneDataError(f"object {name!r} is a {obj.type.lower()}, not a {kind.lower()}")
    return obj


def objects_center(names) -> np.ndarray:
    """The world-space centre of the bounding box of the named objects (a SceneDataError names a missing one)."""
    corners = []
    for name in names:
        obj = get_object(name)
        m = matrix_to_numpy(obj.matrix_world)
        box = np.array([list(c) for c in obj.bound_box], float) if obj.bound_box else np.zeros((1, 3))
        corners.append(box @ m[:3, :3].T + m[:3, 3])
    points = np.vstack(corners)
    return (points.min(axis=0) + points.max(axis=0)) / 2


def matrix_to_numpy(matrix) -> np.ndarray:
    return np.array([list(row) for row in matrix], dtype=float)


def world_vertices(mesh, matrix_world) -> np.ndarray:
    """A mesh's vertex positions moved to world space by `matrix_world`, (V, 3) float64: the one formula both the
    measuring BVH (`raycast.build_scene_bvh`) and `world_triangles` use, so their triangles agree to the bit."""
    m = matrix_to_numpy(matrix_world)
    return compat.vertex_positions(mesh).reshape(-1, 3) @ m[:3, :3].T + m[:3, 3]


def world_triangles(obj, depsgraph) -> tuple[np.ndarray, np.ndarray]:
    """The evaluated (modifiers applied) triangles of a mesh-like object, in world space."""
    evaluated = obj.evaluated_get(depsgraph)
    mesh = evaluated.to_mesh()
    try:
        if mesh is None or len(mesh.polygons) == 0:
            return np.zeros((0, 3)), np.zeros((0, 3), int)
        mesh.calc_loop_triangles()
        tris = np.empty(len(mesh.loop_triangles) * 3, np.int64)
        mesh.loop_triangles.foreach_get("vertices", tris)
        return world_vertices(mesh, evaluated.matrix_world), tris.reshape(-1, 3)
    finally:
        evaluated.to_mesh_clear()


def group_triangles(names: Iterable[str], depsgraph) -> tuple[np.ndarray, np.ndarray]:
    """Triangles of several objects joined into one (a target made of parts)."""
    all_v, all_t, offset = [], [], 0
    for name in names:
        obj = get_object(name)
        if obj.type not in SURFACE_TYPES:
            kind = obj.type.lower()
            article = "an" if kind[0] in "aeiou" else "a"
            raise SceneDataError(f"object {name!r} is {article} {kind}, which has no surface to measure; "
                                 f"a target must be a mesh, curve, surface, metaball or text object")
        v, t = world_triangles(obj, depsgraph)
        all_v.append(v)
        all_t.append(t + offset)
        offset += len(v)
    if offset == 0:
        raise SceneDataError(f"target {', '.join(names)} has no faces")
    return np.concatenate(all_v), np.concatenate(all_t)


def check_surface(names: Sequence[str], vertices: np.ndarray, triangles: np.ndarray) -> float:
    """The total area (m^2) of a target's triangles; SceneDataError when it has no real surface (every
    face degenerate: corners that coincide or lie on one line), which would sample as fully visible."""
    v = np.asarray(vertices, float)
    t = np.asarray(triangles, int).reshape(-1, 3)
    area = float(np.linalg.norm(np.cross(v[t[:, 1]] - v[t[:, 0]], v[t[:, 2]] - v[t[:, 0]]), axis=1).sum() / 2)
    used = v[np.unique(t)] if len(t) else v[:0]
    diagonal_sq = float(np.sum((used.max(axis=0) - used.min(axis=0)) ** 2)) if len(used) else 0.0
    if area <= MIN_AREA_SHARE * diagonal_sq:
        raise SceneDataError(f"target {', '.join(map(repr, names))} has no surface to measure: its faces' total "
                             f"area is {area:.3g} m^2 (their corners coincide or lie on one line)")
    return area


def render_size(scene) -> tuple[int, int]:
    pct = scene.render.resolution_percentage / 100.0
    return int(scene.render.resolution_x * pct), int(scene.render.resolution_y * pct)


def sensor_width_on_long_side(cam_data, width: int, height: int) -> float:
    """The sensor extent (mm) that spans the longer image side, whatever the sensor fit."""
    fit = cam_data.sensor_fit
    if fit == "AUTO":
        return cam_data.sensor_width
    if fit == "HORIZONTAL":
        return cam_data.sensor_width * max(width, height) / width
    return cam_data.sensor_height * max(width, height) / height


def pinhole_camera(camera_obj, scene, matrix=None) -> PinholeCamera:
    """The scene camera as a PinholeCamera at the scene's render resolution (perspective, no shift)."""
    cam = camera_obj.data
    if cam.type != "PERSP":
        raise SceneDataError(f"camera {camera_obj.name!r} is {cam.type.lower()}; only perspective cameras are measured")
    if abs(cam.shift_x) > 1e-9 or abs(cam.shift_y) > 1e-9:
        raise SceneDataError(f"camera {camera_obj.name!r} has a lens shift; RealityBench models phones without shift")
    width, height = render_size(scene)
    sensor = sensor_width_on_long_side(cam, width, height)
    m = matrix_to_numpy(camera_obj.matrix_world if matrix is None else matrix)
    m[:3, :3] /= np.linalg.norm(m[:3, :3], axis=0)  # drop any object scale
    return PinholeCamera.from_sensor(m, cam.lens, sensor, width, height)


def scene_and_camera(camera: Optional[str] = None):
    """(the current scene, the camera object named `camera` or else the scene's camera); a SceneDataError
    when there is none."""
    scene = bpy.context.scene
    cam = get_object(camera, "CAMERA") if camera else scene.camera
    if cam is None:
        raise SceneDataError(f"scene {scene.name!r} has no active camera; name one")
    return scene, cam
