"""The authoring sidebar's operators, headless in the bpy wheel: each asserts what it changed."""
import json
from pathlib import Path

import numpy as np
import pytest

bpy = pytest.importorskip("bpy")

import realitybench_addon  # noqa: E402
from realitybench_addon import api  # noqa: E402
from realitybench_addon.ui import live  # noqa: E402
from realitybench_addon.core.optics import look_at  # noqa: E402


@pytest.fixture(scope="module")
def addon():
    realitybench_addon.register()
    yield bpy.context.window_manager.realitybench
    realitybench_addon.unregister()  # also: the bpy wheel hangs at exit with operators registered
    assert live.on_depsgraph_update not in bpy.app.handlers.depsgraph_update_post
    assert live.on_load_post not in bpy.app.handlers.load_post


def camera_matrix():
    return np.array([list(r) for r in bpy.context.scene.camera.matrix_world])


def test_build_scene_places_the_frames_camera_and_fills_the_readouts(addon):
    addon.environment, addon.seed, addon.index = "tape_gap", 0, 2
    assert bpy.ops.realitybench.build_scene() == {"FINISHED"}
    record = api.build_frame("tape_gap", 0, 2)
    assert np.allclose(camera_matrix(), record["camera"]["camera_to_world"], atol=1e-5)
    assert live.STATE.key == ("tape_gap", 0, 2, "random")
    readout = {t["name"]: t for t in live.STATE.result["terms"]}
    assert readout["camera_distance"]["value"] == pytest.approx(record["measurements"]["camera_distance"])
    assert set(readout) == {t["name"] for t in record["terms"]}


def test_live_readouts_follow_a_hand_moved_camera(addon):
    addon.environment, addon.seed, addon.index = "rail_attachment", 1, 0
    bpy.ops.realitybench.build_scene()
    before = {t["name"]: t["value"] for t in live.STATE.result["terms"]}["camera_distance"]
    camera = bpy.context.scene.camera
    live.STATE.computed_at = 0.0  # past the debounce window
    camera.location.z += 1.0
    bpy.context.view_layer.update()  # runs depsgraph_update_post, as a viewport drag does
    after = {t["name"]: t["value"] for t in live.STATE.result["terms"]}["camera_distance"]
    assert after != pytest.approx(before)
    direct = api.check_active("rail_attachment", 1, 0, render=False)
    assert {t["name"]: t["value"] for t in direct["terms"]}["camera_distance"] == pytest.approx(after)


def test_unrelated_changes_do_not_recompute(addon):
    addon.environment, addon.seed, addon.index = "tape_gap", 0, 2
    bpy.ops.realitybench.build_scene()
    stamp = live.STATE.computed_at
    bpy.data.objects["Ground"].location.x += 0.1
    bpy.context.view_layer.update()
    assert live.STATE.computed_at == stamp


def test_check_acceptability_equals_the_api(addon):
    addon.environment, addon.seed, addon.index = "tape_gap", 0, 2
    bpy.ops.realitybench.build_scene()
    bpy.context.scene.render.resolution_percentage = 10  # keep the quick render tiny in tests
    assert bpy.ops.realitybench.check() == {"FINISHED"}
    shown = json.loads(addon.last_check)
    direct = api.check_active("tape_gap", 0, 2, render=True)
    assert shown["verdict"] == direct["verdict"] and shown["ground_truth"] == direct["ground_truth"]
    assert [t["outcome"] for t in shown["terms"]] == [t["outcome"] for t in direct["terms"]]
    assert "JSON object" in shown["prompt"] and shown["rendered"]
    bpy.context.scene.render.resolution_percentage = 100


