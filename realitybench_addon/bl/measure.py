"""Geometric primitives for a named target seen by a camera (spec: "Scoring primitives").

The target may be one object or several (an L-foot with its flashing and bolt). Its
surface is sampled (vertices + area-weighted face-interior points); each sample is
projected (in frame?) and ray-cast from the camera through the cached scene BVH (is the
first hit the target?). Frame-level values that need an origin and axes (view angle,
distance, px per unit) use the first object of the target.
"""
from __future__ import annotations

import json
import math
from typing import Optional, Sequence

import bpy
import numpy as np

from ..core import geometry
from ..core.blur import blur_at_target
from ..core.optics import px_per_unit, view_angle_deg
from ..core.phone import Capture, shutter_poses
from .raycast import scene_bvh
from .scene_data import SceneDataError, check_surface, get_object, group_triangles, matrix_to_numpy, pinhole_camera

AXES = {"x": 0, "y": 1, "z": 2}
CAPTURE_PROPERTY = "realitybench_capture"  # JSON of the phone capture, set on cameras we place
DEFAULT_SAMPLES = 2000


def camera_capture(camera_obj) -> Optional[Capture]:
    raw = camera_obj.get(CAPTURE_PROPERTY)
    return Capture.from_dict(json.loads(raw)) if raw else None


def sample_target(names: Sequence[str], depsgraph, n_samples: int = DEFAULT_SAMPLES):
    verts, tris = group_triangles(names, depsgraph)
    check_surface(names, verts, tris)
    return geometry.sample_surface(verts, tris, n_samples)


def visibility(scene, camera, points: np.ndarray, names: Sequence[str], depsgraph=None) -> np.ndarray:
    """Per point: is the first thing a ray from the camera meets on its way there part of the target?"""
    bvh = scene_bvh(scene, depsgraph)
    ids = [bvh.name_index(n) for n in names]
    hits = bvh.first_hits(camera.position, points)
    # No hit at all: the ray reached the point's own (grazing) surface unobstructed.
    return np.isin(hits, ids) | (hits == -1)


def object_frame(obj) -> tuple[np.ndarray, np.ndarray]:
    """World origin and world axes (columns, unit length) of an object."""
    m = matrix_to_numpy(obj.matrix_world)
    axes = m[:3, :3] / np.linalg.norm(m[:3, :3], axis=0)
    return m[:3, 3], axes


def measure_target(scene, camera_obj, names: Sequence[str], *, unit_length_m: float = 0.01, axis: str = "y",
                   n_samples: int = DEFAULT_SAMPLES, depsgraph=None) -> dict:
    """All geometric primitives of a target for one camera, as a flat dict of unit-named values."""
    if axis not in AXES:
        raise ValueError(f"axis must be one of x, y, z, got {axis!r}")
    if not unit_length_m > 0:
        raise ValueError(f"unit length must be positive, got {unit_length_m}")
    depsgraph = depsgraph or bpy.context.evaluated_depsgraph_get()
    camera = pinhole_camera(camera_obj, scene)
    points, _normals, _ = sample_target(names, depsgraph, n_samples)
    in_frame = camera.in_frame(points)
    visible = visibility(scene, camera, points, names, depsgraph)
    origin, axes = object_frame(get_object(names[0]))
    normal = axes[:, 2]
    capture = camera_capture(camera_obj)
    blur = blur_for_camera(camera_obj, scene, camera, origin, capture)
    return {
        "target": list(names),
        "camera": camera_obj.name,
        "resolution": [camera.width, camera.height],
        "n_samples": int(len(points)),
        "in_frame_fraction": float(in_frame.mean()),
        "unoccluded_fraction": float(visible.mean()),
        "visible_fraction": float((in_frame & visible).mean()),
        "bbox_fraction": geometry.bbox_fraction(camera, points),
        "view_angle_deg": view_angle_deg(camera.position, origin, normal),
        "distance_m": float(np.linalg.norm(camera.position - origin)),
        "unit_length_m": unit_length_m,
        "axis": axis,
        "px_per_unit": px_per_unit(camera, origin, axes[:, AXES[axis]], unit_length_m),
        "defocus_px": blur.defocus_px,
        "motion_blur_px": blur.motion_px,
        "blur_at_target_px": blur.total_px,
    }


def blur_for_camera(camera_obj, scene, camera, point, capture: Optional[Capture] = None):
    """Blur at `point` from the Blender camera's own lens settings (so hand-placed cameras work too)
    and, when the camera carries a RealityBench capture, its hand shake."""
    cam = camera_obj.data
    focus = cam.dof.focus_distance
    if cam.dof.use_dof and cam.dof.focus_object is not None:
        focus = float(np.linalg.norm(matrix_to_numpy(cam.dof.focus_object.matrix_world)[:3, 3] - camera.position))
    fstop = cam.dof.aperture_fstop if cam.dof.use_dof else math.inf
    start = end = None
    if capture is not None and (capture.shake_rate_deg_s or capture.shake_speed_m_s):
        start, end = shutter_poses(camera.camera_to_world, capture)
    sensor = cam.lens / camera.focal_px * max(camera.width, camera.height)
    if not math.isfinite(fstop):
        fstop = 1e9  # pinhole: no defocus
    return blur_at_target(point, camera, focal_mm=cam.lens, fstop=fstop, focus_m=max(focus, cam.lens / 1000 * 1.001),
                          sensor_width_mm=sensor, shutter_start=start, shutter_end=end)


def curve_clearance(name: str, plane_point, plane_normal) -> tuple[float, np.ndarray]:
    """Signed clearance (m) between a beveled curve object's surface and a plane, and its lowest
    centreline point in world space. <= 0 means the cable touches or dips through the plane.

    Read from the curve itself (spline points and bevel depth), so it is exact for round
    bevels; the sampled mesh would miss the lowest point between bevel segments.
    """
    obj = get_object(name, "CURVE")
    m = matrix_to_numpy(obj.matrix_world)
    scale = float(np.cbrt(abs(np.linalg.det(m[:3, :3]))))
    points = []
    for spline in obj.data.splines:
        if spline.type == "BEZIER":
            raw = np.empty(len(spline.bezier_points) * 3)
            spline.bezier_points.foreach_get("co", raw)
            points.append(raw.reshape(-1, 3))
        else:
            raw = np.empty(len(spline.points) * 4)
            spline.points.foreach_get("co", raw)
            points.append(raw.reshape(-1, 4)[:, :3])
    if not points:
        raise SceneDataError(f"curve {name!r} has no points")
    world = np.concatenate(points) @ m[:3, :3].T + m[:3, 3]
    clearance, low = geometry.curve_clearance(world, obj.data.bevel_depth * scale, plane_point, plane_normal)
    return clearance, world[low]
