"""Scene data as numpy: evaluated mesh triangles in world space and the camera as a PinholeCamera."""
from __future__ import annotations

from typing import Iterable, Optional

import bpy
import numpy as np

from ..core.optics import PinholeCamera


class SceneDataError(LookupError):
    """A named object or camera that is not in the scene (a user error: the message says which)."""


def get_object(name: str, kind: Optional[str] = None) -> "bpy.types.Object":
    obj = bpy.data.objects.get(name)
    if obj is None:
        raise SceneDataError(f"no object named {name!r} in the file")
    if kind is not None and obj.type != kind:
        raise SceneDataError(f"object {name!r} is a {obj.type.lower()}, not a {kind.lower()}")
    return obj


def matrix_to_numpy(matrix) -> np.ndarray:
    return np.array([list(row) for row in matrix], dtype=float)


def world_triangles(obj, depsgraph) -> tuple[np.ndarray, np.ndarray]:
    """The evaluated (modifiers applied) triangles of a mesh-like object, in world space."""
    evaluated = obj.evaluated_get(depsgraph)
    mesh = evaluated.to_mesh()
    try:
        if mesh is None or len(mesh.polygons) == 0:
            return np.zeros((0, 3)), np.zeros((0, 3), int)
        mesh.calc_loop_triangles()
        verts = np.empty(len(mesh.vertices) * 3, np.float64)
        mesh.vertices.foreach_get("co", verts)
        tris = np.empty(len(mesh.loop_triangles) * 3, np.int64)
        mesh.loop_triangles.foreach_get("vertices", tris)
        m = matrix_to_numpy(evaluated.matrix_world)
        verts = verts.reshape(-1, 3) @ m[:3, :3].T + m[:3, 3]
        return verts, tris.reshape(-1, 3)
    finally:
        evaluated.to_mesh_clear()


def group_triangles(names: Iterable[str], depsgraph) -> tuple[np.ndarray, np.ndarray]:
    """Triangles of several objects joined into one (a target made of parts)."""
    all_v, all_t, offset = [], [], 0
    for name in names:
        v, t = world_triangles(get_object(name), depsgraph)
        all_v.append(v)
        all_t.append(t + offset)
        offset += len(v)
    if offset == 0:
        raise SceneDataError(f"target {', '.join(names)} has no faces")
    return np.concatenate(all_v), np.concatenate(all_t)


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
