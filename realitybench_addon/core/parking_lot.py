"""The parking lot (pure): stalls, curbs, light poles, a building edge, trees, the sun, and the
parked vehicles around the subject car.

Layout (world metres, Z up):
  row A      stalls side by side along +X, their heads at y = -stall_depth (a curb), open to the aisle at y = 0
  aisle      0 <= y <= aisle_width
  row B      across the aisle, heads at y = aisle_width + stall_depth (a curb)
  behind A   a sidewalk, then a lawn strip and the building's front wall at y = -building_gap_m
  behind B   a planted strip with trees; light poles stand in both strips
The subject car (`cars[0]`, object prefix `Car0`) is parked in row A, nose in or backed in;
other stalls are occupied at random. No other car shares the subject's colour and body
style, so "the silver sedan" names exactly one car.

Render sanity: `intersections(plan)` lists every car that overlaps another car or the
scenery (curbs, poles, trees, the building), from conservative boxes around each car's body
and wheels; `draw_lot` redraws until there is none, and `bl/parking_lot.py` checks the built
meshes again.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Optional

import numpy as np

from . import vegetation
from .geometry import ring_sphere_triangles
from .plate import PlatePlan, draw_plate
from .vehicle import BODY_STYLES, VehiclePlan, draw_vehicle

CURB_HEIGHT_M = 0.15
CURB_WIDTH_M = 0.18
POLE_RADIUS_M = 0.1
POLE_BASE_RADIUS_M = 0.3
TREE_CLEAR_M = 2.4  # a lot's tree is limbed up at least this high, over the cars
TREE_CLEAR_SHARE = 0.28  # ...and to this share of its height


@dataclass(frozen=True)
class ParkedCar:
    vehicle: VehiclePlan
    x: float  # centre of the body on the ground
    y: float
    heading_deg: float  # the nose points along this angle (0 = +X)
    row: str  # A | B
    stall: int
    plate: PlatePlan
    front_plate: bool  # a plate on the front mount too (states that require one)

    def matrix(self) -> np.ndarray:
        """Vehicle frame -> world."""
        h = math.radians(self.heading_deg)
        m = np.eye(4)
        m[:3, 0] = [math.cos(h), math.sin(h), 0.0]
        m[:3, 1] = [-math.sin(h), math.cos(h), 0.0]
        m[:3, 3] = [self.x, self.y, 0.0]
        return m

    def to_world(self, local) -> np.ndarray:
        m = self.matrix()
        return np.asarray(local, float) @ m[:3, :3].T + m[:3, 3]

    def direction(self, local_dir) -> np.ndarray:
        return self.matrix()[:3, :3] @ np.asarray(local_dir, float)

    @property
    def center(self) -> np.ndarray:
        """The middle of the body (half its height) in world coordinates."""
        return self.to_world([0.0, 0.0, self.vehicle.height / 2])


@dataclass(frozen=True)
class Tree:
    x: float
    y: float
    height_m: float
    crown_radius_m: float
    trunk_radius_m: float
    seed: int

    @property
    def crown_base_m(self) -> float:
        """Where the crown begins: a lot's trees are limbed up to TREE_CLEAR_SHARE of their height (at least
        TREE_CLEAR_M, over the cars) and never higher than the round crown's bottom (two radii below the top),
        so a tall tree's crown is an upright oval, not a ball on a bare pole."""
        return min(self.height_m - 2 * self.crown_radius_m, max(TREE_CLEAR_M, TREE_CLEAR_SHARE * self.height_m))


@dataclass(frozen=True)
class Pole:
    x: float
    y: float
    height_m: float
    arm_deg: float  # the luminaire arm's direction


