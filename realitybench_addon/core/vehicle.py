"""Procedural vehicles (pure): ten body styles as parameter profiles -> a vehicle plan -> meshes.

No vehicle meshes can be downloaded here, so every car is lofted from its body style's side
profile: cross-sections along the car (rocker, crease, beltline, greenhouse, roof) whose
heights and widths follow the style's profile, closed by end caps. The loft's faces are
split into named parts: body panels (separate targets, with real gaps at the door, hood and
trunk seams), glass, pillars, underbody; wheels and tyres, lights, grille, mirrors, door
handles, roof rails, plate mounts are added as small parts.

Vehicle frame: x forward (the front is at +length/2), y to the car's left, z up, the
origin on the ground under the middle of the body. US convention: the driver sits on the
left, so the "driver" side is +y and the "passenger" side -y.

Everything is numpy; `bl/vehicle.py` only turns the parts into Blender objects. Distances along
the car are given as `d`, metres back from the front bumper. The modules, in the order a car is made:
  vehicle.py           body styles, palette, the vehicle plan (this module)
  vehicle_loft.py      the loft: cross-sections along the car, parts and their triangles
  vehicle_panels.py    seams and zones: which loft faces belong to which body panel
  vehicle_details.py   wheels, lights, grille, mirrors, handles, rails, plate mounts
  vehicle_ends.py      the ends' relief: a bumper standing proud, a nose and tail leaning back, plate pockets
  vehicle_geometry.py  all of it assembled: `vehicle_geometry(plan)` (its panels, its plate mounts)
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .rng import pick

BODY_STYLES = ("sedan", "suv", "crossover", "pickup", "hatchback", "coupe", "wagon", "minivan", "van", "convertible")
SIDES = ("left", "right")  # +y (driver) and -y (passenger)
SEAM_GAP_M = 0.008  # the shut-line gap between panels
INNER_INSET_M = 0.05  # the dark inner shell seen through the shut lines (deeper than any dent)
HATCH_STYLES = ("hatchback", "wagon", "crossover", "suv", "minivan", "van")


@dataclass(frozen=True)
class StyleProfile:
    """A body style's dimensions and side profile (metres; `d` = distance back from the front)."""

    name: str
    length: float
    width: float  # body width without mirrors
    height: float  # roof top (windshield top for the convertible)
    wheelbase: float
    front_overhang: float  # front bumper to front axle
    tyre_radius: float
    tyre_width: float
    clearance: float  # body bottom between the axles
    belt: float  # beltline height at the windshield base
    belt_rise: float  # the beltline climbs this much from the windshield base to the tail
    crease: float  # side crease = top of the bumpers
    nose: float  # front edge of the hood
    cowl: float  # d of the windshield base
    cowl_z: float
    roof_front: float  # d of the windshield top
    roof_rear: float  # d where the roof ends (rear window top)
    deck: float  # d of the rear window base (trunk lid front); = tail for hatch styles
    deck_z: float
    tail_z: float  # top of the rear face
    tumble: float  # the greenhouse leans in this much at the roof
    corner: float  # plan-view rounding at the ends (how blunt the car is)
    front_door: float  # front door length
    rear_door: float  # rear (or sliding) door length; 0: two-door
    sliding: str = ""  # "" | "right" | "both": sliding rear doors
    open_top: bool = False  # convertible: an open cockpit between the windshield and the deck
    bed: bool = False  # pickup: cab + separate bed
    cab_end: float = 0.0  # pickup: d of the cab's back wall
    bed_floor: float = 0.0  # pickup: bed floor height
    roof_rails: bool = False
    cladding: bool = False  # black plastic along the sills (crossovers, SUVs)
    cargo: bool = False  # no side glass behind the front doors (cargo van)
    seats: int = 4
    ws_d: float = 0.0  # d of the windshield top when a body-coloured cap sits above it (vans); 0: the roof's front
    ws_z: float = 0.0
    glass_h: float = 0.62  # side glass height above the beltline (body above it)

    @property
    def rear_overhang(self) -> float:
        return self.length - self.wheelbase - self.front_overhang


