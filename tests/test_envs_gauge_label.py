"""slope_gauge and equipment_label end to end in the bpy wheel: builds, determinism, and the text
terms checked against what Blender actually shows (the textures and quads as built)."""
import math

import numpy as np
import pytest

bpy = pytest.importorskip("bpy")

from realitybench_addon import pipeline  # noqa: E402
from realitybench_addon.bl.scene_data import matrix_to_numpy, pinhole_camera  # noqa: E402
from realitybench_addon.core.equipment import label_texture, protection, worn_label_texture  # noqa: E402
from realitybench_addon.core.gauge import display_texture, read_seven_segment  # noqa: E402
from realitybench_addon.core.presets import load_environment_preset  # noqa: E402
from blender_lines import cases  # noqa: E402
from env_support import assert_every_term_measured, assert_same_id_same_record, packed_pixels, run  # noqa: E402

ENVS = ("slope_gauge", "equipment_label")


def quad_point(name: str, x_px: float, y_px: float, size_px) -> np.ndarray:
    """World point of texture pixel (x, y-down) on a textured quad as built (its vertices, its UVs)."""
    obj = bpy.data.objects[name]
    m = matrix_to_numpy(obj.matrix_world)
    co = np.array([v.co[:] for v in obj.data.vertices])
    world = co @ m[:3, :3].T + m[:3, 3]
    uv = np.array([d.uv[:] for d in obj.data.uv_layers[0].data])
    assert np.allclose(uv, [[0, 0], [1, 0], [1, 1], [0, 1]])  # the texture spans the quad once, upright
    s, t = x_px / size_px[0], 1.0 - y_px / size_px[1]
    return world[0] + s * (world[1] - world[0]) + t * (world[3] - world[0])


@pytest.mark.parametrize("env", ENVS)
def test_builds_for_six_seeds_with_every_term_measured(env):
    for seed in range(cases(6, other_line=3)):
        assert_every_term_measured(env, run(env, 0, seed=seed).record)


@pytest.mark.parametrize("env", ENVS)
def test_same_id_same_record(env):
    assert_same_id_same_record(env)


def test_built_gauge_shows_the_ground_truth_reading_and_follows_the_yaw_formula():
    for seed in range(cases(5, other_line=3)):
        result = run("slope_gauge", 0, seed=seed)
        truth = result.record["ground_truth"]
        # the long axis of the body as built: its tilt above the horizontal, rounded, is the reading
        axis = matrix_to_numpy(bpy.data.objects["Gauge_Body"].matrix_world)[:3, 1]
        tilt = math.degrees(math.asin(abs(axis[2]) / np.linalg.norm(axis)))
        assert truth["reading_deg"] == round(tilt, 1)
        gauge = result.spec.plan.gauge
        pitch = result.spec.plan.roof.pitch_deg
        expected = math.degrees(math.asin(abs(math.cos(math.radians(gauge.yaw_deg))) * math.sin(math.radians(pitch))))
        assert truth["reading_deg"] == round(expected, 1)
        # the LCD texture packed in the .blend shows that reading
        _, layout = display_texture(f"{truth['reading_deg']:.1f}")
        assert read_seven_segment(packed_pixels("RB_GaugeLCDImage"), layout) == f"{truth['reading_deg']:.1f}"
        assert truth["on_module"] == (gauge.placement != "roof")


def test_digit_height_term_is_the_projected_height_of_a_drawn_digit():
    checked = 0
    cache = pipeline.SceneCache()  # the four frames of a scene share its build
    for index in range(cases(16, other_line=8)):
        result = run("slope_gauge", index, cache=cache)
        m = result.record["measurements"]
        if not m["display_in_frame"] or m["digit_height_px"] < 3:
            continue
        _, layout = display_texture(result.spec.plan.gauge.display_text)
        camera = pinhole_camera(bpy.context.scene.camera, bpy.context.scene)
        x0, top, x1, bottom = layout.glyph_boxes_px[0]
        cx = (x0 + x1) / 2
        pts = np.stack([quad_point("Gauge_Display", cx, top, layout.size_px),
                        quad_point("Gauge_Display", cx, bottom, layout.size_px)])
        uv, depth = camera.project(pts)
        assert np.all(depth > 0)
        assert np.linalg.norm(uv[1] - uv[0]) == pytest.approx(m["digit_height_px"], rel=0.06)
        checked += 1
    assert checked >= cases(6, other_line=3)


def test_the_readings_character_boxes_are_where_the_built_lcd_draws_them():
    """slope_gauge's documented writing (each digit's cell and the point) in world space, from the plan, lands
    on the texture pixels of those characters on the LCD quad as built, for yawed and straight gauges."""
    from realitybench_addon.envs import registry
    from realitybench_addon.envs.base import FrameContext

    env = registry.get("slope_gauge")
    for seed in range(6):
        cache = pipeline.SceneCache()
        result = run("slope_gauge", 0, seed=seed, cache=cache)
        spec = result.spec
        scene = bpy.context.scene
        ctx = FrameContext(scene, scene.camera, cache.built, spec.plan, spec.target, spec.pose)
        surface = env.written_surface(ctx)
        (field,) = surface.fields
        assert field.text == f"{result.record['ground_truth']['reading_deg']:.1f}"
        _, layout = display_texture(field.text)
        center, right, up, _ = surface.frame
        for (x0, y0, x1, y1), (px0, top, px1, bottom) in zip(field.boxes_m, layout.glyph_boxes_px, strict=True):
            for (x, y), (px, py) in (((x0, y1), (px0, top)), ((x1, y0), (px1, bottom))):
                built = quad_point("Gauge_Display", px, py, layout.size_px)
                assert np.linalg.norm(center + x * right + y * up - built) < 1e-5
        m = result.record["measurements"]
        if m["glyphs_visible"] == 1.0:  # every digit seen: the display as a whole is in frame
            assert m["display_in_frame"] >= 0.9
        # the digits' height at the worst digit is the display's centre's within the display's own perspective
        if m["digit_height_px"] > 5:
            assert m["glyph_px_min"] == pytest.approx(m["digit_height_px"], rel=0.15)


