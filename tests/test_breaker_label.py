"""breaker_label: the panel plan and the directory card (pure), then the scene end to end in the bpy wheel.

The card's ground truth is read back from the texture generator's layout of the rows it drew;
these tests check that layout against the pixels (typed pieces re-drawn match, every piece has
ink), the built texture against the generator, the card quad's UVs against its physical size,
and the px-per-row term against an independent projection and against the ruled lines in a render.
"""
import dataclasses
import json
import math

import numpy as np
import pytest

from realitybench_addon.core import lettering
from realitybench_addon.core.directory_card import card_texture
from realitybench_addon.core.load_center import (CIRCUIT_KINDS, INK_COLORS, MAIN_AMPS, PAPER_COLORS, SPACES_BY_MAIN,
                                                 LoadCenterPlanError, draw_circuits, draw_load_center_plan)
from realitybench_addon.core.rng import scene_rng

ENV = "breaker_label"


def plans(n, seed=0):
    return [draw_load_center_plan(scene_rng(seed, "test/panel", i)) for i in range(n)]


def _darkness(rgb: np.ndarray, paper) -> np.ndarray:
    """How much darker than the paper each pixel is (0 on bare paper)."""
    return np.clip(np.asarray(paper, float).mean() - np.asarray(rgb, float).mean(axis=-1), 0, None)


# ---------------------------------------------------------------------------------------------
# pure: the plan
# ---------------------------------------------------------------------------------------------

def test_plans_are_realistic_load_centers():
    two_pole_names = {n for k in CIRCUIT_KINDS if k.poles == 2 for n in k.names}
    counts, mains, placements = [], set(), set()
    for plan in plans(200):
        assert plan.main_amps in MAIN_AMPS and plan.spaces in SPACES_BY_MAIN[plan.main_amps]
        mains.add(plan.main_amps)
        placements.add((plan.card_placement, plan.card.style))
        assert 1.6 < plan.box_top_z < 2.0  # top breaker within reach
        names = [c.name for c in plan.circuits]
        assert len(names) == len(set(names)), names
        used = [s for c in plan.circuits for s in c.slots]
        assert len(used) == len(set(used)) and all(1 <= s <= plan.spaces for s in used)
        for c in plan.circuits:
            if c.poles == 2:  # a double-pole breaker takes two adjacent spaces of one column
                assert c.slots[1] == c.slot + 2 and c.name in two_pole_names and c.amps >= 20
            else:
                assert c.amps in (15, 20) and c.name not in two_pole_names
        assert [c.slot for c in plan.circuits] == sorted(c.slot for c in plan.circuits)
        assert plan.card.entries == tuple((c.slot_label, c.name, c.amps) for c in plan.circuits)
        assert plan.card.main_amps == plan.main_amps
        counts.append(len(plan.circuits))
        center, right, up, normal = plan.card_frame()
        assert abs(np.dot(right, normal)) < 1e-9 and abs(np.dot(up, normal)) < 1e-9
        assert normal[1] < 0 or plan.card_placement == "door"  # wall cards face the room
        if plan.card_placement == "wall":  # beside the cover, not on it
            assert abs(center[0] - plan.box_center_x) - plan.card.width_m / 2 > plan.cover_width_m / 2
        else:  # on the door's inner face, within the door
            corners = plan.card_corners()
            hinge, along = plan.hinge_point(), plan.door_along()
            s = (corners - hinge) @ along
            assert np.all(s > 0) and np.all(s < plan.door_width_m)
            assert np.all(np.abs(corners[:, 2] - hinge[2]) < plan.door_height_m / 2)
    assert min(counts) >= 8 and max(counts) >= 20 and len(set(counts)) > 10  # varied in count
    assert mains == set(MAIN_AMPS)
    assert placements == {("wall", "hand"), ("wall", "typed"), ("door", "hand"), ("door", "typed")}


def test_door_swings_out_into_the_room():
    plan = plans(1)[0]
    for hinge in (-1, 1):
        for angle, expect in ((90.0, (0.0, -1.0)), (180.0, (hinge, 0.0))):
            p = dataclasses.replace(plan, hinge_side=hinge, door_angle_deg=angle)
            along = p.door_along()
            assert along[:2] == pytest.approx(expect, abs=1e-9)
            # the door's inner face turns towards the room as it opens past 90 degrees
            assert (p.door_matrix()[1, 1] < 0) == (angle > 90)