PROFILES: dict[str, StyleProfile] = {
    "sedan": StyleProfile("sedan", 4.85, 1.84, 1.45, 2.83, 0.96, 0.33, 0.23, 0.14, 0.99, 0.04, 0.62, 0.80,
                          1.50, 1.00, 2.14, 3.30, 3.98, 1.05, 1.02, 0.17, 0.32, 1.08, 0.88),
    "coupe": StyleProfile("coupe", 4.70, 1.86, 1.36, 2.78, 0.95, 0.34, 0.25, 0.12, 0.93, 0.05, 0.58, 0.74,
                          1.55, 0.94, 2.25, 2.92, 4.08, 1.00, 0.98, 0.21, 0.34, 1.26, 0.0, seats=2),
    "convertible": StyleProfile("convertible", 4.55, 1.83, 1.30, 2.70, 0.92, 0.33, 0.24, 0.12, 0.92, 0.03, 0.58,
                                0.73, 1.50, 0.93, 1.92, 1.92, 3.42, 0.96, 0.95, 0.18, 0.34, 1.16, 0.0,
                                open_top=True, seats=2),
    "hatchback": StyleProfile("hatchback", 4.20, 1.79, 1.48, 2.63, 0.88, 0.31, 0.21, 0.14, 0.98, 0.05, 0.60, 0.78,
                              1.30, 0.99, 1.94, 3.56, 4.13, 1.07, 1.06, 0.16, 0.30, 1.02, 0.82),
    "wagon": StyleProfile("wagon", 4.88, 1.84, 1.50, 2.84, 0.95, 0.33, 0.23, 0.14, 0.99, 0.04, 0.62, 0.79,
                          1.48, 1.00, 2.12, 4.60, 4.84, 1.08, 1.06, 0.15, 0.30, 1.08, 0.90, roof_rails=True),
    "crossover": StyleProfile("crossover", 4.62, 1.87, 1.67, 2.72, 0.94, 0.36, 0.24, 0.19, 1.10, 0.05, 0.72, 0.93,
                              1.38, 1.11, 2.02, 4.22, 4.56, 1.17, 1.15, 0.15, 0.30, 1.04, 0.86, cladding=True),
    "suv": StyleProfile("suv", 4.98, 1.96, 1.83, 2.92, 0.92, 0.40, 0.27, 0.23, 1.22, 0.02, 0.82, 1.10,
                        1.42, 1.23, 1.98, 4.80, 4.95, 1.26, 1.25, 0.12, 0.16, 1.10, 0.92, roof_rails=True,
                        cladding=True),
    "minivan": StyleProfile("minivan", 5.16, 1.99, 1.77, 3.05, 0.98, 0.35, 0.24, 0.15, 1.03, 0.04, 0.64, 0.92,
                            1.05, 1.04, 1.95, 4.94, 5.12, 1.12, 1.10, 0.14, 0.26, 1.05, 0.98, sliding="both",
                            seats=7),
    "van": StyleProfile("van", 5.93, 2.05, 2.55, 3.66, 0.95, 0.37, 0.24, 0.17, 1.18, 0.0, 0.72, 1.02,
                        0.92, 1.20, 1.85, 5.93, 5.93, 2.50, 2.50, 0.10, 0.14, 0.98, 1.30, sliding="right",
                        cargo=True, seats=2, ws_d=1.50, ws_z=2.02, glass_h=0.72),
    "pickup": StyleProfile("pickup", 5.89, 2.03, 1.92, 3.68, 0.98, 0.40, 0.27, 0.23, 1.32, 0.0, 0.90, 1.25,
                           1.62, 1.33, 2.15, 3.42, 3.42, 1.90, 1.90, 0.13, 0.14, 0.98, 0.80, bed=True,
                           cab_end=3.42, bed_floor=0.92, seats=5),
}

# Paint colours of the lot (linear RGB), metallic flake, and how common they are on US roads.
PALETTE: dict[str, tuple[tuple[float, float, float], float, float]] = {
    "white": ((0.78, 0.78, 0.76), 0.0, 0.24),
    "black": ((0.010, 0.010, 0.011), 0.2, 0.20),
    "gray": ((0.15, 0.155, 0.16), 0.6, 0.17),
    "silver": ((0.52, 0.53, 0.54), 0.85, 0.12),
    "blue": ((0.015, 0.06, 0.28), 0.5, 0.09),
    "red": ((0.42, 0.015, 0.015), 0.3, 0.09),
    "green": ((0.025, 0.11, 0.045), 0.4, 0.03),
    "beige": ((0.42, 0.35, 0.24), 0.3, 0.03),
    "brown": ((0.10, 0.05, 0.025), 0.5, 0.02),
    "orange": ((0.65, 0.17, 0.015), 0.2, 0.01),
}
COLORS = tuple(PALETTE)
# Body styles in a US lot (the subject's style is drawn uniformly so every style is photographed).
STYLE_SHARES = {"sedan": 0.2, "suv": 0.15, "crossover": 0.2, "pickup": 0.12, "hatchback": 0.06, "coupe": 0.05,
                "wagon": 0.04, "minivan": 0.07, "van": 0.05, "convertible": 0.06}


