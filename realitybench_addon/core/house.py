"""Houses as plans (no bpy): a house is a union of rectangular wings, each with its own roof.

A wing is a box of walls (footprint `length_m` x `width_m`, walls up to `eave_z`) under a
roof of one of the roof types below; a house shape is a recipe of wings (an L-plan is two
gable wings, one running into the other up to its ridge line). Wings may overlap: the
house is the union of their solids, so where one roof runs into another the valley
appears by itself, in the render and in ray casts alike.

Every roof plane is a convex polygon on a plane with its own roof frame, like the roof
scene's (`core/roof.py`): u along the eave, v up the slope, h along the outward normal.
The shingle surface is h = 0; shingle courses start at the eave (v = 0) and are clipped
to the polygon (`RoofPlane.span`). Polygon edges are labelled (eave, rake, ridge, hip,
break, high) so the builder knows where ridge caps and fascia boards go.

World axes: Z up; the house stands on z = 0 around the origin. Lengths in metres, angles in
degrees.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Optional

import numpy as np

from .ridge_caps import CAP_EDGE_H_M, CAP_HALF_WIDTH_M, CAP_RISE_M, CapSide

ROOF_TYPES = ("gable", "hip", "pyramid", "shed", "gambrel", "saltbox")
HOUSE_SHAPES = ("gable", "two_storey_gable", "hip", "two_storey_hip", "pyramid", "shed", "saltbox", "gambrel",
                "cross_gable", "t_gable", "l_gable", "l_hip", "gable_with_garage")
CAP_EDGES = ("ridge", "hip", "break", "high")  # edges that get a ridge cap
TRIM_EDGES = ("eave", "rake", "high")  # edges that get a fascia / rake board


@dataclass(frozen=True)
class Wing:
    """A rectangular block of the house with its roof. Local frame: x along `axis_deg` (the ridge
    direction), y across; the footprint is [-length/2, length/2] x [-width/2, width/2]."""

    name: str
    center: tuple[float, float]
    axis_deg: float
    length_m: float
    width_m: float
    eave_z: float  # top of the walls, where the roof plane passes over the wall line
    roof: str  # one of ROOF_TYPES
    pitch_deg: float
    overhang_m: float  # at the eaves
    rake_m: float  # at the gable ends
    upper_pitch_deg: float = 0.0  # gambrel: the upper, shallower slopes
    break_fraction: float = 0.0  # gambrel: the lower slope's run as a share of the half width
    ridge_fraction: float = 0.5  # saltbox: the front slope's run as a share of the width

    def to_world(self, local) -> np.ndarray:
        local = np.atleast_2d(np.asarray(local, float))
        a = math.radians(self.axis_deg)
        c, s = math.cos(a), math.sin(a)
        x = self.center[0] + c * local[:, 0] - s * local[:, 1]
        y = self.center[1] + s * local[:, 0] + c * local[:, 1]
        return np.column_stack([x, y, local[:, 2]])

    def to_local(self, world) -> np.ndarray:
        world = np.atleast_2d(np.asarray(world, float))
        a = math.radians(self.axis_deg)
        c, s = math.cos(a), math.sin(a)
        dx, dy = world[:, 0] - self.center[0], world[:, 1] - self.center[1]
        return np.column_stack([c * dx + s * dy, -s * dx + c * dy, world[:, 2]])

    @property
    def ridge_z(self) -> float:
        t = math.tan(math.radians(self.pitch_deg))
        if self.roof in ("gable", "hip", "pyramid"):
            return self.eave_z + self.width_m / 2 * t
        if self.roof == "shed":
            return self.eave_z + (self.width_m + shed_back_overhang(self)) * t
        if self.roof == "saltbox":
            return self.eave_z + self.ridge_fraction * self.width_m * t
        if self.roof == "gambrel":
            b = self.break_fraction * self.width_m / 2
            return self.eave_z + b * t + (self.width_m / 2 - b) * math.tan(math.radians(self.upper_pitch_deg))
        raise ValueError(f"unknown roof type {self.roof!r}; expected one of {', '.join(ROOF_TYPES)}")


@dataclass(frozen=True)
class RoofPlane:
    """One planar roof surface: a convex polygon in its own roof frame (u along the eave, v up the
    slope, h the outward normal), with a label per polygon edge (edge i runs from vertex i to i+1)."""

    name: str
    origin: tuple[float, float, float]  # world point of (u, v, h) = (0, 0, 0), on the eave line
    azimuth_deg: float  # direction of u in the ground plane, counter-clockwise from +X
    pitch_deg: float
    polygon_uv: tuple[tuple[float, float], ...]
    edges: tuple[str, ...]
    wing: str

    @property
    def axes(self) -> np.ndarray:
        """Columns: u (along the eave), v (up the slope), n (outward normal); like `RoofFrame.axes`."""
        a, p = math.radians(self.azimuth_deg), math.radians(self.pitch_deg)
        u = np.array([math.cos(a), math.sin(a), 0.0])
        d = np.array([-math.sin(a), math.cos(a), 0.0])  # the horizontal up-slope direction
        v = math.cos(p) * d + np.array([0.0, 0.0, math.sin(p)])
        return np.column_stack([u, v, np.cross(u, v)])

    @property
    def normal(self) -> np.ndarray:
        return self.axes[:, 2]

    def matrix(self) -> np.ndarray:
        m = np.eye(4)
        m[:3, :3] = self.axes
        m[:3, 3] = self.origin
        return m

    def to_world(self, uvh) -> np.ndarray:
        return np.asarray(self.origin) + np.asarray(uvh, float) @ self.axes.T

    def to_plane(self, points) -> np.ndarray:
        return (np.asarray(points, float) - np.asarray(self.origin)) @ self.axes

    def world_polygon(self, h: float = 0.0) -> np.ndarray:
        uv = np.asarray(self.polygon_uv, float)
        return self.to_world(np.column_stack([uv, np.full(len(uv), h)]))

    def span(self, v) -> tuple[np.ndarray, np.ndarray]:
        """The polygon's u interval [lo, hi] on the line(s) v (lo > hi where a line misses it)."""
        v = np.atleast_1d(np.asarray(v, float))
        poly = np.asarray(self.polygon_uv, float)
        lo = np.full(v.shape, np.inf)
        hi = np.full(v.shape, -np.inf)
        for (u0, v0), (u1, v1) in zip(poly, np.roll(poly, -1, axis=0)):
            if abs(v1 - v0) < 1e-12:
                on = np.abs(v - v0) < 1e-9
                lo = np.where(on, np.minimum(lo, min(u0, u1)), lo)
                hi = np.where(on, np.maximum(hi, max(u0, u1)), hi)
                continue
            t = (v - v0) / (v1 - v0)
            inside = (t >= -1e-9) & (t <= 1 + 1e-9)
            u = u0 + np.clip(t, 0.0, 1.0) * (u1 - u0)
            lo = np.where(inside, np.minimum(lo, u), lo)
            hi = np.where(inside, np.maximum(hi, u), hi)
        return lo, hi

    @property
    def top_v(self) -> float:
        return float(max(p[1] for p in self.polygon_uv))

    def height_at(self, xy) -> np.ndarray:
        """Z of the plane (h = 0) above ground points (x, y)."""
        xy = np.atleast_2d(np.asarray(xy, float))
        n = self.normal
        o = np.asarray(self.origin)
        return o[2] - ((xy[:, 0] - o[0]) * n[0] + (xy[:, 1] - o[1]) * n[1]) / n[2]

    def contains_xy(self, xy, margin: float = 0.0) -> np.ndarray:
        """Do vertical lines through ground points (x, y) cross the polygon (shrunk by `margin`)?"""
        xy = np.atleast_2d(np.asarray(xy, float))
        pts = np.column_stack([xy, self.height_at(xy)])
        uv = self.to_plane(pts)[:, :2]
        poly = np.asarray(self.polygon_uv, float)
        inside = np.ones(len(uv), bool)
        for a, b in zip(poly, np.roll(poly, -1, axis=0)):
            edge = b - a
            length = float(np.hypot(*edge))
            if length < 1e-9:
                continue
            cross = edge[0] * (uv[:, 1] - a[1]) - edge[1] * (uv[:, 0] - a[0])
            inside &= cross / length >= margin  # polygons are counter-clockwise in (u, v)
        return inside


