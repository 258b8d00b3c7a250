"""Clouds in an outdoor scene's sky, as a plan (no bpy): how much of the sky they cover, how large and how
soft they are, and where the pattern sits, drawn per scene from its own Generator (the pipeline's "sky"
stage), so the clouds vary from scene to scene and never shift any other draw.

The clouds are a layer on a flat deck `altitude_m` above the camera: a view ray in direction d meets it at
(d.x, d.y) * altitude / d.z, where the Blender world (`bl/sky.add_clouds`) evaluates a 2D fractal noise whose
value above `1 - coverage` is cloud. A second noise `CLUMP_CELLS` times coarser shifts that level from place
to place (`clumping`), so clouds gather in fields with wide clear gaps between them, as cumulus do, instead of
one even spread of like-sized blobs (which blind viewers read as a "tiled" texture). Near the horizon the deck
is far away and its pattern shrinks to streaks, so the layer fades out below `HORIZON_FADE_DEG` (haze hides
distant clouds in photos too), and it thins within `SUN_CLEAR_DEG` of the sun: the sun lamp always shines
unshaded, so a cloud drawn over the sun's disc would contradict the shadows on the ground.
"""
from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

HORIZON_FADE_DEG = (2.0, 14.0)  # elevation where the layer starts to show, and where it is at full strength
SUN_CLEAR_DEG = (1.5, 5.0)  # no cloud within the first angle of the sun, full clouds beyond the second
KINDS = ("clear", "fair", "scattered", "broken")
KIND_WEIGHTS = (0.12, 0.38, 0.35, 0.15)
# Blender's 2D noise texture (detail 6, roughness 0.55) over the deck has values close to normal with this mean
# and spread (measured on renders of clouds 300-1400 m across: quantiles 0.7 and 0.85 within 0.006 of the
# normal's): a coverage c is then the share of the pattern above mean + sd * z(1 - c).
NOISE_MEAN, NOISE_SD = 0.5, 0.087
NOISE_DETAIL, NOISE_ROUGHNESS = 6.0, 0.55
# The clumping noise: how many cloud cells one clump spans (same detail and roughness as the deck noise, so the
# same spread); the deck value then is noise + clumping * (clump noise - mean), whose spread is
# NOISE_SD * sqrt(1 + clumping^2) (`value_sd`) since the two noises are independent.
CLUMP_CELLS = 5.0
_COVERAGE = {"clear": (0.0, 0.0), "fair": (0.12, 0.25), "scattered": (0.25, 0.42), "broken": (0.42, 0.58)}


@dataclass(frozen=True)
class CloudPlan:
    kind: str  # one of KINDS
    coverage: float  # share of the sky the clouds cover overhead, 0..0.6
    altitude_m: float  # the deck's height above the camera
    cell_m: float  # a typical cloud's size on the deck
    softness: float  # width of the density ramp at a cloud's edge (0: hard-edged cumulus, 0.3: wispy)
    offset_m: tuple[float, float, float]  # where the noise pattern sits (x, y on the deck, w its fourth axis)
    stretch: float  # the pattern's elongation along `wind_deg` (1: round cells)
    wind_deg: float  # azimuth along which the clouds are drawn out
    shade: float  # how dark a cloud's sunless underside is, relative to its lit side (0..1)
    clumping: float = 0.0  # weight of the coarse noise that gathers clouds into fields (0: evenly spread)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"cloud kind must be one of {KINDS}, got {self.kind!r}")
        if not 0.0 <= self.coverage <= 0.6:
            raise ValueError(f"cloud coverage must be in 0..0.6, got {self.coverage}")
        if not 0.0 <= self.clumping <= 2.0:
            raise ValueError(f"cloud clumping must be in 0..2, got {self.clumping}")

    @property
    def visible(self) -> bool:
        return self.coverage > 0.0

    @property
    def value_sd(self) -> float:
        """The spread of the deck value (the deck noise plus the weighted clumping noise)."""
        return NOISE_SD * float(np.hypot(1.0, self.clumping))

    def density_ramp(self) -> tuple[float, float]:
        """The deck values where a cloud's density starts and where it is full: centred on the level above
        which `coverage` of the pattern lies, as wide as `softness` makes it (the edge's width follows the deck
        noise alone: the clumping noise changes too slowly to blur an edge)."""
        level = NOISE_MEAN + self.value_sd * NormalDist().inv_cdf(1.0 - min(max(self.coverage, 1e-6), 1 - 1e-6))
        half = 2.0 * self.softness * NOISE_SD
        return level - half, level + half


def draw_clouds(rng: np.random.Generator) -> CloudPlan:
    """One scene's clouds: a weather kind, then its coverage and the pattern's size, softness and place."""
    kind = KINDS[int(rng.choice(len(KINDS), p=KIND_WEIGHTS))]
    lo, hi = _COVERAGE[kind]
    coverage = float(rng.uniform(lo, hi)) if hi > 0 else 0.0
    return CloudPlan(
        kind=kind,
        coverage=round(coverage, 4),
        altitude_m=float(rng.uniform(900.0, 2200.0)),
        cell_m=float(rng.uniform(500.0, 1400.0)),
        softness=float(rng.uniform(0.18, 0.4)),
        offset_m=tuple(float(x) for x in rng.uniform(-5000.0, 5000.0, 3)),
        stretch=float(rng.uniform(1.0, 2.2)),
        wind_deg=float(rng.uniform(0.0, 180.0)),
        shade=float(rng.uniform(0.45, 0.7)),
        clumping=float(rng.uniform(0.6, 1.2)),
    )


def smoothstep(edge0: float, edge1: float, x):
    t = np.clip((np.asarray(x, float) - edge0) / (edge1 - edge0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def fade_ranges() -> tuple[tuple[float, float], tuple[float, float]]:
    """The layer's two fades as the shader computes them: over the view direction's z (sine of the
    elevation), and over its dot product with the sun's direction (cosine of the angle to the sun)."""
    horizon = tuple(float(np.sin(np.radians(a))) for a in HORIZON_FADE_DEG)
    sun = tuple(float(np.cos(np.radians(a))) for a in SUN_CLEAR_DEG)
    return horizon, sun


def layer_weight(direction, sun_direction) -> np.ndarray:
    """How much of the cloud layer shows in view direction(s) `direction` (unit vectors, (..., 3)): 0 at and
    below the horizon and next to the sun, 1 high in the sky away from it (the shader's factor)."""
    d = np.asarray(direction, float)
    sun = np.asarray(sun_direction, float) / np.linalg.norm(sun_direction)
    (z0, z1), (c0, c1) = fade_ranges()
    return smoothstep(z0, z1, d[..., 2]) * smoothstep(c0, c1, d @ sun)
