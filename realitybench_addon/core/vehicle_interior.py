"""The cabin seen through a vehicle's glass (pure): seats with rounded cushions, a dashboard and a steering wheel.

Before, the glass was backed by the dark inner shell, so every window read as a black pane. These parts sit
inside the body shell (checked by tests against the loft's sections), well inside the car's footprint, and are
cosmetic: they are not targets and are left out of the car's body samples (`COSMETIC_PREFIX`).

Seat rows: the front seats' backs stand just ahead of the B-pillar; a rear bench follows 0.9 m behind when the
style has four or more seats (a third row in the minivan); each row is clamped under the roof line.
"""
from __future__ import annotations

import math

import numpy as np

from .vehicle import VehiclePlan
from .vehicle_loft import PartBuilder, Profile

COSMETIC_PREFIX = "cabin_"  # parts whose names start with this are not targets
SEAT_ROW_PITCH_M = 0.9
SUPER_EXPONENT = 0.35  # superellipsoid roundness: 1 = ellipsoid, -> 0 = box


def superellipsoid(center, half, exponent: float = SUPER_EXPONENT, n_lat: int = 8, n_lon: int = 12,
                   tilt: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """A rounded block: (verts, tris). `half` = half sizes (x, y, z); `tilt` rotates it about y (radians,
    positive leans its top towards -x, the car's rear)."""
    lat = np.linspace(-np.pi / 2, np.pi / 2, n_lat + 1)
    lon = np.linspace(-np.pi, np.pi, n_lon, endpoint=False)
    la, lo = np.meshgrid(lat, lon, indexing="ij")

    def spow(a):
        return np.sign(a) * np.abs(a) ** exponent

    x = half[0] * spow(np.cos(la)) * spow(np.cos(lo))
    y = half[1] * spow(np.cos(la)) * spow(np.sin(lo))
    z = half[2] * spow(np.sin(la))
    pts = np.stack([x, y, z], axis=-1).reshape(-1, 3)
    c, s = math.cos(tilt), math.sin(tilt)
    rot = np.array([[c, 0.0, -s], [0.0, 1.0, 0.0], [s, 0.0, c]])
    pts = pts @ rot.T + np.asarray(center, float)
    tris = []
    for i in range(n_lat):
        for j in range(n_lon):
            a, b = i * n_lon + j, i * n_lon + (j + 1) % n_lon
            tris += [(a, b, b + n_lon), (a, b + n_lon, a + n_lon)]
    return pts, np.array(tris)  # the poles' rings collapse to points; their zero-area triangles are dropped later


def torus(center, axis, radius: float, tube: float, n_major: int = 20, n_minor: int = 6):
    """A ring around `axis` through `center`: (verts, tris)."""
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    u = np.cross(axis, [0.0, 1.0, 0.0])
    u = u / np.linalg.norm(u) if np.linalg.norm(u) > 1e-6 else np.array([1.0, 0.0, 0.0])
    v = np.cross(axis, u)
    a = np.linspace(0, 2 * np.pi, n_major, endpoint=False)[:, None]
    b = np.linspace(0, 2 * np.pi, n_minor, endpoint=False)[None, :]
    radial = np.cos(a)[..., None] * u + np.sin(a)[..., None] * v  # (n_major, 1, 3)
    pts = np.asarray(center) + (radius + tube * np.cos(b))[..., None] * radial + (tube * np.sin(b))[..., None] * axis
    pts = pts.reshape(-1, 3)
    tris = []
    for i in range(n_major):
        for j in range(n_minor):
            p0, p1 = i * n_minor + j, i * n_minor + (j + 1) % n_minor
            q0, q1 = ((i + 1) % n_major) * n_minor + j, ((i + 1) % n_major) * n_minor + (j + 1) % n_minor
            tris += [(p0, q0, q1), (p0, q1, p1)]
    return pts, np.array(tris)


def seat_rows(plan: VehiclePlan, seams: dict) -> list[float]:
    """d (metres back from the front) of each seat row's backrest."""
    p = plan.profile
    front = seams["door1"] - 0.02
    rows = [front]
    if p.seats >= 4 and not p.cargo:
        last = (p.cab_end - 0.16) if p.bed else (p.roof_rear + 0.12 if p.deck > p.roof_rear + 0.1 else p.roof_rear)
        n_rows = 3 if p.seats >= 7 else 2
        for k in range(1, n_rows):
            d = front + k * SEAT_ROW_PITCH_M
            if d <= last:
                rows.append(d)
            elif k == 1:
                rows.append(last)  # a short cabin: the bench moves forward into the space left
    return rows


def add_interior(plan: VehiclePlan, prof: Profile, seams: dict, b: PartBuilder) -> None:
    """Seats, dashboard and steering wheel as parts `cabin_seats`, `cabin_dash`, `cabin_wheel`."""
    p = plan.profile
    L = p.length
    floor = p.clearance + 0.14
    cushion_top = floor + 0.34
    if not p.open_top:  # the convertible keeps its own seats (built with its cockpit)
        for row, d_back in enumerate(seat_rows(plan, seams)):
            roof = float(prof.z_top(d_back + 0.05))
            back_top = min(cushion_top + 0.56, roof - 0.2)
            head_top = min(back_top + 0.2, roof - 0.07)
            x_back = L / 2 - d_back
            if row == 0:
                halves, centres = [0.24, 0.24], [0.22 * p.width, -0.22 * p.width]
            else:  # a bench across the car
                halves, centres = [0.38 * p.width], [0.0]
            h = 0.5 * (back_top - cushion_top + 0.06)
            for yc, hy in zip(centres, halves):
                v, t = superellipsoid((x_back + 0.27, yc, cushion_top - 0.07), (0.26, hy, 0.07))
                b.add("cabin_seats", v, t, "seat")
                v, t = superellipsoid((x_back - 0.02, yc, cushion_top - 0.06 + h), (0.07, hy, h), tilt=0.2)
                b.add("cabin_seats", v, t, "seat")
            heads = [0.22 * p.width, -0.22 * p.width] if row == 0 else [0.21 * p.width, -0.21 * p.width]
            if head_top - back_top > 0.08:
                for yc in heads:
                    hz = 0.5 * (head_top - back_top)
                    v, t = superellipsoid((x_back - 0.04 - 0.2 * h, yc, back_top + hz),
                                          (0.05, 0.13, hz), exponent=0.5, n_lat=6, n_lon=10)
                    b.add("cabin_seats", v, t, "seat")
    # dashboard: a rounded block across the car under the windshield
    d_dash = p.cowl + 0.36
    ws_z = float(prof.z_top(p.cowl + 0.12))
    top = min(p.belt + 0.05, ws_z - 0.04)
    bottom = top - 0.32
    half_y = float(prof.half_width(d_dash)) - 0.13
    v, t = superellipsoid((L / 2 - d_dash, 0.0, 0.5 * (top + bottom)), (0.26, half_y, 0.5 * (top - bottom)),
                          exponent=0.3, n_lat=6, n_lon=16)
    b.add("cabin_dash", v, t, "dash")
    # steering wheel on the driver's side (+y), tilted towards the driver, and its column
    yc = 0.22 * p.width
    centre = np.array([L / 2 - (d_dash + 0.42), yc, top - 0.04])
    axis = np.array([-math.cos(math.radians(28)), 0.0, math.sin(math.radians(28))])
    v, t = torus(centre, axis, 0.175, 0.017)
    b.add("cabin_wheel", v, t, "wheel_rim")
    hub = centre - 0.01 * axis
    v, t = superellipsoid(hub, (0.035, 0.06, 0.06), exponent=0.6, n_lat=4, n_lon=8)
    b.add("cabin_wheel", v, t, "wheel_rim")
    for ang in (-math.pi / 2, math.pi / 6, 5 * math.pi / 6):  # three spokes
        u = np.cross(axis, [0.0, 1.0, 0.0])
        u /= np.linalg.norm(u)
        w = np.cross(axis, u)
        rim = centre + 0.165 * (math.cos(ang) * u + math.sin(ang) * w)
        mid = 0.5 * (hub + rim)
        span = rim - hub
        v, t = _bar(mid, span, 0.012)
        b.add("cabin_wheel", v, t, "wheel_rim")
    column_end = centre - 0.28 * axis
    v, t = _bar(0.5 * (centre + column_end), column_end - centre, 0.03)
    b.add("cabin_wheel", v, t, "dash")


def _bar(mid, span, radius: float, sides: int = 6):
    """A thin prism from mid - span/2 to mid + span/2: (verts, tris), open ends."""
    span = np.asarray(span, float)
    axis = span / np.linalg.norm(span)
    u = np.cross(axis, [0.0, 0.0, 1.0])
    u = u / np.linalg.norm(u) if np.linalg.norm(u) > 1e-6 else np.array([1.0, 0.0, 0.0])
    w = np.cross(axis, u)
    a = np.linspace(0, 2 * np.pi, sides, endpoint=False)
    ring = radius * (np.cos(a)[:, None] * u + np.sin(a)[:, None] * w)
    v = np.vstack([mid - span / 2 + ring, mid + span / 2 + ring])
    tris = []
    for j in range(sides):
        k = (j + 1) % sides
        tris += [(j, k, sides + k), (j, sides + k, sides + j)]
    return v, np.array(tris)
