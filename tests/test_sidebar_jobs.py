"""Check (with a render) and Suggest a Pose as the sidebar runs them in the UI: a background process that
rebuilds the frame, holds the camera as the designer held it, and reports back; run here to completion
(`job.wait()` and `conclude_job`, what the modal operator does when the process exits), and cancelled."""
import json
from pathlib import Path

import numpy as np
import pytest

bpy = pytest.importorskip("bpy")

import realitybench_addon  # noqa: E402
from realitybench_addon import api  # noqa: E402
from realitybench_addon.ui import capabilities, jobs, live, operators  # noqa: E402


@pytest.fixture(scope="module")
def addon():
    realitybench_addon.register()
    capabilities.Forced.denoiser = False  # the quick renders undenoised (and the no-denoiser path)
    yield bpy.context.window_manager.realitybench
    capabilities.Forced.denoiser = None
    realitybench_addon.unregister()


def test_background_check_equals_the_in_process_check_for_a_hand_moved_camera(addon):
    addon.environment, addon.seed, addon.index = "wire_adequacy", 0, 1
    bpy.ops.realitybench.build_scene()
    scene = bpy.context.scene
    scene.camera.location.z += 0.03  # a hand move the background process must reproduce
    bpy.context.view_layer.update()
    scene.render.resolution_percentage = 12  # tiny quick renders
    try:
        job = jobs.BackgroundJob(jobs.describe(addon, "check"))
        outcome = job.wait()
        assert outcome["ok"], outcome
        level, message = operators.conclude_job("check", addon, outcome, job)
        job.close()
        direct = api.check_active("wire_adequacy", 0, 1, render=True, settings=api.frame_settings(8, False))
    finally:
        scene.render.resolution_percentage = 100
    shown = json.loads(addon.last_check)
    assert level == "INFO" and message.startswith(shown["verdict"].upper())
    assert shown["frame_id"] == direct["frame_id"] and shown["verdict"] == direct["verdict"]
    by_name = {t["name"]: t for t in direct["terms"]}
    for term in shown["terms"]:
        assert term["outcome"] == by_name[term["name"]]["outcome"], term["name"]
        if isinstance(term["value"], float):
            assert term["value"] == pytest.approx(by_name[term["name"]]["value"], rel=1e-3, abs=1e-4), term["name"]
    assert any(t["kind"] == "image" for t in shown["terms"]) and shown["rendered"]
    # the phone's JPEG and the target mask were kept for the phone view
    from PIL import Image

    with Image.open(shown["image_path"]) as im:
        assert im.format == "JPEG" and max(im.size) == round(max(scene.render.resolution_x,
                                                                   scene.render.resolution_y) * 0.12 * 0.5)
    with Image.open(shown["mask_path"]) as mask:
        assert mask.size == im.size and mask.getextrema()[1] == 255  # the target is in the picture
    assert shown["key"]["scene"] == ["wire_adequacy", 0, 1, "random"]
    phone_view = getattr(bpy.context.scene, "realitybench_phone_view", None)  # handed to the phone view
    if phone_view is not None:
        assert phone_view.image_path == shown["image_path"] and phone_view.mask_path == shown["mask_path"]
        assert shown["verdict"].upper() in phone_view.caption


def test_background_suggestion_equals_the_in_process_one(addon):
    addon.environment, addon.seed, addon.index = "rail_attachment", 0, 3
    bpy.ops.realitybench.build_scene()
    addon.suggest_render = False
    try:
        job = jobs.BackgroundJob(jobs.describe(addon, "suggest"))
        outcome = job.wait()
        level, _ = operators.conclude_job("suggest", addon, outcome, job)
        job.close()
        background = json.loads(addon.suggestion)
        assert bpy.ops.realitybench.suggest_pose() == {"FINISHED"}
    finally:
        addon.suggest_render = True
    here = json.loads(addon.suggestion)
    assert level in ("INFO", "WARNING") and bpy.data.objects.get("RB_Suggested") is not None
    assert background["hints"] == here["hints"] and background["fixed"] == here["fixed"]
    assert np.allclose(background["pose_after"]["position_m"], here["pose_after"]["position_m"], atol=1e-4)
    bpy.ops.realitybench.dismiss_suggestion()


def test_a_job_finished_after_another_frame_was_built_is_not_shown(addon):
    addon.environment, addon.seed, addon.index = "rail_attachment", 0, 3
    bpy.ops.realitybench.build_scene()
    addon.suggest_render = False
    job = jobs.BackgroundJob(jobs.describe(addon, "suggest"))
    addon.suggest_render = True
    addon.index = 4
    bpy.ops.realitybench.build_scene()  # the designer moved on while it ran
    outcome = job.wait()
    level, message = operators.conclude_job("suggest", addon, outcome, job)
    job.close()
    assert (level, message) == ("WARNING", "this suggestion was made for rail_attachment seed 0 frame 3, not "
                                           "rail_attachment seed 0 frame 4: run Suggest a Pose again")
    assert addon.suggestion == ""


def test_cancel_kills_the_process_and_leaves_nothing(addon):
    addon.environment, addon.seed, addon.index = "rail_attachment", 0, 3
    bpy.ops.realitybench.build_scene()
    job = jobs.BackgroundJob(jobs.describe(addon, "check"))
    folder = job.folder
    job.cancel()  # what Esc does
    assert job.proc.returncode != 0
    assert job.poll()["ok"] is False
    before = addon.last_check
    job.close()
    assert not Path(folder).exists() and addon.last_check == before
    assert live.STATE.key == ("rail_attachment", 0, 3, "random")


def test_a_job_that_fails_reports_one_line(addon):
    addon.environment, addon.seed, addon.index = "rail_attachment", 0, 3
    bpy.ops.realitybench.build_scene()
    described = jobs.describe(addon, "check")
    described["seed"] = -1  # what no click can make: the process answers with the API's one line
    job = jobs.BackgroundJob(described)
    outcome = job.wait()
    job.close()
    assert outcome["ok"] is False and outcome["error"].startswith("seed and index must be non-negative")
    assert "\n" not in outcome["error"] and "Traceback" not in outcome["error"]
    assert operators.conclude_job("check", addon, outcome, job) == ("ERROR", outcome["error"])
