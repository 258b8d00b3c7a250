"""Image terms on synthetic frames with known answers."""
import numpy as np
import pytest

from realitybench_addon.core import image_terms as it


def card(paper=0.8, ink=0.05, h=40, w=60):
    rgb = np.full((h, w, 3), 0.3)
    mask = np.zeros((h, w), bool)
    mask[10:30, 10:50] = True
    rgb[mask] = paper
    rgb[15:25, 15:30] = ink  # a block of ink inside the card
    return rgb, mask


def test_weber_contrast_and_paper_luminance():
    rgb, mask = card()
    assert it.weber_contrast(rgb, mask) == pytest.approx(1 - 0.05 / 0.8)
    assert it.paper_luminance(rgb, mask) == pytest.approx(0.8)
    # luminance weights: pure green paper is brighter than pure blue
    green = np.zeros((2, 2, 3)); green[..., 1] = 1
    assert it.paper_luminance(green, np.ones((2, 2), bool)) == pytest.approx(0.7152)


def test_empty_mask_gives_nan_not_an_exception():
    rgb, _ = card()
    empty = np.zeros(rgb.shape[:2], bool)
    assert np.isnan(it.weber_contrast(rgb, empty)) and np.isnan(it.saturated_fraction(rgb, empty))
    assert np.isnan(it.edge_contrast(rgb, empty)) and it.pixel_count(empty) == 0


def test_mask_shape_mismatch_is_an_error():
    rgb, _ = card()
    with pytest.raises(ValueError, match="does not match"):
        it.weber_contrast(rgb, np.ones((3, 3), bool))


def test_saturated_fraction_counts_any_blown_channel():
    display = np.full((10, 10, 3), 0.5)
    display[:5, :, 0] = 1.0  # top half: red channel clipped
    assert it.saturated_fraction(display, np.ones((10, 10), bool)) == pytest.approx(0.5)


def test_pixel_share():
    _, mask = card()
    assert it.pixel_count(mask) == 800 and it.pixel_share(mask) == pytest.approx(800 / 2400)


def test_edge_contrast_of_black_on_white_and_of_a_camouflaged_target():
    rgb = np.ones((20, 20, 3))
    mask = np.zeros((20, 20), bool)
    mask[5:15, 8:12] = True
    rgb[mask] = 0.0
    assert it.edge_contrast(rgb, mask) == pytest.approx(1.0)
    rgb[mask] = 0.97
    assert it.edge_contrast(rgb, mask) == pytest.approx(0.03)


def test_laplacian_variance_falls_with_blur():
    rng = np.random.default_rng(np.random.SeedSequence(2))
    sharp = rng.random((50, 50, 3))
    kernel = np.ones(5) / 5
    blurred = np.apply_along_axis(lambda r: np.convolve(r, kernel, "same"), 0, sharp)
    blurred = np.apply_along_axis(lambda r: np.convolve(r, kernel, "same"), 1, blurred)
    mask = np.zeros((50, 50), bool)
    mask[10:40, 10:40] = True
    assert it.laplacian_variance(blurred, mask) < 0.1 * it.laplacian_variance(sharp, mask)


def test_quad_mask_fills_a_tilted_quad_by_pixel_centres_in_either_winding():
    square = [(2, 2), (6, 2), (6, 6), (2, 6)]
    m = it.quad_mask((10, 10), square)
    assert m.sum() == 16 and m[2:6, 2:6].all()  # centres 2.5 .. 5.5
    assert (it.quad_mask((10, 10), square[::-1]) == m).all()
    diamond = [(5, 0), (10, 5), (5, 10), (0, 5)]  # area 50: about 50 pixel centres inside
    assert 40 <= it.quad_mask((10, 10), diamond).sum() <= 60
    assert it.quad_mask((10, 10), [(20, 20), (30, 20), (30, 30), (20, 30)]).sum() == 0  # off the image
    assert it.quad_mask((10, 10), [(np.nan, 0)] * 4).sum() == 0  # behind the camera


def test_region_contrast_finds_the_washed_out_row_that_the_whole_label_hides():
    """Two rows of black ink on white; a glare lifts the first row's ink to near its paper. The label's
    whole-mask contrast stays high (the second row's ink sets its 5th percentile); row by row, the first is low."""
    rgb = np.ones((40, 60, 3))
    rgb[8:12, 10:50:2] = 0.05  # row 1's ink strokes
    rgb[26:34, 10:50:2] = 0.05  # row 2's ink: more than 5% of the label
    rgb[4:16, :] = np.where(rgb[4:16, :] < 0.5, 0.9, 1.0)  # the glare over row 1
    label = np.ones((40, 60), bool)
    rows = [[(8, 5), (52, 5), (52, 15), (8, 15)], [(8, 25), (52, 25), (52, 35), (8, 35)], [(0, 0), (1, 0), (1, 1), (0, 1)]]
    whole = it.weber_contrast(rgb, label)
    per_row = it.region_contrasts(rgb, label, rows)
    assert whole > 0.9
    assert per_row[0] == pytest.approx(0.1, abs=0.01) and per_row[1] > 0.9
    assert np.isnan(per_row[2])  # a single pixel has no paper and ink to tell apart
    outside_label = np.zeros_like(label)
    assert np.isnan(it.region_contrasts(rgb, outside_label, rows[:1])[0])  # only the target's pixels count
