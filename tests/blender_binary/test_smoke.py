"""Smoke suite for RealityBench as a legacy add-on inside a real Blender binary (3.4.1 in CI).

Runs only inside Blender (see conftest.py); tests/test_blender_binary.py launches it with
pytest-blender. Tests run in file order: the last one disables the add-on.
"""
from __future__ import annotations

import sys

import pytest

_bpy = sys.modules.get("bpy")
if _bpy is None or not getattr(_bpy.app, "binary_path", ""):
    pytest.skip("runs only inside a Blender executable; tests/test_blender_binary.py launches it",
                allow_module_level=True)

import json  # noqa: E402
import math  # noqa: E402
import os  # noqa: E402

import addon_utils  # noqa: E402
import bpy  # noqa: E402
import numpy as np  # noqa: E402
from conftest import ADDON, ensure_enabled, raise_error  # noqa: E402

RECT_W, RECT_H, DISTANCE = 0.2, 0.1, 1.0
FOCAL_MM, SENSOR_MM = 26.0, 36.0  # analytic.add_camera defaults (sensor fit AUTO: width spans the long side)


def registered_names() -> list[str]:
    return sorted(n for n in dir(bpy.types) if n.startswith(("RB_", "REALITYBENCH_")))


def half_occluded_scene(resolution=(1600, 1200)):
    """A 0.2 x 0.1 m rectangle square-on to a camera 1 m away; a box hides exactly its left half.

    The box's right face lies in the plane x = 0, which contains the camera, so that face
    projects onto the image's centre column at every depth: it hides x < 0 and nothing else.
    """
    from realitybench_addon.bl import analytic

    scene = analytic.reset_scene()
    analytic.add_rectangle(scene, "Rect", RECT_W, RECT_H, analytic.frame_matrix((0, 0, 0), (0, -1, 0), (1, 0, 0)),
                           divisions=4)
    analytic.add_camera(scene, "Cam", (0, -DISTANCE, 0), (0, 0, 0), focal_mm=FOCAL_MM, sensor_width_mm=SENSOR_MM,
                        resolution=resolution)
    analytic.add_box(scene, "Occluder", (0.15, 0.01, 0.3), (-0.075, -0.5 * DISTANCE, 0.0))
    return scene


def focal_px(resolution) -> float:
    return FOCAL_MM / SENSOR_MM * max(resolution)


def test_enabled_as_legacy_addon(addon):
    import realitybench_addon
    from realitybench_addon.bl import raycast
    from realitybench_addon.ui import operators

    assert addon is realitybench_addon
    assert addon_utils.check(ADDON) == (True, True)
    info = addon_utils.module_bl_info(addon)
    assert info["name"] == "RealityBench"
    assert tuple(info["blender"]) <= bpy.app.version
    if os.environ.get("RB_REQUIRE_INSTALLED_ADDON") == "1":
        # Installed by pytest-blender (bpy.ops.preferences.addon_install), not imported from the repo.
        user_addons = os.path.realpath(os.path.join(bpy.utils.script_path_user(), "addons"))
        assert os.path.realpath(addon.__file__).startswith(user_addons + os.sep), addon.__file__
        assert ADDON in {m.__name__ for m in addon_utils.modules()}

    # The operator class is RB_OT_measure; Blender names the registered type after its
    # bl_idname ("realitybench.measure" -> REALITYBENCH_OT_measure), in 3.4 as in 4.x.
    assert operators.RB_OT_measure.is_registered
    assert hasattr(bpy.types, "REALITYBENCH_OT_measure")
    assert "RB_PT_measure" in registered_names()
    assert raycast.on_depsgraph_update in bpy.app.handlers.depsgraph_update_post
    assert hasattr(bpy.types.WindowManager, "realitybench")

    # The plain register()/unregister() pair round-trips too.
    realitybench_addon.unregister()
    assert registered_names() == []
    realitybench_addon.register()
    assert operators.RB_OT_measure.is_registered
    assert bpy.app.handlers.depsgraph_update_post.count(raycast.on_depsgraph_update) == 1


def test_measure_half_occluded_rectangle():
    from realitybench_addon import api

    half_occluded_scene()
    result = api.measure("Rect", "Cam")
    assert result["target"] == ["Rect"] and result["camera"] == "Cam"
    assert result["resolution"] == [1600, 1200]
    assert result["in_frame_fraction"] == 1.0
    assert result["unoccluded_fraction"] == pytest.approx(0.5, abs=0.03)
    assert result["view_angle_deg"] == pytest.approx(0.0, abs=0.5)
    assert result["distance_m"] == pytest.approx(DISTANCE, abs=1e-6)
    # Pinhole: a 1 cm segment square-on at distance d spans f_px * 0.01 / d pixels.
    expected = focal_px((1600, 1200)) * 0.01 / DISTANCE
    assert result["px_per_unit"] == pytest.approx(expected, rel=0.01)


def test_measure_operator_fills_last_result():
    half_occluded_scene()
    settings = bpy.context.window_manager.realitybench
    settings.last_result = ""
    assert bpy.ops.realitybench.measure(target="Rect", camera="Cam") == {"FINISHED"}
    result = json.loads(settings.last_result)
    assert result["target"] == ["Rect"] and result["camera"] == "Cam"
    assert result["in_frame_fraction"] == 1.0
    assert result["unoccluded_fraction"] == pytest.approx(0.5, abs=0.03)
    assert math.isfinite(result["px_per_unit"]) and result["px_per_unit"] > 0