@dataclass(frozen=True)
class Box:
    """An oriented box: centre (x, y), half sizes, heading, and its z range."""

    x: float
    y: float
    half_l: float
    half_w: float
    heading_deg: float
    z0: float
    z1: float
    owner: str

    def corners(self) -> np.ndarray:
        h = math.radians(self.heading_deg)
        u = np.array([math.cos(h), math.sin(h)])
        v = np.array([-math.sin(h), math.cos(h)])
        c = np.array([self.x, self.y])
        return np.array([c + su * self.half_l * u + sv * self.half_w * v for su, sv in
                         ((1, 1), (-1, 1), (-1, -1), (1, -1))])


def boxes_overlap(a: Box, b: Box) -> bool:
    """Separating-axis test of two oriented boxes (2D footprint and z range)."""
    if a.z1 <= b.z0 or b.z1 <= a.z0:
        return False
    ca, cb = a.corners(), b.corners()
    for box in (ca, cb):
        for i in range(2):
            edge = box[(i + 1) % 4] - box[i]
            axis = np.array([-edge[1], edge[0]])
            pa, pb = ca @ axis, cb @ axis
            if pa.max() <= pb.min() or pb.max() <= pa.min():
                return False
    return True


@dataclass(frozen=True)
class LotPlan:
    cars: tuple[ParkedCar, ...]  # cars[0] is the subject
    stall_width_m: float
    stall_depth_m: float
    aisle_width_m: float
    stalls_per_row: int
    x0: float  # row start (left edge of stall 0)
    building_gap_m: float  # from row A's curb face to the building's front wall
    building_height_m: float
    building_finish: str  # brick | stucco | panel
    building_color: tuple[float, float, float]
    line_color: str  # white | yellow
    asphalt_shade: float
    poles: tuple[Pole, ...]
    trees: tuple[Tree, ...]
    sun_elevation_deg: float
    sun_azimuth_deg: float
    sun_strength: float
    extra_boxes: tuple[Box, ...] = ()  # other things standing in the lot (the technician)

    @property
    def subject(self) -> ParkedCar:
        return self.cars[0]

    @property
    def row_a_head_y(self) -> float:
        return -self.stall_depth_m

    @property
    def row_b_head_y(self) -> float:
        return self.aisle_width_m + self.stall_depth_m

    @property
    def building_front_y(self) -> float:
        return -self.stall_depth_m - CURB_WIDTH_M - self.building_gap_m

    @property
    def x1(self) -> float:
        return self.x0 + self.stalls_per_row * self.stall_width_m

    def curbs(self) -> list[Box]:
        """The two head curbs, along each row's heads."""
        cx = (self.x0 + self.x1) / 2
        half = (self.x1 - self.x0) / 2 + 1.0
        a = Box(cx, self.row_a_head_y - CURB_WIDTH_M / 2, half, CURB_WIDTH_M / 2, 0.0, 0.0, CURB_HEIGHT_M, "CurbA")
        b = Box(cx, self.row_b_head_y + CURB_WIDTH_M / 2, half, CURB_WIDTH_M / 2, 0.0, 0.0, CURB_HEIGHT_M, "CurbB")
        return [a, b]

    def building_box(self) -> Box:
        depth = 25.0
        return Box(0.0, self.building_front_y - depth / 2, 60.0, depth / 2, 0.0, 0.0, self.building_height_m,
                   "Building")

    def scenery_boxes(self) -> list[Box]:
        out = self.curbs() + [self.building_box()]
        for i, p in enumerate(self.poles):
            out.append(Box(p.x, p.y, POLE_BASE_RADIUS_M, POLE_BASE_RADIUS_M, 0.0, 0.0, p.height_m, f"Pole{i}"))
        for i, t in enumerate(self.trees):
            r = t.trunk_radius_m
            out.append(Box(t.x, t.y, r, r, 0.0, 0.0, t.height_m, f"Tree{i}"))
            out.append(Box(t.x, t.y, t.crown_radius_m, t.crown_radius_m, 0.0, t.crown_base_m, t.height_m,
                           f"Tree{i}"))
        return out + list(self.extra_boxes)

    def to_dict(self) -> dict:
        s = self.subject
        return {"subject": {**s.vehicle.to_dict(), "x_m": round(s.x, 3), "y_m": round(s.y, 3),
                            "heading_deg": round(s.heading_deg, 2), "stall": s.stall, "plate": s.plate.text,
                            "state": s.plate.state, "front_plate": s.front_plate},
                "cars": [{"style": c.vehicle.style, "color": c.vehicle.color, "row": c.row, "stall": c.stall}
                         for c in self.cars[1:]],
                "stall_width_m": round(self.stall_width_m, 3), "stall_depth_m": round(self.stall_depth_m, 3),
                "aisle_width_m": round(self.aisle_width_m, 3), "building_finish": self.building_finish,
                "building_gap_m": round(self.building_gap_m, 2), "line_color": self.line_color,
                "poles": len(self.poles), "trees": len(self.trees),
                "sun_elevation_deg": round(self.sun_elevation_deg, 1),
                "sun_azimuth_deg": round(self.sun_azimuth_deg, 1)}