def test_bad_input_is_a_clear_error():
    rng = scene_rng(0, "test/panel", 0)
    with pytest.raises(LoadCenterPlanError, match="even number of at least 8 spaces"):
        draw_circuits(rng, 7)
    with pytest.raises(LoadCenterPlanError, match="door_card_share"):
        draw_load_center_plan(rng, door_card_share=1.5)
    plan = plans(1)[0]
    with pytest.raises(LoadCenterPlanError, match="slot 0 is outside"):
        plan.slot_center(0)
    bad = dataclasses.replace(plan.card, entries=(("1", "Kitchen", 20),) + plan.card.entries[1:])
    with pytest.raises(LoadCenterPlanError, match="characters the font lacks: 'cehint'"):
        card_texture(bad)
    from realitybench_addon.envs.breaker_label import aim_point

    with pytest.raises(ValueError, match="unknown aim 'roof'"):
        aim_point(plan, "roof")


# ---------------------------------------------------------------------------------------------
# pure: the card texture and its layout
# ---------------------------------------------------------------------------------------------

def test_layout_is_what_was_drawn_and_matches_the_plan():
    for plan in plans(30):
        card = plan.card
        pixels, layout = card_texture(card)
        assert pixels.shape == (layout.height_px, layout.width_px, 3)
        assert [(r.slot, r.name, r.amps) for r in layout.entries] == list(card.entries)
        assert all(r.text == f"{r.slot} {r.name} {r.amps}A" for r in layout.entries)
        assert [p.text for p in layout.entries[0].pieces] == [layout.entries[0].slot, layout.entries[0].name,
                                                              f"{layout.entries[0].amps}A"]
        assert layout.main_amps == plan.main_amps
        assert layout.row_pitch_m == pytest.approx(card.row_pitch_m, rel=1e-9)
        assert layout.ground_truth_entries() == [{"name": n, "amps": a} for _, n, a in card.entries]
        dark = _darkness(pixels, PAPER_COLORS[card.paper])
        previous_bottom = -1.0
        for row in layout.rows:
            x0, y0, x1, y1 = row.box_px
            assert 0 <= x0 < x1 <= layout.width_px and 0 <= y0 < y1 <= layout.height_px  # on the card
            assert y0 >= previous_bottom - 0.5  # rows do not overlap
            previous_bottom = y1
            for piece in row.pieces:  # every piece left ink inside its box
                a, b, c, d = (int(math.floor(v)) for v in piece.box_px)
                assert dark[b:d + 1, a:c + 1].max() > 40, (row.text, piece.text)
        # the writing follows the ruled pitch
        baselines = np.array([r.baseline_px for r in layout.entries])
        assert np.diff(baselines) == pytest.approx(card.row_pitch_m * layout.px_per_m_y)


def _redraw(piece, size, paper, style):
    """The same text drawn again alone at the same place, on bare paper."""
    from PIL import Image

    img = Image.new("RGB", size, paper)
    x = piece.end_x_px - lettering.text_width(piece.text, piece.cap_height_px)
    lettering.draw_text(img, piece.text, x, piece.baseline_px, piece.cap_height_px, style=style)
    return np.asarray(img)


