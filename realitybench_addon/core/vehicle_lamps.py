"""The vehicle's lamps and grille (pure, issue 41): shaped on the body's rounded ends instead of pasted on them.

A blind panel named "flat box fronts with pasted-on grille textures" and "no headlights" among what gives the cars
away. Here a lamp is a lens standing `LAMP_STAND_M` proud of the body along the end's plan outline: across the
end face from its inner edge, then round the plan corner (`Profile.half_width`) onto the side, as headlamps and
tail lamps wrap real cars' corners. Each lamp carries UVs 0..1 along its outline and up its height, which the
lamp material (bl/vehicle.py) uses to draw the housing round the lens. The grille and the lower intake are a
dark mesh framed by a raised surround.

These parts are never targets. Where a lamp wraps onto a side panel no damage is drawn (`lamp_footprints`, read
by `damage.valid_region`), and no grille surround comes near a plate's mount, so what a target shows is decided by
the body and the other cars, as before.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .vehicle import StyleProfile
from .vehicle_loft import PartBuilder, Profile, box_quads, cut_quads

LAMP_STAND_M = 0.012  # a lens stands this far proud of the body
LAMP_SINK_M = 0.006  # ...and its walls reach this far into it (no gap where the body curves)
FACE_STEPS, CORNER_STEPS = 6, 12  # outline points across the end face and round the corner
HEADLAMP_WRAP = 0.6  # a headlamp wraps this share of the front corner's length onto the side
TAILLAMP_WRAP = 0.75
INDICATOR_WRAP = 0.4
GRILLE_FRAME_M = (0.025, 0.018)  # the grille surround's width and how far it stands proud
PLATE_CLEAR_M = 0.03  # no surround bar within this of the front plate's mount
UPRIGHT_GRILLE_STYLES = ("pickup", "suv", "van")  # a tall grille between the headlamps
TALL_TAILLAMP_STYLES = ("suv", "van", "minivan", "crossover", "wagon")  # upright lamps at a hatch's corners


def surface_y(prof: Profile, d, z: float, form: str = "body") -> np.ndarray:
    """y of the left side's surface at stations `d` (one section each, in one call) and height z (the section's
    rocker to shoulder)."""
    return np.array([np.interp(z, sec[1:6, 1], sec[1:6, 0]) for sec in prof.sections(np.atleast_1d(d), form=form)])


def headlamp_heights(p: StyleProfile, prof: Profile) -> tuple[float, float]:
    """(bottom, top) of the headlamps: under the hood's front edge (the beltline at the nose), above the crease.
    The grille's top follows the headlamps' top."""
    nose = float(prof.sections([0.0])[0, 4, 1])
    return max(p.crease + 0.02, nose - 0.17), nose - 0.03


def end_outline(p: StyleProfile, prof: Profile, end: str, z: float, y_in: float, wrap: float) -> tuple:
    """The left half of an end's plan outline at height z, from y = y_in across the end face and `wrap` of the
    way round the corner onto the side: (points (n, 2) as (x, y), outward normals (n, 2), arc length (n,))."""
    L = p.length
    form = "bed" if (p.bed and end == "rear") else "body"
    corner = prof.corner_length(end)
    sign = 1.0 if end == "front" else -1.0  # +x is the front
    x_end = sign * L / 2
    y_face = float(surface_y(prof, 0.0 if end == "front" else L, z, form)[0])
    ys = np.linspace(min(y_in, y_face - 0.02), y_face, FACE_STEPS + 1)[:-1]
    face = np.column_stack([np.full(len(ys), x_end), ys])
    # round the corner at even steps of the ellipse's angle (Profile.half_width: t = cos(angle))
    angle = np.linspace(0.0, np.arccos(1.0 - wrap), CORNER_STEPS + 1)
    ds = corner * (1.0 - np.cos(angle))
    stations = ds if end == "front" else L - ds
    round_ = np.column_stack([x_end - sign * ds, surface_y(prof, stations, z, form)])
    pts = np.vstack([face, round_])
    tangent = np.gradient(pts, axis=0)
    tangent /= np.linalg.norm(tangent, axis=1, keepdims=True)
    normal = sign * np.column_stack([tangent[:, 1], -tangent[:, 0]])  # outward: +x at the front face
    arc = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(pts, axis=0), axis=1))])
    return pts, normal, arc


def add_lamp(b: PartBuilder, part: str, p: StyleProfile, prof: Profile, end: str, y_in: float, wrap: float,
             z0: float, z1: float, material: str) -> None:
    """A pair of lamps (mirrored in y) on `end`, from y_in across the face and round the corner, z0..z1."""
    (lo, n_lo, a_lo), (hi, n_hi, a_hi) = (end_outline(p, prof, end, z, y_in, wrap) for z in (z0, z1))
    u_lo, u_hi = a_lo / a_lo[-1], a_hi / a_hi[-1]
    verts, uvs, tris = [], [], []

    def quad(corners, uv, outward):
        base = len(verts)
        c = np.asarray(corners)
        order = [0, 1, 2, 3] if float(np.cross(c[1] - c[0], c[2] - c[0]) @ outward) >= 0 else [3, 2, 1, 0]
        verts.extend(c[order])
        uvs.extend(np.asarray(uv)[order])
        tris.extend([[base, base + 1, base + 2], [base, base + 2, base + 3]])

    def at(pts, nrm, k, z, off):
        return np.array([pts[k, 0] + off * nrm[k, 0], pts[k, 1] + off * nrm[k, 1], z])

    n = len(lo)
    for k in range(n - 1):
        out = np.array([*(n_lo[k] + n_lo[k + 1]), 0.0])
        front = [at(lo, n_lo, k, z0, LAMP_STAND_M), at(lo, n_lo, k + 1, z0, LAMP_STAND_M),
                 at(hi, n_hi, k + 1, z1, LAMP_STAND_M), at(hi, n_hi, k, z1, LAMP_STAND_M)]
        quad(front, [(u_lo[k], 0), (u_lo[k + 1], 0), (u_hi[k + 1], 1), (u_hi[k], 1)], out)
        for pts, nrm, u, z, v, up in ((lo, n_lo, u_lo, z0, 0.0, -1.0), (hi, n_hi, u_hi, z1, 1.0, 1.0)):
            wall = [at(pts, nrm, k, z, LAMP_STAND_M), at(pts, nrm, k + 1, z, LAMP_STAND_M),
                    at(pts, nrm, k + 1, z, -LAMP_SINK_M), at(pts, nrm, k, z, -LAMP_SINK_M)]
            quad(wall, [(u[k], v), (u[k + 1], v), (u[k + 1], v), (u[k], v)], np.array([0.0, 0.0, up]))
    for k, u, ahead in ((0, 0.0, 1), (n - 1, 1.0, -1)):  # the two ends
        along = np.array([*(lo[k] - lo[k + ahead]), 0.0])
        wall = [at(lo, n_lo, k, z0, -LAMP_SINK_M), at(lo, n_lo, k, z0, LAMP_STAND_M),
                at(hi, n_hi, k, z1, LAMP_STAND_M), at(hi, n_hi, k, z1, -LAMP_SINK_M)]
        quad(wall, [(u, 0), (u, 0), (u, 1), (u, 1)], along)
    v = np.array(verts)
    t = np.array(tris)
    uv = np.array(uvs, float)
    b.add(part, v, t, material, uv=uv)
    mirrored = v * [1.0, -1.0, 1.0]
    b.add(part, mirrored, t[:, ::-1], material, uv=uv)


def _framed(b: PartBuilder, part: str, x: float, half_w: float, z0: float, z1: float, material: str,
            keep_clear: tuple, cuts: tuple) -> None:
    """A grille opening on the front face at x: the dark mesh panel (the box the grille always was) in a raised
    trim surround GRILLE_FRAME_M wide. A bar of the surround that would come near `keep_clear` ((y0, y1, z0, z1):
    the plate's mount with a margin) is left out, so the plate is as visible as before. The boxes are cut where
    the front's relief bends (`cuts`: (|y|, z), `core.vehicle_ends`), to follow it."""
    b.add_quads(part, cut_quads(box_quads((x - 0.01, -half_w, z0), (x + 0.008, half_w, z1)), *cuts), material)
    fw, stand = GRILLE_FRAME_M
    cy0, cy1, cz0, cz1 = keep_clear
    for (y0, y1, za, zb) in ((-half_w - fw, half_w + fw, z1, z1 + fw), (-half_w - fw, half_w + fw, z0 - fw, z0),
                             (-half_w - fw, -half_w, z0, z1), (half_w, half_w + fw, z0, z1)):
        if y0 < cy1 and y1 > cy0 and za < cz1 and zb > cz0:
            continue
        b.add_quads(part, cut_quads(box_quads((x - 0.01, y0, za), (x + stand, y1, zb)), *cuts), "trim")


@dataclass(frozen=True)
class LampSpec:
    """A pair of lamps: part, end, inner edge (y), wrap (share of the corner's length), heights, material."""

    part: str
    end: str
    y_in: float
    wrap: float
    z0: float
    z1: float
    material: str


def lamp_specs(p: StyleProfile, prof: Profile) -> list[LampSpec]:
    """Every lamp pair of the vehicle: headlamps wrapping the front corners, indicators below their outer ends,
    tail lamps wrapping the rear corners (tall ones at the corners of hatches and vans)."""
    L = p.length
    wf = float(prof.half_width(0.0))
    hl_z0, hl_z1 = headlamp_heights(p, prof)
    wr = float(prof.half_width(L))
    top_rear = float(prof.sections([L], form="bed" if p.bed else "body")[0, 4, 1])
    if p.name in TALL_TAILLAMP_STYLES:
        tl_z1 = min(top_rear - 0.03, p.belt + 0.25)
        tl_z0 = max(p.crease + 0.02, tl_z1 - (0.5 if p.name in ("van", "minivan", "suv") else 0.25))
        inner = 0.72
    else:
        tl_z1 = top_rear - 0.04
        tl_z0 = max(p.crease + 0.02, tl_z1 - 0.18)
        inner = 0.58
    return [LampSpec("headlights", "front", 0.52 * wf, HEADLAMP_WRAP, hl_z0, hl_z1, "headlight"),
            LampSpec("lights_amber", "front", 0.8 * wf, INDICATOR_WRAP, hl_z0 - 0.055, hl_z0 - 0.015, "indicator"),
            LampSpec("taillights", "rear", inner * wr, TAILLAMP_WRAP, tl_z0, tl_z1, "taillight")]


def lamp_footprints(p: StyleProfile, prof: Profile) -> list[tuple[float, float, float, float]]:
    """(d0, d1, z0, z1) of the side surface each lamp covers where it wraps round a corner (either side)."""
    out = []
    for lamp in lamp_specs(p, prof):
        reach = lamp.wrap * prof.corner_length(lamp.end) + LAMP_STAND_M
        d0, d1 = (0.0, reach) if lamp.end == "front" else (p.length - reach, p.length)
        out.append((d0, d1, lamp.z0, lamp.z1))
    return out


def add_lamps(p: StyleProfile, prof: Profile, b: PartBuilder) -> None:
    for lamp in lamp_specs(p, prof):
        add_lamp(b, lamp.part, p, prof, lamp.end, lamp.y_in, lamp.wrap, lamp.z0, lamp.z1, lamp.material)


def grille_half_width(p: StyleProfile, prof: Profile) -> float:
    """Half the grille's width (its mesh, inside the surround): wide and tall between the headlamps of an upright
    body, narrower above the bumper of the others."""
    return (0.5 if p.name in UPRIGHT_GRILLE_STYLES else 0.42) * float(prof.half_width(0.0))


def add_grille(p: StyleProfile, prof: Profile, b: PartBuilder, plate_mount: tuple,
               cuts: tuple = (np.zeros(0), np.zeros(0))) -> None:
    """The grille in its surround (tall on upright bodies, else with an intake low in the bumper); no surround
    near `plate_mount` ((y0, y1, z0, z1) of the front plate's mount); its boxes cut at `cuts` ((|y|, z))."""
    xf = p.length / 2
    wf = float(prof.half_width(0.0))
    _, hl_z1 = headlamp_heights(p, prof)
    zb_front = float(prof.z_bottom(0.0))
    y0, y1, z0, z1 = plate_mount
    clear = (y0 - PLATE_CLEAR_M, y1 + PLATE_CLEAR_M, z0 - PLATE_CLEAR_M, z1 + PLATE_CLEAR_M)
    if p.name in UPRIGHT_GRILLE_STYLES:
        grille_bottom = max(zb_front + 0.15, p.crease - 0.12)
        # 5 mm under the lamps' top: one height for both would render black where they overlap (core.coplanar)
        _framed(b, "grille", xf, grille_half_width(p, prof), grille_bottom, hl_z1 - 0.005, "grille_slats", clear, cuts)
    else:
        _framed(b, "grille", xf, grille_half_width(p, prof), p.crease - 0.03, hl_z1 - 0.03, "grille_mesh", clear, cuts)
        intake_top = max(zb_front + 0.12, p.crease - 0.2)
        _framed(b, "grille", xf, 0.34 * wf, zb_front + 0.07, intake_top, "grille_mesh", clear, cuts)
