"""Issue 41, solar modules: each mono cell shows its printed busbars and the cut corners of a pseudo-square wafer
(`bl/materials._cell_face`), sampled by baking the cell face of `module_glass` over one cell."""
import numpy as np
import pytest

from bake_support import bake_emission

TEXELS_PER_CELL = 332  # 0.5 mm texels over a 166 mm cell


@pytest.fixture(scope="module")
def cell_face():
    bpy = pytest.importorskip("bpy")
    from realitybench_addon.bl import materials as mats
    from realitybench_addon.bl.analytic import reset_scene

    reset_scene()
    mat = mats.module_glass("T_ModuleCells", cell_m=0.166)
    corners = next(n for n in mat.node_tree.nodes if n.label == "cell_corners")
    baked = bake_emission(bpy, mat, 0.0, 0.0, 0.166, TEXELS_PER_CELL, corners.outputs[2])
    bpy.data.materials.remove(mat)
    return baked


def _texel(u: float) -> int:
    return int(u * TEXELS_PER_CELL)


def test_five_busbars_run_across_each_cell(cell_face):
    from realitybench_addon.bl.materials import BUSBARS

    profile = cell_face[_texel(0.5) - 20:_texel(0.5) + 20].mean(axis=0)  # a band across the cell's middle
    on_bars = [profile[_texel((k + 0.5) / BUSBARS)] for k in range(BUSBARS)]
    between = [profile[_texel(k / BUSBARS)] for k in range(1, BUSBARS)]
    assert min(on_bars) > 2.0 * max(between), (on_bars, between)
    # the bars are thin: at most a tenth of the band is bar
    assert np.mean(profile > 0.5 * (min(on_bars) + max(between))) < 0.1


def test_cut_corners_show_the_backsheet_and_the_middle_is_cell(cell_face):
    backsheet, cell = np.mean((0.18, 0.18, 0.19)), np.mean((0.01, 0.015, 0.04))
    n = TEXELS_PER_CELL
    for row, col in ((2, 2), (2, n - 3), (n - 3, 2), (n - 3, n - 3)):
        assert cell_face[row, col] == pytest.approx(backsheet, abs=0.01)
    between_bars = cell_face[_texel(0.5), _texel(0.2)]
    assert between_bars == pytest.approx(cell, abs=0.01)
    # a corner's cut is a triangle: a leg of CELL_CHAMFER of the side, so the middle of an edge is cell
    assert cell_face[2, _texel(0.4)] == pytest.approx(cell, abs=0.01)
