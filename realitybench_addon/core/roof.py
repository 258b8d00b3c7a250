"""The roof scene as a plan: every dimension drawn from a Generator, no bpy.

Roof coordinates (u, v, h) on the array's roof plane: u along the eave, v up the slope
from the eave, h along the outward normal from the shingle surface. World axes: X along
the eave, the slope rising towards +Y, Z up; the eave's left end at `origin`.

The plan holds what the scene *is* (so ground truth is read from it, never guessed from
a render) and how to place each part; `bl/roof.py` turns it into Blender objects.
Lengths in metres, angles in degrees.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Optional

import numpy as np

from .rng import choose

INCH = 0.0254
SHINGLE_COLORS = {  # linear albedo of the granules
    "charcoal": (0.045, 0.045, 0.05),
    "weathered_wood": (0.11, 0.095, 0.075),
    "driftwood": (0.16, 0.14, 0.11),
    "slate_gray": (0.09, 0.1, 0.11),
    "brown": (0.09, 0.06, 0.04),
    "black": (0.025, 0.025, 0.028),
}
SIDING_COLORS = {"white": (0.7, 0.7, 0.68), "beige": (0.55, 0.48, 0.36), "gray_blue": (0.3, 0.36, 0.42),
                 "sage": (0.36, 0.42, 0.32), "yellow": (0.7, 0.6, 0.3)}
BRICK_COLORS = {"red": (0.35, 0.1, 0.06), "brown": (0.22, 0.12, 0.07), "tan": (0.45, 0.33, 0.2)}


@dataclass(frozen=True)
class RoofFrame:
    origin: tuple[float, float, float]
    pitch_deg: float

    @property
    def axes(self) -> np.ndarray:
        """Columns: u (along the eave), v (up the slope), n (outward normal)."""
        p = math.radians(self.pitch_deg)
        return np.array([[1.0, 0.0, 0.0], [0.0, math.cos(p), -math.sin(p)], [0.0, math.sin(p), math.cos(p)]])

    def to_world(self, uvh) -> np.ndarray:
        uvh = np.asarray(uvh, float)
        return np.asarray(self.origin) + uvh @ self.axes.T

    def to_roof(self, points) -> np.ndarray:
        return (np.asarray(points, float) - np.asarray(self.origin)) @ self.axes

    def matrix(self, u: float, v: float, h: float = 0.0) -> np.ndarray:
        """Object matrix at roof point (u, v, h): local X = u, Y = v (up the slope), Z = the roof normal."""
        m = np.eye(4)
        m[:3, :3] = self.axes
        m[:3, 3] = self.to_world([u, v, h])
        return m

    @property
    def normal(self) -> np.ndarray:
        return self.axes[:, 2]


@dataclass(frozen=True)
class Attachment:
    """An L-foot on a rail, lag-bolted through flashing into a rafter."""

    index: int
    row: int
    rail: int  # 0: lower rail of the row, 1: upper
    u: float
    v: float
    lag_present: bool = True
    flashing_present: bool = True


@dataclass(frozen=True)
class Wire:
    """A lead wire or the trunk cable: a polyline centreline in roof coordinates and its radius."""

    name: str
    points_uvh: tuple[tuple[float, float, float], ...]
    radius_m: float
    kind: str = "lead"  # lead | trunk


@dataclass(frozen=True)
class RoofPlan:
    pitch_rise_per_12: float
    style: str  # gable | shed
    eave_length_m: float
    slope_length_m: float  # eave to ridge along the array's plane
    eave_height_m: float
    overhang_m: float
    siding: str  # lap | brick
    wall_color: str  # siding colour
    brick_color: str
    shingle_color: str
    shingle_exposure_m: float
    shingle_tab_m: float
    chimney: Optional[tuple[float, float, float, float, float]]  # u, v, width, depth, height above roof
    ladder_u: float
    # array
    module_length_m: float  # along the slope (portrait)
    module_width_m: float
    module_thickness_m: float
    module_gap_m: float
    rows: int
    cols: int
    installed_cols: int  # columns already carrying modules; the rest are bare rails (work in progress)
    array_u0: float
    array_v0: float
    foot_height_m: float  # L-foot: roof surface to rail bottom
    rail_height_m: float
    rail_offsets: tuple[float, float]  # rail positions as fractions of the module length from its lower edge
    rafter_spacing_m: float
    rafter_u0: float
    attachments: tuple[Attachment, ...]
    junction_boxes: tuple[tuple[int, int, float, float], ...]  # (row, col, u, v) on installed modules' backs
    wires: tuple[Wire, ...]
    touching_wire: Optional[str]
    sun_elevation_deg: float
    sun_azimuth_deg: float
    sun_strength: float

    @property
    def pitch_deg(self) -> float:
        return math.degrees(math.atan(self.pitch_rise_per_12 / 12.0))

    @property
    def frame(self) -> RoofFrame:
        return RoofFrame((0.0, 0.0, self.eave_height_m), self.pitch_deg)

    @property
    def module_bottom_h(self) -> float:
        """Height of a module's underside above the shingle surface (the true tape gap)."""
        return self.foot_height_m + self.rail_height_m

    def module_origin(self, row: int, col: int) -> tuple[float, float]:
        """Lower-left corner (u, v) of a module."""
        return (self.array_u0 + col * (self.module_width_m + self.module_gap_m),
                self.array_v0 + row * (self.module_length_m + self.module_gap_m))

    def installed(self, row: int, col: int) -> bool:
        return col < self.installed_cols

    @property
    def array_u1(self) -> float:
        return self.array_u0 + self.cols * self.module_width_m + (self.cols - 1) * self.module_gap_m

    def rail_v(self, row: int, rail: int) -> float:
        return self.module_origin(row, 0)[1] + self.rail_offsets[rail] * self.module_length_m

    def to_dict(self) -> dict:
        return asdict(self)


