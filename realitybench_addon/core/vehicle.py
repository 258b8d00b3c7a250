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

Everything here is numpy; `bl/vehicle.py` only turns the parts into Blender objects.
Distances along the car are given as `d`, metres back from the front bumper.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np

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

    def panels(self) -> dict[str, Panel]:
        return vehicle_geometry(self).panels

    def plate_mounts(self) -> dict[str, PlateMount]:
        return vehicle_geometry(self).plate_mounts

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
        names = list(STYLE_SHARES)
        p = np.array([STYLE_SHARES[n] for n in names])
        style = names[int(rng.choice(len(names), p=p / p.sum()))]
    if style not in PROFILES:
        raise ValueError(f"unknown body style {style!r}; one of {', '.join(BODY_STYLES)}")
    if color is None:
        p = np.array([PALETTE[c][2] for c in COLORS])
        color = COLORS[int(rng.choice(len(COLORS), p=p / p.sum()))]
    if color not in PALETTE:
        raise ValueError(f"unknown paint colour {color!r}; one of {', '.join(COLORS)}")
    s_len, s_w, s_h = (float(rng.uniform(0.97, 1.03)) for _ in range(3))
    rgb, metallic, _ = PALETTE[color]
    shade = float(rng.uniform(0.9, 1.1))
    paint = tuple(float(min(1.0, c * shade)) for c in rgb)
    return VehiclePlan(style, color, scaled_profile(style, s_len, s_w, s_h), paint, metallic,
                       int(rng.integers(0, 2 ** 31 - 1)))


# ---------------------------------------------------------------------------------------------
# The loft: cross-sections along the car.

N_EDGES = 9  # per side: underside, rocker, lower side, upper side, shoulder, glass, cant rail, roof edge, roof
UNDERSIDE, ROCKER, LOWER, UPPER, SHOULDER, GREENHOUSE, CANT, ROOF_EDGE, ROOF = range(N_EDGES)
N_POINTS = N_EDGES + 1  # section points per side, bottom centre to top centre
RING = 2 * N_EDGES  # points around a closed section


def _interp(d, knots):
    xs, ys = zip(*knots)
    return np.interp(d, xs, ys)