def test_randomize_pose_and_phone_are_repeatable_draws(addon):
    addon.environment, addon.seed, addon.index = "wire_adequacy", 2, 0
    bpy.ops.realitybench.build_scene()
    start, lens = camera_matrix(), bpy.context.scene.camera.data.lens
    addon.draw_count = 0
    assert bpy.ops.realitybench.randomize_camera(what="POSE") == {"FINISHED"}
    first = camera_matrix()
    assert not np.allclose(first, start)
    addon.draw_count = 0
    bpy.ops.realitybench.randomize_camera(what="POSE")
    assert np.allclose(camera_matrix(), first)
    bpy.ops.realitybench.randomize_camera(what="PHONE")
    capture = json.loads(bpy.context.scene.camera["realitybench_capture"])
    expected = api.redraw_camera("wire_adequacy", 2, 0, capture_draw=addon.draw_count)["capture"]
    assert capture == json.loads(json.dumps(expected))
    assert live.STATE.result is not None and bpy.context.scene.camera.data.lens > 0 and lens > 0


def test_randomize_scene_moves_to_the_next_seed(addon):
    addon.environment, addon.seed, addon.index = "rail_attachment", 4, 0
    assert bpy.ops.realitybench.randomize_scene() == {"FINISHED"}
    assert addon.seed == 5 and live.STATE.key == ("rail_attachment", 5, 0, "random")


def test_bad_environment_is_reported_not_raised(addon):
    with pytest.raises(RuntimeError, match="unknown environment 'parking'"):
        bpy.ops.realitybench.export(environments="parking", out="/tmp/rb-never-written")
    assert not Path("/tmp/rb-never-written").exists()


def test_tuning_changes_readouts_and_saves_loads_reverts(addon, tmp_path, monkeypatch):
    from realitybench_addon.core.presets import load_preset
    from realitybench_addon.ui import tuning

    monkeypatch.setattr(tuning, "user_presets_dir", lambda: tmp_path)
    addon.environment, addon.seed, addon.index = "tape_gap", 0, 2
    bpy.ops.realitybench.build_scene()
    item = next(i for i in addon.terms if i.name == "camera_distance")
    assert item.threshold == pytest.approx(0.65)
    item.threshold = 0.01  # the readouts follow the edit at once, before any Apply
    readout = {t["name"]: t for t in live.STATE.result["terms"]}
    assert readout["camera_distance"]["threshold"] == pytest.approx(0.01)
    assert bpy.ops.realitybench.preset(action="APPLY") == {"FINISHED"}
    readout = {t["name"]: t for t in live.STATE.result["terms"]}
    assert readout["camera_distance"]["threshold"] == pytest.approx(0.01)
    assert readout["camera_distance"]["outcome"] == "fail"
    assert bpy.ops.realitybench.preset(action="SAVE") == {"FINISHED"}
    saved = load_preset(tmp_path / "tape_gap.toml")
    assert saved.term("camera_distance").threshold == pytest.approx(0.01)
    assert bpy.ops.realitybench.preset(action="REVERT") == {"FINISHED"}
    assert next(i for i in addon.terms if i.name == "camera_distance").threshold == pytest.approx(0.65)
    assert {t["name"]: t for t in live.STATE.result["terms"]}["camera_distance"]["threshold"] == pytest.approx(0.65)
    assert bpy.ops.realitybench.preset(action="LOAD") == {"FINISHED"}
    assert live.STATE.preset.content_hash() == saved.content_hash()
    # an out-of-range edit is refused with the preset loader's reason, named by the field
    next(i for i in addon.terms if i.name == "camera_distance").threshold = -3.0
    with pytest.raises(RuntimeError, match=r"Camera distance threshold: -3 is out of range; .* \[0, 1000\]"):
        bpy.ops.realitybench.preset(action="APPLY")
    bpy.ops.realitybench.preset(action="REVERT")


def test_rescore_from_the_sidebar_counts_flips(addon, tmp_path):
    out = tmp_path / "set"
    api.export(["tape_gap"], out=out, random=3, positive=0, long_side_px=96, samples=1, denoise=False)
    addon.environment, addon.seed, addon.index = "tape_gap", 0, 2
    bpy.ops.realitybench.build_scene()
    addon.rescore_dir = str(out)
    bpy.ops.realitybench.preset(action="REVERT")
    assert bpy.ops.realitybench.rescore_set() == {"FINISHED"}
    assert json.loads(addon.last_rescore)["flipped"] == 0
    next(i for i in addon.terms if i.name == "camera_distance").threshold = 0.0001
    bpy.ops.realitybench.preset(action="APPLY")
    bpy.ops.realitybench.rescore_set()
    report = json.loads(addon.last_rescore)
    direct = api.rescore(out)
    accepted = sum(1 for line in (out / "metadata.jsonl").read_text().splitlines() if '"verdict":"accept"' in line)
    assert report["frames"] == direct["frames"] == 3 and report["flipped"] == accepted
    bpy.ops.realitybench.preset(action="REVERT")