def catenary_sag(a, b, sag: float, n: int = 24) -> np.ndarray:
    """Points of a cable hanging between roof points a and b (u, v, h), sagging `sag` metres below
    their chord at mid-span (a parabola, which a shallow catenary is to first order)."""
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    t = np.linspace(0.0, 1.0, n)[:, None]
    pts = a + (b - a) * t
    pts[:, 2] -= 4 * sag * (t[:, 0] * (1 - t[:, 0]))
    return pts


def rest_on_roof(points: np.ndarray, radius: float) -> np.ndarray:
    """A cable lying on the shingles: no part of it below the surface."""
    pts = np.array(points, float)
    pts[:, 2] = np.maximum(pts[:, 2], radius)
    return pts


@dataclass(frozen=True)
class _ArrayLayout:
    """The drawn roof and array dimensions the later steps of `draw_roof_plan` place things by."""
    rise: float
    style: str
    module_length: float
    module_width: float
    gap: float
    rows: int
    cols: int
    eave_length: float
    slope_length: float
    array_u0: float
    array_v0: float
    foot_height: float
    rail_height: float
    rail_offsets: tuple[float, float]
    rafter_spacing: float
    rafter_u0: float
    feet_every: int
    installed_cols: int

    @property
    def u1(self) -> float:
        """The array's far edge along the eave."""
        return self.array_u0 + self.cols * self.module_width + (self.cols - 1) * self.gap


def _draw_layout(rng: np.random.Generator, partial_install_share: float, min_installed_cols: int) -> _ArrayLayout:
    rise = float(rng.uniform(4.0, 10.0))
    style = "gable" if rng.random() < 0.7 else "shed"
    module_length = float(rng.uniform(1.65, 1.80))
    module_width = float(rng.uniform(0.99, 1.13))
    gap = float(rng.uniform(0.015, 0.025))
    rows = int(rng.choice([1, 2, 2, 3]))
    cols = int(rng.integers(3, 8))
    setback_edge = float(rng.uniform(0.3, 0.9))
    eave_length = max(float(rng.uniform(8.0, 14.0)), cols * (module_width + gap) + 2 * setback_edge + 0.5)
    array_v0 = float(rng.uniform(0.35, 0.9))
    ridge_setback = float(rng.uniform(0.45, 0.95))
    slope_length = max(float(rng.uniform(4.2, 6.5)), array_v0 + rows * (module_length + gap) + ridge_setback)
    array_u0 = float(rng.uniform(setback_edge, eave_length - setback_edge - cols * (module_width + gap)))
    foot_height = float(rng.uniform(0.055, 0.10))
    rail_height = float(rng.uniform(0.03, 0.045))
    rail_offsets = (float(rng.uniform(0.18, 0.26)), float(rng.uniform(0.74, 0.82)))
    rafter_spacing = float(choose(rng, [16 * INCH, 24 * INCH]))
    rafter_u0 = float(rng.uniform(0.0, rafter_spacing))
    feet_every = 2 if rafter_spacing < 0.5 else 1  # feet on every other 16 in rafter, every 24 in rafter
    installed_cols = int(rng.integers(min_installed_cols, cols)) if rng.random() < partial_install_share else cols
    return _ArrayLayout(rise, style, module_length, module_width, gap, rows, cols, eave_length, slope_length,
                        array_u0, array_v0, foot_height, rail_height, rail_offsets, rafter_spacing, rafter_u0,
                        feet_every, installed_cols)