def test_typed_text_reads_back_as_the_ground_truth():
    """Each typed piece, re-drawn alone from the layout's record, matches the card's pixels in its box;
    a different text in the same place does not."""
    typed = [p for p in plans(40) if p.card.style == "typed"][:4]
    assert typed
    for plan in typed:
        pixels, layout = card_texture(plan.card)
        paper = PAPER_COLORS[plan.card.paper]
        size = (layout.width_px, layout.height_px)
        dark = _darkness(pixels, paper)
        entries = layout.entries
        for i, row in enumerate(entries):
            for piece in row.pieces:
                a, b, c, d = (int(math.floor(v)) for v in piece.box_px)
                again = _darkness(_redraw(piece, size, paper, "typed"), paper)[b:d + 1, a:c + 1]
                seen = dark[b:d + 1, a:c + 1]
                assert np.corrcoef(again.ravel(), seen.ravel())[0, 1] > 0.97, piece.text
            # negative control: the next row's name written here does not match
            other = entries[(i + 1) % len(entries)].pieces[1]
            name = row.pieces[1]
            if other.text[:3] != name.text[:3]:
                fake = dataclasses.replace(other, baseline_px=name.baseline_px,
                                           end_x_px=name.end_x_px - lettering.text_width(name.text, name.cap_height_px)
                                           + lettering.text_width(other.text, other.cap_height_px))
                a, b, c, d = (int(math.floor(v)) for v in name.box_px)
                wrong = _darkness(_redraw(fake, size, paper, "typed"), paper)[b:d + 1, a:c + 1]
                assert np.corrcoef(wrong.ravel(), dark[b:d + 1, a:c + 1].ravel())[0, 1] < 0.6


def test_hand_lettered_card_is_deterministic_and_varied():
    hand = [p for p in plans(20) if p.card.style == "hand"][0]
    a, la = card_texture.__wrapped__(hand.card)
    b, lb = card_texture.__wrapped__(hand.card)
    assert np.array_equal(a, b) and la == lb
    other = dataclasses.replace(hand.card, seed=hand.card.seed + 1)
    c, lc = card_texture.__wrapped__(other)
    assert not np.array_equal(a, c)  # another hand
    assert [r.text for r in lc.rows] == [r.text for r in la.rows]  # the same words
    assert hand.card.ink in INK_COLORS


# ---------------------------------------------------------------------------------------------
# bpy: the scene end to end
# ---------------------------------------------------------------------------------------------



@pytest.fixture(scope="module")
def bl():
    bpy = pytest.importorskip("bpy")
    from realitybench_addon import api, pipeline
    from realitybench_addon.envs import registry

    return bpy, api, pipeline, registry


def run(bl, index, seed=0, cache=None, **kw):
    _, _, pipeline, _ = bl
    cache = cache or pipeline.SceneCache()
    spec = pipeline.plan_frame(ENV, seed, "random", index)
    return pipeline.run_frame(spec, render=kw.pop("render", False), cache=cache, **kw), cache


def test_builds_for_twenty_seeds_with_every_term_measured(bl):
    bpy, _, _, registry = bl
    from realitybench_addon.core.presets import load_environment_preset

    preset = load_environment_preset(ENV)
    env = registry.get(ENV)
    assert env.scene_kind == "panel"
    for seed in range(20):
        result, cache = run(bl, 0, seed=seed)
        record = result.record
        assert bpy.data.objects.get("RB_Sun") is not None and bpy.data.objects.get("Panel_Card") is not None
        outcomes = {t["name"]: t["outcome"] for t in record["terms"]}
        assert set(outcomes) == {t.name for t in preset.terms}
        geometric = [t.name for t in preset.terms if t.kind == "geometric"]
        assert all(outcomes[name] in ("pass", "fail") for name in geometric), outcomes
        assert record["verdict"] in ("reject", "pending")
        truth = record["ground_truth"]
        assert set(truth) == {k.name for k in env.prompt_parts.keys} == {"main_amps", "entries"}
        assert truth["main_amps"] in MAIN_AMPS
        assert all(set(e) == {"name", "amps"} for e in truth["entries"])
        json.dumps(record)  # the record is plain JSON


def test_same_seed_same_ground_truth_and_terms(bl):
    a, b = run(bl, 5)[0].record, run(bl, 5)[0].record
    for key in ("measurements", "terms", "ground_truth", "verdict", "capture", "camera", "scene"):
        assert a[key] == b[key], key
    assert run(bl, 6)[0].record["camera"] != a["camera"]


