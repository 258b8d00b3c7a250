"""Can any pose pass an environment's pixel-size terms at a given frame size? (pure; no bpy)

A px-per-row (px-per-digit, px-per-cm, ...) term grows with the frame's long side, so at a
small `--resolution` no pose may reach its threshold, and the positive stratum's funnel would
search its whole block of candidates in vain. This module bounds each such term from above,
over every pose, phone and scene the environment can draw, so an export can refuse before any
work; and it words the error when a funnel runs dry anyway.

The bounds are necessary conditions only: a resolution they allow may still be too small in
practice (they never refuse a feasible one). Three kinds:

Chord bound (a feature on a flat target that must be wholly in frame). The target's in-frame
term counts surface samples that include the mesh's vertices, so passing it at 1.0 puts the
whole quad in the frame. Take the chord of the target through the feature's centre along the
feature (length l, ends a and b from the centre, feature length s). Along a line the pinhole's
image speed is |N| / z(t)^2 (z the depth, affine in t), so with eps = dz/dt / z(centre):
    feature_px = chord_px * (s / l) * (1 - eps a)(1 + eps b) / (1 - eps^2 s^2 / 4)
and chord_px is at most the frame's diagonal, since both ends are in frame. eps is free but
for z > 0 on the whole chord (-1/b < eps < 1/a); the supremum over it is the perspective
allowance (1 for a centred feature, larger the nearer the feature sits to one end). No focal
length or distance enters: a longer lens only moves the camera back.

Range bound (a feature seen from at least a preset's minimum distance r, its centre in frame).
A point at range rho, angle phi off the axis, is magnified at most f / (rho cos^2 phi) in any
direction, and tan(phi) is at most half the diagonal over f in frame; maximised over the phone
model's focal lengths (core/phone.py: 13-120 mm equivalent, digital zoom included).

Pixel counts (image terms counting pixels) are at most the frame's area.

Each environment declares its features on itself (`features` on its module's class: envs/breaker_label.py and
the others, read through envs/registry.py `features(name)`); the functions below take them as `features`, so this
module knows no environment by name.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional, Sequence, Union

import numpy as np

from .phone import FULL_FRAME_DIAGONAL_MM, LANDSCAPE, REFERENCE_LONG_SIDE_PX, SENSOR_ASPECT, frame_resolution
from .presets import Preset
from .terms import TermSpec

# Focal length in px per px of the long side, for 1 mm of full-frame-equivalent focal length: the
# physical focal length over the sensor's long side (4:3, equivalence on the diagonal).
FOCAL_PX_PER_EQUIVALENT_MM = math.hypot(1.0, 1.0 / SENSOR_ASPECT) / FULL_FRAME_DIAGONAL_MM
# core/phone.py draw_phone / draw_capture: ultra-wide 13-16 mm, main 24-28 mm with digital zoom up to
# 3x, telephoto 48-120 mm (no zoom on the ultra-wide or the telephoto).
EQUIVALENT_FOCAL_RANGE_MM = (13.0, 120.0)
# Covers sub-millimetre offsets between a measured point and its target's surface (the gauge's
# display point lies 0.8 mm off its quad) and the rounding of textures to whole texels.
SLACK = 1.05
CENTRE_SLACK_RAD = math.radians(2.0)  # a damage centre on the undented surface may sit just outside its mesh


@dataclass(frozen=True)
class Chord:
    """A feature of relative length `sigma` (its length over the chord's) whose centre lies at least
    `alpha` (a fraction of the chord) from the nearer end of the chord: worst cases over the scenes."""

    term: str  # measurement key
    guard: str  # the target's in-frame term: must be required at 1.0 for the bound to hold
    sigma: float
    alpha: float


@dataclass(frozen=True)
class Range:
    """A feature of `length_m` whose centre must be in frame, seen from at least the lower threshold of
    the preset's `distance` term."""

    term: str
    guard: str
    distance: str
    length_m: float


@dataclass(frozen=True)
class PixelCount:
    term: str


Feature = Union[Chord, Range, PixelCount]


def perspective_allowance(a: float, b: float, s: float) -> float:
    """sup over eps in (-1/b, 1/a) of (1 - eps a)(1 + eps b) / (1 - eps^2 s^2 / 4), for s/2 <= a, b."""
    if not (0 < s / 2 <= min(a, b)):
        raise ValueError(f"the feature (length {s}) must lie on its chord (ends {a}, {b} from its centre)")
    lo, hi = -1.0 / b, 1.0 / a

    def ratio(eps: float) -> float:
        return (1 - eps * a) * (1 + eps * b) / (1 - eps * eps * s * s / 4)

    # ratio is 1 at eps = 0 and its numerator vanishes at both ends: a fine grid brackets the maximum,
    # a golden-section search refines it.
    n = 4000
    grid = lo + (hi - lo) * (np.arange(n) + 0.5) / n
    values = (1 - grid * a) * (1 + grid * b) / (1 - grid * grid * s * s / 4)
    best = int(np.argmax(values))
    x0, x1 = float(grid[max(best - 1, 0)]), float(grid[min(best + 1, n - 1)])
    g = (math.sqrt(5) - 1) / 2
    for _ in range(60):
        c, d = x1 - g * (x1 - x0), x0 + g * (x1 - x0)
        if ratio(c) >= ratio(d):
            x1 = d
        else:
            x0 = c
    return max(1.0, float(values[best]), ratio((x0 + x1) / 2))


@lru_cache(maxsize=None)
def chord_coefficient(sigma: float, alpha: float) -> float:
    """feature_px / frame diagonal at most (chord of length 1)."""
    return sigma * perspective_allowance(alpha, 1.0 - alpha, sigma) * SLACK


def frame_diagonal_px(long_side_px: int) -> float:
    width, height = frame_resolution(LANDSCAPE, long_side_px)
    return math.hypot(width, height)


def range_bound_px(length_m: float, min_distance_m: float, long_side_px: int) -> float:
    """Most px a feature of `length_m` spans, its centre in frame and at least `min_distance_m` away."""
    nearest = min_distance_m - length_m / 2
    if nearest <= 0:
        return math.inf
    half_diagonal = frame_diagonal_px(long_side_px) / 2
    spread = math.asin(min(1.0, length_m / 2 / nearest)) + CENTRE_SLACK_RAD
    lo, hi = (mm * FOCAL_PX_PER_EQUIVALENT_MM * long_side_px for mm in EQUIVALENT_FOCAL_RANGE_MM)
    best = 0.0
    for i in range(401):
        f = lo * (hi / lo) ** (i / 400)
        phi = min(math.atan(half_diagonal / f) + spread, math.radians(89.9))
        best = max(best, f * length_m / (nearest * math.cos(phi) ** 2))
    return best * SLACK


def _lower_threshold(term: TermSpec) -> Optional[float]:
    """The least value that passes `term`, or None when it has no lower bound."""
    if term.comparator == ">=":
        return float(term.threshold)
    if term.comparator == "between":
        return float(term.threshold[0])
    return None


def _term(preset: Preset, key: str) -> Optional[TermSpec]:
    return next((t for t in preset.terms if t.measurement_key == key), None)


def _guard_holds(preset: Preset, key: str) -> bool:
    """The whole target must be in frame: the bound needs every vertex of it there."""
    term = _term(preset, key)
    least = _lower_threshold(term) if term is not None else None
    return least is not None and least >= 1.0


def max_px(feature: Feature, preset: Preset, long_side_px: int) -> Optional[float]:
    """Upper bound of `feature`'s term over every frame that passes the preset's guard terms, or None
    when the preset does not require what the bound rests on."""
    if isinstance(feature, PixelCount):
        width, height = frame_resolution(LANDSCAPE, long_side_px)
        return float(width * height)
    if not _guard_holds(preset, feature.guard):
        return None
    if isinstance(feature, Chord):
        return chord_coefficient(feature.sigma, feature.alpha) * frame_diagonal_px(long_side_px)
    distance = _term(preset, feature.distance)
    least = _lower_threshold(distance) if distance is not None else None
    if not least or least <= 0:
        return None
    return range_bound_px(feature.length_m, least, long_side_px)


@dataclass(frozen=True)
class Shortfall:
    term: str
    threshold: float
    at_most: float
    min_long_side_px: Optional[int]  # the least long side whose bound reaches the threshold


def min_long_side(feature: Feature, preset: Preset, threshold: float) -> Optional[int]:
    """The least frame long side at which `feature` can reach `threshold` (bounds grow with the side)."""
    lo, hi = 1, 1
    while (max_px(feature, preset, hi) or 0.0) < threshold:
        hi *= 2
        if hi > 1 << 20:
            return None
    while lo < hi:
        mid = (lo + hi) // 2
        if (max_px(feature, preset, mid) or 0.0) >= threshold:
            hi = mid
        else:
            lo = mid + 1
    return lo


def shortfalls(env_name: str, preset: Preset, long_side_px: int, *, features: Sequence[Feature]) -> list[Shortfall]:
    """The pixel-size terms of `preset` that no frame of `env_name` (its `features`) can pass at `long_side_px`."""
    found = []
    for feature in features:
        term = _term(preset, feature.term)
        least = _lower_threshold(term) if term is not None else None
        if least is None:
            continue
        bound = max_px(feature, preset, long_side_px)
        if bound is not None and bound < least:
            found.append(Shortfall(term.name, least, bound, min_long_side(feature, preset, least)))
    return found


def _resolution_text(long_side_px: int) -> str:
    width, height = frame_resolution(LANDSCAPE, long_side_px)
    return f"{width}x{height}"


def check_positive_feasible(env_name: str, preset: Preset, long_side_px: int, *,
                            features: Sequence[Feature]) -> Optional[str]:
    """None, or one line saying why no frame of `env_name` (its `features`, envs/registry.py `features`) can be
    accepted at `long_side_px` and what to change. Call it before any work for each environment whose positive
    stratum is drawn."""
    found = shortfalls(env_name, preset, long_side_px, features=features)
    if not found:
        return None
    terms = "; ".join(f"{s.term} >= {s.threshold:g} (at most {s.at_most:.1f})" for s in found)
    needed = [s.min_long_side_px for s in found]
    if None in needed:
        change = "loosen those terms in the preset (--presets DIR)"
    else:
        # the bound is only necessary: the funnel needs far more than this to find accepted frames
        change = (f"any pose needs at least {max(needed)} px, in practice far more: use a larger --resolution "
                  f"(the paper's is {_resolution_text(REFERENCE_LONG_SIDE_PX)})")
    return f"{env_name}: no pose can pass {terms} at {long_side_px} px long side; {change} or --positive 0"


def resolution_bound_terms(features: Sequence[Feature]) -> set[str]:
    """Measurement keys of an environment (its `features`) whose values grow with the frame size."""
    return {f.term for f in features}


def positive_search_exhausted(env_name: str, slot: int, long_side_px: int, preset: Preset,
                              search: Mapping[str, int], failing: Mapping[str, int], *,
                              features: Sequence[Feature]) -> str:
    """One line for a positive slot whose funnel found no accepted frame (`features`: the environment's).

    `search`: this slot's counts (candidates, geometric_rejects, renders, image_rejects; discards);
    `failing`: term name -> how many candidates it rejected (a candidate may fail several)."""
    candidates = int(search.get("candidates", 0))
    renders = int(search.get("renders", 0))
    ranked = sorted(failing.items(), key=lambda kv: (-kv[1], kv[0]))
    top = ", ".join(f"{name} {count}" for name, count in ranked[:4]) or "none recorded"
    sized = {t.name for t in preset.terms if t.measurement_key in resolution_bound_terms(features)}
    sized |= {t.name for t in preset.terms if t.unit == "px" and _lower_threshold(t) is not None}
    px_failed = [name for name, _ in ranked[:4] if name in sized]
    if px_failed and long_side_px < REFERENCE_LONG_SIDE_PX:
        change = (f"use a larger --resolution (the paper's is {_resolution_text(REFERENCE_LONG_SIDE_PX)}; "
                  f"{', '.join(px_failed)} {'scale' if len(px_failed) > 1 else 'scales'} with it)")
    elif ranked:
        change = f"loosen {ranked[0][0]} in its preset (--presets DIR)"
    else:
        change = "check the preset"
    return (f"{env_name} positive slot {slot}: no accepted frame among {candidates} candidates at "
            f"{long_side_px} px long side ({renders} rendered; failing terms: {top}); the search is "
            f"deterministic, so a rerun fails the same way: {change}, use another --seed, or --positive 0")
