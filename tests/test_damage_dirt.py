"""Road dirt never lies over a damage: the keep-out formula (pure) and the damaged panel's material baked in
Cycles (the dirt amount the shader actually computes, texel by texel over the patch)."""
import math

import numpy as np
import pytest

from bake_support import bake_on_objects
from realitybench_addon.core import damage as dmg
from realitybench_addon.core.parking_lot import draw_lot


def low_dent_plan(seed: int = 3):
    """A plan with one dent as low on a side panel as a mark may go, where the road dirt is thickest."""
    vehicle = draw_lot(np.random.default_rng(seed)).subject.vehicle
    panel = max(dmg.candidate_panels(vehicle), key=lambda c: c[1])[0]
    patch = dmg.panel_patch(vehicle, panel)
    valid = dmg.valid_region(vehicle, panel, patch)
    D, Z = dmg._grid(patch)
    a, b = 0.06, 0.04
    inner = dmg._box_sum(valid, int(a / dmg.TEX_M_PER_PX) + 1) == (2 * int(a / dmg.TEX_M_PER_PX) + 3) ** 2
    rows, cols = np.nonzero(inner)
    k = int(np.argmin(Z[rows, cols] + 1e-3 * np.abs(cols - cols.mean())))  # the lowest, near the middle
    mark = dmg.Mark("dent", float(D[rows[k], cols[k]]), float(Z[rows[k], cols[k]]), a, b, 0.0, 0.01, 7)
    area = dmg.damaged_area_cm2(vehicle, patch, [mark])
    side = dict(dmg.vehicle_geometry(vehicle).panels)[panel].side
    return vehicle, dmg.DamagePlan(panel, side, (mark,), area, patch)


def test_keepout_is_one_over_every_mark_and_zero_far_from_it():
    for seed in range(6):
        vehicle = draw_lot(np.random.default_rng(seed)).subject.vehicle
        plan = dmg.draw_damage(vehicle, np.random.default_rng(100 + seed))
        keep = dmg.dirt_keepout(plan)
        fine = dmg.damage_mask(plan)
        # every damaged 1 mm pixel, and every point of the damage object's 1 cm cells (<= 1 cm from a mark)
        near = dmg._box_sum(fine, int(round(0.011 / dmg.TEX_M_PER_PX))) > 0
        h, w = keep.shape
        rows = np.arange(fine.shape[0]) * h // fine.shape[0]
        cols = np.arange(fine.shape[1]) * w // fine.shape[1]
        assert keep[np.ix_(rows, cols)][near].min() == 1.0
        # the road dirt multiplied by (1 - keepout) is exactly zero there
        assert ((1.0 - keep[np.ix_(rows, cols)][near]) * 0.9).max() == 0.0
        # far from the damage (beyond the clear margin and its fade) the dirt is untouched
        reach = dmg.DIRT_CLEAR_M + dmg.DIRT_FADE_M + 2 * dmg.KEEPOUT_M_PER_PX  # + a keep-out pixel's own size
        far = ~(dmg._box_sum(fine, int(math.ceil(reach / dmg.TEX_M_PER_PX))) > 0)
        assert far.any() and keep[np.ix_(rows, cols)][far].max() == 0.0
        assert 0.0 <= keep.min() and keep.max() == 1.0


def test_keepout_rejects_a_fade_wider_than_the_margin():
    _, plan = low_dent_plan()
    with pytest.raises(ValueError, match="fade"):
        dmg.dirt_keepout(plan, clear_m=0.01, fade_m=0.02)