@dataclass(frozen=True)
class Chimney:
    center: tuple[float, float]
    axis_deg: float
    width_m: float
    depth_m: float
    base_z: float
    top_z: float


@dataclass(frozen=True)
class HousePlan:
    shape: str  # one of HOUSE_SHAPES
    wings: tuple[Wing, ...]  # wings[0] is the main wing: the photographer's ridge is on it
    chimney: Optional[Chimney]
    siding: str  # lap | brick
    wall_color: str
    brick_color: str
    shingle_color: str
    trim_color: tuple[float, float, float]
    shingle_exposure_m: float
    shingle_tab_m: float

    @property
    def main(self) -> Wing:
        return self.wings[0]

    @property
    def peak_z(self) -> float:
        """The height of the house's highest ridge (chimneys aside)."""
        return max(w.ridge_z for w in self.wings)

    def to_dict(self) -> dict:
        return asdict(self)


def shed_back_overhang(w: Wing) -> float:
    """A shed roof's overhang past its high wall (short: the high edge is the roof's peak)."""
    return min(w.overhang_m, 0.2)


# -- roof planes of one wing -------------------------------------------------------------------------

def _rect(length: float, slope: float) -> tuple[tuple[float, float], ...]:
    return ((0.0, 0.0), (length, 0.0), (length, slope), (0.0, slope))


