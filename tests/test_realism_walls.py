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


def test_pores_come_in_patches_not_an_even_speckle(baked):
    """"An even speckle": one size of pore, equally dense everywhere. Over 4 cm tiles of block face the share of
    open pores now ranges from almost none to dense (the old face: p10 0.25 of p90, variation 0.53)."""
    colour, face = baked["colour"], baked["joint"] < 0.05
    pores = (colour < 0.6 * np.median(colour[face])) & face
    shares = np.array([pores[i:i + 40, j:j + 40][face[i:i + 40, j:j + 40]].mean()
                       for i in range(0, 400, 40) for j in range(0, 400, 40) if face[i:i + 40, j:j + 40].mean() > 0.8])
    assert len(shares) > 40
    p10, p90 = np.percentile(shares, [10, 90])
    assert p10 < 0.15 * p90 and shares.std() > 0.65 * shares.mean()


def test_joints_are_struck_back_and_shadowed(baked):
    joint, face = baked["joint"] > 0.9, baked["joint"] < 0.05
    assert joint.mean() > 0.02
    assert baked["height"][joint].mean() < baked["height"][face].mean() - 0.4
    assert np.median(baked["colour"][joint]) < 0.9 * np.median(baked["colour"][face])


def test_panel_steel_is_powder_coated_and_handled_not_spotless():
    """The dead front and door (`bl.load_center.panel_steel_material`): "spotless uniform panel, no grime"."""
    bpy = pytest.importorskip("bpy")
    from realitybench_addon.bl.analytic import reset_scene
    from realitybench_addon.bl.load_center import panel_steel_material

    reset_scene()
    color, roughness = (0.5, 0.51, 0.5), 0.38
    mat = panel_steel_material("Test_PanelSteel", color, roughness)
    bsdf = mat.node_tree.nodes.get("Principled BSDF")
    tone = bake_emission(bpy, mat, 0.0, 0.8, 0.4, 200, bsdf.inputs["Base Color"].links[0].from_socket, wall=True)
    assert 0.92 * 0.5 - 1e-3 <= tone.min() and tone.max() <= 0.51 + 1e-3  # only darkened, 8 % at most
    assert (tone < 0.49).mean() > 0.1 and (tone > 0.5).mean() > 0.2  # grimy patches and clean steel
    gloss = bake_emission(bpy, mat, 0.0, 0.8, 0.4, 200, bsdf.inputs["Roughness"].links[0].from_socket, wall=True)
    assert roughness - 0.081 <= gloss.min() and gloss.max() <= roughness + 0.081 and gloss.std() > 0.02


def test_the_dead_front_has_four_screws_clear_of_every_breaker():
    pytest.importorskip("bpy")
    import bpy

    from realitybench_addon.bl.analytic import reset_scene
    from realitybench_addon.bl.load_center import COVER, COVER_SCREW_RADIUS_M, build_load_center_scene
    from realitybench_addon.core.load_center import draw_load_center_plan

    for seed in range(6):
        reset_scene()
        plan = draw_load_center_plan(np.random.default_rng(seed))
        build_load_center_scene(bpy.context.scene, plan, np.random.default_rng(seed))
        screws = bpy.data.objects["Panel_CoverScrews"]
        v = np.array([screws.matrix_world @ p.co for p in screws.data.vertices])
        heads = v.reshape(4, -1, 3).mean(axis=1)
        cover_object = bpy.data.objects[COVER]
        cover = np.array([cover_object.matrix_world @ p.co for p in cover_object.data.vertices])
        # on the cover's face, inside its outline, out towards the room (-y), under 5 mm (float32 vertices)
        assert np.all(heads[:, 0] > cover[:, 0].min()) and np.all(heads[:, 0] < cover[:, 0].max())
        assert np.all(heads[:, 2] > cover[:, 2].min()) and np.all(heads[:, 2] < cover[:, 2].max())
        assert v[:, 1].max() <= plan.cover_front_y + 1e-6 and v[:, 1].min() > plan.cover_front_y - 0.005
        # no head lies over a breaker's opening or the main's
        breakers = bpy.data.objects["Panel_Breakers"]
        b = np.array([breakers.matrix_world @ p.co for p in breakers.data.vertices]).reshape(-1, 8, 3)
        low, high = b.min(axis=1) - COVER_SCREW_RADIUS_M, b.max(axis=1) + COVER_SCREW_RADIUS_M
        for head in heads:
            over = np.all((low[:, [0, 2]] < head[[0, 2]]) & (head[[0, 2]] < high[:, [0, 2]]), axis=1)
            assert not over.any()