def car_boxes(car: ParkedCar, name: str, margin: float = 0.0) -> list[Box]:
    """Conservative boxes around a parked car: the overhangs above their lowest point, the middle
    (wheels and sills) down to the ground."""
    from .vehicle_loft import Profile

    v = car.vehicle
    p = v.profile
    prof = Profile(p)
    L = p.length
    half_w = p.width / 2 + 0.18 + margin  # mirrors included
    r = p.tyre_radius
    d_front = p.front_overhang - r - 0.02
    d_rear = p.front_overhang + p.wheelbase + r + 0.02
    pieces = [(0.0, d_front), (d_front, d_rear), (d_rear, L)]
    out = []
    for d0, d1 in pieces:
        if d1 - d0 <= 1e-3:
            continue
        ds = np.linspace(d0, d1, 12)
        z0 = 0.0 if (d0, d1) == (d_front, d_rear) else float(prof.z_bottom(ds).min()) - 0.01
        xm = L / 2 - (d0 + d1) / 2
        c = car.to_world([xm, 0.0, 0.0])
        out.append(Box(float(c[0]), float(c[1]), (d1 - d0) / 2 + (margin if d0 == 0 or d1 == L else 0.0),
                       half_w if (d0, d1) == (d_front, d_rear) else p.width / 2 + margin, car.heading_deg,
                       z0, p.height + 0.12, name))
    return out


def intersections(plan: LotPlan) -> list[tuple[str, str]]:
    """Pairs (car, other) whose conservative boxes overlap: a car in another car or in the scenery."""
    cars = [(f"Car{i}", car_boxes(c, f"Car{i}")) for i, c in enumerate(plan.cars)]
    scenery = plan.scenery_boxes()
    pairs = []
    for i, (name, boxes) in enumerate(cars):
        for other_name, other in cars[i + 1:]:
            if any(boxes_overlap(a, b) for a in boxes for b in other):
                pairs.append((name, other_name))
        for s in scenery:
            if any(boxes_overlap(a, s) for a in boxes):
                pairs.append((name, s.owner))
    return sorted(set(pairs))


class SceneIntersection(ValueError):
    """A drawn or built lot in which a car intersects another car or the scenery (render sanity)."""


LINE_COLORS = ("white", "yellow")
FINISHES = ("brick", "stucco", "panel")
BUILDING_COLORS = {"brick": [(0.28, 0.09, 0.05), (0.35, 0.16, 0.09), (0.22, 0.12, 0.08)],
                   "stucco": [(0.55, 0.5, 0.42), (0.6, 0.58, 0.55), (0.45, 0.42, 0.36)],
                   "panel": [(0.35, 0.37, 0.4), (0.5, 0.5, 0.5), (0.2, 0.25, 0.3)]}