def _local_planes(w: Wing) -> list[tuple[str, tuple, float, float, tuple, tuple]]:
    """(name, local origin, local u azimuth, pitch, polygon, edge labels) of every roof plane."""
    L, W, ov, rk, ez = w.length_m, w.width_m, w.overhang_m, w.rake_m, w.eave_z
    p = math.radians(w.pitch_deg)
    t = math.tan(p)
    planes = []
    if w.roof == "gable":
        s = (W / 2 + ov) / math.cos(p)
        for name, sign, az in (("front", -1, 0.0), ("back", 1, 180.0)):
            origin = (sign * (L / 2 + rk), sign * (W / 2 + ov), ez - ov * t)
            planes.append((name, origin, az, w.pitch_deg, _rect(L + 2 * rk, s), ("eave", "rake", "ridge", "rake")))
    elif w.roof in ("hip", "pyramid"):
        if L < W - 1e-9:
            raise ValueError(f"wing {w.name!r}: a hip roof needs length >= width ({L} < {W})")
        run = W / 2 + ov
        s = run / math.cos(p)
        long_side = L + 2 * ov
        for name, sign, az in (("front", -1, 0.0), ("back", 1, 180.0)):
            origin = (sign * (L / 2 + ov), sign * (W / 2 + ov), ez - ov * t)
            if L - W > 1e-6:
                poly = ((0.0, 0.0), (long_side, 0.0), (long_side - run, s), (run, s))
                labels = ("eave", "hip", "ridge", "hip")
            else:
                poly = ((0.0, 0.0), (long_side, 0.0), (long_side / 2, s))
                labels = ("eave", "hip", "hip")
            planes.append((name, origin, az, w.pitch_deg, poly, labels))
        short_side = W + 2 * ov
        for name, sign, az in (("left", -1, -90.0), ("right", 1, 90.0)):
            origin = (sign * (L / 2 + ov), -sign * (W / 2 + ov), ez - ov * t)
            planes.append((name, origin, az, w.pitch_deg, ((0.0, 0.0), (short_side, 0.0), (short_side / 2, s)),
                           ("eave", "hip", "hip")))
    elif w.roof == "shed":
        back_ov = shed_back_overhang(w)
        s = (W + ov + back_ov) / math.cos(p)
        planes.append(("slope", (-(L / 2 + rk), -(W / 2 + ov), ez - ov * t), 0.0, w.pitch_deg, _rect(L + 2 * rk, s),
                       ("eave", "rake", "high", "rake")))
    elif w.roof == "saltbox":
        front_run = w.ridge_fraction * W
        back_run = W - front_run
        ridge = ez + front_run * t
        back_eave = ridge - back_run * t
        planes.append(("front", (-(L / 2 + rk), -(W / 2 + ov), ez - ov * t), 0.0, w.pitch_deg,
                       _rect(L + 2 * rk, (front_run + ov) / math.cos(p)), ("eave", "rake", "ridge", "rake")))
        planes.append(("back", (L / 2 + rk, W / 2 + ov, back_eave - ov * t), 180.0, w.pitch_deg,
                       _rect(L + 2 * rk, (back_run + ov) / math.cos(p)), ("eave", "rake", "ridge", "rake")))
    elif w.roof == "gambrel":
        b = w.break_fraction * W / 2
        p2 = math.radians(w.upper_pitch_deg)
        z_break = ez + b * t
        for name, sign, az in (("front", -1, 0.0), ("back", 1, 180.0)):
            planes.append((f"{name}_lower", (sign * (L / 2 + rk), sign * (W / 2 + ov), ez - ov * t), az, w.pitch_deg,
                           _rect(L + 2 * rk, (b + ov) / math.cos(p)), ("eave", "rake", "break", "rake")))
            planes.append((f"{name}_upper", (sign * (L / 2 + rk), sign * (W / 2 - b), z_break), az, w.upper_pitch_deg,
                           _rect(L + 2 * rk, (W / 2 - b) / math.cos(p2)), ("break", "rake", "ridge", "rake")))
    else:
        raise ValueError(f"unknown roof type {w.roof!r}; expected one of {', '.join(ROOF_TYPES)}")
    return planes