class Profile:
    """The side profile functions of one vehicle (vectorised over `d`)."""

    def __init__(self, p: StyleProfile):
        self.p = p
        L = p.length
        ws = [(p.ws_d, p.ws_z)] if p.ws_d else []
        if p.open_top:
            self.top_knots = [(0.0, p.nose), (p.cowl, p.cowl_z), (L, p.tail_z)]
        elif p.bed:
            self.top_knots = [(0.0, p.nose), (p.cowl, p.cowl_z), *ws, (p.roof_front, p.height), (p.cab_end, p.height)]
        else:
            self.top_knots = [(0.0, p.nose), (p.cowl, p.cowl_z), *ws, (p.roof_front, p.height),
                              (p.roof_rear, p.height), (p.deck, p.deck_z), (L, p.tail_z)]
        self.wheels_d = (p.front_overhang, p.front_overhang + p.wheelbase)
        self.arch_r = p.tyre_radius + 0.055

    @property
    def windshield_top_d(self) -> float:
        return self.p.ws_d or self.p.roof_front

    def z_top(self, d):
        d = np.asarray(d, float)
        z = _interp(d, self.top_knots)
        p = self.p
        if not p.open_top:  # a little curvature along the roof
            span = max(p.roof_rear - p.roof_front, 1e-6)
            t = np.clip((d - p.roof_front) / span, 0, 1)
            z = z + 0.025 * np.sqrt(np.sin(np.pi * t))
        return z

    def half_width(self, d, inset: float = 0.0):
        p = self.p
        d = np.asarray(d, float)
        w0 = p.width / 2 - inset
        c = max(p.corner, 1e-3)
        t = np.maximum(np.clip((c - d) / c, 0, 1), np.clip((d - (p.length - c)) / c, 0, 1))
        return w0 * (0.88 + 0.12 * np.sqrt(np.clip(1 - t ** 2, 0, 1)))

    def z_bottom(self, d):
        p = self.p
        d = np.asarray(d, float)
        z = np.full(d.shape, p.clearance)
        # approach and departure: the overhangs rise towards the ends
        lift_f = np.clip((p.front_overhang - 0.35 - d) / max(p.front_overhang - 0.35, 0.1), 0, 1)
        lift_r = np.clip((d - (p.length - p.rear_overhang + 0.35)) / max(p.rear_overhang - 0.35, 0.1), 0, 1)
        z = z + 0.13 * np.maximum(lift_f, lift_r) ** 1.5
        for dw in self.wheels_d:
            inside = np.abs(d - dw) < self.arch_r
            u = np.clip(1 - ((d - dw) / self.arch_r) ** 2, 0, 1)
            z = np.where(inside, np.maximum(z, p.tyre_radius + self.arch_r * np.sqrt(u)), z)
        return z

    def belt(self, d):
        p = self.p
        t = np.clip((np.asarray(d, float) - p.cowl) / max(p.length - p.cowl, 1e-3), 0, 1)
        return p.belt + p.belt_rise * t

    def cockpit(self, d):
        """Convertible: is station d inside the open cockpit?"""
        p = self.p
        d = np.asarray(d, float)
        if not p.open_top:
            return np.zeros(d.shape, bool)
        return (d >= p.roof_front + 0.04) & (d <= p.deck)

    def sections(self, d, inset: float = 0.0, form: str = "body") -> np.ndarray:
        """Section points of stations `d`: (n, N_POINTS, 2) as (y, z) for the left side, bottom centre to top
        centre. `inset` shrinks the section (the dark inner shell seen through the shut lines)."""
        p = self.p
        d = np.atleast_1d(np.asarray(d, float))
        n = len(d)
        w = self.half_width(d, inset)
        zb = self.z_bottom(d) + inset
        zt = self.z_top(d) - inset if form != "bed" else np.full(n, p.cowl_z - inset)
        zc = np.maximum(p.crease, zb + 0.01)
        zbelt = np.maximum(np.minimum(self.belt(d), zt), zc + 0.02)
        zt = np.maximum(zt, zbelt)
        pts = np.zeros((n, N_POINTS, 2))
        pts[:, 0] = np.column_stack([np.zeros(n), zb])
        pts[:, 1] = np.column_stack([0.9 * w, zb])
        pts[:, 2] = np.column_stack([w - 0.015, zb + np.minimum(0.09, 0.5 * (zc - zb))])
        pts[:, 3] = np.column_stack([w, zc])
        pts[:, 4] = np.column_stack([w - 0.025, zbelt])
        if form == "bed":
            floor = np.full(n, p.bed_floor + inset)
            pts[:, 5] = np.column_stack([w - 0.07, zbelt])
            pts[:, 6] = pts[:, 5]
            pts[:, 7] = np.column_stack([w - 0.075, floor])
            pts[:, 8] = np.column_stack([0.5 * w, floor])
            pts[:, 9] = np.column_stack([np.zeros(n), floor])
            return pts
        h = zt - zbelt
        hmax = max(p.height - p.belt, 0.05)
        crown = 0.03
        wg = w - 0.06 - p.tumble * np.minimum(1.0, h / hmax)
        p5 = np.column_stack([w - 0.055, zbelt + np.minimum(0.012, 0.5 * h)])
        p7 = np.column_stack([wg, zbelt + np.maximum(0.6 * h, h - 0.05)])
        # the glass ends `glass_h` above the beltline; above it, body (a van's tall sides)
        t = np.clip(p.glass_h / np.maximum(p7[:, 1] - p5[:, 1], 1e-6), 0, 1)[:, None]
        pts[:, 5] = p5
        pts[:, 6] = p5 + t * (p7 - p5)
        pts[:, 7] = p7
        pts[:, 8] = np.column_stack([0.7 * wg, zt + 0.7 * crown])
        pts[:, 9] = np.column_stack([np.zeros(n), zt + crown])
        cockpit = self.cockpit(d)
        if np.any(cockpit):
            k = int(cockpit.sum())
            seat = p.clearance + 0.3
            pts[cockpit, 5] = np.column_stack([w[cockpit] - 0.07, zbelt[cockpit]])
            pts[cockpit, 6] = np.column_stack([w[cockpit] - 0.08, zbelt[cockpit] - 0.1])
            pts[cockpit, 7] = np.column_stack([w[cockpit] - 0.09, zbelt[cockpit] - 0.2])
            pts[cockpit, 8] = np.column_stack([0.5 * w[cockpit], np.full(k, seat)])
            pts[cockpit, 9] = np.column_stack([np.zeros(k), np.full(k, seat)])
        return pts

    def side_point(self, d: float, s: float, inset: float = 0.0) -> np.ndarray:
        """(y, z) of the left side's surface at station d, `s` metres up the section from the rocker (p1)."""
        sec = self.sections([d], inset)[0]
        seg = np.linalg.norm(np.diff(sec[1:6], axis=0), axis=1)
        cum = np.concatenate([[0.0], np.cumsum(seg)])
        s = float(np.clip(s, 0.0, cum[-1]))
        k = int(min(np.searchsorted(cum, s, side="right") - 1, len(seg) - 1))
        t = (s - cum[k]) / max(seg[k], 1e-9)
        return sec[1 + k] + t * (sec[2 + k] - sec[1 + k])

    def side_arc(self, d: float) -> np.ndarray:
        """Arc length from p1 at section points p1..p5 (rocker, lower side, crease, belt, shoulder)."""
        sec = self.sections([d])[0]
        return np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(sec[1:6], axis=0), axis=1))])


def _loft_ring(sections: np.ndarray) -> np.ndarray:
    """(n, N_POINTS, 2) left sections -> (n, RING, 2) closed rings in (y, z):
    bottom centre, left p1..p(N-1), top centre, right p(N-1)..p1."""
    left = sections[:, 0:N_POINTS]
    right = sections[:, N_POINTS - 2:0:-1] * np.array([-1.0, 1.0])
    return np.concatenate([left, right], axis=1)


