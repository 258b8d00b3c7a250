"""Drawing a house (pure): its wings, roof types, pitches and chimney from the scene's Generator."""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from .house import HOUSE_SHAPES, Chimney, HousePlan, Wing, roof_height_at
from .rng import choose
from .roof import BRICK_COLORS, INCH, SHINGLE_COLORS, SIDING_COLORS


def _wing(name, center, axis, length, width, eave_z, roof, pitch, rng, **extra) -> Wing:
    return Wing(name, (float(center[0]), float(center[1])), float(axis), float(length), float(width), float(eave_z),
                roof, float(pitch), float(rng.uniform(0.3, 0.55)), float(rng.uniform(0.15, 0.35)),
                **{k: float(v) for k, v in extra.items()})


def _pitch(rng, lo=4.0, hi=10.0) -> float:
    return math.degrees(math.atan(float(rng.uniform(lo, hi)) / 12.0))


ONE_STOREY = (2.6, 3.05)
TWO_STOREY = (5.2, 5.9)


def draw_house(rng: np.random.Generator, shape: Optional[str] = None) -> HousePlan:
    """Draw a house of `shape` (default: any of HOUSE_SHAPES, uniformly), centred on the origin with its
    main ridge along a random azimuth."""
    shape = shape or choose(rng, HOUSE_SHAPES)
    if shape not in HOUSE_SHAPES:
        raise ValueError(f"unknown house shape {shape!r}; expected one of {', '.join(HOUSE_SHAPES)}")
    axis = float(rng.uniform(0.0, 180.0))
    one = float(rng.uniform(*ONE_STOREY))
    two = float(rng.uniform(*TWO_STOREY))
    L = float(rng.uniform(10.0, 16.0))
    W = float(rng.uniform(7.0, 10.0))
    p = _pitch(rng)
    c = (0.0, 0.0)
    rad = math.radians(axis)
    along = np.array([math.cos(rad), math.sin(rad)])
    across = np.array([-math.sin(rad), math.cos(rad)])
    wings: list[Wing]
    if shape == "gable":
        wings = [_wing("Main", c, axis, L, W, one, "gable", p, rng)]
    elif shape == "two_storey_gable":
        wings = [_wing("Main", c, axis, L, W, two, "gable", _pitch(rng, 5.0, 10.0), rng)]
    elif shape == "hip":
        wings = [_wing("Main", c, axis, L, W, one, "hip", p, rng)]
    elif shape == "two_storey_hip":
        wings = [_wing("Main", c, axis, L, W, two, "hip", _pitch(rng, 4.0, 8.0), rng)]
    elif shape == "pyramid":
        side = float(rng.uniform(8.5, 11.0))
        wings = [_wing("Main", c, axis, side, side, float(rng.choice([one, two])), "pyramid", _pitch(rng, 5.0, 10.0),
                       rng)]
    elif shape == "shed":
        wings = [_wing("Main", c, axis, L, float(rng.uniform(6.0, 8.5)), one, "shed", _pitch(rng, 3.0, 6.0), rng)]
    elif shape == "saltbox":
        wings = [_wing("Main", c, axis, L, W, two, "saltbox", _pitch(rng, 6.0, 10.0), rng,
                       ridge_fraction=rng.uniform(0.36, 0.44))]
    elif shape == "gambrel":
        wings = [_wing("Main", c, axis, L, W, one, "gambrel", float(rng.uniform(55.0, 65.0)), rng,
                       upper_pitch_deg=rng.uniform(18.0, 28.0), break_fraction=rng.uniform(0.28, 0.4))]
    elif shape == "cross_gable":
        # a narrower gable crossing the main one, both ways out past its walls
        w2 = W * float(rng.uniform(0.6, 0.85))
        l2 = W + 2 * float(rng.uniform(2.0, 4.0))
        shift = float(rng.uniform(-0.2, 0.2)) * (L - w2)
        main = _wing("Main", c, axis, L, W, one, "gable", p, rng)
        cross = _wing("Cross", along * shift, axis + 90.0, l2, w2, one, "gable", p, rng)
        wings = [main, cross]
    elif shape == "t_gable":
        # a front wing from the main ridge line out past the front wall, at the middle
        w2 = W * float(rng.uniform(0.55, 0.8))
        ext = float(rng.uniform(3.0, 6.0))
        shift = float(rng.uniform(-0.2, 0.2)) * (L - w2)
        l2 = W / 2 + ext
        center = along * shift - across * (l2 / 2)
        wings = [_wing("Main", c, axis, L, W, one, "gable", p, rng),
                 _wing("Front", center, axis + 90.0, l2, w2, one, "gable", p, rng)]
    elif shape in ("l_gable", "l_hip"):
        roof = "gable" if shape == "l_gable" else "hip"
        w2 = W * float(rng.uniform(0.7, 0.95))
        ext = float(rng.uniform(4.0, 8.0))
        l2 = W / 2 + ext
        if roof == "hip":
            l2 = max(l2, w2)  # a hip roof's wing is at least as long as it is wide
        end = float(rng.choice([-1.0, 1.0]))
        center = along * end * (L / 2 - w2 / 2) - across * (l2 / 2)
        wings = [_wing("Main", c, axis, L, W, one, roof, p, rng),
                 _wing("Wing", center, axis + 90.0, l2, w2, one, roof, p, rng)]
    else:  # gable_with_garage: a lower, narrower gable along the main axis past one end wall
        wg = W * float(rng.uniform(0.65, 0.85))
        lg = float(rng.uniform(6.0, 7.5))
        end = float(rng.choice([-1.0, 1.0]))
        center = along * end * (L / 2 + lg / 2 - 0.5) + across * float(rng.uniform(-0.5, 0.5)) * (W - wg) / 2
        main_eave = float(rng.choice([one, two]))
        wings = [_wing("Main", c, axis, L, W, main_eave, "gable", p, rng),
                 _wing("Garage", center, axis, lg + 0.5, wg, min(one, main_eave) - 0.15, "gable", p, rng)]
    chimney = _draw_chimney(rng, wings[0]) if rng.random() < 0.5 else None
    return HousePlan(
        shape=shape, wings=tuple(wings), chimney=chimney,
        siding="lap" if rng.random() < 0.65 else "brick", wall_color=choose(rng, SIDING_COLORS),
        brick_color=choose(rng, BRICK_COLORS), shingle_color=choose(rng, SHINGLE_COLORS),
        trim_color=tuple(float(x) for x in choose(rng, [(0.75, 0.75, 0.73), (0.62, 0.6, 0.55), (0.2, 0.2, 0.2)])),
        shingle_exposure_m=float(rng.uniform(5.0, 5.625)) * INCH, shingle_tab_m=12 * INCH)


