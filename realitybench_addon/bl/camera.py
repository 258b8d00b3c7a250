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
    set_scene_camera(scene, obj)
    return obj


def set_scene_camera(scene, camera_obj) -> None:
    """Only when it is another camera: assigning scene.camera, even the same one, rebuilds the depsgraph's
    relations (some 10 ms a frame in a roof scene of 300 objects)."""
    if scene.camera != camera_obj:
        scene.camera = camera_obj


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
    if cam.dof.focus_object is not None:  # setting it at all (even to None) rebuilds depsgraph relations
        cam.dof.focus_object = None
    cam.dof.focus_distance = settings.focus_distance_m
    cam.dof.aperture_fstop = settings.fstop
    scene.render.resolution_x, scene.render.resolution_y = settings.resolution
    scene.render.resolution_percentage = 100
    scene.render.pixel_aspect_x = scene.render.pixel_aspect_y = 1.0
    shaking = capture.shake_rate_deg_s > 0 or capture.shake_speed_m_s > 0
    frame = scene.frame_current
    poses = shutter_poses(camera_to_world, capture) if shaking else None
    camera_obj.matrix_world = Matrix(np.asarray(camera_to_world).tolist())
    # A shaking frame after a shaking frame rewrites the same keyframes in place: removing an action and
    # inserting another each frame rebuilds the depsgraph's relations twice (some 6 ms in a roof scene).
    rewritten = poses is not None and _rewrite_shake(camera_obj, frame, poses)
    if not rewritten:
        _clear_shake(camera_obj)
    camera_obj[CAPTURE_PROPERTY] = json.dumps(capture.to_dict())
    camera_obj[PHONE_PROPERTY] = json.dumps(phone.to_dict())
    scene.render.use_motion_blur = shaking
    if shaking:
        if not rewritten:
            for f, pose in ((frame, poses[0]), (frame + 1, poses[1])):
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
    set_scene_camera(scene, camera_obj)
    # Until the depsgraph runs, matrix_world reads back the float32 matrix just assigned; after,
    # the one recomposed from location/rotation/scale (what Cycles renders), a few 1e-8 apart.
    # Measurements must not depend on whether something (a BVH rebuild, a new camera object)
    # happened to evaluate the scene first, so evaluate it here, every time.
    view_layer = bpy.context.view_layer if scene == bpy.context.scene else scene.view_layers[0]
    view_layer.update()


def _clear_shake(camera_obj) -> None:
    """Drop the last frame's shake keyframes and their action, so the camera carries nothing
    from one frame to the next (a resumed export starts with a fresh camera)."""
    if camera_obj.animation_data is None:  # nothing to drop; clearing anyway rebuilds the depsgraph's
        return                              # relations (some 10 ms a frame in a roof scene)
    action = camera_obj.animation_data.action
    camera_obj.animation_data_clear()
    if action is not None and action.users == 0:
        bpy.data.actions.remove(action)


_SHAKE_CHANNELS = [(path, axis) for path in ("location", "rotation_euler") for axis in range(3)]


def _rewrite_shake(camera_obj, frame: int, poses) -> bool:
    """Move the camera's shake keyframes (the last frame's `keyframe_insert`s: two linear keys on each of
    location and rotation_euler) to `frame` and `frame + 1` with the values of `poses` = (start, end).
    Returns False, changing nothing, when the camera's animation is not exactly that."""
    animation = camera_obj.animation_data
    action = animation.action if animation is not None else None
    # only the camera's own, editable action (another object may share one; a linked one cannot change)
    if action is None or action.users != 1 or action.library is not None or animation.drivers \
            or len(animation.nla_tracks) or animation.action_influence != 1.0 \
            or animation.action_blend_type != "REPLACE" or getattr(action, "use_frame_range", False):
        return False
    fcurves = compat.action_fcurves(action)
    curves = {(fc.data_path, fc.array_index): fc for fc in fcurves}
    if len(fcurves) != len(_SHAKE_CHANNELS) or sorted(curves) != sorted(_SHAKE_CHANNELS) or any(
            len(fc.keyframe_points) != 2 or fc.mute or fc.modifiers or
            any(k.interpolation != "LINEAR" for k in fc.keyframe_points) for fc in curves.values()):
        return False
    for k, pose in enumerate(poses):
        # the values keyframe_insert would have read: the pose as Blender decomposes it
        camera_obj.matrix_world = Matrix(np.asarray(pose).tolist())
        values = {"location": tuple(camera_obj.location), "rotation_euler": tuple(camera_obj.rotation_euler)}
        for (path, axis), fcurve in curves.items():
            fcurve.keyframe_points[k].co = (frame + k, values[path][axis])
    for fcurve in curves.values():
        fcurve.update()
    return True


