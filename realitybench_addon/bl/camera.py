"""Apply a phone capture to a Blender camera: lens, sensor, depth of field, resolution, shake."""
from __future__ import annotations

import json

import bpy
import numpy as np
from mathutils import Matrix

from ..core.optics import look_at  # noqa: F401  (re-exported: scripts place cameras with it)
from ..core.phone import CameraSettings, Capture, Phone, shutter_poses
from . import compat
from .measure import CAPTURE_PROPERTY

PHONE_PROPERTY = "realitybench_phone"


def ensure_camera(scene, name: str = "RB_Phone"):
    obj = bpy.data.objects.get(name)
    if obj is None:
        obj = bpy.data.objects.new(name, bpy.data.cameras.new(name))
    if obj.name not in scene.collection.objects and scene.objects.get(obj.name) is None:
        scene.collection.objects.link(obj)
    scene.camera = obj
    return obj


def apply_capture(scene, camera_obj, settings: CameraSettings, capture: Capture, phone: Phone,
                  camera_to_world: np.ndarray) -> None:
    """Set the camera's lens and pose, the render resolution, and (for hand shake) Cycles motion blur
    between the shutter's start and end poses, keyframed on the current frame and the next."""
    cam = camera_obj.data
    cam.type = "PERSP"
    cam.lens = settings.focal_mm
    cam.sensor_fit = "AUTO"  # the sensor width spans the long image side in both orientations
    cam.sensor_width = settings.sensor_width_mm
    cam.sensor_height = settings.sensor_width_mm * 3 / 4
    cam.shift_x = cam.shift_y = 0.0
    cam.clip_start = 0.01
    cam.clip_end = 1000.0
    cam.dof.use_dof = True
    cam.dof.focus_object = None
    cam.dof.focus_distance = settings.focus_distance_m
    cam.dof.aperture_fstop = settings.fstop
    scene.render.resolution_x, scene.render.resolution_y = settings.resolution
    scene.render.resolution_percentage = 100
    scene.render.pixel_aspect_x = scene.render.pixel_aspect_y = 1.0
    _clear_shake(camera_obj)
    camera_obj.matrix_world = Matrix(np.asarray(camera_to_world).tolist())
    camera_obj[CAPTURE_PROPERTY] = json.dumps(capture.to_dict())
    camera_obj[PHONE_PROPERTY] = json.dumps(phone.to_dict())
    shaking = capture.shake_rate_deg_s > 0 or capture.shake_speed_m_s > 0
    scene.render.use_motion_blur = shaking
    if shaking:
        start, end = shutter_poses(camera_to_world, capture)
        frame = scene.frame_current
        for f, pose in ((frame, start), (frame + 1, end)):
            camera_obj.matrix_world = Matrix(pose.tolist())
            camera_obj.keyframe_insert("location", frame=f)
            camera_obj.keyframe_insert("rotation_euler", frame=f)
        for fcurve in compat.action_fcurves(camera_obj.animation_data.action):
            for key in fcurve.keyframe_points:
                key.interpolation = "LINEAR"
        scene.render.motion_blur_shutter = 1.0
        if hasattr(scene.render, "motion_blur_position"):
            scene.render.motion_blur_position = "START"
        scene.frame_set(frame)
    # Keep the custom properties as plain data; scene.camera is the phone.
    scene.camera = camera_obj
    # Until the depsgraph runs, matrix_world reads back the float32 matrix just assigned; after,
    # the one recomposed from location/rotation/scale (what Cycles renders), a few 1e-8 apart.
    # Measurements must not depend on whether something (a BVH rebuild, a new camera object)
    # happened to evaluate the scene first, so evaluate it here, every time.
    view_layer = bpy.context.view_layer if scene == bpy.context.scene else scene.view_layers[0]
    view_layer.update()


def _clear_shake(camera_obj) -> None:
    """Drop the last frame's shake keyframes and their action, so the camera carries nothing
    from one frame to the next (a resumed export starts with a fresh camera)."""
    action = camera_obj.animation_data.action if camera_obj.animation_data else None
    camera_obj.animation_data_clear()
    if action is not None and action.users == 0:
        bpy.data.actions.remove(action)