# Ring edge index -> (section edge, side)
RING_EDGES = [(e, "left") for e in range(N_EDGES)] + [(N_EDGES - 1 - e, "right") for e in range(N_EDGES)]


@dataclass
class Part:
    """A mesh in the vehicle frame: vertices, triangles, per-triangle material keys."""

    name: str
    vertices: np.ndarray
    triangles: np.ndarray
    materials: tuple[str, ...]
    face_material: np.ndarray  # index into `materials` per triangle
    uv: np.ndarray | None = None  # per-vertex UVs (the damaged panel's texture)

    @property
    def area_m2(self) -> float:
        return float(triangle_areas(self.vertices, self.triangles).sum())


def triangle_areas(v: np.ndarray, t: np.ndarray) -> np.ndarray:
    if len(t) == 0:
        return np.zeros(0)
    return 0.5 * np.linalg.norm(np.cross(v[t[:, 1]] - v[t[:, 0]], v[t[:, 2]] - v[t[:, 0]]), axis=1)


@dataclass
class VehicleGeometry:
    parts: dict[str, Part]
    panels: dict[str, "Panel"]
    plate_mounts: dict[str, "PlateMount"]
    segments: list[tuple[float, float, str]]
    seams: dict[str, float]
    side_zones: dict[str, list]
    # side panels' outer loft quads: part -> list of (d0, d1, section edge, corners (4, 3), material)
    loft_quads: dict[str, list] = field(default_factory=dict)


def _stations(d0: float, d1: float, breaks: list[float], step: float = 0.05) -> np.ndarray:
    base = list(np.linspace(d0, d1, max(2, int(math.ceil((d1 - d0) / step)) + 1)))
    extra = [b for b in breaks if d0 < b < d1]
    return np.unique(np.round(np.array(base + extra), 6))


class _Builder:
    """Collects triangles per part."""

    def __init__(self):
        self.data: dict[str, dict] = {}

    def add(self, part: str, verts: np.ndarray, tris: np.ndarray, material: str):
        entry = self.data.setdefault(part, {"v": [], "t": [], "m": [], "n": 0})
        verts = np.asarray(verts, float).reshape(-1, 3)
        tris = np.asarray(tris, int).reshape(-1, 3)
        entry["v"].append(verts)
        entry["t"].append(tris + entry["n"])
        entry["m"] += [material] * len(tris)
        entry["n"] += len(verts)

    def add_quads(self, part: str, quads: np.ndarray, material: str):
        """quads: (k, 4, 3) corner points, counter-clockwise seen from outside."""
        q = np.asarray(quads, float).reshape(-1, 4, 3)
        if len(q) == 0:
            return
        base = 4 * np.arange(len(q))[:, None]
        tris = np.concatenate([base + [0, 1, 2], base + [0, 2, 3]])
        self.add(part, q.reshape(-1, 3), tris, material)

    def parts(self) -> dict[str, Part]:
        out = {}
        for name, e in self.data.items():
            mats = tuple(dict.fromkeys(e["m"]))
            index = {m: i for i, m in enumerate(mats)}
            v, t = np.concatenate(e["v"]), np.concatenate(e["t"])
            fm = np.array([index[m] for m in e["m"]], np.int32)
            keep = triangle_areas(v, t) > 1e-12  # drop the degenerate triangles of collapsed sections
            v, t = weld(v, t[keep])
            out[name] = Part(name, v, t, mats, fm[keep])
        return out


def weld(v: np.ndarray, t: np.ndarray, tol: float = 1e-6) -> tuple[np.ndarray, np.ndarray]:
    """Merge coincident vertices (so smooth shading runs across the loft's quads) and drop unused ones."""
    if len(t) == 0:
        return np.zeros((0, 3)), np.zeros((0, 3), int)
    used = np.unique(t)
    key = np.round(v[used] / tol).astype(np.int64)
    uniq, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    remap = np.zeros(len(v), np.int64)
    remap[used] = inverse.ravel()
    return v[used][first], remap[t]


def box_quads(lo, hi) -> np.ndarray:
    """An axis-aligned box's six faces as quads, outward."""
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    c = np.array([[x0, y0, z0], [x1, y0, z0], [x1, y1, z0], [x0, y1, z0],
                  [x0, y0, z1], [x1, y0, z1], [x1, y1, z1], [x0, y1, z1]])
    faces = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (2, 3, 7, 6), (1, 2, 6, 5), (3, 0, 4, 7)]
    return c[np.array(faces)]