GHOST_CAMERA = "RB_Suggested"


def show_ghost_camera(scene, matrix: np.ndarray, focal_mm: float, sensor_width_mm: float, name: str = GHOST_CAMERA):
    """A second camera, drawn in the viewport as a frustum and never rendered or measured: where Suggest a Pose
    would put the phone, before anyone moves it there. Made once, then moved."""
    data = bpy.data.cameras.get(name) or bpy.data.cameras.new(name)
    data.lens, data.sensor_width, data.sensor_fit = focal_mm, sensor_width_mm, "AUTO"
    data.display_size = 0.35
    obj = bpy.data.objects.get(name)
    if obj is None:
        obj = bpy.data.objects.new(name, data)
    if scene.objects.get(obj.name) is None:
        scene.collection.objects.link(obj)
    obj.matrix_world = Matrix(np.asarray(matrix).tolist())
    obj.hide_render = True
    obj.hide_select = True
    obj.show_in_front = True
    return obj


def remove_ghost_camera(name: str = GHOST_CAMERA) -> bool:
    obj = bpy.data.objects.get(name)
    if obj is None:
        return False
    data = obj.data
    bpy.data.objects.remove(obj, do_unlink=True)
    if data is not None and data.users == 0:
        bpy.data.cameras.remove(data)
    return True


def camera_state(scene, camera_obj) -> dict:
    """Everything Suggest a Pose's Apply changes on a camera, as JSON-able data (for its Undo)."""
    data = camera_obj.data
    return {"name": camera_obj.name, "matrix": [list(row) for row in camera_obj.matrix_world],
            "lens": [data.lens, data.sensor_width, data.sensor_height, data.dof.aperture_fstop,
                     data.dof.focus_distance], "resolution": [scene.render.resolution_x, scene.render.resolution_y],
            "capture": camera_obj.get(CAPTURE_PROPERTY), "phone": camera_obj.get(PHONE_PROPERTY),
            "motion_blur": scene.render.use_motion_blur, "resolution_percentage": scene.render.resolution_percentage}


def restore_camera_state(scene, state: dict) -> None:
    """Put a camera back as `camera_state` saw it. A shaking hand's keyframes are made again from its capture
    (rewritten in place where the camera still holds them), about the pose whose shutter starts at the saved
    one (`apply_capture` leaves a shaking camera at its shutter's start), so the camera comes back where it was."""
    camera_obj = bpy.data.objects.get(state["name"])
    if camera_obj is None:
        raise LookupError(f"camera {state['name']!r} is gone")
    matrix = np.asarray(state["matrix"], float)
    scene_camera = scene.camera  # putting a camera back does not make it the scene's camera
    if state.get("capture") and state.get("phone"):
        from ..core.phone import camera_settings

        capture = Capture.from_dict(json.loads(state["capture"]))
        phone = Phone.from_dict(json.loads(state["phone"]))
        if capture.shake_rate_deg_s > 0 or capture.shake_speed_m_s > 0:
            matrix = matrix @ np.linalg.inv(shutter_poses(np.eye(4), capture)[0])  # the shutter's start -> nominal
        apply_capture(scene, camera_obj, camera_settings(phone, capture, 1.0, max(state["resolution"])), capture,
                      phone, matrix)
    else:
        camera_obj.matrix_world = Matrix(matrix.tolist())
    data = camera_obj.data
    data.lens, data.sensor_width, data.sensor_height, data.dof.aperture_fstop, data.dof.focus_distance = state["lens"]
    scene.render.resolution_x, scene.render.resolution_y = state["resolution"]
    scene.render.resolution_percentage = state.get("resolution_percentage", scene.render.resolution_percentage)
    scene.render.use_motion_blur = state["motion_blur"]
    if scene_camera is not None:
        set_scene_camera(scene, scene_camera)
    bpy.context.view_layer.update()


def hold_camera(scene, camera_obj, state: dict) -> None:
    """Give `camera_obj` (in a rebuilt scene) the pose, lens and capture a `camera_state` of another camera
    recorded (`suggest --blend`: the .blend's camera, held in the scene rebuilt from its frame id)."""
    restore_camera_state(scene, {**state, "name": camera_obj.name})
