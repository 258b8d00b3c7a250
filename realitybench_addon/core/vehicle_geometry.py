"""A vehicle plan made into its parts (pure): the loft split into panels, glass and trim, the details
added; cached per plan."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from .vehicle import INNER_INSET_M, SEAM_GAP_M, SIDES, StyleProfile, VehiclePlan
from .vehicle_details import (MOUNT_SIZE_M, add_details, add_handle_dressing, add_mirror_dressing, plate_mounts_of,
                              tyre_uv)
from .vehicle_ends import EndRelief
from .vehicle_wheels import WHEEL_DRESSING, add_wheel_dressing
from .vehicle_interior import add_interior
from .vehicle_loft import (CANT, GREENHOUSE, LOWER, N_POINTS, RING_EDGES, ROCKER, ROOF, ROOF_EDGE, SHOULDER,
                           UNDERSIDE, UPPER, PartBuilder, Profile, VehicleGeometry, loft_ring, loft_stations,
                           rounded_ring)
from .vehicle_panels import BED_GAP_M, FaceClassifier, body_panels, door_seams, side_zones


@dataclass
class _Loft:
    """What lofting the body shares across segments: the plan's profile, the face classifier, the shut
    lines (d -> the ring edges they cut), and what it collects (parts, the outer quads' labels, the side
    panels' loft quads)."""
    p: StyleProfile
    prof: Profile
    classify: FaceClassifier
    cuts: dict
    cuts_top: dict
    b: PartBuilder
    relief: EndRelief
    labels: dict = field(default_factory=dict)  # (segment, station interval, ring edge) -> part name
    loft: dict = field(default_factory=dict)


def _shut_lines(p: StyleProfile, seams: dict, classify: FaceClassifier) -> tuple[dict, dict]:
    """The shut lines: d -> the section edges they cut, along the sides and across the top."""
    sides4 = (ROCKER, LOWER, UPPER, SHOULDER)
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
    return cuts, cuts_top


def _station_breaks(p: StyleProfile, prof: Profile, seams: dict, cuts: dict, cuts_top: dict) -> list[float]:
    """Where the loft must have stations: both sides of every shut line, round the wheel arches, the knots."""
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
    return breaks


def _shell_quads(lo: _Loft, ds: np.ndarray, inset: float, form: str) -> tuple[np.ndarray, list]:
    """Every quad of one shell at once: (station interval, ring edge, corner, xyz), and the ring's edges.
    The outside is smooth; the inner shell, seen only through the shut lines, keeps its corners: the
    rounding cuts at most ~3 cm into a corner, short of the 5 cm inset."""
    n = len(ds)
    sharp = loft_ring(lo.prof.sections(ds, inset=inset, form=form))
    ring, ring_edges = (sharp, RING_EDGES) if inset else rounded_ring(sharp)
    m = len(ring_edges)
    pts = np.concatenate([np.broadcast_to((lo.p.length / 2 - ds)[:, None, None], (n, m, 1)), ring], axis=2)
    nxt = np.roll(pts, -1, axis=1)
    return np.stack([pts[:-1], pts[1:], nxt[1:], nxt[:-1]], axis=2), ring_edges


def _add_inner_quad(lo: _Loft, quad: np.ndarray, form: str, dm: float, e: int, side) -> None:
    """A quad of the inner shell; behind the glass the shell is see-through (the cabin shows)."""
    p = lo.p
    skip = e == UNDERSIDE or (form == "bed" and e > SHOULDER) or \
        (p.open_top and lo.prof.cockpit(dm) and e >= GREENHOUSE)
    if not skip:
        behind_glass = lo.classify(form, dm, e, side)[1] == "glass"
        lo.b.add_quad("inner", quad, "inner_clear" if behind_glass else "inner")


def _loft_shell(lo: _Loft, si: int, form: str, ds: np.ndarray, inset: float) -> int:
    """One shell (outer, or inner at `inset`) of segment `si`; returns its ring's size."""
    gap = SEAM_GAP_M
    quads, ring_edges = _shell_quads(lo, ds, inset, form)
    for i in range(len(ds) - 1):
        dm = 0.5 * (ds[i] + ds[i + 1])
        cut_edges = {e for c, edges in (*lo.cuts.items(), *lo.cuts_top.items()) if abs(dm - c) < gap / 2
                     for e in edges}  # the ring edges a shut line crosses in this interval
        for r in range(len(ring_edges)):
            e, side = ring_edges[r]
            quad = quads[i, r]
            if inset:
                _add_inner_quad(lo, quad, form, dm, e, side)
                continue
            name, mat = lo.classify(form, dm, e, side)
            lo.labels[(si, i, r)] = name
            if e not in cut_edges:
                lo.b.add_quad(name, quad, mat)
                if name.endswith(SIDES) and not name.startswith("glass"):  # a side panel's quads
                    lo.loft.setdefault(name, []).append((float(ds[i]), float(ds[i + 1]), e, quad, mat))
    return len(ring_edges)


def _end_parts(lo: _Loft, form: str, end: str) -> tuple[str, str]:
    """The parts an end cap's lower and upper strips belong to."""
    if form == "bed":
        return ("bed_front", "bed_front") if end == "front" else ("bumper_rear", "tailgate")
    if lo.p.bed and end == "rear":
        return "cab_back", "cab_back"
    return ("bumper_front", "bumper_front") if end == "front" else ("bumper_rear", lo.classify.trunk)


def _cap_columns(relief: EndRelief, end: str) -> np.ndarray:
    """Where an end cap's columns cross it (y, from left to right): where the end's relief bends across it, and
    the row's own ends (+-inf, clipped to each row's half width; a column beyond a row's end collapses there)."""
    ys = relief.breaks(end)[0]
    ys = ys[ys > 0]
    return np.concatenate([[np.inf], ys[::-1], [0.0], -ys, [-np.inf]])


def _cap_rows(relief: EndRelief, end: str, l0: np.ndarray, l1: np.ndarray) -> np.ndarray:
    """Where rows cut the strip from ring point l0 to l1 (shares of the way): where the end's relief bends up it.
    Only a strip whose two ring points the relief leaves in place is cut: its side edges are the loft's, and a
    point added on them must stay on them. The relief is upright above the beltline, so the strips up there
    need no rows."""
    if min(abs(l0[0]), abs(l1[0])) < relief.y_out[end] or abs(l1[1] - l0[1]) < 1e-6:
        return np.array([0.0, 1.0])
    z = relief.breaks(end)[1]
    z0, z1 = sorted((float(l0[1]), float(l1[1])))
    t = (z[(z > z0) & (z < z1)] - l0[1]) / (l1[1] - l0[1])
    return np.union1d(np.round(t, 9), [0.0, 1.0])


def _end_caps(lo: _Loft, s0: float, s1: float, form: str) -> None:
    """Strips across the segment's (rounded) end sections between mirrored points (normal out of the end), cut
    into cells the end's relief (`core.vehicle_ends`) can shape."""
    L = lo.p.length
    end_rings, end_edges = rounded_ring(loft_ring(lo.prof.sections([s0, s1], form=form)))
    top = next(k for k, (e, side) in enumerate(end_edges) if side == "right")  # the top centre
    for end, sec, x, d in (("front", end_rings[0], L / 2 - s0, s0), ("rear", end_rings[1], L / 2 - s1, s1)):
        low, up = _end_parts(lo, form, end)
        top_e = 4 if form == "bed" else N_POINTS - 1
        # a pickup's cab back is no end of the car: its own plane, uncut
        columns = _cap_columns(lo.relief, end) if d in (0.0, L) else np.array([np.inf, -np.inf])
        for k in range(top):
            e = end_edges[k][0]
            if e >= top_e:
                continue
            l0, l1 = sec[k], sec[k + 1]
            rows = _cap_rows(lo.relief, end, l0, l1) if len(columns) > 2 else np.array([0.0, 1.0])
            pts = l0[None] + rows[:, None] * (l1 - l0)[None]  # (rows, 2) as (y, z)
            grid = np.stack([np.full((len(rows), len(columns)), x),
                             # + 0.0: no -0.0 at the centre line (numpy 1 and 2 clip to different zeros)
                             np.clip(columns[None], -pts[:, None, 0], pts[:, None, 0]) + 0.0,
                             np.broadcast_to(pts[:, None, 1], (len(rows), len(columns)))], axis=2)
            quads = np.stack([grid[:-1, :-1], grid[:-1, 1:], grid[1:, 1:], grid[1:, :-1]], axis=2).reshape(-1, 4, 3)
            if end == "front":
                quads = quads[:, ::-1]
            # the lowest strip (the rocker's, ~9 cm) is the bumper's black lower valance
            lo.b.add_quads(low if e < 3 else up, quads, "trim" if e == ROCKER and form != "bed" else "paint")


@lru_cache(maxsize=64)
def vehicle_geometry(plan: VehiclePlan) -> VehicleGeometry:
    """Every part of the vehicle as triangles in the vehicle frame, its panels and plate mounts."""
    p = plan.profile
    prof = Profile(p)
    L = p.length
    seams = door_seams(p)
    zones = {side: side_zones(p, side, seams) for side in SIDES}
    classify = FaceClassifier(p, prof, seams, zones)
    cuts, cuts_top = _shut_lines(p, seams, classify)
    breaks = _station_breaks(p, prof, seams, cuts, cuts_top)
    segments = [(0.0, p.cab_end, "body"), (p.cab_end + BED_GAP_M, L, "bed")] if p.bed else [(0.0, L, "body")]
    relief = EndRelief(p, prof, plate_mounts_of(p, prof), seams, MOUNT_SIZE_M)
    lo = _Loft(p, prof, classify, cuts, cuts_top, PartBuilder(), relief)
    for si, (s0, s1, form) in enumerate(segments):
        ds = loft_stations(s0, s1, [x for x in breaks if s0 < x < s1])
        outer_ring_size = _loft_shell(lo, si, form, ds, 0.0)  # the panels' neighbours are found along it
        _loft_shell(lo, si, form, ds, INNER_INSET_M)
        _end_caps(lo, s0, s1, form)
    b = lo.b
    add_details(plan, prof, seams, zones, b, {end: relief.breaks(end) for end in ("front", "rear")})
    add_interior(plan, prof, seams, b)  # the parts before it (the targets) are as they were
    add_mirror_dressing(p, prof, b)  # cosmetic too: after the targets
    add_handle_dressing(plan, prof, zones, b)
    add_wheel_dressing(plan, b)
    parts = b.parts()
    for name, part in parts.items():  # bumpers that stand proud, a nose and a tail that lean back
        part.vertices = relief.shaped(part.vertices, full_width=name == "inner")
    for name in ("tyres", WHEEL_DRESSING):  # the tread and sidewall pattern's coordinates
        parts[name].uv = tyre_uv(plan, parts[name].vertices)
    panels = body_panels(parts, lo.labels, zones, p, outer_ring_size)
    return VehicleGeometry(parts, panels, relief.shaped_mounts(), segments, seams, zones, lo.loft)
