"""damage_view rendered (bpy, tiny frame): the image terms that the picture shows the damage are read off the
final image, and the built damaged panel carries the road-dirt keep-out drawn from its plan."""
import math

import numpy as np
import pytest

bpy = pytest.importorskip("bpy")

from realitybench_addon import pipeline  # noqa: E402
from realitybench_addon.bl.damage import KEEPOUT_IMAGE  # noqa: E402
from realitybench_addon.core.damage import dirt_keepout  # noqa: E402
from realitybench_addon.core.presets import load_environment_preset  # noqa: E402
from env_support import packed_pixels  # noqa: E402


@pytest.mark.slow
def test_a_rendered_frame_measures_damage_pixels_and_contrast():
    preset = load_environment_preset("damage_view")
    cache = pipeline.SceneCache()
    for index in range(12):
        spec = pipeline.plan_frame("damage_view", 0, "random", index)
        if pipeline.run_frame(spec, render=False, cache=cache, preset=preset).record["verdict"] == "pending":
            break
    else:
        pytest.fail("no damage_view frame passes geometry in the first 12")
    result = pipeline.run_frame(spec, long_side_px=160, samples=2, preset=preset, cache=cache)
    m = result.record["measurements"]
    outcomes = {t["name"]: t["outcome"] for t in result.record["terms"]}
    assert outcomes["damage_pixels"] in ("pass", "fail") and outcomes["damage_contrast"] in ("pass", "fail")
    assert result.mask.sum() > 10
    assert 0 <= m["damage_pixels"] <= result.mask.sum()
    assert math.isfinite(m["damage_contrast"]) and 0.0 <= m["damage_contrast"] <= 100.0
    keep = packed_pixels(KEEPOUT_IMAGE)[..., 0] / 255.0
    expected = dirt_keepout(spec.plan.extras["damage"])
    assert keep.shape == expected.shape
    np.testing.assert_allclose(keep, expected, atol=1 / 255 + 1e-6)
    assert keep.max() == 1.0