def cylinder_y(center, radius: float, width: float, sides: int = 20):
    """A closed cylinder along y: (verts, tris), caps at y = cy -+ width/2, faces outward."""
    cx, cy, cz = center
    a = np.linspace(0, 2 * np.pi, sides, endpoint=False)
    ring = np.column_stack([cx + radius * np.cos(a), np.zeros(sides), cz + radius * np.sin(a)])
    y0, y1 = cy - width / 2, cy + width / 2
    v = np.vstack([ring + [0, y0, 0], ring + [0, y1, 0], [[cx, y0, cz], [cx, y1, cz]]])
    tris = []
    for j in range(sides):
        k = (j + 1) % sides
        tris += [(j, sides + k, k), (j, sides + j, sides + k)]
        tris += [(2 * sides, j, k), (2 * sides + 1, sides + k, sides + j)]
    return v, np.array(tris)


def _seams(p: StyleProfile) -> dict:
    dd0 = p.front_overhang + p.tyre_radius + 0.15
    dd1 = dd0 + p.front_door
    dd2 = dd1 + p.rear_door if p.rear_door else dd1
    if p.bed:
        dd2 = p.cab_end
    return {"bumper_front": 0.22, "bumper_rear": p.length - 0.2, "door0": dd0, "door1": dd1, "door2": dd2}


def _side_zones(p: StyleProfile, side: str, s: dict) -> list[tuple[str, str, float, float]]:
    """(panel kind, name, d0, d1) along one side, front to back."""
    zones = [("fender", 0.0, s["door0"]), ("door_front", s["door0"], s["door1"])]
    if p.bed:
        zones += [("door_rear", s["door1"], p.cab_end), ("bed_side", p.cab_end + BED_GAP_M, p.length)]
    elif p.rear_door:
        if p.sliding == "both" or p.sliding == side:
            zones += [("sliding_door", s["door1"] + 0.06, s["door2"]), ("quarter", s["door2"], p.length)]
        elif p.cargo:
            zones.append(("quarter", s["door1"] + 0.06, p.length))
        else:
            zones += [("door_rear", s["door1"], s["door2"]), ("quarter", s["door2"], p.length)]
    else:
        zones.append(("quarter", s["door1"], p.length))
    return [(k, f"{k}_{side}", a, b) for k, a, b in zones]


BED_GAP_M = 0.06  # between a pickup's cab and its bed


def _zone_at(zones, d: float) -> str:
    for _kind, name, a, b in zones:
        if a <= d <= b:
            return name
    before = [z for z in zones if z[3] <= d]  # the strip ahead of a sliding door: the door before it
    return before[-1][1] if before else zones[0][1]


PANEL_KINDS = ("fender", "door_front", "door_rear", "sliding_door", "quarter", "bed_side", "hood", "roof", "trunk",
               "tailgate", "bumper_front", "bumper_rear")


class _Classifier:
    """Which part (and material) each loft face belongs to."""

    def __init__(self, p: StyleProfile, prof: Profile, seams: dict, zones: dict):
        self.p, self.prof, self.seams, self.zones = p, prof, seams, zones
        self.trunk = "tailgate" if (p.name in HATCH_STYLES or p.bed) else "trunk"

    def greenhouse(self, d: float, side: str) -> tuple[str, str]:
        p, s = self.p, self.seams
        if p.open_top:
            return ("cockpit", "interior") if self.prof.cockpit(d) else self.top(d)
        if d < p.cowl:
            return "hood", "paint"
        if d < self.prof.windshield_top_d:
            return "pillars", "paint"  # A-pillar
        if d > p.roof_rear:
            return ("pillars", "paint") if d < p.deck else (self.trunk, "paint")
        if p.cargo and d > s["door1"]:
            return _zone_at(self.zones[side], d), "paint"
        b_pillar = p.rear_door > 0 and abs(d - s["door1"]) < 0.05
        c_pillar = p.rear_door > 0 and abs(d - s["door2"]) < 0.04 and s["door2"] < p.roof_rear - 0.15
        if b_pillar or c_pillar:
            return "pillars", "trim"
        if d > p.roof_rear - 0.1:
            return "pillars", "paint"
        return f"glass_{side}", "glass"

    def top(self, d: float) -> tuple[str, str]:
        p = self.p
        if d < p.cowl:
            return "hood", "paint"
        if p.open_top:
            if self.prof.cockpit(d):
                return "cockpit", "interior"
            return (self.trunk, "paint") if d >= p.deck else ("cowl", "paint")
        if d < self.prof.windshield_top_d:
            return "windshield", "glass"
        if d <= p.roof_rear:
            return "roof", "paint"
        if d < p.deck:
            return "rear_glass", "glass"
        return self.trunk, "paint"

    def __call__(self, form: str, d: float, e: int, side: str) -> tuple[str, str]:
        p, s = self.p, self.seams
        if e == UNDERSIDE:
            return "underbody", "chassis"
        if form == "bed":
            if e > SHOULDER:
                return "bed", "bedliner"
            if e in (ROCKER, LOWER) and d > s["bumper_rear"]:
                return "bumper_rear", "paint"
            return _zone_at(self.zones[side], d), "paint"
        if e in (ROCKER, LOWER) and d < s["bumper_front"]:
            return "bumper_front", "paint"
        if e in (ROCKER, LOWER) and d > s["bumper_rear"]:
            return "bumper_rear", "paint"
        if e <= SHOULDER:
            return _zone_at(self.zones[side], d), ("trim" if (p.cladding and e == ROCKER) else "paint")
        if e == GREENHOUSE:
            return self.greenhouse(d, side)
        if e == CANT:
            part, mat = self.greenhouse(d, side)
            if part.startswith("glass"):
                return "roof", "paint"
            return part, mat
        return self.top(d)