def _park(vehicle: VehiclePlan, row: str, stall: int, nose_in: bool, geom: dict, rng: np.random.Generator) -> tuple:
    """Centre and heading of a vehicle parked in a stall: straight, a little off-centre, the end
    that faces the curb 0.2-0.6 m short of it."""
    w, depth = geom["w"], geom["depth"]
    x = geom["x0"] + (stall + 0.5) * w + float(rng.uniform(-0.15, 0.15))
    gap = float(rng.uniform(0.2, 0.6))
    half = vehicle.length / 2
    if row == "A":  # head at y = -depth
        y = -depth + gap + half
        heading = -90.0 if nose_in else 90.0
    else:  # head at y = aisle + depth
        y = geom["aisle"] + depth - gap - half
        heading = 90.0 if nose_in else -90.0
    return x, y, heading + float(rng.normal(0.0, 1.2))


def draw_lot(rng: np.random.Generator, *, subject_style: Optional[str] = None, neighbour_share: float = 0.6,
             far_share: float = 0.5, row_share: Optional[float] = None, end_stall_share: float = 0.0,
             max_attempts: int = 50) -> LotPlan:
    """A parking lot around a subject car (style drawn uniformly over the ten, or `subject_style`).

    `neighbour_share`: chance that each stall beside the subject is taken; `row_share`: the rest of its row
    (default halfway between `neighbour_share` and 0.5); `far_share`: the row across; `end_stall_share`:
    chance that the subject is parked in an end stall of its row (open on one side) rather than mid-row.
    Redrawn until no car intersects anything (SceneIntersection after `max_attempts`)."""
    if subject_style is not None and subject_style not in BODY_STYLES:
        raise ValueError(f"unknown body style {subject_style!r}; one of {', '.join(BODY_STYLES)}")
    for _attempt in range(max_attempts):
        plan = _draw_lot_once(rng, subject_style, neighbour_share, far_share,
                              0.5 * (neighbour_share + 0.5) if row_share is None else row_share, end_stall_share)
        if not intersections(plan):
            return plan
    raise SceneIntersection(f"no intersection-free lot in {max_attempts} draws")


