"""The loft of a vehicle (pure): cross-sections along the car, named parts and their triangles."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .vehicle import Panel, PlateMount, StyleProfile

# ---------------------------------------------------------------------------------------------
# The loft: cross-sections along the car.

N_EDGES = 9  # per side: underside, rocker, lower side, upper side, shoulder, glass, cant rail, roof edge, roof
UNDERSIDE, ROCKER, LOWER, UPPER, SHOULDER, GREENHOUSE, CANT, ROOF_EDGE, ROOF = range(N_EDGES)
N_POINTS = N_EDGES + 1  # section points per side, bottom centre to top centre
RING = 2 * N_EDGES  # points around a closed section

# Smooth bodies. The sections' corners are rounded (section point -> fillet radius, m). The lower and upper
# side (p2 to p4, where a damage is drawn on its panel's (d, z) patch) keep their corners, so the patches and
# every damage drawn on them stay where they were: the crease and the beltline remain sharp style lines.
# The top line's knots are rounded over TOP_ROUNDING_M either side. The lower side swells by FLARE_M over
# each wheel (rounded fenders).
CORNER_RADII_M = {1: 0.05, 5: 0.012, 7: 0.06, 8: 0.18}
TOP_ROUNDING_M = 0.16
FLARE_M = 0.014
# Plan corners (issue 41: "flat box fronts"): the half width narrows by CORNER_INSET at the very ends, over
# CORNER_REACH times the style's `corner` (it was 12 % over 1x: square ends with a small chamfer).
CORNER_INSET = 0.2
CORNER_REACH = 1.8
ARCH_CLEARANCE_M = 0.04  # the rounding ends this far before a wheel arch


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

    def _knot_rounding(self, d):
        """Round the top line's inner knots (the hood into the windshield, the windshield into the roof, ...):
        within `h` of a knot the line is the parabola tangent to both straight pieces. The nose and the tail
        stay as they are: below the beltline the top line is the side panels' upper edge."""
        out = np.zeros(np.shape(d))
        knots = self.top_knots
        for k in range(1, len(knots) - 1):
            (d0, z0), (dk, zk), (d1, z1) = knots[k - 1], knots[k], knots[k + 1]
            h = min(TOP_ROUNDING_M, 0.45 * (dk - d0), 0.45 * (d1 - dk))
            if h <= 1e-4:
                continue
            bend = (z1 - zk) / (d1 - dk) - (zk - z0) / (dk - d0)  # the change of slope at the knot
            x = d - dk
            out = out + np.where(np.abs(x) < h, bend * ((x + h) ** 2 / (4 * h) - np.maximum(x, 0.0)), 0.0)
        return out

    @property
    def windshield_top_d(self) -> float:
        return self.p.ws_d or self.p.roof_front

    def z_top(self, d, rounded: bool = True):
        d = np.asarray(d, float)
        z = _interp(d, self.top_knots) + (self._knot_rounding(d) if rounded else 0.0)
        p = self.p
        if not p.open_top:  # a little curvature along the roof, flat where it meets the rounded knots
            span = max(p.roof_rear - p.roof_front, 1e-6)
            t = np.clip((d - p.roof_front) / span, 0, 1)
            z = z + 0.025 * np.sin(np.pi * t) ** 2
        return z

    def corner_length(self, end: str) -> float:
        """How far along the car the plan rounding of `end` ("front" | "rear") reaches: CORNER_REACH times the
        style's `corner`, stopping short of the wheel arch (the flares and tyres keep the full width)."""
        p = self.p
        overhang = p.front_overhang if end == "front" else p.rear_overhang
        return max(min(CORNER_REACH * p.corner, overhang - self.arch_r - ARCH_CLEARANCE_M), 1e-3)

    def half_width(self, d, inset: float = 0.0):
        """Half the body's width at `d`: full between the corners; at each end an elliptical quarter (in plan)
        narrows it by CORNER_INSET, so the bumpers curve round the corners instead of meeting the sides square."""
        p = self.p
        d = np.asarray(d, float)
        w0 = p.width / 2 - inset
        cf, cr = self.corner_length("front"), self.corner_length("rear")
        t = np.maximum(np.clip((cf - d) / cf, 0, 1), np.clip((d - (p.length - cr)) / cr, 0, 1))
        return w0 * (1.0 - CORNER_INSET * (1.0 - np.sqrt(np.clip(1 - t ** 2, 0, 1))))

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

    def flare(self, d):
        """How far the lower side stands out over a wheel (m): FLARE_M over the arch, easing to 0 a hand's
        width past it. Less than the 1.5 cm the rocker sits in from the crease, so the car keeps its width."""
        d = np.asarray(d, float)
        reach = self.arch_r + 0.2
        out = np.zeros(d.shape)
        for dw in self.wheels_d:
            u = np.clip(1 - ((d - dw) / reach) ** 2, 0, 1)
            out = np.maximum(out, FLARE_M * u * u * (3 - 2 * u))
        return out

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
        # the beltline follows the sharp top line where the hood is lower than it, so the rounded knots never
        # move the side panels (whose faces carry the damage patches)
        zt_sharp = self.z_top(d, rounded=False) - inset if form != "bed" else zt
        zbelt = np.maximum(np.minimum(self.belt(d), zt_sharp), zc + 0.02)
        zt = np.maximum(zt, zbelt)
        pts = np.zeros((n, N_POINTS, 2))
        pts[:, 0] = np.column_stack([np.zeros(n), zb])
        flare = self.flare(d)  # the fenders swell round the wheel arches, below the crease
        pts[:, 1] = np.column_stack([0.9 * w + 2.0 * flare, zb])
        pts[:, 2] = np.column_stack([w - 0.015 + flare, zb + np.minimum(0.09, 0.5 * (zc - zb))])
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