@lru_cache(maxsize=64)
def vehicle_geometry(plan: VehiclePlan) -> VehicleGeometry:
    """Every part of the vehicle as triangles in the vehicle frame, its panels and plate mounts."""
    p = plan.profile
    prof = Profile(p)
    L = p.length
    seams = _seams(p)
    zones = {side: _side_zones(p, side, seams) for side in SIDES}
    classify = _Classifier(p, prof, seams, zones)
    b = _Builder()
    sides4 = (ROCKER, LOWER, UPPER, SHOULDER)
    # shut lines: d -> the section edges they cut
    cuts = {seams["door0"]: sides4, seams["door1"]: sides4, seams["bumper_front"]: (ROCKER, LOWER),
            seams["bumper_rear"]: (ROCKER, LOWER)}
    if p.rear_door and not p.bed:
        cuts[seams["door2"]] = sides4 + ((GREENHOUSE, CANT) if p.cargo else ())
        if p.sliding or p.cargo:
            cuts[seams["door1"] + 0.06] = sides4 + ((GREENHOUSE, CANT) if p.cargo else ())
    tops = (GREENHOUSE, CANT, ROOF_EDGE, ROOF)
    cuts_top = {0.02: tops, p.cowl: tops}
    if classify.trunk == "trunk":
        cuts_top[p.deck] = tops
    gap = SEAM_GAP_M
    breaks = []
    for d in list(cuts) + list(cuts_top):
        breaks += [d - gap / 2, d + gap / 2]
    for dw in prof.wheels_d:
        breaks += list(np.linspace(dw - prof.arch_r, dw + prof.arch_r, 15))
    if p.open_top:
        breaks += [p.roof_front + 0.035, p.roof_front + 0.045, p.deck - 0.005, p.deck + 0.005]
    breaks += [k[0] for k in prof.top_knots]
    breaks += [seams["door1"] - 0.05, seams["door1"] + 0.05, seams["door2"] - 0.04, seams["door2"] + 0.04,
               p.roof_rear - 0.1]
    segments = [(0.0, p.cab_end, "body"), (p.cab_end + BED_GAP_M, L, "bed")] if p.bed else [(0.0, L, "body")]
    labels = {}  # (segment, station interval, ring edge) -> part name: for the panels' neighbours
    loft: dict[str, list] = {}
    for si, (s0, s1, form) in enumerate(segments):
        ds = _stations(s0, s1, [x for x in breaks if s0 < x < s1])
        n = len(ds)
        for inset in (0.0, INNER_INSET_M):
            ring = _loft_ring(prof.sections(ds, inset=inset, form=form))
            pts = np.concatenate([np.broadcast_to((L / 2 - ds)[:, None, None], (n, RING, 1)), ring], axis=2)
            for i in range(n - 1):
                dm = 0.5 * (ds[i] + ds[i + 1])
                for r in range(RING):
                    e, side = RING_EDGES[r]
                    quad = np.array([pts[i, r], pts[i + 1, r], pts[i + 1, (r + 1) % RING], pts[i, (r + 1) % RING]])
                    if inset:
                        skip = e == UNDERSIDE or (form == "bed" and e > SHOULDER) or \
                            (p.open_top and prof.cockpit(dm) and e >= GREENHOUSE)
                        if not skip:
                            b.add_quads("inner", quad[None], "inner")
                        continue
                    name, mat = classify(form, dm, e, side)
                    labels[(si, i, r)] = name
                    cut = any(abs(dm - c) < gap / 2 and e in edges for c, edges in cuts.items()) or \
                        any(abs(dm - c) < gap / 2 and e in edges for c, edges in cuts_top.items())
                    if not cut:
                        b.add_quads(name, quad[None], mat)
                        if name.endswith(SIDES) and not name.startswith("glass"):  # a side panel's quads
                            loft.setdefault(name, []).append((float(ds[i]), float(ds[i + 1]), e, quad, mat))
        # end caps: strips across the section between mirrored points (normal out of the end)
        sec_f, sec_r = prof.sections([s0], form=form)[0], prof.sections([s1], form=form)[0]
        for end, sec, x in (("front", sec_f, L / 2 - s0), ("rear", sec_r, L / 2 - s1)):
            if form == "bed":
                low, up = ("bed_front", "bed_front") if end == "front" else ("bumper_rear", "tailgate")
            elif p.bed and end == "rear":
                low, up = "cab_back", "cab_back"
            else:
                low, up = ("bumper_front", "bumper_front") if end == "front" else ("bumper_rear", classify.trunk)
            top_k = 4 if form == "bed" else N_POINTS - 1
            for k in range(top_k):
                l0, l1 = sec[k], sec[k + 1]
                quad = np.array([[x, l0[0], l0[1]], [x, -l0[0], l0[1]], [x, -l1[0], l1[1]], [x, l1[0], l1[1]]])
                if end == "front":
                    quad = quad[::-1]
                b.add_quads(low if k < 3 else up, quad[None], "paint")
    _add_details(plan, prof, seams, zones, b)
    parts = b.parts()
    panels = _panels(parts, labels, zones, p)
    return VehicleGeometry(parts, panels, _plate_mounts(p, prof), segments, seams, zones, loft)


