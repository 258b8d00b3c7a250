"""Issue 41, cars: a tail lamp is not one flat red sticker. Its inner end (the lamp's u below `reverse_share`,
u running from the car's centre round the corner) is a clear reversing segment over a silvered reflector,
walled off by a strip of black housing. Baked from the shader itself over the lamp's UV square."""
import numpy as np
import pytest

from bake_support import bake_emission


@pytest.fixture(scope="module")
def tail_lamp():
    bpy = pytest.importorskip("bpy")
    from realitybench_addon.bl.analytic import reset_scene
    from realitybench_addon.bl.vehicle import SPECIAL

    reset_scene()
    out = {}
    for what in ("Base Color", "Coat Tint"):
        mat = SPECIAL["taillight"](f"Test_Taillight_{what}")
        bsdf = next(n for n in mat.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
        socket = bsdf.inputs.get(what)
        if socket is not None and socket.links:  # Blender 3.4's clear coat has no tint
            out[what] = bake_emission(bpy, mat, 0.0, 0.0, 1.0, 200, socket.links[0].from_socket, rgb=True)
    return out


def test_the_inner_end_is_a_clear_segment_behind_a_housing_wall(tail_lamp):
    from realitybench_addon.bl.vehicle import DIVIDER_HALF_U

    base = tail_lamp["Base Color"]
    rows = slice(60, 140)  # away from the bezel at the top and bottom
    u = (np.arange(200) + 0.5) / 200
    share = 0.22  # SPECIAL["taillight"]'s reverse_share
    inner = base[rows][:, (u > 0.1) & (u < share - 2 * DIVIDER_HALF_U)].reshape(-1, 3).mean(axis=0)
    outer = base[rows][:, (u > share + 0.05) & (u < 0.85)].reshape(-1, 3).mean(axis=0)
    wall = base[rows][:, np.abs(u - share) < 0.5 * DIVIDER_HALF_U].reshape(-1, 3).mean(axis=0)
    assert outer[0] > 4 * outer[1]  # the red reflector
    assert inner[1] > 0.8 * inner[0] and inner[2] > 0.8 * inner[0] and inner.mean() > 0.1  # silver, not red
    assert wall.mean() < 0.3 * min(inner.mean(), outer[0])  # black housing between them


def test_the_reversing_lens_is_clear_where_the_coat_has_a_tint(tail_lamp):
    if "Coat Tint" not in tail_lamp:
        pytest.skip("this Blender's clear coat has no tint (3.4)")
    tint = tail_lamp["Coat Tint"]
    u = (np.arange(200) + 0.5) / 200
    assert np.allclose(tint[:, u < 0.2].reshape(-1, 3).mean(axis=0), (0.95, 0.95, 0.96), atol=0.02)
    assert np.allclose(tint[:, u > 0.25].reshape(-1, 3).mean(axis=0), (1.0, 0.05, 0.05), atol=0.02)