def loft_ring(sections: np.ndarray) -> np.ndarray:
    """(n, N_POINTS, 2) left sections -> (n, RING, 2) closed rings in (y, z):
    bottom centre, left p1..p(N-1), top centre, right p(N-1)..p1."""
    left = sections[:, 0:N_POINTS]
    right = sections[:, N_POINTS - 2:0:-1] * np.array([-1.0, 1.0])
    return np.concatenate([left, right], axis=1)


# Ring edge index -> (section edge, side)
RING_EDGES = [(e, "left") for e in range(N_EDGES)] + [(N_EDGES - 1 - e, "right") for e in range(N_EDGES)]


def _section_point(v: int) -> int:
    """The section point (p0..p9) at ring vertex v."""
    return v if v <= N_EDGES else RING - v


def rounded_ring(ring: np.ndarray, steps: int = 2, radii: dict | None = None) -> tuple[np.ndarray, list]:
    """(n, RING, 2) rings -> (n, M, 2) rings with the corners of CORNER_RADII_M rounded, and per ring point the
    (section edge, side) of the segment that leaves it, so every face keeps the part of its section edge.

    A corner becomes a quadratic Bezier from `radius` back along the edge before to `radius` along the edge
    after (at most 45% of either), tangent to both, in 2*steps segments: the first half belongs to the edge
    before, the second to the edge after. Where an edge has collapsed (a car whose glass reaches the roof
    edge has a zero-length cant rail) the corner reaches past it to the next real edge, and the collapsed
    point sits on the corner's end, so the ring never folds back. Same topology at every station."""
    radii = CORNER_RADII_M if radii is None else radii
    eps = 1e-7

    def length(a):
        return np.linalg.norm(a, axis=-1)

    corners = {}
    for v in range(RING):
        radius = radii.get(_section_point(v))
        if not radius:
            continue
        P = ring[:, v]
        prev, nxt = ring[:, v - 1], ring[:, (v + 1) % RING]
        prev = np.where((length(P - prev) < eps)[:, None], ring[:, v - 2], prev)
        nxt = np.where((length(nxt - P) < eps)[:, None], ring[:, (v + 2) % RING], nxt)
        din, dout = P - prev, nxt - P
        lin, lout = length(din), length(dout)
        a = P - din * (np.minimum(radius, 0.45 * lin) / np.maximum(lin, eps))[:, None]
        b = P + dout * (np.minimum(radius, 0.45 * lout) / np.maximum(lout, eps))[:, None]
        corners[v] = (a, P, b)
    points, labels = [], []
    for v in range(RING):
        if v in corners:
            a, c, b = corners[v]
            for j in range(2 * steps + 1):
                u = j / (2 * steps)
                points.append((1 - u) ** 2 * a + 2 * u * (1 - u) * c + u ** 2 * b)
                labels.append(RING_EDGES[v - 1] if j < steps else RING_EDGES[v])
            continue
        P = ring[:, v]
        after, before = (v + 1) % RING, (v - 1) % RING
        if after in corners:
            P = np.where((length(ring[:, after] - P) < eps)[:, None], corners[after][0], P)
        if before in corners:
            P = np.where((length(P - ring[:, before]) < eps)[:, None], corners[before][2], P)
        points.append(P)
        labels.append(RING_EDGES[v])
    return np.stack(points, axis=1), labels


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


def loft_stations(d0: float, d1: float, breaks: list[float], step: float = 0.05) -> np.ndarray:
    base = list(np.linspace(d0, d1, max(2, int(math.ceil((d1 - d0) / step)) + 1)))
    extra = [b for b in breaks if d0 < b < d1]
    return np.unique(np.round(np.array(base + extra), 6))


_QUAD_TRIANGLES = np.array([[0, 1, 2], [0, 2, 3]])


def _triangles(chunks: list) -> np.ndarray:
    """A part's triangles from its chunks, in order: (k, 3) arrays, and the first-vertex offsets (ints) of the
    quads `PartBuilder.add_quad` added, two triangles each, made a run at a time."""
    out, run = [], []
    for chunk in chunks:
        if isinstance(chunk, int):
            run.append(chunk)
            continue
        if run:
            out.append((np.array(run)[:, None, None] + _QUAD_TRIANGLES).reshape(-1, 3))
            run = []
        out.append(chunk)
    if run:
        out.append((np.array(run)[:, None, None] + _QUAD_TRIANGLES).reshape(-1, 3))
    return np.concatenate(out)


