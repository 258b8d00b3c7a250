"""The sidebar's answers stay tied to what they were computed for, its threshold fields say what they refuse,
and every button works on a Blender without OpenImageDenoise (issue 39, items 1-3): headless, in the bpy wheel."""
import json

import numpy as np
import pytest

bpy = pytest.importorskip("bpy")

import realitybench_addon  # noqa: E402
from realitybench_addon import api  # noqa: E402
from realitybench_addon.ui import capabilities, live, operators, results  # noqa: E402


@pytest.fixture(scope="module")
def addon():
    realitybench_addon.register()
    yield bpy.context.window_manager.realitybench
    realitybench_addon.unregister()


def camera_matrix():
    return np.array([list(r) for r in bpy.context.scene.camera.matrix_world])


def build(addon, environment, seed, index):
    addon.environment, addon.seed, addon.index, addon.stratum = environment, seed, index, "random"
    assert bpy.ops.realitybench.build_scene() == {"FINISHED"}


def suggest_without_render(addon):
    addon.suggest_render = False
    try:
        assert bpy.ops.realitybench.suggest_pose() == {"FINISHED"}
    finally:
        addon.suggest_render = True
    return json.loads(addon.suggestion)


def test_apply_refuses_a_suggestion_made_for_another_scene(addon):
    build(addon, "rail_attachment", 0, 2)
    made = suggest_without_render(addon)
    assert made["key"]["scene"] == ["rail_attachment", 0, 2, "random"]
    addon.environment = "wire_adequacy"  # then Randomize: the next seed of another environment
    assert bpy.ops.realitybench.randomize_scene() == {"FINISHED"}
    assert live.STATE.key == ("wire_adequacy", 1, 2, "random")
    before = camera_matrix()
    now = results.key_now(addon)
    assert results.stale_reason(made["key"], now) == "made for rail_attachment seed 0 frame 2"
    with pytest.raises(RuntimeError, match="this suggestion was made for rail_attachment seed 0 frame 2, not "
                                           "wire_adequacy seed 1 frame 2: run Suggest a Pose again"):
        bpy.ops.realitybench.apply_suggestion()
    assert np.allclose(camera_matrix(), before)  # the other scene's pose was not applied
    assert addon.suggestion and not addon.suggestion_undo
    bpy.ops.realitybench.dismiss_suggestion()


def test_a_moved_camera_or_edited_threshold_marks_the_check_stale(addon):
    build(addon, "rail_attachment", 1, 0)
    assert bpy.ops.realitybench.check(render=False) == {"FINISHED"}
    stored = json.loads(addon.last_check)["key"]
    assert results.stale_reason(stored, results.key_now(addon)) == ""
    camera = bpy.context.scene.camera
    camera.location.x += 0.05
    bpy.context.view_layer.update()
    assert results.stale_reason(stored, results.key_now(addon)) == "the camera moved since"
    camera.location.x -= 0.05
    bpy.context.view_layer.update()
    assert results.stale_reason(stored, results.key_now(addon)) == ""  # back where it was: it holds again
    item = next(i for i in addon.terms if i.name == "camera_distance")
    item.threshold += 0.5
    assert results.stale_reason(stored, results.key_now(addon)) == "the thresholds changed since"
    item.threshold -= 0.5  # edited back by hand: the same thresholds, the check holds
    assert results.stale_reason(stored, results.key_now(addon)) == ""
    item.threshold += 0.5
    bpy.ops.realitybench.preset(action="REVERT")
    assert results.stale_reason(stored, results.key_now(addon)) == ""
    build(addon, "rail_attachment", 1, 1)  # another frame: the check is gone
    assert addon.last_check == ""


def test_undo_is_offered_only_while_the_camera_is_at_the_applied_pose(addon):
    build(addon, "rail_attachment", 0, 2)
    before = camera_matrix()
    suggest_without_render(addon)
    assert not operators.undo_offered(bpy.context)
    assert bpy.ops.realitybench.apply_suggestion() == {"FINISHED"}
    assert not np.allclose(camera_matrix(), before)
    assert operators.undo_offered(bpy.context) and bpy.ops.realitybench.undo_suggestion.poll()
    # Edit > Undo puts the camera back where it was (the window manager's stored move stays): no sidebar Undo
    from mathutils import Matrix

    bpy.context.scene.camera.matrix_world = Matrix(before.tolist())
    bpy.context.view_layer.update()
    assert addon.suggestion_undo
    assert not operators.undo_offered(bpy.context) and not bpy.ops.realitybench.undo_suggestion.poll()
    addon.suggestion_undo = ""


