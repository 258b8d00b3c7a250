"""The roof environments end to end in the bpy wheel: builds, determinism, ground truth, masks."""
import json
import math

import numpy as np
import pytest

bpy = pytest.importorskip("bpy")

from realitybench_addon import api, pipeline  # noqa: E402
from realitybench_addon.envs import registry  # noqa: E402
from realitybench_addon.bl.measure import curve_clearance  # noqa: E402
from realitybench_addon.bl.scene_data import matrix_to_numpy, pinhole_camera  # noqa: E402
from realitybench_addon.core.presets import PresetError, load_environment_preset  # noqa: E402
from realitybench_addon.core.roof import INCH  # noqa: E402
from realitybench_addon.core.tape import blade_axes, module_front_edge  # noqa: E402
from blender_lines import cases  # noqa: E402
from env_support import assert_every_term_measured, assert_same_id_same_record, run  # noqa: E402

ROOF_ENVS = ("rail_attachment", "wire_adequacy", "tape_gap")


@pytest.mark.parametrize("env", ROOF_ENVS)
def test_builds_for_eight_seeds_with_every_term_measured(env):
    gables = 0
    for seed in range(cases(8, other_line=3)):
        result = run(env, 0, seed=seed)
        assert_every_term_measured(env, result.record)
        roof = registry.get(env).roof_plan(result.spec.plan)
        cap = bpy.data.objects.get("RidgeCap")
        assert (cap is not None) == (roof.style == "gable")
        if cap is not None:  # a row of cap pieces over the ridge (core/ridge_caps.py), each its own tone
            gables += 1
            pieces = math.ceil((roof.eave_length_m + 2 * 0.3) / 0.14 - 1e-9)  # 0.3 m rakes
            assert len(cap.data.polygons) == 2 * (6 * pieces + 2)
            tones = np.array([a.value for a in cap.data.attributes["tab_shade"].data])
            assert len(np.unique(tones)) == pieces
    assert gables > 0


@pytest.mark.parametrize("env", ROOF_ENVS)
def test_same_seed_same_ground_truth_and_terms(env):
    assert_same_id_same_record(env)


def test_tape_reading_reprojects_onto_the_module_edge():
    """Independent check: the blade point at the ground-truth reading projects onto the image of the
    module's front-bottom edge."""
    checked = 0
    cache = pipeline.SceneCache()  # two frames of each of 6 scenes: each scene built once
    for index in range(0, 24, 2):
        result = run("tape_gap", index, cache=cache)
        plan = result.spec.plan
        camera = pinhole_camera(bpy.context.scene.camera, bpy.context.scene)
        reading_m = result.record["ground_truth"]["reading_in"] * INCH
        axis, _, _ = blade_axes(plan.roof, plan.tape)
        frame = plan.roof.frame
        point = frame.to_world(np.array([plan.tape.u, plan.tape.v, 0.0]) + reading_m * axis)
        edge_a, _ = module_front_edge(plan.roof)
        # two points of the same edge line, either side of the tape (both in front of the camera)
        a, b = (frame.to_world([plan.tape.u + du, edge_a[1], edge_a[2]]) for du in (-0.1, 0.1))
        uv, depth = camera.project(np.stack([point, a, b]))
        if np.any(depth <= 0):
            continue
        p, q, r = uv
        (ax, ay), (bx, by) = r - q, p - q  # 2-D cross product (numpy 2 takes 3-vectors only)
        distance_px = abs(ax * by - ay * bx) / np.linalg.norm(r - q)
        assert distance_px < 0.02  # the stored reading is rounded to 1e-4 in
        assert result.record["ground_truth"]["gap_in"] == pytest.approx(plan.roof.module_bottom_h / INCH, abs=1e-4)
        assert result.record["ground_truth"]["tilted"] == (plan.tape.lean_deg > 5)
        checked += 1
    assert checked >= 10


def test_touching_iff_some_cable_reaches_the_roof():
    seen = set()
    for seed in range(8):
        result = run("wire_adequacy", 0, seed=seed)
        plan = result.spec.plan
        clearances = [curve_clearance(w.name, plan.frame.origin, plan.frame.normal)[0] for w in plan.wires]
        touching = result.record["ground_truth"]["touching"]
        # Blender stores curve points in float32: "contact" is within a micron of zero
        assert touching == (min(clearances) <= 1e-6)
        if not touching:
            assert min(clearances) > 0.001  # clearly clear, not a rounding accident
        seen.add(touching)
    assert seen == {True, False}


def test_missing_bolt_or_flashing_makes_the_frame_unscored():
    seen = {True: 0, False: 0}
    cache = pipeline.SceneCache()  # bolt and flashing are the scene's: the 4 frames of each of 8 scenes share it
    for index in range(32):  # each frame aims at its own attachment: 8 of these 32 lack a part
        result = run("rail_attachment", index, cache=cache)
        truth = result.record["ground_truth"]
        missing = not (truth["lag_present"] and truth["flashing_present"])
        assert (result.record["verdict"] == "unscored") == missing
        if missing:
            assert "missing" in result.record["unscored_reason"]
        seen[missing] += 1
    assert seen[True] >= 3 and seen[False] >= 10