def wing_planes(w: Wing) -> list[RoofPlane]:
    out = []
    for name, origin, az, pitch, poly, labels in _local_planes(w):
        world_origin = w.to_world([origin])[0]
        out.append(RoofPlane(f"{w.name}_{name}", tuple(map(float, world_origin)), float(w.axis_deg + az), float(pitch),
                             tuple((float(a), float(b)) for a, b in poly), labels, w.name))
    return out


def wing_end_profile(w: Wing) -> list[tuple[float, float]]:
    """The wall outline across the wing (y, z), counter-clockwise seen from +x: the gable-end shape."""
    W, ez = w.width_m, w.eave_z
    t = math.tan(math.radians(w.pitch_deg))
    if w.roof in ("gable",):
        return [(-W / 2, 0.0), (W / 2, 0.0), (W / 2, ez), (0.0, w.ridge_z), (-W / 2, ez)]
    if w.roof in ("hip", "pyramid"):
        return [(-W / 2, 0.0), (W / 2, 0.0), (W / 2, ez), (-W / 2, ez)]
    if w.roof == "shed":
        return [(-W / 2, 0.0), (W / 2, 0.0), (W / 2, ez + W * t), (-W / 2, ez)]
    if w.roof == "saltbox":
        front_run = w.ridge_fraction * W
        ridge = w.ridge_z
        back_eave = ridge - (W - front_run) * t
        return [(-W / 2, 0.0), (W / 2, 0.0), (W / 2, back_eave), (-W / 2 + front_run, ridge), (-W / 2, ez)]
    if w.roof == "gambrel":
        b = w.break_fraction * W / 2
        z_break = ez + b * t
        return [(-W / 2, 0.0), (W / 2, 0.0), (W / 2, ez), (W / 2 - b, z_break), (0.0, w.ridge_z),
                (-(W / 2 - b), z_break), (-W / 2, ez)]
    raise ValueError(f"unknown roof type {w.roof!r}")