@dataclass(frozen=True)
class Panel:
    """A body panel: a separate object and target. `area_m2` is its outer surface as built."""

    name: str
    kind: str  # door_front, door_rear, sliding_door, fender, quarter, bed_side, hood, roof, trunk, tailgate, bumper
    side: str  # left | right | center
    area_m2: float
    d_range: tuple[float, float]  # along the car
    neighbours: tuple[str, ...]  # panels sharing a seam with it


@dataclass(frozen=True)
class PlateMount:
    """Where a plate sits, in the vehicle frame: centre, outward normal, plate up."""

    end: str  # front | rear
    center: tuple[float, float, float]
    normal: tuple[float, float, float]
    up: tuple[float, float, float] = (0.0, 0.0, 1.0)


@dataclass(frozen=True)
class VehiclePlan:
    style: str
    color: str
    profile: StyleProfile  # the style's profile scaled to this vehicle
    paint_rgb: tuple[float, float, float]
    metallic: float
    seed: int  # cosmetic variation only (rim pattern)

    @property
    def length(self) -> float:
        return self.profile.length

    @property
    def width(self) -> float:
        return self.profile.width

    @property
    def height(self) -> float:
        return self.profile.height

    @property
    def label(self) -> str:
        """How a person names it: "the silver sedan"."""
        return f"{self.color} {STYLE_WORDS[self.style]}"

    def wheel_centers(self) -> list[tuple[float, float, float]]:
        p = self.profile
        x_front = p.length / 2 - p.front_overhang
        x_rear = x_front - p.wheelbase
        y = p.width / 2 - 0.03 - p.tyre_width / 2
        return [(x, s * y, p.tyre_radius) for x in (x_front, x_rear) for s in (1.0, -1.0)]

    def to_dict(self) -> dict:
        return {"style": self.style, "color": self.color, "length_m": round(self.length, 3),
                "width_m": round(self.width, 3), "height_m": round(self.height, 3)}


STYLE_WORDS = {"sedan": "sedan", "suv": "SUV", "crossover": "crossover", "pickup": "pickup truck",
               "hatchback": "hatchback", "coupe": "coupe", "wagon": "station wagon", "minivan": "minivan",
               "van": "van", "convertible": "convertible"}


def scaled_profile(style: str, scale_len: float, scale_w: float, scale_h: float) -> StyleProfile:
    """The style's profile with lengths along the car scaled by `scale_len`, widths and heights by theirs."""
    if style not in PROFILES:
        raise ValueError(f"unknown body style {style!r}; one of {', '.join(BODY_STYLES)}")
    p = PROFILES[style]
    along = ("length", "wheelbase", "front_overhang", "cowl", "roof_front", "roof_rear", "deck", "corner",
             "front_door", "rear_door", "cab_end", "ws_d")
    up = ("height", "belt", "crease", "nose", "cowl_z", "deck_z", "tail_z", "bed_floor", "ws_z", "glass_h")
    changes = {k: getattr(p, k) * scale_len for k in along}
    changes.update({k: getattr(p, k) * scale_h for k in up})
    changes["width"] = p.width * scale_w
    changes["tumble"] = p.tumble * scale_w
    return replace(p, **changes)


def draw_vehicle(rng: np.random.Generator, style: str | None = None, color: str | None = None) -> VehiclePlan:
    """One vehicle: a style (given or drawn by STYLE_SHARES), a paint colour (given or by the palette's
    shares) and a few percent of size variation within the style."""
    if style is None:
        style = pick(rng, list(STYLE_SHARES), list(STYLE_SHARES.values()))
    if style not in PROFILES:
        raise ValueError(f"unknown body style {style!r}; one of {', '.join(BODY_STYLES)}")
    if color is None:
        color = pick(rng, COLORS, [PALETTE[c][2] for c in COLORS])
    if color not in PALETTE:
        raise ValueError(f"unknown paint colour {color!r}; one of {', '.join(COLORS)}")
    s_len, s_w, s_h = (float(rng.uniform(0.97, 1.03)) for _ in range(3))
    rgb, metallic, _ = PALETTE[color]
    shade = float(rng.uniform(0.9, 1.1))
    paint = tuple(float(min(1.0, c * shade)) for c in rgb)
    return VehiclePlan(style, color, scaled_profile(style, s_len, s_w, s_h), paint, metallic,
                       int(rng.integers(0, 2 ** 31 - 1)))