def test_suggest_a_pose_previews_then_applies_and_undoes(addon):
    """Suggest shows the pose as a ghost camera and hints under the failing readouts, moving nothing; Apply moves
    the phone there and every geometric term passes; Undo puts it back exactly."""
    from realitybench_addon import pipeline

    for index in range(60):  # a steady capture whose pose fails geometric terms (so the pose is the problem)
        spec = pipeline.plan_frame("rail_attachment", 0, "random", index)
        if spec.capture.mode != "steady" or spec.capture.lens != "main":
            continue
        record = pipeline.run_frame(spec, render=False, cache=pipeline.SHARED_CACHE).record
        if record["verdict"] == "reject" and "sharp_at_target" not in record["failing_terms"]:
            break
    addon.environment, addon.seed, addon.index = "rail_attachment", 0, index
    bpy.ops.realitybench.build_scene()
    before = camera_matrix()
    assert bpy.ops.realitybench.suggest_pose() == {"FINISHED"}
    suggestion = json.loads(addon.suggestion)
    assert np.allclose(camera_matrix(), before, atol=1e-6)  # nothing moved yet (float32 recomposition aside)
    ghost = bpy.data.objects["RB_Suggested"]
    assert ghost.type == "CAMERA" and ghost.hide_render
    assert np.allclose(np.array(ghost.matrix_world), look_at(suggestion["pose_after"]["position_m"],
                                                             suggestion["pose_after"]["aim_m"]), atol=1e-5)
    assert suggestion["fixed"] and suggestion["hints"]
    assert set(suggestion["term_hints"]) >= set(record["failing_terms"])  # each failing readout gets a hint
    assert bpy.ops.realitybench.apply_suggestion() == {"FINISHED"}
    after = api.check_active("rail_attachment", 0, index, render=False)
    geometric_failing = [t["name"] for t in after["terms"] if t["kind"] == "geometric" and t["outcome"] == "fail"]
    assert geometric_failing == [] and after["verdict"] in ("accept", "unscored")
    assert not np.allclose(camera_matrix(), before) and bpy.data.objects.get("RB_Suggested") is None
    assert live.STATE.result["verdict"] == after["verdict"]
    assert bpy.ops.realitybench.undo_suggestion() == {"FINISHED"}
    assert np.allclose(camera_matrix(), before, atol=1e-6)
    assert api.check_active("rail_attachment", 0, index, render=False)["failing_terms"] == record["failing_terms"]


def test_suggest_without_a_render_answers_for_the_geometry_alone(addon):
    """The sidebar's "Confirm with a render" off: no image check, the geometric terms' suggestion at once."""
    addon.environment, addon.seed, addon.index = "equipment_label", 0, 2
    bpy.ops.realitybench.build_scene()
    addon.suggest_render = False
    try:
        assert bpy.ops.realitybench.suggest_pose() == {"FINISHED"}
    finally:
        addon.suggest_render = True
    suggestion = json.loads(addon.suggestion)
    assert suggestion["image_check"] is None and suggestion["geometric_pass"]
    bpy.ops.realitybench.dismiss_suggestion()
    assert bpy.data.objects.get("RB_Suggested") is None and not addon.suggestion