def wing_walls(w: Wing) -> list[np.ndarray]:
    """The wing's walls as convex world polygons (outward normals), up to the roof planes."""
    L = w.length_m
    profile = wing_end_profile(w)
    ys = [y for y, _ in profile]
    walls = []
    # the two end walls: the profile at x = +L/2 (seen from +x, counter-clockwise) and mirrored at -L/2
    end_pos = [(L / 2, y, z) for y, z in profile]
    end_neg = [(-L / 2, y, z) for y, z in reversed(profile)]
    walls += [np.asarray(end_pos), np.asarray(end_neg)]
    # the long walls: from the profile's bottom corners up to the heights at y = -W/2 and y = +W/2
    z_front = max(z for y, z in profile if abs(y - min(ys)) < 1e-9)
    z_back = max(z for y, z in profile if abs(y - max(ys)) < 1e-9)
    y0, y1 = min(ys), max(ys)
    if w.roof in ("hip", "pyramid"):
        z_front = z_back = w.eave_z
    walls.append(np.array([(-L / 2, y0, 0.0), (L / 2, y0, 0.0), (L / 2, y0, z_front), (-L / 2, y0, z_front)]))
    walls.append(np.array([(L / 2, y1, 0.0), (-L / 2, y1, 0.0), (-L / 2, y1, z_back), (L / 2, y1, z_back)]))
    return [w.to_world(p) for p in walls]


# -- the whole house ----------------------------------------------------------------------------------

@lru_cache(maxsize=16)
def roof_planes(house: HousePlan) -> tuple[RoofPlane, ...]:
    return tuple(p for w in house.wings for p in wing_planes(w))


@lru_cache(maxsize=16)
def wall_polygons(house: HousePlan) -> tuple[np.ndarray, ...]:
    return tuple(p for w in house.wings for p in wing_walls(w))


