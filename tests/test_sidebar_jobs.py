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


def run_tiny(addon, kind: str) -> tuple[str, str]:
    """Run a background job of `kind` on the scene as it is, with tiny quick renders (12% of the frame's size),
    to the end, and conclude it as the modal operator does; (report level, message)."""
    scene = bpy.context.scene
    scene.render.resolution_percentage = 12
    try:
        job = jobs.BackgroundJob(jobs.describe(addon, kind))
        outcome = job.wait()
        assert outcome["ok"], outcome
        concluded = operators.conclude_job(kind, addon, outcome, job)
        job.close()
    finally:
        scene.render.resolution_percentage = 100
    return concluded


def test_background_check_equals_the_in_process_check_for_a_hand_moved_camera(addon):
    addon.environment, addon.seed, addon.index = "wire_adequacy", 0, 1
    bpy.ops.realitybench.build_scene()
    scene = bpy.context.scene
    scene.camera.location.z += 0.3  # a hand move the background process must reproduce: the wire hidden
    bpy.context.view_layer.update()
    level, message = run_tiny(addon, "check")
    scene.render.resolution_percentage = 12
    try:
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
        drawn = {item["name"]: item["region"] for item in json.loads(phone_view.failing)}
        assert list(drawn) == shown["failing_terms"]
        kinds = {t["name"]: t["kind"] for t in shown["terms"]}
        for name, region in drawn.items():  # the target's capture terms and image terms drawn on the target
            assert (region == "target") == (name in shown["target_terms"] or kinds[name] == "image"), name
        assert drawn["wire_unoccluded"] == "target" and drawn["wire_low_point_visible"] is None


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


def test_a_kept_check_picture_is_the_exported_frames_jpeg_and_mask(addon, tmp_path):
    """`check_active(keep_pictures=...)` at the frame's size and settings, on the frame's own camera, writes the
    JPEG the export writes for the frame, byte for byte, and the target mask `--extras` writes."""
    record = api.frame("tape_gap", 0, 2, tmp_path / "frame", long_side_px=160, samples=2, denoise=False,
                       extras=True)
    check = api.check_active("tape_gap", 0, 2, resolution_scale=1.0, settings=api.frame_settings(2, False),
                             keep_pictures=tmp_path / "kept")
    fid = record["frame_id"]
    assert Path(check["image_path"]) == tmp_path / "kept" / f"{fid}.jpg"
    assert Path(check["image_path"]).read_bytes() == (tmp_path / "frame" / record["file_name"]).read_bytes()
    masks = tmp_path / "frame" / "extras" / "masks" / "tape_gap"
    assert Path(check["mask_path"]).read_bytes() == (masks / f"{fid}.png").read_bytes()
    assert check["target_terms"] == ["sharp_at_target", "crossing_in_frame", "crossing_unoccluded"]
    unrendered = api.check_active("tape_gap", 0, 2, render=False, keep_pictures=tmp_path / "none")
    assert "image_path" not in unrendered and not (tmp_path / "none").exists()


def test_the_target_capture_terms_are_drawn_on_the_target_in_the_phone_view():
    """A failing in-frame, unoccluded or sharp term of the target is drawn over the target's mask (as the image
    terms are); an in-frame term of something else, and any other geometric term, is listed as not shown."""
    from realitybench_addon.core.capture_terms import target_capture_terms
    from realitybench_addon.ui import phone_link

    names = ["sharp_at_target", "damage_in_frame", "damage_unoccluded", "neighbour_panel_in_frame", "view_angle",
             "damage_contrast"]
    assert target_capture_terms(names) == ("sharp_at_target", "damage_in_frame", "damage_unoccluded")
    assert target_capture_terms(["attachment_in_frame", "bolt_spot_unoccluded"]) == ()
    terms = [{"name": n, "label": n.replace("_", " ").capitalize(), "kind": "image" if n == "damage_contrast"
              else "geometric"} for n in names]
    regions = phone_link.failing_regions(terms, names, target_capture_terms(names))
    assert [(r["name"], r["region"]) for r in regions] == [
        ("sharp_at_target", "target"), ("damage_in_frame", "target"), ("damage_unoccluded", "target"),
        ("neighbour_panel_in_frame", None), ("view_angle", None), ("damage_contrast", "target")]
    assert regions[1]["label"] == "Damage in frame"


def test_a_background_suggestion_shows_its_confirming_render_in_the_phone_view(addon):
    """Suggest a Pose with its confirming render: the JPEG and mask at the suggested pose reach the phone view,
    the size of the environment's quick render."""
    addon.environment, addon.seed, addon.index = "wire_adequacy", 0, 1
    bpy.ops.realitybench.build_scene()
    scene = bpy.context.scene
    addon.suggest_render = True
    level, message = run_tiny(addon, "suggest")
    suggestion = json.loads(addon.suggestion)
    assert suggestion["image_check"] is not None and suggestion["image_check"]["rendered"] >= 1, suggestion
    assert "phone view" not in message
    from PIL import Image

    with Image.open(suggestion["image_path"]) as im:
        assert im.format == "JPEG" and max(im.size) == round(max(scene.render.resolution_x,
                                                                   scene.render.resolution_y) * 0.12 * 0.5)
    with Image.open(suggestion["mask_path"]) as mask:
        assert mask.size == im.size and mask.getextrema()[1] == 255
    phone_view = bpy.context.scene.realitybench_phone_view
    assert phone_view.image_path == suggestion["image_path"] and phone_view.mask_path == suggestion["mask_path"]
    assert phone_view.caption == f"{suggestion['frame_id']}: suggested pose, " + (
        "passes" if suggestion["fixed"] else "still fails")
    assert [item["name"] for item in json.loads(phone_view.failing)] == suggestion["failing_after"]
    bpy.ops.realitybench.dismiss_suggestion()
