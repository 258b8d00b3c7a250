"""How a roof's shingles have aged: which slope carries algae streaks, how strong and how far down they run,
and where the wear and dirt patterns sit. Pure numbers for `bl.materials.shingle` (no bpy).

Everything here is drawn from a child generator of the plan's own seed (`bl.roof._plan_seed`), never from the
scene's generator, so the shingles' cosmetic look moves nothing that is measured.

Algae (Gloeocapsa magma) grows where a slope stays damp: on the slope facing away from the sun, so in this
scene's terms the slope whose downhill direction points away from the sun's azimuth. The streaks start at the
ridge and run down the slope (rain carries the spores), darkest at the top.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

ALGAE_CHANCE = 0.8  # a shaded slope carries streaks this often; the rest of the roofs are clean
_STREAM = 0x41A16AE  # keys the child stream of the plan's seed


@dataclass(frozen=True)
class AlgaeStreaks:
    """Dark streaks below the ridge at v = `ridge_v` (roof coordinates, metres)."""

    strength: float  # darkening at the ridge, 0..1 (a mix factor towards the algae's colour)
    reach_m: float  # how far below the ridge the longest streaks run
    cover: float  # fraction of the ridge's length the streaks cover
    ridge_v: float
    offset: float  # shifts the streak pattern along the eave: every roof's streaks stand elsewhere

    def as_tuple(self) -> tuple[float, float, float, float, float]:
        return (self.strength, self.reach_m, self.cover, self.ridge_v, self.offset)


@dataclass(frozen=True)
class ShingleWear:
    """One slope's aging: its algae streaks (None: a clean slope) and the offset of its wear and dirt noise."""

    algae: AlgaeStreaks | None
    wear_offset: float  # shifts the granule-loss and dirt patterns: no two slopes look alike
    wear: float  # 0..1: how much of the slope shows granule loss and grime


def slope_faces_away_from_sun(downhill_azimuth_deg: float, sun_azimuth_deg: float) -> bool:
    """True where a slope whose downhill side points to `downhill_azimuth_deg` is turned from the sun
    (azimuths as in `bl.sky.sun_direction`: 0 is -Y, 90 is +X)."""
    d = math.radians(downhill_azimuth_deg - sun_azimuth_deg)
    return math.cos(d) < 0.0


# the array's plane runs downhill towards -Y (azimuth 0); a gable's back plane towards +Y (azimuth 180)
SLOPE_DOWNHILL_AZIMUTH = {"front": 0.0, "back": 180.0}


def roof_wear(seed: int, style: str, sun_azimuth_deg: float, slope_length_m: float) -> dict[str, ShingleWear]:
    """Each slope's `ShingleWear` ("front", and "back" on a gable), fixed by `seed` (the plan's cosmetic seed).
    Only a slope turned from the sun grows algae."""
    rng = np.random.default_rng([int(seed) % (2 ** 32), _STREAM])
    has_algae = bool(rng.random() < ALGAE_CHANCE)
    strength, reach, cover = rng.uniform([0.6, 0.3, 0.35], [0.95, 0.75, 0.8])
    slopes = ("front", "back") if style == "gable" else ("front",)
    out = {}
    for name in slopes:
        offset, wear = rng.uniform([0.0, 0.3], [100.0, 1.0])
        algae = None
        if has_algae and slope_faces_away_from_sun(SLOPE_DOWNHILL_AZIMUTH[name], sun_azimuth_deg):
            algae = AlgaeStreaks(float(strength), float(reach * slope_length_m), float(cover),
                                 float(slope_length_m), float(offset))
        out[name] = ShingleWear(algae, float(offset + 37.0), float(wear))
    return out