def test_ground_truth_is_the_texture_built_into_the_scene(bl):
    """The image on the card's material is the generator's drawing, and the truth is its layout."""
    bpy = bl[0]
    for index in (0, 8, 16):
        result, cache = run(bl, index)
        plan = result.spec.plan
        pixels, layout = card_texture(plan.card)
        image = bpy.data.images["RB_DirectoryCard"]
        assert tuple(image.size) == (layout.width_px, layout.height_px)
        buf = np.empty(layout.width_px * layout.height_px * 4, np.float32)
        image.pixels.foreach_get(buf)
        built = np.rint(buf.reshape(layout.height_px, layout.width_px, 4)[::-1, :, :3] * 255)
        assert np.array_equal(built.astype(np.uint8), pixels)
        truth = result.record["ground_truth"]
        assert truth["main_amps"] == layout.main_amps == plan.main_amps
        assert truth["entries"] == [{"name": r.name, "amps": r.amps} for r in layout.entries]
        assert cache.built.layout == layout


def _card_quad(bpy):
    """The built card quad: world corners by their UV (u, v) and its normal."""
    obj = bpy.data.objects["Panel_Card"]
    mesh = obj.data
    m = np.array(obj.matrix_world)
    uv = np.empty(len(mesh.loops) * 2, np.float32)
    mesh.uv_layers.active.data.foreach_get("uv", uv)
    corners = {}
    for loop, (u, v) in zip(mesh.loops, uv.reshape(-1, 2)):
        co = np.array(mesh.vertices[loop.vertex_index].co)
        corners[(round(float(u)), round(float(v)))] = m[:3, :3] @ co + m[:3, 3]
    normal = m[:3, :3] @ np.array(mesh.polygons[0].normal)
    return corners, normal / np.linalg.norm(normal)


def _texture_to_world(corners, u_px, v_px, layout):
    """Texture pixel (u right, v down) -> world, bilinear over the built quad's UV corners."""
    s, t = u_px / layout.width_px, 1.0 - v_px / layout.height_px
    return ((1 - s) * (1 - t) * corners[(0, 0)] + s * (1 - t) * corners[(1, 0)] + s * t * corners[(1, 1)]
            + (1 - s) * t * corners[(0, 1)])


def test_card_quad_carries_the_texture_at_true_size(bl):
    bpy = bl[0]
    for index in range(0, 40, 4):
        result, _ = run(bl, index)
        plan = result.spec.plan
        corners, normal = _card_quad(bpy)
        tl, tr, br, bl_ = plan.card_corners()
        assert corners[(0, 1)] == pytest.approx(tl, abs=1e-5) and corners[(1, 0)] == pytest.approx(br, abs=1e-5)
        assert np.linalg.norm(corners[(1, 1)] - corners[(0, 1)]) == pytest.approx(plan.card.width_m, abs=1e-5)
        assert np.linalg.norm(corners[(0, 1)] - corners[(0, 0)]) == pytest.approx(plan.card.height_m, abs=1e-5)
        assert normal == pytest.approx(plan.card_frame()[3], abs=1e-5)  # the written face looks out


def test_text_row_px_is_the_drawn_row_pitch_projected(bl):
    """Independent: project consecutive drawn baselines through the built quad's UVs; the term is
    the smallest such step over the drawn rows."""
    bpy, _, pipeline, _ = bl
    from realitybench_addon.bl.scene_data import pinhole_camera

    checked = 0
    for index in range(24):
        result, cache = run(bl, index)
        m = result.record["measurements"]
        layout = cache.built.layout
        camera = pinhole_camera(bpy.context.scene.camera, bpy.context.scene)
        corners, _ = _card_quad(bpy)
        pitch = layout.row_pitch_px
        steps = []
        for row in layout.entries:
            u = (row.box_px[0] + row.box_px[2]) / 2
            v = (row.box_px[1] + row.box_px[3]) / 2
            pts = np.stack([_texture_to_world(corners, u, v - pitch / 2, layout),
                            _texture_to_world(corners, u, v + pitch / 2, layout)])
            uv, depth = camera.project(pts)
            if np.all(depth > 0):
                steps.append(float(np.linalg.norm(uv[1] - uv[0])))
        if len(steps) == len(layout.entries):
            assert m["text_row_px"] == pytest.approx(min(steps), rel=1e-4)
            assert m["row_pitch_mm"] == pytest.approx(layout.row_pitch_m * 1000)
            checked += 1
    assert checked >= 20