def test_label_terms_are_the_projected_rows_and_bars_as_drawn():
    checked = 0
    cache = pipeline.SceneCache()  # every frame of 4 scenes (2 on the other lines), each scene built once
    for index in range(cases(16, other_line=8)):
        result = run("equipment_label", index, cache=cache)
        m = result.record["measurements"]
        if m["label_in_frame"] < 1.0 or m["text_row_px"] < 3:
            continue
        plan = result.spec.plan
        _, layout = label_texture(plan.label)
        truth = result.record["ground_truth"]
        assert (truth["brand"], truth["model"], truth["serial"]) == (
            layout.text_of("brand"), layout.text_of("model"), layout.text_of("serial"))
        assert truth["on"] == plan.placement.kind
        camera = pinhole_camera(bpy.context.scene.camera, bpy.context.scene)
        model = next(r for r in layout.rows if r.role == "model")
        serial = next(r for r in layout.rows if r.role == "serial")
        x = (serial.box_px[0] + serial.box_px[2]) / 2
        pts = np.stack([quad_point("Equipment_Label", x, model.baseline_px, layout.size_px),
                        quad_point("Equipment_Label", x, serial.baseline_px, layout.size_px)])
        uv, _ = camera.project(pts)
        assert np.linalg.norm(uv[1] - uv[0]) == pytest.approx(m["text_row_px"], rel=0.05)
        bx0, by0, bx1, by1 = layout.barcode_box_px
        y = (by0 + by1) / 2
        pts = np.stack([quad_point("Equipment_Label", bx0, y, layout.size_px),
                        quad_point("Equipment_Label", bx1, y, layout.size_px)])
        uv, _ = camera.project(pts)
        from realitybench_addon.core.barcode import symbol_width_modules
        per_module = np.linalg.norm(uv[1] - uv[0]) / symbol_width_modules(plan.label.serial)
        assert per_module == pytest.approx(m["barcode_bar_px"], rel=0.05)
        # the label texture packed in the .blend is the one the layout describes (worn only outside its print)
        image, _ = worn_label_texture(plan.label)
        assert np.array_equal(packed_pixels("RB_EquipmentLabelImage"), image)
        keep = protection(layout, image.shape[:2]) == 1.0
        assert np.array_equal(image[keep], label_texture(plan.label)[0][keep])
        checked += 1
    assert checked >= cases(3, other_line=2)


def test_every_equipment_kind_is_built():
    """Every kind of equipment is drawn within 10 seeds, and the first scene of each kind builds as that kind."""
    from realitybench_addon.envs import registry

    env = registry.get("equipment_label")
    first = {}
    for s in range(10):
        first.setdefault(env.describe_scene(pipeline.plan_frame("equipment_label", s, "random", 0).plan)["equipment"], s)
    assert set(first) == {"module", "microinverter", "inverter"}
    for kind, s in first.items():
        assert run("equipment_label", 0, seed=s).record["scene"]["equipment"] == kind


@pytest.mark.slow
@pytest.mark.parametrize("env, mask_term", [("slope_gauge", "display_unoccluded"),
                                             ("equipment_label", "label_unoccluded")])
def test_rendered_mask_and_image_terms(env, mask_term):
    preset = load_environment_preset(env)
    for index in range(40):
        spec = pipeline.plan_frame(env, 0, "random", index)
        record = pipeline.run_frame(spec, render=False, cache=pipeline.SHARED_CACHE).record
        if record["verdict"] == "pending":
            break
    else:
        pytest.fail(f"no {env} frame passes geometry in the first 40")
    result = pipeline.run_frame(spec, long_side_px=400, samples=4, preset=preset, cache=pipeline.SHARED_CACHE)
    m = result.record["measurements"]
    # the mask covers the target's quad as projected (its four corners as built), give or take its edges
    name = "Gauge_Display" if env == "slope_gauge" else "Equipment_Label"
    camera = pinhole_camera(bpy.context.scene.camera, bpy.context.scene)
    corners = np.stack([quad_point(name, x, y, (1, 1)) for x, y in ((0, 0), (1, 0), (1, 1), (0, 1))])
    uv, _ = camera.project(corners)
    x, y = uv[:, 0], uv[:, 1]
    area = 0.5 * abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1)))
    assert result.mask.sum() == pytest.approx(area, rel=0.35)
    assert 0.0 <= m["saturated_fraction"] <= 1.0
    assert 0.2 < m["weber_contrast"] < 1.0  # dark print on a light ground
    if env == "slope_gauge":
        assert m["module_edge_pixels"] > 0
    else:
        assert m["paper_luminance"] > 0.0