def _draw_chimney(rng: np.random.Generator, w: Wing) -> Chimney:
    """A brick chimney through the main wing's roof, near one end, on either slope; its top stands
    0.6-1.1 m above the roof at its upper side."""
    width, depth = float(rng.uniform(0.55, 0.9)), float(rng.uniform(0.55, 0.8))
    end = float(rng.choice([-1.0, 1.0]))
    x = end * float(rng.uniform(0.25, 0.42)) * w.length_m
    if w.roof in ("hip", "pyramid"):
        x = end * float(rng.uniform(0.0, 0.2)) * max(w.length_m - w.width_m, 0.5)
    y = float(rng.uniform(-0.3, 0.3)) * w.width_m
    center = w.to_world([[x, y, 0.0]])[0][:2]
    house = HousePlan("probe", (w,), None, "lap", "white", "red", "charcoal", (0.7, 0.7, 0.7), 0.13, 0.3)
    a = math.radians(w.axis_deg)
    corners = [center + sx * width / 2 * np.array([math.cos(a), math.sin(a)])
               + sy * depth / 2 * np.array([-math.sin(a), math.cos(a)]) for sx in (-1, 1) for sy in (-1, 1)]
    z = roof_height_at(house, np.asarray(corners))
    roof_top = float(np.nanmax(z)) if np.any(np.isfinite(z)) else w.ridge_z
    return Chimney((float(center[0]), float(center[1])), float(w.axis_deg), width, depth, float(w.eave_z - 0.5),
                   roof_top + float(rng.uniform(0.6, 1.1)))