def _square_on(bpy, plan, distance, width=1600, height=1200, lens=26.0, sensor=36.0, side=0.0):
    """The phone camera moved square-on in front of the card (optionally stepped sideways), lens fixed."""
    from mathutils import Matrix

    from realitybench_addon.core.optics import look_at

    scene = bpy.context.scene
    camera = scene.camera
    center, right, up, normal = plan.card_frame()
    position = center + distance * normal + side * right
    camera.animation_data_clear()
    camera.matrix_world = Matrix(look_at(position, center, up=tuple(up)).tolist())
    camera.data.lens, camera.data.sensor_width = lens, sensor
    camera.data.dof.use_dof = False
    scene.render.use_motion_blur = False
    scene.render.resolution_x, scene.render.resolution_y = width, height
    return camera


def test_square_on_terms_are_analytic(bl):
    bpy, _, pipeline, registry = bl
    from realitybench_addon.envs.base import FrameContext

    env = registry.get(ENV)
    result, cache = run(bl, 0)
    spec = result.spec
    plan = spec.plan
    camera = _square_on(bpy, plan, 0.5)
    ctx = FrameContext(bpy.context.scene, camera, cache.built, plan, spec.target, spec.pose)
    m = env.measure(ctx)
    focal_px = 26.0 / 36.0 * 1600
    assert m["text_row_px"] == pytest.approx(focal_px * cache.built.layout.row_pitch_m / 0.5, rel=1e-6)
    assert m["view_angle"] == pytest.approx(0.0, abs=1e-3)
    assert m["camera_distance_m"] == pytest.approx(0.5)
    assert m["card_in_frame"] == 1.0 and m["card_unoccluded"] == 1.0
    area = plan.card.width_m * plan.card.height_m * (focal_px / 0.5) ** 2 / (1600 * 1200)
    assert m["card_bbox"] == pytest.approx(area, rel=1e-3)
    # 45 degrees to the side: the view angle follows
    _square_on(bpy, plan, 0.5, side=0.5)
    assert env.measure(ctx)["view_angle"] == pytest.approx(45.0, abs=1e-3)


def test_open_door_hides_a_card_on_its_hinge_side(bl):
    """A wall card on the hinge side behind a door standing straight out: seen past the door's edge from
    the card's side, hidden from the far side."""
    bpy, _, pipeline, registry = bl
    from mathutils import Matrix

    from realitybench_addon.bl.analytic import reset_scene
    from realitybench_addon.bl.camera import ensure_camera
    from realitybench_addon.core.optics import look_at
    from realitybench_addon.envs.base import FieldPose, FrameContext

    env = registry.get(ENV)
    base = next(p for p in plans(20) if p.mount == "surface")
    plan = dataclasses.replace(base, card_placement="wall", card_side=base.hinge_side, door_angle_deg=90.0,
                               card_gap_m=0.05)
    scene = reset_scene()
    built = env.build(scene, plan, scene_rng(0, "test/panel-build", 0))
    camera = ensure_camera(scene)
    camera.data.lens, camera.data.sensor_width = 26.0, 36.0
    scene.render.resolution_x, scene.render.resolution_y = 1600, 1200
    center = plan.card_frame()[0]
    pose = FieldPose((0, 0, 0), (0, 0, 0), 0.0, "test")
    results = {}
    for name, dx in (("card side", 0.35), ("far side", -0.5)):
        position = center + np.array([plan.hinge_side * dx, -0.9, 0.0])
        camera.matrix_world = Matrix(look_at(position, center).tolist())
        ctx = FrameContext(scene, camera, built, plan, {"card": "Panel_Card", "aim": "card"}, pose)
        results[name] = env.measure(ctx)["card_unoccluded"]
    assert results["card side"] == 1.0
    assert results["far side"] < 0.2