def _draw_lot_once(rng, subject_style, neighbour_share, far_share, row_share, end_stall_share) -> LotPlan:
    w = float(rng.uniform(2.6, 2.9))
    depth = float(rng.uniform(5.6, 6.1))
    aisle = float(rng.uniform(7.0, 7.8))
    n = int(rng.integers(8, 11))
    x0 = -(n / 2) * w + float(rng.uniform(-1.0, 1.0))
    geom = {"w": w, "depth": depth, "aisle": aisle, "x0": x0}
    style = subject_style or BODY_STYLES[int(rng.integers(len(BODY_STYLES)))]
    subject = draw_vehicle(rng, style=style)
    plate = draw_plate(rng)
    home_state = plate.state
    stall = int(rng.integers(2, n - 2))
    if end_stall_share and rng.random() < end_stall_share:
        stall = 0 if rng.random() < 0.5 else n - 1
    nose_in = bool(rng.random() < 0.7)
    x, y, heading = _park(subject, "A", stall, nose_in, geom, rng)
    cars = [ParkedCar(subject, x, y, heading, "A", stall, plate, _front_plate(plate, rng))]
    for row, share in (("A", neighbour_share), ("B", far_share)):
        for s in range(n):
            if row == "A" and s == stall:
                continue
            p_take = share if (row == "B" or abs(s - stall) == 1) else row_share
            if rng.random() >= p_take:
                continue
            while True:  # no other car is "the silver sedan"
                v = draw_vehicle(rng)
                if not (v.color == subject.color and v.style == subject.style):
                    break
            pl = draw_plate(rng, home_state=home_state)
            cx, cy, ch = _park(v, row, s, bool(rng.random() < 0.7), geom, rng)
            cars.append(ParkedCar(v, cx, cy, ch, row, s, pl, _front_plate(pl, rng)))
    finish = FINISHES[int(rng.integers(len(FINISHES)))]
    colors = BUILDING_COLORS[finish]
    poles, trees = [], []
    x1 = x0 + n * w
    for px in np.arange(x0 + rng.uniform(0, 6), x1, float(rng.uniform(14, 20))):
        poles.append(Pole(float(px), -depth - CURB_WIDTH_M - 1.2, float(rng.uniform(8, 10)), 90.0))
    for px in np.arange(x0 + rng.uniform(0, 8), x1, float(rng.uniform(16, 24))):
        poles.append(Pole(float(px), aisle + depth + CURB_WIDTH_M + 1.5, float(rng.uniform(8, 10)), -90.0))
    building_gap = float(rng.uniform(9.0, 16.0))
    # trees: along the planted strip behind row B, and a few on the lawn in front of the building
    strip_y = aisle + depth + CURB_WIDTH_M
    for tx in np.arange(x0 - 4 + rng.uniform(0, 4), x1 + 4, float(rng.uniform(6, 9))):
        if any(abs(tx - p.x) < 2.5 and p.y > 0 for p in poles):
            continue
        trees.append(_tree(rng, float(tx), strip_y + float(rng.uniform(3.0, 5.0))))
    for tx in np.arange(x0 + rng.uniform(0, 8), x1, float(rng.uniform(10, 16))):
        if rng.random() < 0.6:
            ty = -depth - CURB_WIDTH_M - float(rng.uniform(3.0, building_gap - 2.5))
            if any(abs(tx - p.x) < 2.5 and p.y < 0 for p in poles):
                continue
            trees.append(_tree(rng, float(tx), ty, small=True))
    for _ in range(int(rng.integers(8, 16))):  # far trees around the lot
        ang = rng.uniform(-0.35 * math.pi, 1.35 * math.pi)
        r = rng.uniform(35.0, 70.0)
        trees.append(_tree(rng, float(r * math.cos(ang)), float(aisle / 2 + r * math.sin(ang))))
    return LotPlan(tuple(cars), w, depth, aisle, n, x0, building_gap, float(rng.uniform(5.0, 8.5)), finish,
                   colors[int(rng.integers(len(colors)))], LINE_COLORS[int(rng.random() < 0.25)],
                   float(rng.uniform(0.85, 1.15)), tuple(poles), tuple(trees),
                   float(rng.uniform(20, 65)), float(rng.uniform(0, 360)), float(rng.uniform(2.5, 4.5)))


def _tree(rng, x: float, y: float, small: bool = False) -> Tree:
    h = float(rng.uniform(4.0, 7.0) if small else rng.uniform(7.0, 13.0))
    crown = float(h * rng.uniform(0.22, 0.32))
    return Tree(x, y, h, crown, max(0.1, 0.025 * h), int(rng.integers(0, 2 ** 31 - 1)))


def _front_plate(plate: PlatePlan, rng) -> bool:
    from .plate import STATES

    return bool(STATES[plate.state].front_required and rng.random() < 0.9)


# --- ground features and shrubs (issue 20): derived from the plan, never drawn from the scene's stream ----------
# They take their randomness from a seed made of plan values, so adding them leaves every other draw (cars,
# poles, trees, poses) exactly as it was.

SIDEWALK_JOINT_M = 1.5  # sidewalk slabs: a tooled joint every 1.5 m along the walk
PATCH_HEIGHT_M = 0.002  # a patch of newer asphalt lies this far above the old surface (under the 3 mm paint)
# A later repair that overlaps an earlier one is laid over it, this much higher: two coplanar tops render black
# where they overlap in Cycles (each shades in the other's shadow), which a blind panel saw as a "black square".
PATCH_STEP_M = 0.0002
SHRUB_WALL_GAP_M = 0.15  # foundation shrubs stand this far in front of the building wall


@dataclass(frozen=True)
class GroundPatch:
    """A rectangle of newer, darker asphalt laid over the old surface (a utility cut or pothole repair)."""

    x0: float
    y0: float
    x1: float
    y1: float
    age: float  # 0 = fresh and black, 1 = weathered almost to the old surface's grey
    level: int = 0  # 0 on the old surface; 1 + the highest level of the earlier patches it is laid over

    @property
    def top_m(self) -> float:
        return PATCH_HEIGHT_M + self.level * PATCH_STEP_M

    def overlaps(self, other: "GroundPatch") -> bool:
        return self.x0 < other.x1 and other.x0 < self.x1 and self.y0 < other.y1 and other.y0 < self.y1


