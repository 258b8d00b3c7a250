"""Issue 41, the breaker panel's concrete-block wall (`bl.load_center.block_material`): a blind panel called the old
one "flat painted-on block lines", blocks of one flat colour with joints drawn on. Baked from the shader itself."""
import numpy as np
import pytest

from bake_support import bake_emission


@pytest.fixture(scope="module")
def baked():
    bpy = pytest.importorskip("bpy")
    from realitybench_addon.bl.analytic import reset_scene
    from realitybench_addon.bl.load_center import block_material

    reset_scene()
    out = {}
    for what in ("colour", "joint", "height"):
        mat = block_material((0.38, 0.38, 0.37))
        nodes = mat.node_tree.nodes
        bsdf = next(n for n in nodes if n.type == "BSDF_PRINCIPLED")
        socket = {"colour": lambda: bsdf.inputs["Base Color"].links[0].from_socket,
                  "joint": lambda: next(n for n in nodes if n.label == "blocks").outputs["Fac"],
                  "height": lambda: next(n for n in nodes if n.type == "BUMP").inputs["Height"].links[0].from_socket}
        out[what] = bake_emission(bpy, mat, 0.05, 0.9, 0.4, 400, socket[what](), wall=True)  # 1 mm texels
    return out


def test_block_faces_are_concrete_not_flat_paint(baked):
    colour, face = baked["colour"], baked["joint"] < 0.05
    assert 0.5 < face.mean() < 0.97  # mostly block face, some joints
    # neighbouring texels of a face differ (sand, pores, mottle): flat paint would give zero
    step = np.abs(np.diff(colour, axis=1))[face[:, 1:] & face[:, :-1]]
    assert step.mean() > 0.01 * colour[face].mean()
    pores = colour[face] < 0.6 * np.median(colour[face])
    assert 0.005 < pores.mean() < 0.1  # open pores: dark, a few in a hundred texels
    assert 0.2 < np.median(colour[face]) < 0.45  # the block's own grey, not darkened overall


def test_joints_are_struck_back_and_shadowed(baked):
    joint, face = baked["joint"] > 0.9, baked["joint"] < 0.05
    assert joint.mean() > 0.02
    assert baked["height"][joint].mean() < baked["height"][face].mean() - 0.4
    assert np.median(baked["colour"][joint]) < 0.9 * np.median(baked["colour"][face])
