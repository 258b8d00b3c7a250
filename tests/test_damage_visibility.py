"""damage_view's image terms on synthetic frames with known answers: the damage's colour difference from the
adjacent undamaged panel (CIELAB Delta E on the final image), its distinct pixels and its contrast."""
import numpy as np
import pytest

from realitybench_addon.core import image_terms as it
from realitybench_addon.envs.damage_view import CONTRAST_PERCENTILE, DISTINCT_DELTA_E, damage_visibility


def test_lab_of_known_colours():
    lab = it.display_to_lab(np.array([[[1.0, 1.0, 1.0], [0.0, 0.0, 0.0], [0.5, 0.5, 0.5], [1.0, 0.0, 0.0]]]))[0]
    np.testing.assert_allclose(lab[0], [100.0, 0.0, 0.0], atol=0.01)
    np.testing.assert_allclose(lab[1], [0.0, 0.0, 0.0], atol=0.01)
    np.testing.assert_allclose(lab[2], [53.39, 0.0, 0.0], atol=0.01)
    np.testing.assert_allclose(lab[3], [53.24, 80.09, 67.20], atol=0.05)  # sRGB red, the textbook value


def delta_e(a, b) -> float:
    lab = it.display_to_lab(np.array([[a, b]], float))[0]
    return float(np.linalg.norm(lab[0] - lab[1]))


def panel_with_patch(paint, mark, size=20, h=120, w=160):
    """A flat panel of `paint` with a size x size damage of `mark` in the middle; the panel mask is everything
    but a black trim strip along the bottom (another part) and the damage."""
    img = np.empty((h, w, 3))
    img[:] = paint
    img[-15:] = 0.02  # trim: not the panel, must not enter the reference
    damage = np.zeros((h, w), bool)
    r, c = h // 2 - size // 2, w // 2 - size // 2
    damage[r:r + size, c:c + size] = True
    img[damage] = mark
    panel = ~damage
    panel[-15:] = False
    return img, damage, panel


@pytest.mark.parametrize("mark", [(0.78, 0.78, 0.78), (0.55, 0.55, 0.57), (0.45, 0.2, 0.08)])
def test_a_uniform_patch_gives_its_own_delta_e_and_area(mark):
    paint = (0.85, 0.85, 0.85)
    img, damage, panel = panel_with_patch(paint, mark)
    expected = delta_e(paint, mark)
    m = damage_visibility(img, damage, panel)
    assert m["damage_contrast"] == pytest.approx(expected, rel=1e-6)
    assert m["damage_pixels"] == (400 if expected >= DISTINCT_DELTA_E else 0)


def test_a_faint_dent_is_not_distinct_and_a_clear_one_is():
    paint = (0.85, 0.85, 0.85)
    faint = (0.835, 0.835, 0.835)  # about 1 Delta E: under any visible difference
    clear = (0.70, 0.70, 0.70)
    assert delta_e(paint, faint) < 2.0 and delta_e(paint, clear) > 2 * DISTINCT_DELTA_E
    m_faint = damage_visibility(*panel_with_patch(paint, faint))
    m_clear = damage_visibility(*panel_with_patch(paint, clear))
    assert m_faint["damage_pixels"] == 0 and m_faint["damage_contrast"] < 2.0
    assert m_clear["damage_pixels"] == 400 and m_clear["damage_contrast"] > 2 * DISTINCT_DELTA_E


def test_rust_on_red_paint_differs_in_colour_where_luminance_barely_does():
    paint, rust = (0.62, 0.12, 0.10), (0.45, 0.19, 0.06)
    lum = it.luminance(np.array([paint, rust]))
    assert abs(lum[0] - lum[1]) / lum[0] < 0.15  # the old luminance contrast (15 %) would not count it
    m = damage_visibility(*panel_with_patch(paint, rust))
    assert m["damage_contrast"] > 15.0 and m["damage_pixels"] == 400


def test_contrast_reads_the_most_distinct_tenth_of_a_sparse_mark():
    """A scratch: a few strokes (20 % of the band) in a damage mask that is mostly untouched paint."""
    paint, stroke = (0.4, 0.42, 0.45), (0.75, 0.75, 0.75)
    img, damage, panel = panel_with_patch(paint, paint, size=30)
    rows = np.nonzero(damage.any(1))[0]
    cols = np.nonzero(damage.any(0))[0]
    for r in rows[::5]:  # one row in five is a stroke
        img[r, cols] = stroke
    m = damage_visibility(img, damage, panel)
    assert m["damage_pixels"] == len(rows[::5]) * len(cols)  # 180 of 900
    assert m["damage_contrast"] == pytest.approx(delta_e(paint, stroke), rel=1e-6)  # P90 falls on a stroke
    assert CONTRAST_PERCENTILE >= 80.0


def test_the_reference_is_the_panel_beside_the_damage_not_other_parts_or_far_paint():
    paint, mark = (0.85, 0.85, 0.85), (0.6, 0.6, 0.6)
    img, damage, panel = panel_with_patch(paint, mark)
    img[:10] = 0.2  # a dark reflection far above the damage, outside the ring
    m = damage_visibility(img, damage, panel)
    assert m["damage_contrast"] == pytest.approx(delta_e(paint, mark), rel=1e-6)
    ring = it.surround_ring(damage, panel)
    assert not (ring & ~panel).any() and not (ring & damage).any()
    # its width follows the damage's size: max(3, 0.25 * sqrt(400)) = 5 px
    assert ring.sum() == 30 * 30 - 20 * 20


def test_no_panel_around_the_damage_gives_nan_and_no_pixels():
    img, damage, _ = panel_with_patch((0.85, 0.85, 0.85), (0.6, 0.6, 0.6))
    m = damage_visibility(img, damage, np.zeros_like(damage))
    assert np.isnan(m["damage_contrast"]) and m["damage_pixels"] == 0
    empty = damage_visibility(img, np.zeros_like(damage), ~damage)
    assert np.isnan(empty["damage_contrast"]) and empty["damage_pixels"] == 0


def test_dilate_grows_by_k_in_the_chessboard_metric():
    m = np.zeros((9, 9), bool)
    m[4, 4] = True
    assert it.dilate(m, 2).sum() == 25 and it.dilate(m, 0).sum() == 1
