"""Deterministic noise (pure): the same inputs give the same values, with no random state. Surface detail
that shapes a silhouette (tree crowns' lumps, far hills' texture) comes from here, keyed by a plan's seed."""
from __future__ import annotations

import numpy as np


def hash01(ix, iy, seed: int) -> np.ndarray:
    """A hash of integer lattice points to [0, 1) (no random state: the same inputs, the same values)."""
    h = (np.asarray(ix, np.int64) * 374761393 + np.asarray(iy, np.int64) * 668265263 + seed * 2147483647) \
        & 0xFFFFFFFF
    h = ((h ^ (h >> 13)) * 1274126177) & 0xFFFFFFFF
    h = h ^ (h >> 16)
    return (h & 0xFFFFFF).astype(float) / float(0x1000000)


def value_noise(x, y, seed: int) -> np.ndarray:
    """Smooth value noise in [-1, 1] on a unit lattice."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    x0, y0 = np.floor(x), np.floor(y)
    fx, fy = x - x0, y - y0
    sx, sy = fx * fx * (3 - 2 * fx), fy * fy * (3 - 2 * fy)
    ix, iy = x0.astype(np.int64), y0.astype(np.int64)
    a, b = hash01(ix, iy, seed), hash01(ix + 1, iy, seed)
    c, d = hash01(ix, iy + 1, seed), hash01(ix + 1, iy + 1, seed)
    return 2.0 * (a + (b - a) * sx + (c - a) * sy + (a - b - c + d) * sx * sy) - 1.0


def fbm(x, y, seed: int, octaves: int = 4) -> np.ndarray:
    total, amp, norm = 0.0, 1.0, 0.0
    for k in range(octaves):
        total = total + amp * value_noise(x * 2 ** k, y * 2 ** k, seed + 101 * k)
        norm += amp
        amp *= 0.5
    return total / norm


def smoothstep(t):
    t = np.clip(t, 0.0, 1.0)
    return t * t * (3 - 2 * t)
