"""Render settings and image quality (issue 21): the settings are checked data that round-trips through a
manifest; SSIM and PSNR behave as their definitions say, over a frame and over a mask; and in the bpy wheel
every setting reaches Cycles and the frame's record."""
import math

import numpy as np
import pytest

from realitybench_addon.core.image_quality import psnr, ssim, ssim_map
from realitybench_addon.core.render_settings import RenderSettings, RenderSettingsError


def test_settings_round_trip_and_refuse_what_cycles_cannot_take():
    s = RenderSettings(samples=8, adaptive_threshold=0.05, max_bounces=4, denoise_quality="BALANCED")
    assert RenderSettings.from_dict(s.to_dict()) == s
    assert RenderSettings.before_issue_21(16).adaptive_threshold == 0.0
    # round 3 of bench_render chose to sample the one sun without the light tree and the sky only by bounces;
    # the settings before issue 21 did both
    assert (RenderSettings().light_tree, RenderSettings().sky_as_light) == (False, False)
    assert (RenderSettings.before_issue_21(8).light_tree, RenderSettings.before_issue_21(8).sky_as_light) == (True, True)
    for bad, word in [({"samples": 0}, "samples"), ({"samples": 2.5}, "samples"), ({"samples": True}, "samples"),
                      ({"adaptive_threshold": -0.1}, "adaptive_threshold"),
                      ({"adaptive_threshold": math.nan}, "adaptive_threshold"),
                      ({"denoise_passes": "ALBEDO"}, "denoise_passes"), ({"denoise": "yes"}, "denoise"),
                      ({"max_bounces": -1}, "max_bounces"), ({"denoise_quality": "BEST"}, "denoise_quality"),
                      ({"light_tree": 0}, "light_tree"), ({"sky_as_light": "no"}, "sky_as_light"),
                      ({"fast_gi_bounces": -1}, "fast_gi_bounces"), ({"fast_gi_bounces": 1.5}, "fast_gi_bounces")]:
        with pytest.raises(RenderSettingsError, match=word):
            RenderSettings(**bad)
    # a manifest written before fast GI existed was rendered without it
    old = {k: v for k, v in RenderSettings().to_dict().items() if k != "fast_gi_bounces"}
    assert RenderSettings.from_dict(old).fast_gi_bounces == 0 == RenderSettings().fast_gi_bounces
    with pytest.raises(RenderSettingsError, match="unknown key.*'spp'"):
        RenderSettings.from_dict({"spp": 4})
    with pytest.raises(RenderSettingsError, match="mapping"):
        RenderSettings.from_dict([("samples", 4)])


