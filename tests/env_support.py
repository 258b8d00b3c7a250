"""Shared helpers for the environment tests in the bpy wheel: one frame run, packed textures."""
from __future__ import annotations

import numpy as np

from realitybench_addon import pipeline
from realitybench_addon.core.presets import load_environment_preset
from realitybench_addon.envs import registry

VERDICTS = {"accept", "reject", "gray", "unscored", "pending"}


def run(env, index, seed=0, cache=None, stratum="random", **kw):
    """One frame, geometric terms only unless render=True; a fresh scene cache unless one is given."""
    return pipeline.run_frame(pipeline.plan_frame(env, seed, stratum, index), render=kw.pop("render", False),
                              cache=cache if cache is not None else pipeline.SceneCache(), **kw)


def packed_pixels(image_name: str) -> np.ndarray:
    """A drawn image of the built scene as 8-bit RGB, top row first (what was drawn)."""
    import bpy

    image = bpy.data.images[image_name]
    w, h = image.size
    px = np.empty(w * h * 4, np.float32)
    image.pixels.foreach_get(px)
    return (px.reshape(h, w, 4)[::-1, :, :3] * 255).round().astype(np.uint8)


def assert_every_term_measured(env: str, record: dict) -> None:
    """The record has a verdict, every preset term, every geometric term decided, every prompt key."""
    preset = load_environment_preset(env)
    assert record["verdict"] in VERDICTS
    outcomes = {t["name"]: t["outcome"] for t in record["terms"]}
    assert set(outcomes) == {t.name for t in preset.terms}
    geometric = [t.name for t in preset.terms if t.kind == "geometric"]
    assert all(outcomes[name] in ("pass", "fail", "gray") for name in geometric), outcomes
    assert set(record["ground_truth"]) == {k.name for k in registry.get(env).prompt_parts.keys}


def assert_same_id_same_record(env: str, cache=None) -> None:
    a, b = run(env, 5).record, run(env, 5, cache=cache).record
    for key in ("measurements", "terms", "ground_truth", "verdict", "capture", "camera", "scene"):
        assert a[key] == b[key], key
    assert run(env, 6, cache=cache).record["camera"] != a["camera"]