@dataclass(frozen=True)
class Shrub:
    """A rounded shrub: footprint radius, height, its own seed for branches and leaf clusters."""

    x: float
    y: float
    radius_m: float
    height_m: float
    seed: int

    def box(self, owner: str) -> Box:
        return Box(self.x, self.y, self.radius_m, self.radius_m, 0.0, 0.0, self.height_m, owner)


def layout_seed(plan: LotPlan) -> int:
    """A seed that is a pure function of the plan (the trees' own seeds and the row's start)."""
    words = [t.seed for t in plan.trees[:6]] + [int(round(abs(plan.x0) * 1e6)) % (2 ** 31)]
    return int(np.random.SeedSequence(words).generate_state(1)[0])


def asphalt_patches(plan: LotPlan) -> list[GroundPatch]:
    """Two to five repair patches: long cuts across the aisle and squarish ones inside stalls."""
    rng = np.random.default_rng([layout_seed(plan), 1])
    out = []
    for _ in range(int(rng.integers(2, 6))):
        if rng.random() < 0.5:  # a trench across the aisle, sometimes into the stalls
            x = float(rng.uniform(plan.x0, plan.x1))
            w = float(rng.uniform(0.6, 1.4))
            y0 = float(rng.uniform(-1.5, 1.0))
            y1 = float(min(plan.aisle_width_m + rng.uniform(-1.0, 1.5), plan.row_b_head_y - 0.3))
            out.append(GroundPatch(x - w / 2, y0, x + w / 2, y1, float(rng.uniform(0.0, 1.0))))
        else:  # a squarish repair anywhere on the paved area
            x = float(rng.uniform(plan.x0, plan.x1))
            y = float(rng.uniform(plan.row_a_head_y + 1.0, plan.row_b_head_y - 1.0))
            hx, hy = float(rng.uniform(0.5, 1.6)), float(rng.uniform(0.5, 1.6))
            out.append(GroundPatch(x - hx, y - hy, x + hx, y + hy, float(rng.uniform(0.0, 1.0))))
    laid: list[GroundPatch] = []
    for patch in out:
        under = [p.level for p in laid if p.overlaps(patch)]
        laid.append(replace(patch, level=1 + max(under)) if under else patch)
    return laid


def shrubs(plan: LotPlan) -> list[Shrub]:
    """Foundation shrubs along the building's front wall and a loose row at the back of the planted strip,
    clear of tree trunks, poles and each other."""
    rng = np.random.default_rng([layout_seed(plan), 2])
    front = plan.building_front_y
    strip_back = plan.row_b_head_y + CURB_WIDTH_M + 8.0
    out: list[Shrub] = []
    keep_out = [(t.x, t.y, t.trunk_radius_m + 0.2) for t in plan.trees]
    keep_out += [(p.x, p.y, POLE_BASE_RADIUS_M + 0.2) for p in plan.poles]
    facade = facade_layout(plan)  # doors, bay doors and downspouts stay clear
    wall_clear = [(x, 0.8) for x in facade.doors] + [(x, w / 2 + 0.3) for x, w, _ in facade.bays]
    wall_clear += [(x, 0.3) for x in facade.downspouts]
    spots = []
    x = plan.x0 - 8.0 + float(rng.uniform(0.0, 2.0))
    while x < plan.x1 + 8.0:  # along the wall: shrubs in small groups with gaps
        r = float(rng.uniform(0.4, 0.7))
        if rng.random() < 0.7 and not any(abs(x - cx) < half + r for cx, half in wall_clear):
            spots.append((x, front + SHRUB_WALL_GAP_M + r, r, float(rng.uniform(0.6, 1.1))))
        x += 2 * r + float(rng.uniform(0.1, 1.8))
    x = plan.x0 - 6.0 + float(rng.uniform(0.0, 3.0))
    while x < plan.x1 + 6.0:  # the back of the planted strip, beyond its trees
        r = float(rng.uniform(0.5, 0.9))
        if rng.random() < 0.6:
            spots.append((x, strip_back - r - float(rng.uniform(0.2, 1.2)), r, float(rng.uniform(0.7, 1.4))))
        x += 2 * r + float(rng.uniform(0.5, 3.0))
    for sx, sy, r, h in spots:
        if any(math.hypot(sx - kx, sy - ky) < r + kr for kx, ky, kr in keep_out):
            continue
        out.append(Shrub(sx, sy, r, h, int(rng.integers(0, 2 ** 31 - 1))))
        keep_out.append((sx, sy, r))
    return out