def test_bench_render_candidates_change_what_their_names_say():
    """Each benchmark candidate travels to its worker as a mapping; rounds 5 to 7's differ from today's
    defaults only in the setting their names give, so their table rows measure that setting alone."""
    import importlib.util
    from dataclasses import fields
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_render.py"
    spec = importlib.util.spec_from_file_location("bench_render", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    for settings in bench.CANDIDATES.values():
        assert RenderSettings.from_dict(settings.to_dict()) == settings

    def changed(name):
        a, b = bench.CANDIDATES[name], RenderSettings()
        return {f.name: getattr(a, f.name) for f in fields(a) if getattr(a, f.name) != getattr(b, f.name)}

    assert changed("lean_fastq") == {"denoise_quality": "FAST"}
    assert changed("lean_albedo") == {"denoise_passes": "RGB_ALBEDO"}
    assert changed("lean_s12_fastq") == {"samples": 12, "denoise_quality": "FAST"}
    assert changed("lean_s12_albedo") == {"samples": 12, "denoise_passes": "RGB_ALBEDO"}
    assert changed("lean_bal") == {"denoise_quality": "BALANCED"}
    assert changed("lean_prenone") == {"denoise_prefilter": "NONE"}
    assert changed("lean_gi1") == {"fast_gi_bounces": 1}
    assert changed("lean_gi2") == {"fast_gi_bounces": 2}
    assert changed("lean") == {}  # round 3's choice is today's default


def _texture(seed=0, shape=(120, 160)):
    rng = np.random.default_rng(seed)
    base = rng.random((shape[0] // 8, shape[1] // 8))
    img = np.kron(base, np.ones((8, 8))) * 200 + 20
    return np.repeat(img[..., None], 3, axis=2)


def test_ssim_is_one_for_identical_images_and_falls_with_noise():
    a = _texture()
    assert ssim(a, a) == pytest.approx(1.0)
    assert psnr(a, a) == math.inf
    rng = np.random.default_rng(1)
    values = [ssim(a, np.clip(a + rng.normal(0, sd, a.shape), 0, 255)) for sd in (2, 8, 30)]
    assert 1.0 > values[0] > values[1] > values[2] > 0.0
    noisy = np.clip(a + rng.normal(0, 8, a.shape), 0, 255)
    assert ssim(a, noisy) == pytest.approx(ssim(noisy, a))  # symmetric
    # PSNR of Gaussian noise of sd 8 (clipping aside) is 20 log10(255 / 8)
    assert psnr(a, noisy) == pytest.approx(20 * math.log10(255 / 8), abs=0.3)


def test_ssim_matches_scikit_image():
    """The same figure as scikit-image 0.26's structural_similarity(a, b, data_range=255,
    gaussian_weights=True, sigma=1.5, use_sample_covariance=False), computed there for these exact images."""
    rng = np.random.default_rng(0)
    a = np.kron(rng.random((40, 50)), np.ones((6, 6))) * 200 + 20
    expected = {3: 0.99342, 10: 0.93678, 30: 0.69123}
    for sd, value in expected.items():
        b = np.clip(a + rng.normal(0, sd, a.shape), 0, 255)
        assert ssim(a, b) == pytest.approx(value, abs=1e-5)


def test_ssim_sees_blur_that_psnr_barely_weighs():
    """A blur of fine texture (what a denoiser does to shingle granules) lowers SSIM more than a uniform
    brightness shift of the same mean squared error."""
    a = _texture(shape=(96, 96))
    fine = np.kron(np.random.default_rng(2).random((48, 48)), np.ones((2, 2))) * 120 + 60
    a = np.repeat(fine[..., None], 3, axis=2)
    blurred = a.copy()
    blurred[1:-1, 1:-1] = (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] + a[1:-1, 1:-1]) / 5
    mse = float(((blurred - a) ** 2).mean())
    shifted = np.clip(a + math.sqrt(mse), 0, 255)
    assert psnr(a, blurred) == pytest.approx(psnr(a, shifted), abs=0.5)
    assert ssim(a, blurred) < ssim(a, shifted) - 0.1


def test_masked_figures_only_see_the_mask():
    a = _texture()
    b = a.copy()
    b[:, 80:] = 255 - b[:, 80:]  # damage only the right half
    left = np.zeros(a.shape[:2], bool)
    left[:, :70] = True  # clear of the window's reach into the damaged half
    assert ssim(a, b, left) == pytest.approx(1.0)
    assert psnr(a, b, left) == math.inf
    assert ssim(a, b, ~left) < 0.5
    assert math.isnan(ssim(a, b, np.zeros(a.shape[:2], bool)))
    with pytest.raises(ValueError, match="mask"):
        ssim(a, b, np.ones((3, 3), bool))
    with pytest.raises(ValueError, match="differ in size"):
        ssim_map(a, a[:-1])


@pytest.fixture(scope="module")
def bpy():
    return pytest.importorskip("bpy")


def test_every_setting_reaches_cycles_and_the_record(bpy):
    from realitybench_addon import pipeline
    from realitybench_addon.bl.render import configure_cycles

    scene = bpy.context.scene
    if scene.world is None:  # an earlier test may leave an emptied scene (bl.analytic.reset_scene) without a world
        scene.world = bpy.data.worlds.new("World")
    s = RenderSettings(samples=5, adaptive_threshold=0.07, adaptive_min_samples=3, max_bounces=5, diffuse_bounces=1,
                       glossy_bounces=2, transmission_bounces=3, transparent_bounces=6, caustics=False,
                       blur_glossy=0.5, clamp_indirect=2.0, persistent_data=True, denoise_prefilter="FAST",
                       denoise_passes="RGB_ALBEDO", light_tree=False, fast_gi_bounces=2)
    assert configure_cycles(scene, settings=s) == s
    c = scene.cycles
    assert (c.samples, c.use_adaptive_sampling, c.adaptive_min_samples, c.max_bounces, c.diffuse_bounces,
            c.glossy_bounces, c.transmission_bounces, c.transparent_max_bounces) == (5, True, 3, 5, 1, 2, 3, 6)
    assert c.adaptive_threshold == pytest.approx(0.07) and c.blur_glossy == pytest.approx(0.5)
    assert (c.caustics_reflective, c.caustics_refractive, c.sample_clamp_indirect) == (False, False, 2.0)
    assert (c.denoising_prefilter, c.denoising_input_passes) == ("FAST", "RGB_ALBEDO")
    assert scene.render.use_persistent_data is True
    assert c.use_light_tree is False
    assert (c.use_fast_gi, c.ao_bounces_render, c.fast_gi_method) == (True, 2, "REPLACE")
    configure_cycles(scene, settings=RenderSettings.before_issue_21(9))
    assert (c.samples, c.use_light_tree, scene.world.cycles.sampling_method) == (9, True, "AUTOMATIC")
    assert c.use_fast_gi is False
    configure_cycles(scene, samples=7, denoise=False)  # the old call keeps working, with the defaults
    assert (c.samples, c.use_denoising, scene.render.use_persistent_data) == (7, False, False)
    assert (c.use_light_tree, scene.world.cycles.sampling_method) == (False, "NONE")

    spec = pipeline.plan_frame("tape_gap", 0, "random", 0)
    result = pipeline.run_frame(spec, long_side_px=64, render=True,
                                settings=s.with_(persistent_data=False, sky_as_light=False), cache=pipeline.SceneCache())
    assert bpy.context.scene.world.cycles.sampling_method == "NONE"  # the sky lights only what bounces into it
    render = result.record["render"]
    assert render["samples"] == 5
    assert render["settings"] == s.with_(persistent_data=False, sky_as_light=False).to_dict()


def test_render_split_times_the_three_ways_and_leaves_the_scene_as_built(bpy):
    """benchmarks/bench_render_split.py (docs/export.md, round 7): each way renders, the counts describe the
    scene, and the scene is left as an export renders it (no material override, the grass shown)."""
    import importlib.util
    from pathlib import Path

    from realitybench_addon.bl.grass import is_grass

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_render_split.py"
    spec = importlib.util.spec_from_file_location("bench_render_split", path)
    split = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(split)
    r = split.measure("tape_gap", 0, 48)
    assert {k: len(v) for k, v in r["seconds"].items()} == {"as_built": 2, "plain": 1, "no_grass": 1}
    assert all(t > 0 for v in r["seconds"].values() for t in v)
    assert r["triangles"] > 10_000 and r["instances"] > 10_000  # a roof scene with a lawn of instanced tufts
    assert bpy.context.view_layer.material_override is None
    grass = [o for o in bpy.context.scene.objects if is_grass(o)]
    assert grass and not any(o.hide_render for o in grass)
