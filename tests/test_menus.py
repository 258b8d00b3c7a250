"""View > RealityBench: every RealityBench operator in a menu (what F3 searches on 3.x), read from Blender's
registry, headless in the bpy wheel."""
import pytest

bpy = pytest.importorskip("bpy")

import realitybench_addon  # noqa: E402
from realitybench_addon import ui  # noqa: E402
from realitybench_addon.ui import menus  # noqa: E402


@pytest.fixture(scope="module")
def addon():
    realitybench_addon.register()
    yield bpy.context.window_manager.realitybench
    realitybench_addon.unregister()  # the bpy wheel hangs at exit with operators registered
    assert menus.draw_in_view_menu not in _view_menu_draw_funcs()
    assert not hasattr(bpy.ops.realitybench, "build_scene") or "build_scene" not in dir(bpy.ops.realitybench)


def _view_menu_draw_funcs() -> list:
    return list(getattr(bpy.types.VIEW3D_MT_view.draw, "_draw_funcs", ()))


def _registered_operator_ids() -> set:
    """Every operator the add-on registered but those marked INTERNAL (kept out of search by Blender)."""
    return {cls.bl_idname for cls in ui.CLASSES if issubclass(cls, bpy.types.Operator) and cls.is_registered
            and "INTERNAL" not in getattr(cls, "bl_options", ())}


def test_the_menu_lists_every_registered_realitybench_operator(addon):
    listed = {idname for idname, _, _ in menus.entries()}
    assert listed == _registered_operator_ids() == set(menus.operator_ids())
    assert {"realitybench.build_scene", "realitybench.check", "realitybench.export",
            "realitybench.open_phone_view"} <= listed
    texts = [text for _, text, _ in menus.entries()]
    assert "Build Scene" in texts and "Check Acceptability" in texts and texts == sorted(texts, key=str.lower)


def test_the_menu_is_in_the_view_menu(addon):
    assert menus.draw_in_view_menu in _view_menu_draw_funcs()
    assert bpy.types.RB_MT_realitybench.bl_label == "RealityBench"


def test_an_operator_registered_later_appears_without_editing_the_menu(addon):
    class RB_OT_probe(bpy.types.Operator):
        bl_idname = "realitybench.menu_probe"
        bl_label = "Menu Probe"

        def execute(self, context):
            return {"FINISHED"}

    class RB_OT_internal_probe(bpy.types.Operator):
        bl_idname = "realitybench.internal_probe"
        bl_label = "Internal Probe"
        bl_options = {"INTERNAL"}

        def execute(self, context):
            return {"FINISHED"}

    bpy.utils.register_class(RB_OT_probe)
    bpy.utils.register_class(RB_OT_internal_probe)
    try:
        listed = menus.entries()
        assert ("realitybench.menu_probe", "Menu Probe", {}) in listed
        assert "realitybench.internal_probe" not in {idname for idname, _, _ in listed}
    finally:
        bpy.utils.unregister_class(RB_OT_probe)
        bpy.utils.unregister_class(RB_OT_internal_probe)
    assert "realitybench.menu_probe" not in {idname for idname, _, _ in menus.entries()}


def test_an_operator_whose_only_option_is_a_choice_gets_an_entry_per_choice(addon):
    randomize = [(text, chosen) for idname, text, chosen in menus.entries()
                 if idname == "realitybench.randomize_camera"]
    assert sorted(randomize) == [("Randomize Camera: Phone", {"what": "PHONE"}),
                                 ("Randomize Camera: Pose", {"what": "POSE"})]


def test_the_export_entry_exports_what_the_sidebar_shows(addon):
    addon.export_out, addon.export_random, addon.seed = "set_from_menu", 7, 3
    if "export_seed" in addon.bl_rna.properties:  # the export's own seed field wins over the scene's
        addon.export_seed = 5
    values = menus.sidebar_values(addon, "realitybench.export")
    assert values["out"] == "set_from_menu" and values["random"] == 7
    assert values["seed"] == (5 if "export_seed" in addon.bl_rna.properties else 3)
    assert values["environments"] == addon.export_environments and values["samples"] == addon.export_samples
    assert "what" not in menus.sidebar_values(addon, "realitybench.randomize_camera")
