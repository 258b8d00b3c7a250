"""Leaf-card textures drawn with numpy: sprays of broadleaf leaves on a twig and drooping conifer branchlets
with needles, each an RGB image (uint8, sRGB, row 0 at the top) and its coverage (alpha, uint8 0..255).

An atlas holds ATLAS_CELLS x ATLAS_CELLS variants (cell (i, j) at rows i, columns j); a card maps its
local square [-1, 1]^2 onto one cell, x along the twig (from its base at x = -1 to its tip at x = +1).

    rgb, alpha = leaf_atlas("broadleaf", seed=7)      # (512, 512, 3), (512, 512)
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

ATLAS_CELLS = 2
CELL_PX = 256
KINDS = ("broadleaf", "needle")


class _Canvas:
    """A straight-alpha RGBA canvas of floats in [0, 1] that shapes are stamped on ("over" compositing)."""

    def __init__(self, size: int):
        self.size = size
        self.rgb = np.zeros((size, size, 3))
        self.alpha = np.zeros((size, size))

    def window(self, points, pad: float):
        """Row and column slices (and the pixel-centre grids) covering `points` (cell units 0..1) plus `pad`."""
        p = np.asarray(points, float) * self.size
        lo = np.floor(p.min(0) - pad * self.size - 1).astype(int).clip(0, self.size)
        hi = np.ceil(p.max(0) + pad * self.size + 1).astype(int).clip(0, self.size)
        ys, xs = np.mgrid[lo[1]:hi[1], lo[0]:hi[0]]
        return (slice(lo[1], hi[1]), slice(lo[0], hi[0])), (xs + 0.5) / self.size, (ys + 0.5) / self.size

    def over(self, where, cover, color) -> None:
        """Composite `color` (an RGB triple or an (h, w, 3) array) with coverage `cover` over the window."""
        cover = np.clip(cover, 0.0, 1.0)
        if not cover.any():
            return
        a0 = self.alpha[where]
        out = cover + a0 * (1 - cover)
        rgb = np.asarray(color, float) * cover[..., None] + self.rgb[where] * (a0 * (1 - cover))[..., None]
        self.rgb[where] = rgb / np.maximum(out, 1e-9)[..., None]
        self.alpha[where] = out

    def capsule(self, p0, p1, radius: float, color) -> None:
        """A stroke from p0 to p1 of half-width `radius` (cell units), anti-aliased over one pixel."""
        where, x, y = self.window([p0, p1], radius)
        (x0, y0), (x1, y1) = p0, p1
        dx, dy = x1 - x0, y1 - y0
        t = np.clip(((x - x0) * dx + (y - y0) * dy) / max(dx * dx + dy * dy, 1e-12), 0, 1)
        d = np.hypot(x - x0 - t * dx, y - y0 - t * dy)
        self.over(where, (radius - d) * self.size + 0.5, color)

    def leaf(self, base, angle: float, length: float, width: float, color, rng: np.random.Generator) -> None:
        """An ovate, pointed leaf from `base` along `angle`: lighter at its edge, a darker midrib and a shade
        gradient from base to tip (the blade's curl towards the light)."""
        tip = (base[0] + length * math.cos(angle), base[1] + length * math.sin(angle))
        where, x, y = self.window([base, tip], width)
        c, s = math.cos(angle), math.sin(angle)
        u = ((x - base[0]) * c + (y - base[1]) * s) / length
        v = (-(x - base[0]) * s + (y - base[1]) * c) / width
        uc = np.clip(u, 0.0, 1.0)
        half = 1.9 * uc ** 0.55 * (1 - uc) ** 0.85 * (1 + 0.08 * math.sin(rng.uniform(0, 6)))  # ovate, pointed
        edge = (half - np.abs(v)) * width * self.size
        cover = np.clip(edge + 0.5, 0, 1) * (u > 0) * (u < 1)
        rib = np.clip(1.0 - np.abs(v) * width * self.size / 0.9, 0, 1) * (u < 0.9)
        rim = np.clip(np.abs(v) / np.maximum(half, 1e-6), 0, 1)  # 0 on the midrib, 1 at the edge
        shade = ((0.85 + 0.3 * uc) * (1.0 + 0.18 * rim))[..., None]
        rgb = np.asarray(color) * shade * (1 - 0.35 * rib[..., None])
        self.over(where, cover, rgb)


def _leaf_color(rng: np.random.Generator) -> tuple[float, float, float]:
    """A leaf's green (sRGB 0..1): most mid to dark green, some yellower or bluer, brightness varied."""
    value = rng.uniform(0.7, 1.2)
    yellow = rng.uniform(-0.05, 0.12)
    return (min(1.0, (0.2 + yellow) * value), min(1.0, 0.33 * value), min(1.0, (0.09 - yellow / 3) * value))


def _twig_path(rng: np.random.Generator, n: int, droop: float) -> np.ndarray:
    """Points along a twig from the cell's left edge (its base) to near the right edge, bending by `droop`."""
    t = np.linspace(0.0, 1.0, n)
    x = 0.03 + 0.9 * t
    y = 0.5 + droop * t ** 2 + 0.025 * np.sin(t * rng.uniform(3, 6) + rng.uniform(0, 6))
    return np.column_stack([x, y])


def draw_broadleaf(rng: np.random.Generator, size: int = CELL_PX) -> _Canvas:
    """A spray of alternate leaves on a thin brown twig and two side twigs, a terminal leaf on each tip."""
    canvas = _Canvas(size)
    path = _twig_path(rng, 24, rng.uniform(-0.1, 0.12))
    twigs = [path]
    for side, at in ((-1, rng.uniform(0.25, 0.4)), (1, rng.uniform(0.45, 0.6))):
        i = int(at * (len(path) - 1))
        ang = side * rng.uniform(0.45, 0.7)
        t = np.linspace(0, 1, 10)[:, None]
        twigs.append(path[i] + t * rng.uniform(0.35, 0.45) * np.array([math.cos(ang), math.sin(ang)]))
    bark = (0.25, 0.19, 0.12)
    for twig in twigs:
        for a, b in zip(twig[:-1], twig[1:]):
            canvas.capsule(a, b, 0.006, bark)
    for twig in twigs:
        n = int(rng.integers(8, 12)) if twig is path else int(rng.integers(5, 8))
        for k in range(n):
            t = 0.1 + 0.82 * (k + rng.uniform(0, 0.6)) / n
            i = min(int(t * (len(twig) - 1)), len(twig) - 2)
            d = twig[i + 1] - twig[i]
            angle = math.atan2(d[1], d[0]) + (1 if k % 2 else -1) * rng.uniform(0.6, 1.1)
            length = rng.uniform(0.17, 0.26) * (1.05 - 0.3 * abs(t - 0.55))
            canvas.leaf(twig[i], angle, length, length * rng.uniform(0.21, 0.28), _leaf_color(rng), rng)
        d = twig[-1] - twig[-2]
        canvas.leaf(twig[-1] - 0.02 * d / np.linalg.norm(d), math.atan2(d[1], d[0]), 0.18, 0.045,
                    _leaf_color(rng), rng)
    return canvas


def draw_needles(rng: np.random.Generator, size: int = CELL_PX) -> _Canvas:
    """A drooping spruce branchlet: a main twig with side shoots, every twig thick with short dark needles."""
    canvas = _Canvas(size)
    path = _twig_path(rng, 20, rng.uniform(0.08, 0.2))  # rows grow downwards: positive droop hangs down
    shoots = [path]
    for k in range(int(rng.integers(6, 9))):
        i = int(rng.integers(3, len(path) - 4))
        side = 1 if k % 2 else -1
        d = path[i + 1] - path[i]
        ang = math.atan2(d[1], d[0]) + side * rng.uniform(0.6, 1.0)
        length = rng.uniform(0.25, 0.38) * (1.15 - i / len(path))
        t = np.linspace(0, 1, 8)[:, None]
        shoots.append(path[i] + t * length * np.array([math.cos(ang), math.sin(ang)]) + [0, 0.04] * t ** 2)
    bark = (0.2, 0.15, 0.1)
    for shoot in shoots:
        for a, b in zip(shoot[:-1], shoot[1:]):
            canvas.capsule(a, b, 0.005, bark)
    for shoot in shoots:
        seg = np.diff(shoot, axis=0)
        for i, (p, d) in enumerate(zip(shoot[:-1], seg)):
            along = math.atan2(d[1], d[0])
            for _ in range(7):
                q = p + rng.uniform(0, 1) * d
                ang = along + rng.choice([-1, 1]) * rng.uniform(0.5, 1.2) + rng.normal(0, 0.1)
                ln = rng.uniform(0.035, 0.06) * (0.75 + 0.5 * (1 - i / len(seg)))
                g = rng.uniform(0.75, 1.25)
                color = (0.07 * g, 0.2 * g, 0.1 * g) if rng.random() < 0.8 else (0.15 * g, 0.3 * g, 0.13 * g)
                canvas.capsule(q, q + ln * np.array([math.cos(ang), math.sin(ang)]), 0.0045, color)
    return canvas


@lru_cache(maxsize=4)
def leaf_atlas(kind: str, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(rgb uint8 (H, W, 3), alpha uint8 (H, W)) of ATLAS_CELLS^2 variants of `kind` ("broadleaf" or
    "needle"), drawn from `seed` alone."""
    if kind not in KINDS:
        raise ValueError(f"leaf kind must be one of {KINDS}, got {kind!r}")
    rng = np.random.default_rng([abs(int(seed)), KINDS.index(kind)])
    draw = draw_broadleaf if kind == "broadleaf" else draw_needles
    n = ATLAS_CELLS * CELL_PX
    rgb, alpha = np.zeros((n, n, 3)), np.zeros((n, n))
    for i in range(ATLAS_CELLS):
        for j in range(ATLAS_CELLS):
            c = draw(rng)
            rows, cols = slice(i * CELL_PX, (i + 1) * CELL_PX), slice(j * CELL_PX, (j + 1) * CELL_PX)
            rgb[rows, cols], alpha[rows, cols] = c.rgb, c.alpha
    # bleed each covered colour into the transparent pixels around it: no dark fringe where the filter blends
    empty = alpha < 0.02
    rgb[empty] = (rgb * alpha[..., None]).reshape(-1, 3).sum(0) / max(alpha.sum(), 1e-9)
    return (np.clip(rgb, 0, 1) * 255).round().astype(np.uint8), (alpha * 255).round().astype(np.uint8)