@pytest.mark.parametrize("env,in_frame,unoccluded", [("rail_attachment", "attachment_in_frame", "attachment_unoccluded"),
                                                    ("wire_adequacy", "wire_in_frame", "wire_unoccluded")])
def test_a_target_in_frame_has_pixels_in_the_rendered_mask(env, in_frame, unoccluded):
    cache = pipeline.SceneCache()  # a scene's four frames share its build
    for index in range(40):
        m = run(env, index, cache=cache).record["measurements"]
        if m[in_frame] >= 0.95 and m[unoccluded] >= 0.6:
            rendered = run(env, index, cache=cache, render=True, long_side_px=320, samples=1).record["measurements"]
            assert rendered["target_mask_pixels"] > 0
            return
    pytest.fail(f"no {env} frame among 40 had its target in frame and visible")


def test_tape_mask_and_wire_image_terms():
    cache = pipeline.SceneCache()
    for index in range(30):
        m = run("tape_gap", index, cache=cache).record["measurements"]
        if m["crossing_in_frame"] and m["crossing_unoccluded"]:
            assert run("tape_gap", index, cache=cache, render=True, long_side_px=320, samples=1).record["measurements"][
                "target_mask_pixels"] > 0
            break
    else:
        pytest.fail("no tape frame with the crossing in view")


def test_out_of_range_threshold_is_a_clear_error(tmp_path):
    preset = load_environment_preset("rail_attachment")
    with pytest.raises(PresetError, match=r"terms\.attachment_bbox\.threshold: 1\.5 is out of range"):
        preset.with_term("attachment_bbox", threshold=1.5)
    bad = tmp_path / "rail_attachment.toml"
    bad.write_text(open(preset.source).read().replace("threshold = 1.8", "threshold = -1.8"))
    with pytest.raises(PresetError, match=r"rail_attachment\.toml: terms\.camera_distance\.threshold: -1\.8"):
        load_environment_preset("rail_attachment", [tmp_path])


def test_frame_api_writes_record_and_rejects_bad_input(tmp_path):
    record = api.frame("tape_gap", 0, 1, tmp_path, render=False)
    stored = json.loads((tmp_path / f"{record['frame_id']}.json").read_text())
    assert stored["frame_id"] == "tape_gap-random-s0-000001" and stored["file_name"] is None
    assert not list(tmp_path.glob("*.jpg")) and not list(tmp_path.glob(".*partial"))
    assert {t["name"] for t in stored["terms"]} >= {"tape_tilt", "camera_distance"}
    assert "JSON object" in stored["prompt"] and '"reading_in"' in stored["prompt"]
    with pytest.raises(api.RealityBenchError, match="unknown environment 'roof'"):
        api.frame("roof", 0, 0, tmp_path)
    with pytest.raises(api.RealityBenchError, match="not 4:3"):
        api.parse_resolution("1600x900")
    assert api.parse_resolution("1200x1600") == 1600
    assert math.isfinite(stored["measurements"]["camera_distance"])


def test_the_ladder_rests_on_the_gutter_and_stands_on_the_ground():
    """The ladder leans on the eave gutter's outer lip (its rails' back faces touch it), stands on the ground,
    and reaches 0.8 m or more past the gutter: it stood 0.3-0.4 m off the eave with its top in the air."""
    from realitybench_addon.bl.roof import LADDER_LEAN

    for seed in range(2):
        plan = registry.get("rail_attachment").roof_plan(run("rail_attachment", 0, seed=seed).spec.plan)
        ladder = bpy.data.objects["Ladder"]
        m = matrix_to_numpy(ladder.matrix_world)
        world = np.array([v.co[:] for v in ladder.data.vertices]) @ m[:3, :3].T + m[:3, 3]
        g = matrix_to_numpy(bpy.data.objects["House_Gutter"].matrix_world)
        gv = np.array([v.co[:] for v in bpy.data.objects["House_Gutter"].data.vertices]) @ g[:3, :3].T + g[:3, 3]
        eave = gv[(gv[:, 1] < 0.0) & (gv[:, 1] > -1.5) & (np.abs(gv[:, 2] - plan.eave_height_m) < 1.0)]
        assert len(eave) >= 8 and eave[:, 0].min() < plan.ladder_u < eave[:, 0].max()  # the eave's trough
        lip_y, lip_z = eave[:, 1].min(), eave[:, 2].max()  # its outer face and its top
        # the rails' back faces (towards the house) at the lip's height
        axis, across = m[:3, 2], m[:3, 1]  # up the ladder; towards the house, square to the rails
        assert axis[1] > 0 and axis[1] / axis[2] == pytest.approx(LADDER_LEAN)
        back = m[:3, 3] + 0.04 * across  # a rail's back face line starts here (local y = +0.04)
        t = (lip_z - back[2]) / axis[2]
        assert back[1] + t * axis[1] == pytest.approx(lip_y, abs=0.002)
        assert -0.015 < world[:, 2].min() < 0.005  # the feet on the ground
        assert world[:, 2].max() > lip_z + 0.8