def chimney_polygons(house: HousePlan) -> list[np.ndarray]:
    c = house.chimney
    if c is None:
        return []
    a = math.radians(c.axis_deg)
    ux, uy = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    corners2 = [np.asarray(c.center) + sx * c.width_m / 2 * ux + sy * c.depth_m / 2 * uy
                for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    bottom = [np.array([*p, c.base_z]) for p in corners2]
    top = [np.array([*p, c.top_z]) for p in corners2]
    faces = [np.array(top)]
    for i in range(4):
        j = (i + 1) % 4
        faces.append(np.array([bottom[i], bottom[j], top[j], top[i]]))
    return faces


def cap_segments(house: HousePlan) -> list[tuple[RoofPlane, np.ndarray, np.ndarray]]:
    """(plane, a, b) for each capped edge of each plane, in plane (u, v) coordinates."""
    out = []
    for plane in roof_planes(house):
        poly = np.asarray(plane.polygon_uv, float)
        for i, label in enumerate(plane.edges):
            if label in CAP_EDGES:
                out.append((plane, poly[i], poly[(i + 1) % len(poly)]))
    return out


def cap_sides(house: HousePlan) -> list[CapSide]:
    """Each capped edge of each plane as one side of its ridge cap (`core.ridge_caps.CapSide`): the line under
    the fold, the fold raised `CAP_RISE_M` above it, and the cap's lower edge `CAP_HALF_WIDTH_M` inside the
    plane, just above the shingles (world points)."""
    out = []
    for plane, a, b in cap_segments(house):
        edge = b - a
        length = float(np.hypot(*edge))
        if length < 1e-6:
            continue
        inward = np.array([-edge[1], edge[0]]) / length  # left of the edge: inside a counter-clockwise polygon
        wa, wb = plane.to_world([[*a, 0.0], [*b, 0.0]])
        rise = np.array([0.0, 0.0, CAP_RISE_M])
        ia, ib = plane.to_world([[*(a + CAP_HALF_WIDTH_M * inward), CAP_EDGE_H_M],
                                 [*(b + CAP_HALF_WIDTH_M * inward), CAP_EDGE_H_M]])
        out.append(CapSide(base=(wa, wb), top=(wa + rise, wb + rise), inner=(ia, ib), normal=plane.normal))
    return out


def cap_polygons(house: HousePlan) -> list[np.ndarray]:
    """Ridge caps as measured: each side of each cap as one strip from its fold to its lower edge (world
    polygons). The render lays cap pieces on these strips (`core.ridge_caps`)."""
    return [np.array([side.top[0], side.inner[0], side.inner[1], side.top[1]]) for side in cap_sides(house)]


def fan_triangles(polygons) -> tuple[np.ndarray, np.ndarray]:
    """Convex polygons -> (V, 3) vertices and (T, 3) triangles (fans)."""
    verts, tris, offset = [], [], 0
    for poly in polygons:
        poly = np.asarray(poly, float)
        n = len(poly)
        verts.append(poly)
        tris += [(offset, offset + i, offset + i + 1) for i in range(1, n - 1)]
        offset += n
    if not verts:
        return np.zeros((0, 3)), np.zeros((0, 3), int)
    return np.concatenate(verts), np.asarray(tris, int).reshape(-1, 3)


@lru_cache(maxsize=16)
def occluder_triangles(house: HousePlan) -> tuple[np.ndarray, np.ndarray]:
    """Triangles of everything of the house that can block a view: roof planes (the shingle surface),
    ridge caps, walls and the chimney. Used for ray casts against the house's own roof."""
    polys = [p.world_polygon() for p in roof_planes(house)] + cap_polygons(house) + list(wall_polygons(house))
    polys += chimney_polygons(house)
    return fan_triangles(polys)


def ridge_line(house: HousePlan) -> tuple[np.ndarray, np.ndarray]:
    """The main wing's ridge (its highest line) as two world points; a point for a pyramid roof."""
    w = house.main
    L, W = w.length_m, w.width_m
    z = w.ridge_z
    if w.roof in ("gable", "gambrel"):
        a, b = (-L / 2, 0.0), (L / 2, 0.0)
    elif w.roof in ("hip", "pyramid"):
        a, b = (-(L - W) / 2, 0.0), ((L - W) / 2, 0.0)
    elif w.roof == "shed":
        y = W / 2 + shed_back_overhang(w)
        a, b = (-L / 2, y), (L / 2, y)
    elif w.roof == "saltbox":
        y = -W / 2 + w.ridge_fraction * W
        a, b = (-L / 2, y), (L / 2, y)
    else:
        raise ValueError(f"unknown roof type {w.roof!r}")
    pts = w.to_world([[a[0], a[1], z], [b[0], b[1], z]])
    return pts[0], pts[1]


def roof_height_at(house: HousePlan, xy) -> np.ndarray:
    """The house's roof surface height above ground points (nan where no roof plane is overhead)."""
    xy = np.atleast_2d(np.asarray(xy, float))
    z = np.full(len(xy), np.nan)
    for plane in roof_planes(house):
        inside = plane.contains_xy(xy, margin=-1e-6)  # edges included (a ridge lies on two planes' edges)
        hz = plane.height_at(xy)
        z = np.where(inside & ~(hz <= z), hz, z)
    return z


def footprint_radius(house: HousePlan) -> float:
    """Radius around the origin that contains the whole house, overhangs included."""
    pts = np.concatenate([p.world_polygon() for p in roof_planes(house)])
    return float(np.max(np.hypot(pts[:, 0], pts[:, 1])))


# -- where a photographer stands ------------------------------------------------------------------------

def slope_planes(house: HousePlan) -> list[RoofPlane]:
    """The main wing's planes that reach its ridge (a worker can climb down them from the ridge)."""
    ridge_z = house.main.ridge_z
    out = []
    for plane in roof_planes(house):
        if plane.wing != house.main.name:
            continue
        top = plane.to_world([[0.0, plane.top_v, 0.0]])[0][2]
        if abs(top - ridge_z) < 1e-6:
            out.append(plane)
    return out
