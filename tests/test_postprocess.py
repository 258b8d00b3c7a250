"""The phone's post-processing: repeatable from its parameters, each stage doing what it says."""
import numpy as np
import pytest

from realitybench_addon.core import postprocess as pp
from realitybench_addon.core.rng import frame_rng, stage_rng


def scene_image():
    y, x = np.mgrid[0:60, 0:80]
    img = np.stack([x / 80, y / 60, np.full_like(x, 0.3, dtype=float)], axis=-1) * 0.8
    img[20:40, 30:50] = 2.0  # a bright patch
    return img


def test_same_params_same_jpeg_and_recorded_params_round_trip():
    params = pp.draw_post_params(stage_rng(frame_rng(4, "demo", "random", 1), "post"))
    a, da = pp.process(scene_image(), params)
    b, db = pp.process(scene_image(), pp.PostParams.from_dict(params.to_dict()))
    assert a == b and np.array_equal(da, db)
    other = pp.draw_post_params(stage_rng(frame_rng(4, "demo", "random", 2), "post"))
    assert pp.process(scene_image(), other)[0] != a


def test_neutral_develop_is_tone_map_then_srgb():
    mid = np.full((4, 4, 3), 0.18)
    out = pp.develop(mid, pp.NEUTRAL)
    tone = 0.18 * (1 + 0.18 / 16) / 1.18
    assert np.allclose(out, 1.055 * tone ** (1 / 2.4) - 0.055)


def test_auto_exposure_brings_the_log_mean_to_the_key():
    img = np.full((8, 8, 3), 0.02)
    params = pp.PostParams(exposure_key=0.18)
    assert pp.exposure_gain(img, params) == pytest.approx(9.0 if 9.0 < params.max_exposure_gain else params.max_exposure_gain)
    assert pp.exposure_gain(np.full((8, 8, 3), 0.09), params) == pytest.approx(2.0)


def test_vignetting_darkens_corners_only():
    img = np.ones((41, 61, 3))
    out = pp.vignette(img, 0.3)
    assert out[20, 30, 0] == pytest.approx(1.0) and out[0, 0, 0] == pytest.approx(0.7)


def test_chromatic_aberration_shifts_red_out_and_blue_in():
    img = np.zeros((101, 101, 3))
    img[:, 90, :] = 1.0  # a vertical line right of centre
    out = pp.chromatic_aberration(img, 0.02)
    row = out[50]
    red_peak, green_peak, blue_peak = (np.average(np.arange(101), weights=row[:, c]) for c in range(3))
    assert red_peak > green_peak > blue_peak
    assert red_peak == pytest.approx(50 + 40 * 1.02, abs=0.2)
    assert np.array_equal(pp.chromatic_aberration(img, 0.0), img)


def _pixel_by_pixel_bilinear(channel, x, y):
    """The resampling written out per pixel (coordinate arrays of the image's shape), as it was before it
    was computed a row and a column at a time."""
    h, w = channel.shape
    x, y = np.clip(x, 0, w - 1), np.clip(y, 0, h - 1)
    x0, y0 = np.floor(x).astype(int), np.floor(y).astype(int)
    x1, y1 = np.minimum(x0 + 1, w - 1), np.minimum(y0 + 1, h - 1)
    fx, fy = x - x0, y - y0
    top = channel[y0, x0] * (1 - fx) + channel[y0, x1] * fx
    bottom = channel[y1, x0] * (1 - fx) + channel[y1, x1] * fx
    return top * (1 - fy) + bottom * fy


@pytest.mark.parametrize("seed", range(12))
def test_chromatic_aberration_and_vignetting_equal_the_per_pixel_formulas_bit_for_bit(seed):
    """A set's JPEGs must not change with the version that computes them faster."""
    rng = np.random.default_rng(seed)
    h, w = int(rng.integers(1, 90)), int(rng.integers(1, 120))
    img = rng.random((h, w, 3)) * 3
    amount = float(rng.uniform(-0.05, 0.05))
    yy, xx = np.mgrid[0:h, 0:w].astype(float)
    cx, cy = (w - 1) / 2, (h - 1) / 2
    expected = img.copy()
    for channel, scale in ((0, 1 + amount), (2, 1 - amount)):
        expected[..., channel] = _pixel_by_pixel_bilinear(img[..., channel], cx + (xx - cx) / scale,
                                                          cy + (yy - cy) / scale)
    assert np.array_equal(pp.chromatic_aberration(img, amount), expected)
    vignetting = float(rng.uniform(0, 0.4))
    with np.errstate(invalid="ignore", divide="ignore"):  # a 1-pixel image has no corners: 0 / 0
        r2 = ((xx - cx) ** 2 + (yy - cy) ** 2) / (cx ** 2 + cy ** 2)
        assert np.array_equal(pp.vignette(img, vignetting), img * (1 - vignetting * r2)[..., None], equal_nan=True)


def test_noise_is_seeded_and_scaled():
    flat = np.full((100, 100, 3), 0.5)
    quiet = pp.PostParams(auto_exposure=False, shot_noise=0.0, read_noise=0.0)
    noisy = pp.PostParams(auto_exposure=False, shot_noise=0.002, read_noise=0.001, noise_seed=9)
    assert pp.develop(flat, quiet).std() < 1e-9
    assert pp.develop(flat, noisy).std() > 0.005
    assert np.array_equal(pp.develop(flat, noisy), pp.develop(flat, noisy))


def test_jpeg_round_trip_shape_and_quality():
    img = pp.develop(scene_image(), pp.NEUTRAL)
    data = pp.encode_jpeg(img, 92)
    assert data[:2] == b"\xff\xd8"
    back = pp.decode_jpeg(data)
    assert back.shape == (60, 80, 3) and np.abs(back - img).mean() < 0.02