def test_rendered_ruled_lines_are_text_row_px_apart(bl):
    """Render a typed card square-on at ~24 px per row and find the ruled lines in the image: their
    spacing is the measured px per text row."""
    bpy, _, pipeline, registry = bl
    from realitybench_addon.bl.render import render_frame
    from realitybench_addon.envs.base import FrameContext

    env = registry.get(ENV)
    index = next(i for i in range(0, 80, 4)
                 if pipeline.plan_frame(ENV, 0, "random", i).plan.card.style == "typed"
                 and pipeline.plan_frame(ENV, 0, "random", i).plan.card.paper in ("white", "cream"))
    result, cache = run(bl, index)
    spec, plan = result.spec, result.spec.plan
    layout = cache.built.layout
    width, height = 240, 320
    focal_px = 26.0 / 36.0 * max(width, height)
    distance = focal_px * layout.row_pitch_m / 24.0
    camera = _square_on(bpy, plan, distance, width=width, height=height)
    ctx = FrameContext(bpy.context.scene, camera, cache.built, plan, spec.target, spec.pose)
    expected = env.measure(ctx)["text_row_px"]
    assert expected == pytest.approx(24.0, rel=1e-6)
    frame = render_frame(bpy.context.scene, camera, samples=8)
    mask = frame.mask(["Panel_Card"])
    assert mask.mean() > 0.9  # the card fills the frame
    rgb = frame.linear_rgb
    blue = rgb[..., 2] - rgb[..., 0]  # the ruled lines are light blue, the paper and the ink are not
    cols = slice(width // 4, 3 * width // 4)
    profile = np.where(mask[:, cols], blue[:, cols], np.nan)
    profile = np.nanmean(profile, axis=1)
    profile = profile - np.nanmedian(profile)
    peaks = [y for y in range(2, height - 2)
             if profile[y] == np.nanmax(profile[y - 2:y + 3]) and profile[y] > 0.5 * np.nanmax(profile)]
    spacing = np.diff(peaks)
    assert len(peaks) >= 8
    assert float(np.median(spacing)) == pytest.approx(expected, abs=1.0)


def test_card_in_frame_has_mask_pixels_and_image_terms(bl):
    _, _, pipeline, _ = bl
    for index in range(40):
        m = run(bl, index)[0].record["measurements"]
        if m["card_in_frame"] == 1.0 and m["card_unoccluded"] >= 0.95 and m["card_bbox"] > 0.02:
            result, _ = run(bl, index, render=True, long_side_px=160, samples=4)
            rendered = result.record["measurements"]
            assert rendered["target_mask_pixels"] > 50
            assert 0.0 < rendered["weber_contrast"] < 1.0
            assert 0.0 <= rendered["saturated_fraction"] <= 1.0
            assert result.discard_reason is None
            return
    pytest.fail("no breaker_label frame among 40 had the card in frame and visible")


def test_frame_api_and_prompt(bl, tmp_path):
    _, api, _, _ = bl
    record = api.frame(ENV, 0, 3, tmp_path, render=False)
    stored = json.loads((tmp_path / f"{record['frame_id']}.json").read_text())
    assert stored["frame_id"] == "breaker_label-random-s0-000003"
    assert stored["scene"]["kind"] == "panel"
    prompt = stored["prompt"]
    assert "an electrician" in prompt and '"main_amps"' in prompt and '"entries"' in prompt
    assert '"name"' in prompt and '"amps"' in prompt
    assert {t["name"] for t in stored["terms"]} >= {"text_row_px", "card_bbox", "weber_contrast"}


def test_field_poses_stand_in_the_room_in_front_of_the_panel():
    from realitybench_addon import pipeline

    heights, distances, aims = [], [], set()
    for index in range(200):
        spec = pipeline.plan_frame(ENV, 0, "random", index)
        plan, pose = spec.plan, spec.pose
        x, y, z = pose.position
        assert plan.room_x0 < x < plan.room_x1 and -plan.room_depth_m < y < -0.1
        heights.append(z)
        from realitybench_addon.envs.breaker_label import aim_point

        distances.append(float(np.linalg.norm(np.array(pose.position) - aim_point(plan, spec.target["aim"]))))
        aims.add(spec.target["aim"])
    assert 1.2 - 1e-9 <= min(heights) and max(heights) <= 1.8 + 1e-9
    assert min(distances) < 0.4 and max(distances) > 2.0
    assert aims == {"card", "panel", "breakers", "main"}
