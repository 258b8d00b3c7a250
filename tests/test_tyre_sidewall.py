"""Issue 41, "cartoon wheels": the tyre's moulded sidewall lettering (`core.tyre_sidewall`) and the material that
wraps it round the tyre (`bl.vehicle.tyre_material`)."""
import numpy as np
import pytest

from realitybench_addon.core.lettering import text_width
from realitybench_addon.core.tyre_sidewall import BRAND, BRAND_CAP, LEGENDS, STRIP_PX, sidewall_strip


def test_every_legend_is_inked_where_it_is_centred_and_the_band_edges_are_bare():
    strip = sidewall_strip()
    rows, cols = STRIP_PX
    assert strip.shape == (rows, cols) and strip.dtype == np.uint8
    ink = strip > 127
    # the band's edges are bare rubber: no letter is cut by the band's end
    assert not ink[:3].any() and not ink[-3:].any()
    for turn, text, cap, baseline in LEGENDS:
        half = text_width(text, cap * rows) / 2
        span = np.arange(int(turn * cols - half) + 2, int(turn * cols + half) - 2) % cols
        band = slice(int(baseline * rows - cap * rows), int(baseline * rows))
        assert ink[band][:, span].mean() > 0.08, text  # inked across its width (a line of letters)
        outside = np.setdiff1d(np.arange(cols), np.arange(int(turn * cols - half) - 8, int(turn * cols + half) + 8)
                               % cols)
        rows_only = ink[band][:, outside]
        # outside its own span, these rows hold only other legends (never this one drawn twice by mistake)
        assert rows_only.mean() < ink[band][:, span].mean()


def test_the_brand_straddling_the_seam_is_whole_on_both_ends():
    """The maker's name centred on column 0 is drawn across the seam: its left half at the strip's end and its
    right half at its start, like the one centred half a turn round."""
    strip = sidewall_strip() > 127
    rows, cols = STRIP_PX
    half = int(text_width(BRAND, BRAND_CAP * rows) / 2)
    seam = np.concatenate([strip[:, cols - half:], strip[:, :half]], axis=1)
    opposite = strip[:, cols // 2 - half: cols // 2 + half]
    assert seam.shape == opposite.shape
    assert np.mean(seam == opposite) > 0.995


def test_the_tyre_material_samples_the_lettering():
    """The image the tyre material samples holds the strip (a generated image whose colour space is set after
    its pixels are written comes back blank: the lettering then vanished without an error)."""
    pytest.importorskip("bpy")
    import bpy

    from realitybench_addon.bl.analytic import reset_scene
    from realitybench_addon.bl.vehicle import LETTERING_IMAGE, tyre_material

    reset_scene()
    mat = tyre_material("RB_TestTyre")
    images = [n.image for n in mat.node_tree.nodes if n.type == "TEX_IMAGE"]
    assert [i.name for i in images] == [LETTERING_IMAGE]
    image = images[0]
    assert image.colorspace_settings.name == "Non-Color"
    rows, cols = STRIP_PX
    assert tuple(image.size) == (cols, rows)
    px = np.empty(rows * cols * 4, np.float32)
    image.pixels.foreach_get(px)
    grey = px.reshape(rows, cols, 4)[::-1, :, 0]  # Blender's rows run bottom-up
    assert np.allclose(grey * 255, sidewall_strip(), atol=0.5)
    bpy.data.materials.remove(mat)