def test_tiny_render_gives_target_mask():
    """Cycles through the compositor's File Output node (Blender 3.4's path) gives the object mask."""
    from realitybench_addon.bl.render import render_frame

    w, h = 64, 48
    scene = half_occluded_scene(resolution=(w, h))
    frame = render_frame(scene, bpy.data.objects["Cam"], samples=4)
    assert frame.linear_rgb.shape == (h, w, 3)
    assert np.isfinite(frame.linear_rgb).all()
    assert frame.object_index.shape == (h, w)
    rect = frame.mask(["Rect"])
    box = frame.mask(["Occluder"])
    assert rect.any() and box.any()
    # The visible half (x > 0) is right of the centre column; the box covers the centre-left.
    cols = np.nonzero(rect)[1]
    assert cols.min() >= w // 2 - 1, cols.min()
    assert box[h // 2, w // 2 - 2]
    f = focal_px((w, h))
    visible_px = (RECT_W / 2 * f / DISTANCE) * (RECT_H * f / DISTANCE)
    assert 0.5 * visible_px <= rect.sum() <= 1.6 * visible_px, (int(rect.sum()), visible_px)
    # The scene's own compositor settings are restored.
    assert not any(n.bl_idname == "CompositorNodeOutputFile" for n in scene.node_tree.nodes)


def test_meshes_from_arrays_on_the_per_element_api():
    """3.4 has no position or corner attributes: `bl.compat.fill_mesh` writes MeshVertex and MeshLoop."""
    from realitybench_addon.bl import analytic
    from realitybench_addon.bl.meshes import mesh_object, ngon_object, prism

    collection = analytic.reset_scene().collection
    vertices = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0.5, 0.5, 1]], float)
    faces = np.array([[0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4], [0, 2, 2]])  # the last names a vertex twice
    mats = [bpy.data.materials.new("RB_SmokeA"), bpy.data.materials.new("RB_SmokeB")]
    obj = mesh_object("RB_SmokePyramid", vertices, faces, collection, materials=mats, face_materials=[0, 1, 0, 1, 0])
    mesh = obj.data
    assert [tuple(p.vertices) for p in mesh.polygons] == [(0, 1, 4), (1, 2, 4), (2, 3, 4), (3, 0, 4)]
    assert [p.material_index for p in mesh.polygons] == [0, 1, 0, 1]
    assert not any(p.use_smooth for p in mesh.polygons)
    assert np.allclose([v.co[:] for v in mesh.vertices], vertices)
    verts, prism_faces = prism(0.5, 0.2, 5)
    side = ngon_object("RB_SmokePrism", verts, prism_faces, collection).data
    assert [tuple(p.vertices) for p in side.polygons] == [tuple(f) for f in prism_faces]
    assert len(side.edges) == 15


def test_denoise_probe_matches_the_build():
    """Debian's 3.4.1 has no OpenImageDenoise: the probe says so before any render, and the problem names
    the option that turns denoising off (a build with it reports no problem)."""
    import _cycles
    from realitybench_addon.bl import compat, render

    built_with = bool(_cycles.with_openimagedenoise)
    assert compat.has_openimagedenoise() is built_with
    assert compat.denoise_test_render() is built_with
    assert render.denoise_problem(False) is None
    if built_with:
        assert render.denoise_problem(True) is None
    else:
        assert render.denoise_problem(True) == (
            f"this Blender ({bpy.app.version_string}) was built without OpenImageDenoise, so Cycles cannot "
            "denoise; use --no-denoise (denoise=False from Python or the export operator)")


def test_export_without_the_denoiser_exports_undenoised(addon, tmp_path):
    """The export operator on a build without OpenImageDenoise, asked to denoise (its default): a click cannot
    avoid what the build lacks, so it exports without denoising, says so, and the set records it."""
    import json

    import _cycles

    if _cycles.with_openimagedenoise:
        pytest.skip("this build has OpenImageDenoise")
    out = tmp_path / "set"
    result = bpy.ops.realitybench.export(environments="tape_gap", random=1, positive=0, resolution="64x48",
                                         samples=1, out=str(out), denoise=True)
    assert result == {"FINISHED"}
    rows = [json.loads(line) for line in (out / "metadata.jsonl").read_text().splitlines() if line.strip()]
    assert len(rows) == 1 and (out / rows[0]["file_name"]).is_file()
    assert json.loads((out / "manifest.json").read_text())["config"]["denoise"] is False


def test_reset_scene_keeps_addon_enabled(addon):
    from realitybench_addon.bl import analytic

    analytic.reset_scene()
    try:
        assert addon_utils.check(ADDON)[1]
        assert hasattr(bpy.types, "REALITYBENCH_OT_measure")
    finally:
        ensure_enabled()


def test_file_load_keeps_depsgraph_handler(addon):
    from realitybench_addon.bl import raycast

    bpy.ops.wm.read_homefile(use_empty=True, use_factory_startup=True)
    assert addon_utils.check(ADDON)[1]
    assert raycast.on_depsgraph_update in bpy.app.handlers.depsgraph_update_post


def test_unregister_leaves_nothing_behind(addon):
    from realitybench_addon.bl import raycast

    # Disable and enable again, so the checks below follow a fresh register().
    addon_utils.disable(ADDON, default_set=True)
    addon_utils.enable(ADDON, default_set=True, handle_error=raise_error)
    assert raycast.on_depsgraph_update in bpy.app.handlers.depsgraph_update_post

    addon_utils.disable(ADDON, default_set=True)
    assert addon_utils.check(ADDON) == (False, False)
    assert registered_names() == []
    assert not hasattr(bpy.types.WindowManager, "realitybench")
    assert raycast.on_depsgraph_update not in bpy.app.handlers.depsgraph_update_post
    assert all(getattr(fn, "__module__", "").split(".")[0] != ADDON
               for handlers in (bpy.app.handlers.depsgraph_update_post, bpy.app.handlers.load_post,
                                bpy.app.handlers.save_pre, bpy.app.handlers.frame_change_post)
               for fn in handlers)