def test_threshold_fields_validate_as_edited_and_one_bad_field_blocks_nothing(addon):
    build(addon, "rail_attachment", 1, 0)
    bpy.ops.realitybench.preset(action="REVERT")
    items = {i.name: i for i in addon.terms}
    distance, bbox = items["camera_distance"], items["attachment_bbox"]
    assert (distance.range_lo, distance.range_hi) == (0.0, 1000.0) and (bbox.range_lo, bbox.range_hi) == (0.0, 1.0)
    distance.threshold = -3.0  # invalid: refused in place, the readouts keep the last valid value
    assert distance.error == "Camera distance threshold: -3 is out of range; a threshold in m must lie in [0, 1000]"
    readout = {t["name"]: t for t in live.STATE.result["terms"]}
    assert readout["camera_distance"]["threshold"] == pytest.approx(api.shipped_preset("rail_attachment")
                                                                    .term("camera_distance").threshold)
    bbox.threshold = 0.5  # another field's valid edit still counts while the first is invalid
    readout = {t["name"]: t for t in live.STATE.result["terms"]}
    assert readout["attachment_bbox"]["threshold"] == pytest.approx(0.5) and bbox.error == ""
    with pytest.raises(RuntimeError, match=r"Camera distance threshold: -3 is out of range"):
        bpy.ops.realitybench.preset(action="APPLY")
    distance.threshold = 2.5  # corrected: the message goes, the readouts follow
    assert distance.error == ""
    readout = {t["name"]: t for t in live.STATE.result["terms"]}
    assert readout["camera_distance"]["threshold"] == pytest.approx(2.5)
    distance.has_gray = True
    distance.gray_lo, distance.gray_hi = 1.0, 2.0  # on the passing side of "<= 2.5": refused, named
    assert distance.error.startswith("Camera distance gray range: [1, 2] must lie on the failing side")
    distance.has_gray = False
    assert distance.error == ""
    bpy.ops.realitybench.preset(action="REVERT")


def test_sharp_at_target_is_shown_fixed_with_its_reason(addon):
    build(addon, "rail_attachment", 1, 0)
    sharp = next(i for i in addon.terms if i.name == "sharp_at_target")
    blur = api.shipped_preset("rail_attachment").blur_limit_px
    assert sharp.fixed == (f"equals the environment's blur limit ({blur:g} px), set by its phone model, "
                           "not tuned here")
    sharp.threshold = 7.0  # even set from Python, it is not applied and does not block the rest
    readout = {t["name"]: t for t in live.STATE.result["terms"]}
    assert readout["sharp_at_target"]["threshold"] == pytest.approx(blur) and sharp.error == ""
    assert bpy.ops.realitybench.preset(action="APPLY") == {"FINISHED"}
    bpy.ops.realitybench.preset(action="REVERT")


@pytest.fixture
def no_denoiser():
    capabilities.Forced.denoiser = False
    yield
    capabilities.Forced.denoiser = None


def test_without_a_denoiser_export_check_and_suggest_all_work(addon, no_denoiser, tmp_path):
    addon.denoise = True  # the designer's choice stays; this Blender cannot honour it
    assert capabilities.denoise(addon) is False
    out = tmp_path / "set"
    assert bpy.ops.realitybench.export(environments="rail_attachment", random=1, positive=0, out=str(out),
                                       resolution="64x48", samples=1, denoise=True) == {"FINISHED"}
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["denoise"] is False
    build(addon, "rail_attachment", 1, 0)
    bpy.context.scene.render.resolution_percentage = 8  # a tiny quick render
    try:
        assert bpy.ops.realitybench.check(render=True) == {"FINISHED"}
        assert json.loads(addon.last_check)["rendered"]
        from realitybench_addon.ui import jobs

        job = jobs.describe(addon, "check")
        assert job["denoise"] is False and job["device"] == "cpu"
    finally:
        bpy.context.scene.render.resolution_percentage = 100
    suggest_without_render(addon)
    bpy.ops.realitybench.dismiss_suggestion()


def test_device_offers_a_gpu_only_where_one_is_found(addon):
    capabilities.Forced.gpu_backends = ()
    try:
        assert [i[0] for i in capabilities.device_items(addon, bpy.context)] == ["cpu"]
        assert capabilities.device(addon) == "cpu"
        capabilities.Forced.gpu_backends = ("CUDA",)
        items = capabilities.device_items(addon, bpy.context)
        assert [i[0] for i in items] == ["cpu", "gpu"] and items[1][1] == "GPU (CUDA)"
    finally:
        capabilities.Forced.gpu_backends = None
    assert capabilities.has_denoiser() == bool(getattr(bpy.app.build_options, "openimagedenoise", True))


def test_build_and_randomize_look_through_the_phone_when_asked(addon):
    views = [a.spaces.active.region_3d for w in bpy.context.window_manager.windows for a in w.screen.areas
             if a.type == "VIEW_3D"]
    if not views:
        pytest.skip("this bpy has no 3D view to look through")
    for view in views:
        view.view_perspective = "PERSP"
    addon.look_through = False
    build(addon, "rail_attachment", 0, 0)
    assert {v.view_perspective for v in views} == {"PERSP"}
    addon.look_through = True
    assert bpy.ops.realitybench.randomize_scene() == {"FINISHED"}
    assert {v.view_perspective for v in views} == {"CAMERA"}
    for view in views:
        view.view_perspective = "PERSP"
    assert bpy.ops.realitybench.randomize_camera(what="POSE") == {"FINISHED"}
    assert {v.view_perspective for v in views} == {"CAMERA"}
