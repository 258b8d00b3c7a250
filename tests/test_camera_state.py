"""bl/camera.py's one camera snapshot (bpy wheel): `camera_state` then `restore_camera_state` puts a camera back
where it was, a shaking hand's included (its keyframes made again about the pose whose shutter starts at the
saved one), and leaves the scene's camera the scene's camera. Suggest a Pose's search and its Undo both use it."""
import json
from dataclasses import replace

import numpy as np
import pytest

bpy = pytest.importorskip("bpy")

from realitybench_addon.bl.camera import (apply_capture, camera_state, ensure_camera,  # noqa: E402
                                          restore_camera_state)
from realitybench_addon.bl.reset import reset_scene  # noqa: E402
from realitybench_addon.core.optics import look_at  # noqa: E402
from realitybench_addon.core.phone import HAND_SHAKE, Capture, camera_settings, draw_phone  # noqa: E402


def placed(shake: bool):
    scene = reset_scene()
    cam = ensure_camera(scene)
    phone = draw_phone(np.random.default_rng(3))
    capture = Capture(focus_factor=1.3)
    if shake:
        capture = replace(capture, mode=HAND_SHAKE, shutter_s=1 / 30, shake_rate_deg_s=4.0, shake_axis=(0.0, 1.0, 0.0),
                          shake_speed_m_s=0.05, shake_direction=(0.0, 0.0, 1.0))
    settings = camera_settings(phone, capture, 1.5, 800)
    apply_capture(scene, cam, settings, capture, phone, look_at((1.0, -2.0, 1.5), (0.0, 0.0, 1.0), roll_deg=4.0))
    return scene, cam


def keyframes(cam) -> list:
    if cam.animation_data is None or cam.animation_data.action is None:
        return []
    from realitybench_addon.bl import compat

    return sorted((fc.data_path, fc.array_index, tuple(tuple(k.co) for k in fc.keyframe_points))
                  for fc in compat.action_fcurves(cam.animation_data.action))


@pytest.mark.parametrize("shake", [False, True], ids=["steady", "shaking"])
def test_a_camera_moved_elsewhere_comes_back_where_it_was(shake):
    scene, cam = placed(shake)
    matrix, keys = np.array(cam.matrix_world), keyframes(cam)
    assert bool(keys) == shake
    state = json.loads(json.dumps(camera_state(scene, cam)))  # what the sidebar keeps for Undo
    if cam.animation_data is not None:
        cam.animation_data.action = None  # as Suggest a Pose's search moves it
    from mathutils import Matrix

    cam.matrix_world = Matrix(look_at((4.0, 1.0, 2.0), (0.0, 0.0, 0.0)).tolist())
    cam.data.lens, scene.render.resolution_percentage = 70.0, 50
    restore_camera_state(scene, state)
    assert np.allclose(np.array(cam.matrix_world), matrix, atol=1e-6)
    assert cam.data.lens == pytest.approx(state["lens"][0]) and scene.render.resolution_percentage == 100
    got = keyframes(cam)
    assert len(got) == len(keys)
    for (path, axis, co), (path0, axis0, co0) in zip(got, keys):
        assert (path, axis) == (path0, axis0) and np.allclose(co, co0, atol=1e-6)


def test_putting_a_camera_back_leaves_the_scene_camera_alone():
    scene, cam = placed(False)
    state = camera_state(scene, cam)
    other = bpy.data.objects.new("Other", bpy.data.cameras.new("Other"))
    scene.collection.objects.link(other)
    scene.camera = other
    restore_camera_state(scene, state)
    assert scene.camera == other