def _panels(parts, labels, zones, p) -> dict[str, Panel]:
    def kind_of(name):
        return name[:-5] if name.endswith("_left") else name[:-6] if name.endswith("_right") else name

    names = [n for n in parts if kind_of(n) in PANEL_KINDS]
    pairs = set()
    for (si, i, r), name in labels.items():
        for key in ((si, i + 1, r), (si, i, (r + 1) % RING)):
            other = labels.get(key)
            if other is not None and other != name:
                pairs.add(tuple(sorted((name, other))))
    panels = {}
    for name in names:
        side = "left" if name.endswith("_left") else "right" if name.endswith("_right") else "center"
        d_range = next(((a, b) for z in zones.values() for _k, zname, a, b in z if zname == name), (0.0, p.length))
        neighbours = tuple(sorted({o for pair in pairs if name in pair for o in pair if o != name and o in names}))
        panels[name] = Panel(name, kind_of(name), side, parts[name].area_m2, d_range, neighbours)
    return panels


PLATE_SIZE_M = (0.305, 0.152)  # a US plate: 12 x 6 in
MOUNT_SIZE_M = (0.335, 0.18)


def _plate_mounts(p: StyleProfile, prof: Profile) -> dict[str, PlateMount]:
    """Front plate on the bumper below the grille; rear plate on the trunk/tailgate panel (the bumper on pickups)."""
    L = p.length
    zf = max(float(prof.z_bottom(0.0)) + 0.12, p.crease - 0.13)
    zr_bottom = float(prof.z_bottom(L))
    if p.bed:
        zr = max(zr_bottom + 0.11, p.crease - 0.12)
    else:
        top = float(prof.sections([L])[0, 4, 1])  # the rear face's top (the beltline at the tail)
        zr = max(zr_bottom + 0.11, min(p.crease + 0.14, top - 0.12))
    return {"front": PlateMount("front", (L / 2 + 0.004, 0.0, zf), (1.0, 0.0, 0.0)),
            "rear": PlateMount("rear", (-L / 2 - 0.004, 0.0, zr), (-1.0, 0.0, 0.0))}


def _box(b: _Builder, part: str, lo, hi, material: str) -> None:
    lo, hi = np.minimum(lo, hi), np.maximum(lo, hi)
    b.add_quads(part, box_quads(lo, hi), material)