def test_frame_browser_rebuilds_a_frame_whose_live_terms_match_the_stored_ones(addon, tmp_path):
    out = tmp_path / "set"
    api.export(["tape_gap"], out=out, random=2, positive=1, long_side_px=96, samples=1, denoise=False)
    addon.browse_dir, addon.browse_position = str(out), 0
    assert bpy.ops.realitybench.browse(step=0) == {"FINISHED"}
    assert json.loads(addon.browse_row)["count"] == 3
    bpy.ops.realitybench.browse(step=5)  # clamped to the last frame: the positive one
    stored = json.loads(addon.browse_row)
    assert stored["position"] == 2 and stored["stratum"] == "positive"
    assert bpy.ops.realitybench.browse(step=0, rebuild=True) == {"FINISHED"}
    assert (addon.environment, addon.stratum) == ("tape_gap", "positive")
    assert live.STATE.result["frame_id"] == stored["frame_id"]
    for term in live.STATE.result["terms"]:
        if term["kind"] == "geometric":
            assert term["value"] == pytest.approx(stored["terms"][term["name"]]["value"]), term["name"]
    addon.stratum = "random"
    # a set handed over with a row that points out of it is refused, named by its line
    lines = (out / "metadata.jsonl").read_text().splitlines(keepends=True)
    row = json.loads(lines[1])
    lines[1] = json.dumps({**row, "file_name": "../../etc/passwd"}) + "\n"
    (out / "metadata.jsonl").write_text("".join(lines))
    with pytest.raises(RuntimeError, match="metadata.jsonl line 2: file_name '../../etc/passwd'"):
        bpy.ops.realitybench.browse(step=0)


def test_gray_ranges_from_ratings_fill_the_threshold_edits(addon, tmp_path):
    from rating_support import make_scored_set

    from realitybench_addon.rating.files import Rating
    from realitybench_addon.rating.summary import RatedSet, summarize

    addon.environment, addon.seed, addon.index = "rail_attachment", 0, 0
    bpy.ops.realitybench.build_scene()
    bpy.ops.realitybench.preset(action="REVERT")
    out = make_scored_set(tmp_path / "set", [("rail_attachment", i, {"camera_distance": 0.5 + 0.2 * i})
                                             for i in range(12)])
    addon.rescore_dir = str(out)
    with pytest.raises(RuntimeError, match="no ratings in .* yet: rate it first"):
        bpy.ops.realitybench.rater_gray()
    rated = RatedSet(out)
    for frame_id, part in rated.store.split().items():
        distance = rated.rows[frame_id]["measurements"]["camera_distance"]
        votes = ["accept"] * 3 if distance < 1.1 else ["accept", "reject"] if distance < 1.7 else ["reject"] * 3
        for k, vote in enumerate(votes):
            rated.store.record(Rating(frame_id, f"r{k}", vote))
    assert bpy.ops.realitybench.rater_gray() == {"FINISHED"}
    shown = json.loads(addon.last_ratings)
    direct = next(g for g in summarize(RatedSet(out))["gray_suggestions"] if g["term"] == "camera_distance")
    assert direct["suggested"] is not None and shown["suggestions"]["camera_distance"] == direct["suggested"]
    assert bpy.ops.realitybench.use_gray(term="camera_distance") == {"FINISHED"}
    item = next(i for i in addon.terms if i.name == "camera_distance")
    assert item.threshold == pytest.approx(direct["suggested"]["threshold"])
    assert item.has_gray and (item.gray_lo, item.gray_hi) == pytest.approx(tuple(direct["suggested"]["gray"]))
    readout = {t["name"]: t for t in live.STATE.result["terms"]}["camera_distance"]  # the live preset follows
    assert readout["threshold"] == pytest.approx(direct["suggested"]["threshold"])
    assert list(readout["gray"]) == pytest.approx(direct["suggested"]["gray"])
    bpy.ops.realitybench.preset(action="REVERT")


def test_placing_the_camera_keeps_the_scenes_bvh_while_the_handler_runs(addon):
    """The registered depsgraph handler drops the BVH on geometry updates, but a camera is no surface:
    the frames of one scene group reuse one BVH (before, every placed camera cost a rebuild)."""
    from realitybench_addon.bl import raycast

    api.build_frame("tape_gap", 0, 0)
    scene = bpy.context.scene
    built = raycast.scene_bvh(scene)
    for index in (1, 2, 3):  # the same built scene, a new phone pose each
        api.build_frame("tape_gap", 0, index)
        bpy.context.view_layer.update()
        assert raycast._CACHE.get(scene.name) is built, index
