"""Issue 41: the hills round a scene are farmland (bl/farmland.py): fields of several crops with swaths and
hedges where the terrain's broad noise says open ground, the woods as they were. Baked in Blender."""
import numpy as np
import pytest

from bake_support import bake_emission

bpy = pytest.importorskip("bpy")

from realitybench_addon.bl import farmland  # noqa: E402
from realitybench_addon.bl.analytic import reset_scene  # noqa: E402

FOREST, FIELD = (0.03, 0.06, 0.02), (0.09, 0.12, 0.04)


def _bake(mat, socket, x0=200.0, y0=-600.0, size=1200.0, px=256, rgb=False):
    return bake_emission(bpy, mat, x0, y0, size, px, socket, rgb=rgb)


def _labelled(mat, label):
    node = next(n for n in mat.node_tree.nodes if n.label == label)
    return node.outputs[0]


@pytest.mark.slow
def test_open_ground_is_fields_of_several_crops_with_hedges_and_the_woods_stay():
    reset_scene()
    mat = farmland.farmland_material("Test_Farmland", FOREST, FIELD, seed=11)
    bsdf = next(n for n in mat.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    colour = _bake(mat, bsdf.inputs["Base Color"].links[0].from_socket, rgb=True)
    ramp = next(n for n in mat.node_tree.nodes if n.bl_idname == "ShaderNodeValToRGB" and n.label != "crops")
    woods_colour = _bake(mat, ramp.outputs["Color"], rgb=True)
    open_ground = _bake(mat, _labelled(mat, "open_ground"))
    hedge = _bake(mat, _labelled(mat, "hedge"))
    fields = open_ground > 0.99
    woods = open_ground < 1e-7  # the smoothstep is exactly 0 below its range
    assert 0.2 < fields.mean() < 0.8 and woods.mean() > 0.1
    # the woods are the terrain's own colour, untouched
    assert np.abs(colour[woods] - woods_colour[woods]).max() < 1e-5
    # the fields: green ones and brown ones (stubble, ploughed soil), away from the hedges
    crop = colour[fields & (hedge < 0.01)]
    brown = crop[:, 0] > crop[:, 1]
    assert 0.1 < brown.mean() < 0.7
    # hedges run along some edges, darker than the crops round them
    lined = fields & (hedge > 0.5)
    assert 0.01 < lined.mean() < 0.15
    assert colour[lined].mean() < 0.7 * crop.mean()


@pytest.mark.slow
def test_a_fields_swaths_alternate_across_it_and_each_scene_has_its_own_fields():
    reset_scene()
    a = farmland.farmland_material("Test_FarmA", FOREST, FIELD, seed=11)
    b = farmland.farmland_material("Test_FarmB", FOREST, FIELD, seed=12)
    crops_a = _bake(a, _labelled(a, "crops"), px=128)
    assert not np.allclose(crops_a, _bake(b, _labelled(b, "crops"), px=128))
    # 60 m of one field's middle at 0.5 m texels: its colour swings by about 2 x SWATH_CONTRAST across swaths
    bsdf = next(n for n in a.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    cells = next(n for n in a.node_tree.nodes if n.label == "fields")
    ids = _bake(a, cells.outputs["Color"], x0=300.0, y0=0.0, size=60.0, px=120)
    patch = _bake(a, bsdf.inputs["Base Color"].links[0].from_socket, x0=300.0, y0=0.0, size=60.0, px=120)
    open_ground = _bake(a, _labelled(a, "open_ground"), x0=300.0, y0=0.0, size=60.0, px=120)
    ids = np.round(ids[open_ground > 0.99], 6)
    values, counts = np.unique(ids, return_counts=True)
    one = np.zeros_like(open_ground, bool)
    one[open_ground > 0.99] = ids == values[np.argmax(counts)]
    assert one.sum() > 1000  # texels of the one field with the most of this patch
    values = patch[one]
    assert np.percentile(values, 95) / np.percentile(values, 5) > 1.2