def _add_details(plan: VehiclePlan, prof: Profile, seams: dict, zones: dict, b: _Builder) -> None:
    p = plan.profile
    L = p.length
    xf, xr = L / 2, -L / 2
    wf, wr = float(prof.half_width(0.0)), float(prof.half_width(L))
    rng_spokes = 5 + plan.seed % 3
    # wheels: tyre, dark rim well, spokes, rim lip, hub
    for (x, y, z) in plan.wheel_centers():
        sgn = 1.0 if y > 0 else -1.0
        v, t = cylinder_y((x, y, z), p.tyre_radius, p.tyre_width, 28)
        b.add("tyres", v, t, "tyre")
        rim_r = 0.64 * p.tyre_radius
        face = y + sgn * (p.tyre_width / 2)
        v, t = cylinder_y((x, face + sgn * 0.001, z), rim_r, 0.004, 28)
        b.add("rims", v, t, "wheel_dark")
        out = face + sgn * 0.005
        lip_in = 0.84 * rim_r
        a = np.linspace(0, 2 * np.pi, 29)
        for k in range(28):
            q = np.array([[x + r_ * math.cos(t_), out, z + r_ * math.sin(t_)]
                          for r_, t_ in ((lip_in, a[k]), (rim_r, a[k]), (rim_r, a[k + 1]), (lip_in, a[k + 1]))])
            b.add_quads("rims", (q if sgn < 0 else q[::-1])[None], "wheel_metal")
        for k in range(rng_spokes):
            ang = 2 * np.pi * k / rng_spokes + (plan.seed % 7) * 0.1
            radial = np.array([math.cos(ang), 0.0, math.sin(ang)])
            tangent = np.array([-math.sin(ang), 0.0, math.cos(ang)])
            c = np.array([x, out, z])
            half = 0.028 + 0.008 * (plan.seed % 3)
            q = np.array([c + radial * 0.12 * rim_r - tangent * half * 0.7, c + radial * lip_in - tangent * half,
                          c + radial * lip_in + tangent * half, c + radial * 0.12 * rim_r + tangent * half * 0.7])
            b.add_quads("rims", (q if sgn < 0 else q[::-1])[None], "wheel_metal")
        v, t = cylinder_y((x, out, z), 0.16 * rim_r, 0.01, 12)
        b.add("rims", v, t, "wheel_metal")
    # wheel wells: close the arch tunnel between the two sides of each axle
    for dw in prof.wheels_d:
        x = L / 2 - dw
        y = p.width / 2 - 0.06 - p.tyre_width
        _box(b, "underbody", (x - prof.arch_r, -y, p.clearance + 0.02), (x + prof.arch_r, y, 2 * p.tyre_radius + 0.04),
             "chassis")
    # front: headlights, indicators, grille
    nose = float(prof.sections([0.0])[0, 4, 1])
    hl_z0, hl_z1 = max(p.crease + 0.02, nose - 0.17), nose - 0.03
    upright = p.name in ("pickup", "suv", "van")
    for sgn in (1.0, -1.0):
        _box(b, "headlights", (xf - 0.01, sgn * 0.52 * wf, hl_z0), (xf + 0.012, sgn * 0.93 * wf, hl_z1), "headlight")
        _box(b, "lights_amber", (xf - 0.01, sgn * 0.8 * wf, hl_z0 - 0.055), (xf + 0.012, sgn * 0.93 * wf, hl_z0 - 0.015),
             "indicator")
    zb_front = float(prof.z_bottom(0.0))
    if upright:  # a tall grille between the headlights
        _box(b, "grille", (xf - 0.01, -0.5 * wf, max(zb_front + 0.15, p.crease - 0.12)), (xf + 0.008, 0.5 * wf, hl_z1),
             "trim")
    else:  # a grille between the headlights and an intake low in the bumper
        _box(b, "grille", (xf - 0.01, -0.42 * wf, p.crease - 0.03), (xf + 0.008, 0.42 * wf, hl_z1 - 0.03), "trim")
        _box(b, "grille", (xf - 0.01, -0.34 * wf, zb_front + 0.07), (xf + 0.008, 0.34 * wf,
                                                                     max(zb_front + 0.12, p.crease - 0.2)), "trim")
    # rear: tail lights (tall ones at the corners of hatches and vans)
    top_rear = float(prof.sections([L], form="bed" if p.bed else "body")[0, 4, 1])
    if p.name in ("suv", "van", "minivan", "crossover", "wagon"):
        tl_z1 = min(top_rear - 0.03, p.belt + 0.25)
        tl_z0 = max(p.crease + 0.02, tl_z1 - (0.5 if p.name in ("van", "minivan", "suv") else 0.25))
        inner = 0.72
    else:
        tl_z1 = top_rear - 0.04
        tl_z0 = max(p.crease + 0.02, tl_z1 - 0.18)
        inner = 0.58
    for sgn in (1.0, -1.0):
        _box(b, "taillights", (xr - 0.012, sgn * inner * wr, tl_z0), (xr + 0.01, sgn * 0.95 * wr, tl_z1), "taillight")
    # mirrors at the windshield base, door handles on every door
    for sgn in (1.0, -1.0):
        side = "left" if sgn > 0 else "right"
        d = p.cowl + (0.1 if p.open_top else 0.14)
        w = float(prof.half_width(d))
        z = float(prof.belt(d)) + 0.05
        x = L / 2 - d
        _box(b, "mirrors", (x - 0.14, sgn * (w - 0.06), z), (x, sgn * (w + 0.17), z + 0.13), "paint")
        _box(b, "mirrors", (x - 0.13, sgn * (w - 0.04), z - 0.03), (x - 0.03, sgn * (w + 0.02), z + 0.01), "trim")
        for kind, _name, _a, dd in zones[side]:
            if kind in ("door_front", "door_rear", "sliding_door"):
                dh = dd - 0.17
                sec = prof.sections([dh])[0]
                zh = float(sec[4, 1]) - 0.1
                wh = float(np.interp(zh, [sec[3, 1], sec[4, 1]], [sec[3, 0], sec[4, 0]]))
                xh = L / 2 - dh
                _box(b, "handles", (xh - 0.13, sgn * (wh - 0.01), zh), (xh, sgn * (wh + 0.018), zh + 0.03), "trim")
        if p.sliding == "both" or p.sliding == side:
            # the sliding door's track along the quarter panel, under the rear side window
            d0, d1 = seams["door2"] + 0.02, L - p.rear_overhang + 0.2
            sec = prof.sections([d0])[0]
            z = float(sec[4, 1]) - 0.02
            w = float(sec[4, 0])
            _box(b, "trim_strips", (L / 2 - d1, sgn * (w - 0.02), z - 0.03), (L / 2 - d0, sgn * (w + 0.008), z), "trim")
    if p.roof_rails:
        d0, d1 = p.roof_front + 0.25, p.roof_rear - 0.12
        dm = 0.5 * (d0 + d1)
        sec = prof.sections([dm])[0]
        z = float(sec[8, 1])
        for sgn in (1.0, -1.0):
            y = sgn * float(sec[8, 0]) * 1.02
            _box(b, "roof_rails", (L / 2 - d1, y - 0.02, z + 0.035), (L / 2 - d0, y + 0.02, z + 0.06), "trim")
            for dd in (d0 + 0.02, d1 - 0.07):
                _box(b, "roof_rails", (L / 2 - dd - 0.05, y - 0.02, z - 0.02), (L / 2 - dd, y + 0.02, z + 0.04), "trim")
    if p.cladding:  # black wheel-arch flares
        for dw in prof.wheels_d:
            a = np.linspace(0.0, np.pi, 13)
            for sgn in (1.0, -1.0):
                for k in range(12):
                    q = []
                    for r_, t_ in ((prof.arch_r, a[k]), (prof.arch_r + 0.07, a[k]), (prof.arch_r + 0.07, a[k + 1]),
                                   (prof.arch_r, a[k + 1])):
                        dd = dw - r_ * math.cos(t_)
                        zz = p.tyre_radius + r_ * math.sin(t_)
                        sec = prof.sections([dd])[0]
                        ww = float(np.interp(zz, sec[1:5, 1], sec[1:5, 0])) + 0.01
                        q.append([L / 2 - dd, sgn * ww, zz])
                    q = np.array(q)
                    b.add_quads("cladding", (q if sgn < 0 else q[::-1])[None], "trim")
    if p.open_top:
        _convertible_details(p, prof, b)
    if p.bed:  # the cab's rear window on its back wall
        x = L / 2 - p.cab_end - 0.004
        z0, z1 = p.belt + 0.1, p.height - 0.12
        w = float(prof.half_width(p.cab_end)) - 0.06 - p.tumble * 0.5
        b.add_quads("rear_glass", np.array([[[x, w * 0.8, z0], [x, -w * 0.8, z0], [x, -w * 0.72, z1],
                                             [x, w * 0.72, z1]]]), "glass")
    if p.name == "van":  # the rear doors' windows and their centre shut line
        x = xr - 0.004
        for sgn in (1.0, -1.0):
            y0, y1 = sorted((sgn * 0.08, sgn * 0.78 * wr))
            b.add_quads("rear_glass", np.array([[[x, y0, p.belt + 0.15], [x, y0, p.belt + 0.8],
                                                 [x, y1, p.belt + 0.8], [x, y1, p.belt + 0.15]]]), "glass")
        _box(b, "trim_strips", (xr - 0.006, -0.005, p.crease), (xr + 0.001, 0.005, p.height - 0.06), "inner")