def _draw_attachments(rng: np.random.Generator, lay: _ArrayLayout, lag_missing_share: float,
                      flashing_missing_share: float) -> list[Attachment]:
    """An L-foot on every (other) rafter under each rail, each missing its lag or flashing by the shares."""
    attachments = []
    for row in range(lay.rows):
        for rail in range(2):
            v = lay.array_v0 + row * (lay.module_length + lay.gap) + lay.rail_offsets[rail] * lay.module_length
            k0 = math.ceil((lay.array_u0 + 0.15 - lay.rafter_u0) / lay.rafter_spacing)
            k1 = math.floor((lay.u1 - 0.15 - lay.rafter_u0) / lay.rafter_spacing)
            for k in range(k0, k1 + 1, lay.feet_every):
                u = lay.rafter_u0 + k * lay.rafter_spacing
                attachments.append(Attachment(len(attachments), row, rail, float(u), float(v),
                                              lag_present=bool(rng.random() >= lag_missing_share),
                                              flashing_present=bool(rng.random() >= flashing_missing_share)))
    return attachments


def _draw_leads(rng: np.random.Generator, lay: _ArrayLayout, wire_radius: float) -> tuple[list[Wire], list]:
    """Each installed module's junction box and its two leads, which run to connectors near the next
    module's box."""
    wires, junction_boxes = [], []
    module_bottom = lay.foot_height + lay.rail_height
    for row in range(lay.rows):
        for col in range(min(lay.installed_cols, lay.cols)):
            mu = lay.array_u0 + col * (lay.module_width + lay.gap)
            mv = lay.array_v0 + row * (lay.module_length + lay.gap)
            jb_u = mu + lay.module_width * 0.5
            jb_v = mv + lay.module_length * float(rng.uniform(0.75, 0.85))
            start_h = module_bottom - 0.025
            junction_boxes.append((row, col, float(jb_u), float(jb_v)))
            for side, du in (("pos", -0.18), ("neg", 0.18)):
                end_u = jb_u + du + float(rng.normal(0, 0.03))
                end_v = jb_v - float(rng.uniform(0.15, 0.45))
                sag = float(rng.uniform(0.01, 0.06))
                pts = catenary_sag([jb_u + du * 0.3, jb_v, start_h], [end_u, end_v, start_h - 0.005], sag)
                name = f"Lead_r{row}c{col}_{side}"
                wires.append(Wire(name, tuple(map(tuple, pts.tolist())), wire_radius))
    return wires, junction_boxes


def _sag_onto_roof(rng: np.random.Generator, wires: list[Wire], module_bottom: float) -> str:
    """Let one drawn lead sag far enough to lie on the shingles (in place); its name."""
    i = int(rng.integers(len(wires)))
    w = wires[i]
    pts = np.array(w.points_uvh)
    drop = module_bottom  # sag far enough to reach the shingles
    t = np.linspace(0, 1, len(pts))
    pts[:, 2] -= drop * 4 * t * (1 - t) * float(rng.uniform(1.05, 1.6))
    wires[i] = Wire(w.name, tuple(map(tuple, rest_on_roof(pts, w.radius_m).tolist())), w.radius_m)
    return w.name


def _trunk_cable(rng: np.random.Generator, lay: _ArrayLayout) -> Wire:
    """The trunk cable along the lower rail of the first row, tied under it."""
    v = lay.array_v0 + lay.rail_offsets[0] * lay.module_length
    trunk_r = float(rng.uniform(0.006, 0.009))
    pts = catenary_sag([lay.array_u0 + 0.1, v - 0.03, lay.foot_height - trunk_r - 0.002],
                       [lay.u1 - 0.1, v - 0.03, lay.foot_height - trunk_r - 0.002], 0.0, n=8)
    return Wire("Trunk", tuple(map(tuple, pts.tolist())), trunk_r, kind="trunk")


def _draw_wires(rng: np.random.Generator, lay: _ArrayLayout, touching_share: float) -> tuple[list, list, str | None]:
    """The leads (one maybe sagging onto the shingles), the trunk cable; the junction boxes; the touching
    lead's name or None."""
    wire_radius = float(rng.uniform(0.0035, 0.0045))
    touching_wire = None
    want_touch = rng.random() < touching_share
    wires, junction_boxes = _draw_leads(rng, lay, wire_radius)
    if want_touch and wires:
        touching_wire = _sag_onto_roof(rng, wires, lay.foot_height + lay.rail_height)
    if lay.rows and lay.installed_cols:
        wires.append(_trunk_cable(rng, lay))
    return wires, junction_boxes, touching_wire


