"""The relief of rust (pure): pitted metal inside a rust mark, blistered paint in a rim just outside it.

A height image on the damage texture's own grid (`core.damage._grid`: 1 mm pixels, row 0 at the top of the
patch), 0.5 where the panel is flat. It only bumps the shading normal (`bl/damage.py`): the damage texture, its
alpha, the damage mask and the damaged area are computed as before and never read this image. The rim lies
outside the footprint, so the paint there stays paint (alpha 0): it only bulges where corrosion creeps under it.

The noise of each mark comes from its own child generator, `np.random.default_rng((mark.seed, RELIEF_STREAM))`:
nothing here draws from a generator that places anything measured.
"""
from __future__ import annotations

import numpy as np

from .damage import DamagePlan, _grid, _value_noise, mark_footprint

RELIEF_STREAM = 41  # the child stream of a rust mark's seed used for its relief
RIM_M = 0.02  # blistered paint reaches this far out of the rust (box distance)
BLISTER_M = 0.005  # a blister's size
PIT_M = 0.0015  # a pit's size
PIT_SHARE = 0.3  # about this share of the rust is pitted
FLAKE_M = 0.008  # the rust's own crusty relief
STEP = 0.12  # the rust lies this much (of the image's range) below the paint round it: a paint edge

def _box_mean(a: np.ndarray, r: int) -> np.ndarray:
    """The mean of `a` over the (2r+1)^2 box round each pixel (zero beyond the edges)."""
    pad = np.pad(a.astype(np.float64), r + 1)
    s = pad.cumsum(0).cumsum(1)
    k = 2 * r + 1
    h, w = a.shape
    box = s[k:k + h, k:k + w] - s[0:h, k:k + w] - s[k:k + h, 0:w] + s[0:h, 0:w]
    return box / (k * k)


def rust_relief(plan: DamagePlan, m_per_px: float = 0.001) -> np.ndarray:
    """Height in [0, 1] (0.5 flat) on the damage texture's grid: the rust a step below the paint, crusty and
    pitted, on each rust mark's footprint; blisters (up) in the rim within RIM_M outside it, highest next to
    the rust and fading out."""
    D, Z = _grid(plan.patch)
    h, w = D.shape
    height = np.full((h, w), 0.5, np.float32)
    rust = [m for m in plan.marks if m.kind == "rust"]
    if not rust:
        return height
    foot = np.zeros((h, w), bool)
    pits = np.zeros((h, w), np.float32)
    crust = np.zeros((h, w), np.float32)
    blisters = np.zeros((h, w), np.float32)
    for m in rust:
        rng = np.random.default_rng((m.seed, RELIEF_STREAM))
        f = mark_footprint(m, D, Z)
        foot |= f
        pit = _value_noise((h, w), max(2, int(h * m_per_px / PIT_M)), rng)
        pits = np.maximum(pits, f * np.clip((pit - (1 - PIT_SHARE)) / PIT_SHARE, 0, 1))
        crust = np.maximum(crust, f * _value_noise((h, w), max(2, int(h * m_per_px / FLAKE_M)), rng))
        bub = _value_noise((h, w), max(2, int(h * m_per_px / BLISTER_M)), rng)
        blisters = np.maximum(blisters, np.clip((bub - 0.35) / 0.4, 0, 1))
    near = _box_mean(foot, max(1, int(round(RIM_M / m_per_px))))
    rim = np.where(foot, 0.0, np.clip(near / 0.3, 0, 1))  # 1 close to the rust, 0 a rim's width out
    height += 0.45 * (rim * blisters) - foot * (STEP + 0.3 * pits + 0.25 * (1 - crust))
    return np.clip(height, 0.0, 1.0)