def _convertible_details(p: StyleProfile, prof: Profile, b: _Builder) -> None:
    L = p.length
    # the windshield: a raked pane in a painted frame, from the cowl to the windshield top
    d0, d1 = p.cowl + 0.03, p.roof_front
    z0, z1 = p.cowl_z + 0.01, p.height
    w0 = float(prof.half_width(d0)) - 0.09
    w1 = w0 - 0.1
    x0, x1 = L / 2 - d0, L / 2 - d1
    pane = np.array([[x0, -w0, z0], [x0, w0, z0], [x1, w1, z1], [x1, -w1, z1]])
    b.add_quads("windshield", pane[None], "glass")
    b.add_quads("windshield", (pane[::-1] - [0.005, 0, 0])[None], "glass")
    f = 0.04
    for sgn in (1.0, -1.0):
        q = np.array([[x0, sgn * w0, z0], [x0, sgn * (w0 + f), z0], [x1, sgn * (w1 + f), z1], [x1, sgn * w1, z1]])
        for off in (0.0, -0.006):
            b.add_quads("windshield_frame", (q + [off, 0, 0])[None], "paint")
            b.add_quads("windshield_frame", (q[::-1] + [off, 0, 0])[None], "paint")
    _box(b, "windshield_frame", (x1 - 0.04, -w1 - f, z1 - 0.01), (x1 + 0.02, w1 + f, z1 + 0.025), "paint")
    # seats with headrests, and the folded soft top behind them
    seat_z = p.clearance + 0.3
    back_x = L / 2 - (p.roof_front + 0.9)
    for sgn in (1.0, -1.0):
        yc = sgn * 0.21 * p.width
        _box(b, "seats", (back_x - 0.12, yc - 0.25, seat_z), (back_x, yc + 0.25, p.belt + 0.16), "seat")
        _box(b, "seats", (back_x, yc - 0.24, seat_z), (back_x + 0.5, yc + 0.24, seat_z + 0.15), "seat")
        _box(b, "seats", (back_x - 0.1, yc - 0.13, p.belt + 0.19), (back_x - 0.02, yc + 0.13, p.belt + 0.36), "seat")
    xs = L / 2 - p.deck
    _box(b, "soft_top", (xs, -0.42 * p.width, p.belt - 0.08), (xs + 0.32, 0.42 * p.width, p.belt + 0.11), "softtop")