@pytest.mark.slow
def test_baked_dirt_is_zero_over_the_damage_and_present_beside_it():
    bpy = pytest.importorskip("bpy")
    from realitybench_addon.bl.analytic import reset_scene
    from realitybench_addon.bl.damage import damage_material
    from realitybench_addon.bl.vehicle import DIRT_NODE_LABEL, part_object

    vehicle, plan = low_dent_plan()
    rest, damage = dmg.damaged_panel_parts(vehicle, plan)
    scene = reset_scene()
    mat = damage_material("Test_DamagePaint", vehicle, plan)
    every = {m: mat for p in (rest, damage) for m in p.materials}  # rocker and shoulder too: one material
    objects = [part_object(p.name, p, scene.collection, np.eye(4), every, uv=p.uv)
               for p in (rest, damage)]
    nodes = mat.node_tree.nodes
    raw = next(n for n in nodes if n.label == DIRT_NODE_LABEL).outputs[0]
    clean = next(n for n in nodes if n.label == "Road dirt off the damage").outputs[0]
    d0, d1, z0, z1 = plan.patch
    w, h = int(round((d1 - d0) / 0.01)), int(round((z1 - z0) / 0.01))  # 1 cm texels over the patch
    baked = {label: px[..., 0] for label, px in  # row 0 at the top of the patch, as the damage grid
             bake_on_objects(bpy, mat, objects, {"raw": raw, "clean": clean}, w, h).items()}
    # texel centres on the damage footprint
    D = d0 + (np.arange(w) + 0.5) / w * (d1 - d0)
    Z = z1 - (np.arange(h) + 0.5) / h * (z1 - z0)
    DD, ZZ = np.meshgrid(D, Z)
    on = dmg.mark_footprint(plan.marks[0], DD, ZZ)
    assert on.sum() > 20
    assert baked["raw"][on].mean() > 0.15  # the test can fail: the paint's own dirt is thick where the dent is
    assert baked["clean"][on].max() < 1e-3  # and none of it is left on the damage
    # beside the damage at the same height the dirt is the paint's own
    mark = plan.marks[0]
    row = int(np.argmin(np.abs(Z - mark.z)))
    beside = (np.abs(D - mark.d) > mark.a + dmg.DIRT_CLEAR_M + dmg.DIRT_FADE_M + 0.02) & (baked["raw"][row] > 0.05)
    assert beside.sum() > 3
    np.testing.assert_allclose(baked["clean"][row, beside], baked["raw"][row, beside], atol=1e-3)


@pytest.mark.slow
def test_damage_cells_wear_their_panels_shade():
    """The damage object's 1 cm cells carry their panel's shade number: the paint's colour (before any mark)
    is continuous across the seam between the panel and its damage object. With Object Info's random number (one
    per object name) the cells differed by up to 3.5 % in lightness: a blocky halo round every scratch."""
    bpy = pytest.importorskip("bpy")
    from realitybench_addon.bl.analytic import reset_scene
    from realitybench_addon.bl.damage import damage_material
    from realitybench_addon.bl.vehicle import PANEL_RANDOM, build_vehicle

    vehicle, plan = low_dent_plan()
    rest, damage = dmg.damaged_panel_parts(vehicle, plan)
    scene = reset_scene()
    mat = damage_material("Car0_DamagePaint", vehicle, plan)
    built = build_vehicle(scene, vehicle, "Car0", np.eye(4), extra_materials={"damage_paint": mat},
                          replace_parts={plan.panel: [(plan.panel, rest, rest.uv),
                                                      (f"{plan.panel}_damage", damage, damage.uv)]})
    panel = bpy.data.objects[built.objects[plan.panel]]
    cells = bpy.data.objects[built.objects[f"{plan.panel}_damage"]]
    assert panel[PANEL_RANDOM] == cells[PANEL_RANDOM]
    others = {bpy.data.objects[n][PANEL_RANDOM] for k, n in built.objects.items() if not k.startswith(plan.panel)}
    assert len(others) > 10  # every other part its own number
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    shade = next(n for n in nodes if n.bl_idname == "ShaderNodeHueSaturation").outputs["Color"]
    emit = nodes.new("ShaderNodeEmission")
    links.new(shade, emit.inputs["Color"])
    links.new(emit.outputs["Emission"], nodes.get("Material Output").inputs["Surface"])
    d0, d1, z0, z1 = plan.patch
    w, h = int(round((d1 - d0) / 0.0025)), int(round((z1 - z0) / 0.0025))
    scene.render.engine = "CYCLES"
    scene.cycles.samples = 1
    scene.cycles.device = "CPU"
    px = np.empty(w * h * 4, np.float32)
    baked = {}
    for obj in (panel, cells):
        image = bpy.data.images.new(f"bake_{obj.name}", w, h, float_buffer=True)
        target = nodes.new("ShaderNodeTexImage")
        target.image = image
        nodes.active = target
        for o in bpy.data.objects:
            o.select_set(o == obj)
        bpy.context.view_layer.objects.active = obj
        bpy.ops.object.bake(type="EMIT", margin=0, use_clear=True)
        image.pixels.foreach_get(px)
        baked[obj.name] = px.reshape(h, w, 4)[::-1].copy()
        nodes.remove(target)
    on_cells = baked[cells.name][..., :3].sum(-1) > 1e-6  # the bake leaves texels off the object black
    on_panel = baked[panel.name][..., :3].sum(-1) > 1e-6
    # texels of the panel right beside a cell texel (one texel left or right): the two sides of the seam
    seam = on_cells[:, :-1] & on_panel[:, 1:]
    assert seam.sum() > 20
    a = baked[cells.name][:, :-1, :3][seam]
    b = baked[panel.name][:, 1:, :3][seam]
    assert np.abs(a - b).max() / b.mean() < 0.004  # the mottling moves < 0.1 % over one 2.5 mm texel