class PartBuilder:
    """Collects triangles per part."""

    def __init__(self):
        self.data: dict[str, dict] = {}

    def add(self, part: str, verts: np.ndarray, tris: np.ndarray, material: str, uv: np.ndarray | None = None):
        """Triangles of `part`; `uv` (per vertex) if the part carries UVs: then every chunk of it must, and
        coincident vertices must share theirs (they are welded into one)."""
        entry = self.data.setdefault(part, {"v": [], "t": [], "m": [], "n": 0, "uv": []})
        verts = np.asarray(verts, float).reshape(-1, 3)
        tris = np.asarray(tris, int).reshape(-1, 3)
        entry["v"].append(verts)
        entry["t"].append(tris + entry["n"])
        entry["m"] += [material] * len(tris)
        entry["n"] += len(verts)
        if uv is not None:
            entry["uv"].append(np.asarray(uv, float).reshape(-1, 2))

    def add_quad(self, part: str, quad: np.ndarray, material: str):
        """One (4, 3) float quad, counter-clockwise seen from outside: `add_quads` of one, without its
        conversions (a loft adds some 10,000 a vehicle)."""
        entry = self.data.setdefault(part, {"v": [], "t": [], "m": [], "n": 0, "uv": []})
        entry["v"].append(quad)
        entry["t"].append(entry["n"])  # its two triangles, made in `parts` with the quads next to it
        entry["m"] += [material, material]
        entry["n"] += 4

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
            v, t = np.concatenate(e["v"]), _triangles(e["t"])
            fm = np.array([index[m] for m in e["m"]], np.int32)
            keep = triangle_areas(v, t) > 1e-12  # drop the degenerate triangles of collapsed sections
            v_all = v
            v, t, source = weld(v, t[keep])
            out[name] = Part(name, v, t, mats, fm[keep])
            if e["uv"]:
                uv = np.concatenate(e["uv"])
                if len(uv) != len(v_all):
                    raise ValueError(f"part {name!r}: UVs given for some of its chunks only")
                out[name].uv = uv[source]
        return out


def weld(v: np.ndarray, t: np.ndarray, tol: float = 1e-6) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Merge coincident vertices (so smooth shading runs across the loft's quads) and drop unused ones:
    (vertices, triangles, the input index each vertex came from)."""
    if len(t) == 0:
        return np.zeros((0, 3)), np.zeros((0, 3), int), np.zeros(0, np.int64)
    used = np.unique(t)
    key = np.round(v[used] / tol).astype(np.int64)
    uniq, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    remap = np.zeros(len(v), np.int64)
    remap[used] = inverse.ravel()
    return v[used][first], remap[t], used[first]


def box_quads(lo, hi) -> np.ndarray:
    """An axis-aligned box's six faces as quads, outward."""
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    c = np.array([[x0, y0, z0], [x1, y0, z0], [x1, y1, z0], [x0, y1, z0],
                  [x0, y0, z1], [x1, y0, z1], [x1, y1, z1], [x0, y1, z1]])
    faces = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (2, 3, 7, 6), (1, 2, 6, 5), (3, 0, 4, 7)]
    return c[np.array(faces)]


def cut_quads(quads: np.ndarray, ys, zs) -> np.ndarray:
    """(k, 4, 3) quads cut bilinearly where they cross the planes y = +-ys and z = zs (the places an end's relief
    bends, `core.vehicle_ends`), so they can follow it. A side is cut where it crosses a plane, so two faces that
    share a side cut it alike."""
    planes = [(1, c) for c in np.concatenate([-np.asarray(ys, float), np.asarray(ys, float)])]
    planes += [(2, c) for c in np.asarray(zs, float)]

    def params(a, b):
        s = [0.0, 1.0]
        for axis, c in planes:
            span = b[axis] - a[axis]
            if abs(span) > 1e-9:
                t = (c - a[axis]) / span
                if 1e-6 < t < 1 - 1e-6:
                    s.append(t)
        return np.unique(np.round(s, 9))

    out = []
    for q in np.asarray(quads, float).reshape(-1, 4, 3):
        su, sv = np.union1d(params(q[0], q[1]), params(q[3], q[2])), np.union1d(params(q[0], q[3]), params(q[1], q[2]))
        s, t = np.meshgrid(su, sv)
        s, t = s[..., None], t[..., None]
        grid = (1 - s) * (1 - t) * q[0] + s * (1 - t) * q[1] + s * t * q[2] + (1 - s) * t * q[3]
        out.append(np.stack([grid[:-1, :-1], grid[:-1, 1:], grid[1:, 1:], grid[1:, :-1]], axis=2).reshape(-1, 4, 3))
    return np.concatenate(out) if out else np.zeros((0, 4, 3))


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