def _draw_chimney(rng: np.random.Generator, lay: _ArrayLayout):
    """A chimney (u, v, width, depth, height) away from the array, left or right of it; or None."""
    if not rng.random() < 0.5:
        return None
    w, d = float(rng.uniform(0.5, 0.9)), float(rng.uniform(0.5, 0.8))
    spots = []
    if lay.array_u0 > w + 0.6:
        spots.append((float(rng.uniform(0.3, lay.array_u0 - w - 0.3)),
                      float(rng.uniform(0.5, lay.slope_length - d - 0.3))))
    if lay.eave_length - lay.u1 > w + 0.6:
        spots.append((float(rng.uniform(lay.u1 + 0.3, lay.eave_length - w - 0.3)),
                      float(rng.uniform(0.5, lay.slope_length - d - 0.3))))
    if not spots:
        return None
    cu, cv = spots[int(rng.integers(len(spots)))]
    return (cu, cv, w, d, float(rng.uniform(0.6, 1.2)))


def draw_roof_plan(rng: np.random.Generator, *, partial_install_share: float = 0.5, lag_missing_share: float = 0.15,
                   flashing_missing_share: float = 0.12, touching_share: float = 0.45,
                   min_installed_cols: int = 1) -> RoofPlan:
    """Draw a roof. `partial_install_share`: scenes where some columns still show bare rails (work in
    progress); the missing shares are per attachment; `touching_share`: scenes where one lead wire
    sags onto the shingles."""
    lay = _draw_layout(rng, partial_install_share, min_installed_cols)
    attachments = _draw_attachments(rng, lay, lag_missing_share, flashing_missing_share)
    wires, junction_boxes, touching_wire = _draw_wires(rng, lay, touching_share)
    chimney = _draw_chimney(rng, lay)
    ladder_u = float(rng.uniform(0.8, lay.eave_length - 0.8))
    # the keyword arguments draw from rng in the order written
    return RoofPlan(
        pitch_rise_per_12=lay.rise, style=lay.style, eave_length_m=lay.eave_length, slope_length_m=lay.slope_length,
        eave_height_m=float(rng.choice([2.7, 2.9, 3.1, 5.6, 5.9])), overhang_m=float(rng.uniform(0.25, 0.5)),
        siding="lap" if rng.random() < 0.65 else "brick",
        wall_color=choose(rng, SIDING_COLORS), brick_color=choose(rng, BRICK_COLORS),
        shingle_color=choose(rng, SHINGLE_COLORS),
        shingle_exposure_m=float(rng.uniform(5.0, 5.625)) * INCH, shingle_tab_m=12 * INCH,
        chimney=chimney, ladder_u=ladder_u,
        module_length_m=lay.module_length, module_width_m=lay.module_width,
        module_thickness_m=float(rng.uniform(0.03, 0.04)),
        module_gap_m=lay.gap, rows=lay.rows, cols=lay.cols, installed_cols=lay.installed_cols,
        array_u0=lay.array_u0, array_v0=lay.array_v0,
        foot_height_m=lay.foot_height, rail_height_m=lay.rail_height, rail_offsets=lay.rail_offsets,
        rafter_spacing_m=lay.rafter_spacing, rafter_u0=lay.rafter_u0, attachments=tuple(attachments),
        junction_boxes=tuple(junction_boxes), wires=tuple(wires),
        touching_wire=touching_wire, sun_elevation_deg=float(rng.uniform(15, 70)),
        sun_azimuth_deg=float(rng.uniform(0, 360)), sun_strength=float(rng.uniform(2.5, 4.5)),
    )


# The house walls stand this far inside the roof's eave and rake lines (the builder and the wall
# inverter of equipment_label share it).
WALL_INSET_M = 0.25

# Attachment geometry (roof coordinates), shared by the builder and the environments.
RAIL_HALF_WIDTH = 0.02
FOOT_PLATE_LENGTH = 0.11  # the L-foot's base plate runs downslope from the rail
FOOT_PLATE_THICKNESS = 0.006
FLASHING_TOP = 0.0012  # flashing is a 1 mm sheet lying on the shingles
BOLT_FROM_PLATE_END = 0.035
BOLT_HEAD_HEIGHT = 0.010  # washer + hex head


def foot_plate_top(a: Attachment) -> float:
    return (FLASHING_TOP if a.flashing_present else 0.0) + FOOT_PLATE_THICKNESS


def bolt_spot_uvh(a: Attachment, *, head_top: bool = False) -> tuple[float, float, float]:
    """Where the lag bolt sits (or would sit) on the foot's base plate; `head_top`: on top of its head."""
    v = a.v - RAIL_HALF_WIDTH - FOOT_PLATE_LENGTH + BOLT_FROM_PLATE_END
    h = foot_plate_top(a) + (BOLT_HEAD_HEIGHT if head_top and a.lag_present else 0.0)
    return (a.u, v, h)


def wire_clearance(plan: RoofPlan, wire: Wire) -> tuple[float, int]:
    """Signed clearance (m) between the wire's surface and the shingle plane (h = 0); <= 0 is contact."""
    pts = np.asarray(wire.points_uvh)
    d = pts[:, 2] - wire.radius_m
    i = int(np.argmin(d))
    return float(d[i]), i
