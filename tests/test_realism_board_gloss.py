"""Issue 41, the RO board's face in Blender (`bl/ro_board.dry_erase_material`): its gloss varies in patches a few
centimetres across, so a reflection on it is not one even sheen. Kept apart from tests/test_realism_board.py (pure,
Hypothesis) so that every Blender line runs it (tests/test_blender_lines.py)."""
import numpy as np
import pytest

from realitybench_addon.core.ro_board import board_texture, draw_board


@pytest.mark.slow
def test_the_boards_gloss_varies_in_wipe_sized_patches():
    bpy = pytest.importorskip("bpy")
    from bake_support import bake_emission
    from realitybench_addon.bl import materials as mats
    from realitybench_addon.bl.analytic import reset_scene
    from realitybench_addon.bl.ro_board import GLOSS_ROUGHNESS, dry_erase_material

    reset_scene()
    board = draw_board(np.random.default_rng(1), (0.0, 0.0), 30.0, "front")
    image = mats.packed_image("Test_Board", board_texture(board)[0])
    mat = dry_erase_material("Test_BoardFace", image)
    bsdf = mat.node_tree.nodes.get("Principled BSDF")
    rough = bake_emission(bpy, mat, 0.0, 0.0, 1.0, 64, bsdf.inputs["Roughness"].links[0].from_socket)
    assert GLOSS_ROUGHNESS[0] - 1e-4 <= rough.min() and rough.max() <= GLOSS_ROUGHNESS[1] + 1e-4
    assert rough.std() > 0.02 and rough.max() - rough.min() > 0.6 * (GLOSS_ROUGHNESS[1] - GLOSS_ROUGHNESS[0])
    # patches a few centimetres across, not grain: neighbouring texels (5 mm apart) differ by half the spread
    # at most (a grain of millimetres gives more than the spread)
    assert np.abs(np.diff(rough, axis=1)).mean() < 0.5 * rough.std()