@dataclass(frozen=True)
class FacadeLayout:
    """What the building shows the lot along its front wall (x positions, metres): storefront windows
    (centre, width, sill, height), bay doors (centre, width, height), personnel doors (centre) and downspouts."""

    windows: tuple[tuple[float, float, float, float], ...]
    bays: tuple[tuple[float, float, float], ...]
    doors: tuple[float, ...]
    downspouts: tuple[float, ...]


def facade_layout(plan: LotPlan) -> FacadeLayout:
    """The units of the old flat facade (a 4.4 m pitch from x0 - 6: every third a bay door, the others a
    window), now with a personnel door beside the first window after each bay and downspouts in the gaps."""
    box = plan.building_box()
    windows, bays, doors, spouts = [], [], [], []
    x, k = plan.x0 - 6.0, 0
    top = min(2.6, box.z1 - 1.2)
    while x < plan.x1 + 6.0:
        if k % 3 == 1:
            bays.append((x + 1.8, 3.6, min(3.8, box.z1 - 1.0)))
        elif k % 3 == 2:  # a door and a narrower window where the old window was
            doors.append(x + 0.85)
            windows.append((x + 2.45, 1.7, 1.0, top - 1.0))
        else:
            windows.append((x + 1.8, 3.0, 1.0, top - 1.0))
        if k % 4 == 0:
            spouts.append(x + 3.85)
        x += 4.4
        k += 1
    return FacadeLayout(tuple(windows), tuple(bays), tuple(doors), tuple(spouts))


FAR_TREE_M = 30.0  # trees further than this from the lot's middle are built coarser (some as conifers)


def tree_plants(plan: LotPlan) -> list[dict]:
    """One `core.vegetation` plant per tree of the plan, inside the tree's own envelope (height, crown radius,
    crown from `Tree.crown_base_m` up): broadleaf near the lot, far ones coarser and every third a conifer."""
    out = []
    for t in plan.trees:
        far = math.hypot(t.x - (plan.x0 + plan.x1) / 2, t.y - plan.aisle_width_m / 2) > FAR_TREE_M
        crown_base = t.crown_base_m
        if far and t.seed % 3 == 0:
            out.append(vegetation.conifer_tree(t.x, t.y, 0.0, t.height_m, 0.8 * t.crown_radius_m, 0.5 * crown_base,
                                               t.seed))
        elif far:
            out.append(vegetation.deciduous_tree(t.x, t.y, 0.0, t.height_m, t.crown_radius_m, crown_base, t.seed,
                                                 cluster_rings=4, cluster_segments=6))
        else:
            out.append(vegetation.deciduous_tree(t.x, t.y, 0.0, t.height_m, t.crown_radius_m, crown_base, t.seed))
    return out


def shrub_plants(plan: LotPlan) -> dict:
    """Every shrub of `shrubs(plan)` as one merged `core.vegetation` plant, standing on the lawn's top."""
    return vegetation.merge_plants([vegetation.shrub(b.x, b.y, CURB_HEIGHT_M - 0.02, b.radius_m, b.height_m, b.seed)
                                    for b in shrubs(plan)])
