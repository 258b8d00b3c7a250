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
