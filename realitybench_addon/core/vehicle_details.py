"""The small parts of a vehicle (pure): wheels and tyres, mirrors, door handles, roof rails, and the plate
mounts; the lamps and grille (`vehicle_lamps`)."""
from __future__ import annotations

import math

import numpy as np

from .vehicle import PlateMount, StyleProfile, VehiclePlan
from .vehicle_interior import superellipsoid
from .vehicle_lamps import add_grille, add_lamps
from .vehicle_loft import PartBuilder, Profile, box_quads, cut_quads, cylinder_y

PLATE_SIZE_M = (0.305, 0.152)  # a US plate: 12 x 6 in
MOUNT_SIZE_M = (0.335, 0.18)


def plate_mounts_of(p: StyleProfile, prof: Profile) -> dict[str, PlateMount]:
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


def _box(b: PartBuilder, part: str, lo, hi, material: str) -> None:
    lo, hi = np.minimum(lo, hi), np.maximum(lo, hi)
    b.add_quads(part, box_quads(lo, hi), material)


def _flip_out(q: np.ndarray, sgn: float) -> np.ndarray:
    """A quad turned to face out of the car's `sgn` side, as one quad of a batch."""
    return (q if sgn < 0 else q[::-1])[None]


def _add_wheel(plan: VehiclePlan, b: PartBuilder, center) -> None:
    """One wheel: tyre, dark rim well, rim lip, spokes, hub."""
    p = plan.profile
    x, y, z = center
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
        b.add_quads("rims", _flip_out(q, sgn), "wheel_metal")
    _add_spokes(plan, b, np.array([x, out, z]), sgn, rim_r, lip_in)
    v, t = cylinder_y((x, out, z), 0.16 * rim_r, 0.01, 12)
    b.add("rims", v, t, "wheel_metal")


def spoke_layout(plan: VehiclePlan) -> tuple[int, float, float]:
    """(how many spokes, half a spoke's width at the lip, the first spoke's angle): 5 to 7 by the plan's seed,
    the same for the measured rims and the dressed wheel (`core.vehicle_wheels`)."""
    return 5 + plan.seed % 3, 0.028 + 0.008 * (plan.seed % 3), (plan.seed % 7) * 0.1


def _add_spokes(plan: VehiclePlan, b: PartBuilder, c: np.ndarray, sgn: float, rim_r: float, lip_in: float) -> None:
    """The wheel's spokes (`spoke_layout`) from the hub at `c` to the rim lip."""
    n_spokes, half, phase = spoke_layout(plan)
    for k in range(n_spokes):
        ang = 2 * np.pi * k / n_spokes + phase
        radial = np.array([math.cos(ang), 0.0, math.sin(ang)])
        tangent = np.array([-math.sin(ang), 0.0, math.cos(ang)])
        q = np.array([c + radial * 0.12 * rim_r - tangent * half * 0.7, c + radial * lip_in - tangent * half,
                      c + radial * lip_in + tangent * half, c + radial * 0.12 * rim_r + tangent * half * 0.7])
        b.add_quads("rims", _flip_out(q, sgn), "wheel_metal")


def _add_wheel_wells(p: StyleProfile, prof: Profile, b: PartBuilder) -> None:
    """Close the arch tunnel between the two sides of each axle."""
    L = p.length
    for dw in prof.wheels_d:
        x = L / 2 - dw
        y = p.width / 2 - 0.06 - p.tyre_width
        _box(b, "underbody", (x - prof.arch_r, -y, p.clearance + 0.02), (x + prof.arch_r, y, 2 * p.tyre_radius + 0.04),
             "chassis")


def mirror_base(p: StyleProfile, prof: Profile) -> tuple[float, float, float]:
    """(x, half width, z) of the wing mirrors' box corner: at the windshield base, just above the beltline."""
    d = p.cowl + (0.1 if p.open_top else 0.14)
    return p.length / 2 - d, float(prof.half_width(d)), float(prof.belt(d)) + 0.05


def mirror_boxes(p: StyleProfile, prof: Profile, sgn: float) -> list[tuple[tuple, tuple, str]]:
    """The measured wing mirror of side `sgn`: (lo, hi, material) of its two boxes (housing, foot)."""
    x, w, z = mirror_base(p, prof)
    return [((x - 0.14, sgn * (w - 0.06), z), (x, sgn * (w + 0.17), z + 0.13), "paint"),
            ((x - 0.13, sgn * (w - 0.04), z - 0.03), (x - 0.03, sgn * (w + 0.02), z + 0.01), "trim")]


HANDLE_LENGTH_M, HANDLE_HEIGHT_M = 0.13, 0.03


def _door_skin_y(prof: Profile, d: float, z: float) -> float:
    """The side skin's half width at station `d` (from the nose) and height `z`, between the belt's section points."""
    return float(_door_skin_ys(prof, [d], [z])[0])


def _door_skin_ys(prof: Profile, d, z) -> np.ndarray:
    """`_door_skin_y` at many points at once: one call of `sections` for all their stations (a handle's few
    dozen points, one section each, were a third of a car's build)."""
    sec = prof.sections(np.asarray(d, float))
    z = np.asarray(z, float)
    (y0, z0), (y1, z1) = sec[:, 3].T, sec[:, 4].T
    out = np.empty(len(z))
    for i in range(len(z)):  # np.interp itself, a point at a time: the same numbers as before, to the bit
        out[i] = np.interp(z[i], [z0[i], z1[i]], [y0[i], y1[i]])
    return out


def handle_boxes(p: StyleProfile, prof: Profile, zones: dict, sgn: float) -> list[tuple[tuple, tuple]]:
    """The measured door handles of side `sgn`: (lo, hi) of one box a door, 17 cm ahead of its rear edge and
    10 cm below the beltline, from 1 cm inside the skin to 1.8 cm out of it."""
    side = "left" if sgn > 0 else "right"
    boxes = []
    for kind, _name, _a, dd in zones[side]:
        if kind in ("door_front", "door_rear", "sliding_door"):
            dh = dd - 0.17
            zh = float(prof.sections([dh])[0][4, 1]) - 0.1
            wh = _door_skin_y(prof, dh, zh)
            xh = p.length / 2 - dh
            boxes.append(((xh - HANDLE_LENGTH_M, sgn * (wh - 0.01), zh),
                          (xh, sgn * (wh + 0.018), zh + HANDLE_HEIGHT_M)))
    return boxes


def _add_side(p: StyleProfile, prof: Profile, seams: dict, zones: dict, b: PartBuilder, sgn: float) -> None:
    """One side's mirror at the windshield base, a handle on every door, and a sliding door's track."""
    L = p.length
    side = "left" if sgn > 0 else "right"
    for lo, hi, material in mirror_boxes(p, prof, sgn):
        _box(b, "mirrors", lo, hi, material)
    for lo, hi in handle_boxes(p, prof, zones, sgn):
        _box(b, "handles", lo, hi, "trim")
    if p.sliding == "both" or p.sliding == side:
        # the sliding door's track along the quarter panel, under the rear side window
        d0, d1 = seams["door2"] + 0.02, L - p.rear_overhang + 0.2
        sec = prof.sections([d0])[0]
        z = float(sec[4, 1]) - 0.02
        w = float(sec[4, 0])
        _box(b, "trim_strips", (L / 2 - d1, sgn * (w - 0.02), z - 0.03), (L / 2 - d0, sgn * (w + 0.008), z), "trim")


DRESSING_PREFIX = "dress_"  # the outside's cosmetic parts: never targets (like the cabin's), see bl/vehicle.py
MIRROR_DRESSING = DRESSING_PREFIX + "mirrors"  # the rounded mirrors the camera sees


def add_mirror_dressing(p: StyleProfile, prof: Profile, b: PartBuilder) -> None:
    """Wing mirrors as a camera sees them: a rounded housing with its glass facing back, on a short arm from
    a base on the door. Cosmetic (not a target) and inside the measured mirror boxes' volume
    (`mirror_boxes`), which stay the mirrors that the measurements sample and ray-cast; the renderer hides
    those boxes from the camera (bl/vehicle.py)."""
    x, w, z = mirror_base(p, prof)
    for sgn in (1.0, -1.0):
        cx, cy, cz = x - 0.07, sgn * (w + 0.1), z + 0.075
        v, t = superellipsoid((cx, cy, cz), (0.062, 0.062, 0.05), exponent=0.45, n_lat=6, n_lon=14)
        v[:, 0] = np.maximum(v[:, 0], cx - 0.045)  # the back is flat: the mirror glass sits in it
        b.add(MIRROR_DRESSING, v, t, "paint")
        a = np.linspace(0.0, 2 * np.pi, 17)
        rim = np.column_stack([np.full(17, cx - 0.046), cy + 0.052 * np.cos(a), cz + 0.04 * np.sin(a)])
        centre = np.array([[cx - 0.046, cy, cz]])
        glass = [np.array([centre[0], rim[k], rim[k + 1]]) for k in range(16)]
        glass = [g[::-1] for g in glass]  # facing back (-x)
        b.add(MIRROR_DRESSING, np.concatenate(glass), np.arange(48).reshape(-1, 3), "wheel_metal")
        v, t = superellipsoid((x - 0.065, sgn * (w + 0.005), z + 0.037), (0.028, 0.058, 0.012), exponent=0.5,
                              n_lat=4, n_lon=8)
        b.add(MIRROR_DRESSING, v, t, "trim")  # the arm
        v, t = superellipsoid((x - 0.07, sgn * (w - 0.035), z + 0.035), (0.06, 0.018, 0.03), exponent=0.4, n_lat=4,
                              n_lon=8)
        b.add(MIRROR_DRESSING, v, t, "trim")  # the base (sail) on the door


HANDLE_DRESSING = DRESSING_PREFIX + "handles"  # the pull handles the camera sees
HANDLE_FINISHES = ("paint", "paint", "trim", "wheel_metal")  # body colour, black plastic or chrome, by the plan's seed
POCKET_SEGMENTS = 16


def add_handle_dressing(plan: VehiclePlan, prof: Profile, zones: dict, b: PartBuilder) -> None:
    """Door handles as a camera sees them (issue 41: "block door handles"): a rounded pull bar standing off
    the skin over a dark oval pocket pressed into the door, following the skin's tumblehome. Cosmetic and
    inside each measured handle box (`handle_boxes`), which the renderer hides (bl/vehicle.py)."""
    p = plan.profile
    finish = HANDLE_FINISHES[plan.seed % len(HANDLE_FINISHES)]
    a = np.linspace(0.0, 2 * np.pi, POCKET_SEGMENTS + 1)[:-1]

    def skin(x, z):  # the skin's half width under points (x along the car, z up)
        return _door_skin_ys(prof, p.length / 2 - np.asarray(x, float), z)

    for sgn in (1.0, -1.0):
        for lo, hi in handle_boxes(p, prof, zones, sgn):
            x0, x1 = lo[0], hi[0]
            z0, z1 = lo[2], hi[2]
            cx, cz = 0.5 * (x0 + x1), 0.5 * (z0 + z1)
            # the pocket: an oval fan 1.5 mm off the skin, a little shorter than the box
            rim = [(cx + 0.46 * (x1 - x0) * math.cos(t), cz - 0.0015 + 0.45 * (z1 - z0) * math.sin(t)) for t in a]
            pts = [(cx, cz - 0.0015)] + rim
            pts = np.array(pts)
            v = np.column_stack([pts[:, 0], sgn * (skin(pts[:, 0], pts[:, 1]) + 0.0015), pts[:, 1]])
            tris = np.array([[0, 1 + k, 1 + (k + 1) % POCKET_SEGMENTS] for k in range(POCKET_SEGMENTS)])
            b.add(HANDLE_DRESSING, v, tris[:, ::-1] if sgn > 0 else tris, "wheel_rim")  # facing out
            # the pull bar over the pocket's upper half, 1-17 mm out of the skin
            bz = z1 - 0.011
            v, t = superellipsoid((cx, 0.0, bz), (0.47 * (x1 - x0), 0.008, 0.0085), exponent=0.45, n_lat=4,
                                  n_lon=12)
            v[:, 1] = sgn * (skin(v[:, 0], v[:, 2]) + 0.009 + v[:, 1])
            b.add(HANDLE_DRESSING, v, t if sgn > 0 else t[:, ::-1], finish)  # mirrored on the right: rewound


def _add_roof_rails(p: StyleProfile, prof: Profile, b: PartBuilder) -> None:
    L = p.length
    d0, d1 = p.roof_front + 0.25, p.roof_rear - 0.12
    dm = 0.5 * (d0 + d1)
    sec = prof.sections([dm])[0]
    z = float(sec[8, 1])
    for sgn in (1.0, -1.0):
        y = sgn * float(sec[8, 0]) * 1.02
        _box(b, "roof_rails", (L / 2 - d1, y - 0.02, z + 0.035), (L / 2 - d0, y + 0.02, z + 0.06), "trim")
        for dd in (d0 + 0.02, d1 - 0.07):
            _box(b, "roof_rails", (L / 2 - dd - 0.05, y - 0.02, z - 0.02), (L / 2 - dd, y + 0.02, z + 0.04), "trim")


ARCH_SEGMENTS = 24  # a flare's quads round its half circle (12 showed as facets at a few metres)


def _add_cladding(p: StyleProfile, prof: Profile, b: PartBuilder) -> None:
    """Black wheel-arch flares: a 7 cm band round each arch, standing 1 cm off the body's side face (its inner
    edge over the arch's roll-in, which it hides)."""
    L = p.length
    for dw in prof.wheels_d:
        a = np.linspace(0.0, np.pi, ARCH_SEGMENTS + 1)
        for sgn in (1.0, -1.0):
            for k in range(ARCH_SEGMENTS):
                q = []
                for r_, t_ in ((prof.arch_r, a[k]), (prof.arch_r + 0.07, a[k]), (prof.arch_r + 0.07, a[k + 1]),
                               (prof.arch_r, a[k + 1])):
                    dd = dw - r_ * math.cos(t_)
                    zz = p.tyre_radius + r_ * math.sin(t_)
                    sec = prof.sections([dd])[0]
                    # on the side face, not the roll-in under it (the arch edge's own section point)
                    ww = float(np.interp(max(zz, sec[2, 1]), sec[1:5, 1], sec[1:5, 0])) + 0.01
                    q.append([L / 2 - dd, sgn * ww, zz])
                b.add_quads("cladding", _flip_out(np.array(q), sgn), "trim")


def _add_cab_rear_window(p: StyleProfile, prof: Profile, b: PartBuilder) -> None:
    """A pickup cab's rear window on its back wall."""
    x = p.length / 2 - p.cab_end - 0.004
    z0, z1 = p.belt + 0.1, p.height - 0.12
    w = float(prof.half_width(p.cab_end)) - 0.06 - p.tumble * 0.5
    b.add_quads("rear_glass", np.array([[[x, w * 0.8, z0], [x, -w * 0.8, z0], [x, -w * 0.72, z1],
                                         [x, w * 0.72, z1]]]), "glass")


def _add_van_rear_doors(p: StyleProfile, prof: Profile, b: PartBuilder, cuts: tuple) -> None:
    """A van's rear doors' windows and their centre shut line, cut at `cuts` ((|y|, z): where the rear's relief
    bends, `core.vehicle_ends`)."""
    xr, wr = -p.length / 2, float(prof.half_width(p.length))
    x = xr - 0.004
    for sgn in (1.0, -1.0):
        y0, y1 = sorted((sgn * 0.08, sgn * 0.78 * wr))
        z0, z1 = p.belt + 0.15, p.belt + 0.8
        pane = np.array([[[x, y0, z0], [x, y0, z1], [x, y1, z1], [x, y1, z0]]])
        b.add_quads("rear_glass", cut_quads(pane, *cuts), "glass")
    strip = box_quads(np.array([xr - 0.006, -0.005, p.crease]), np.array([xr + 0.001, 0.005, p.height - 0.06]))
    b.add_quads("trim_strips", cut_quads(strip, *cuts), "inner")


def add_details(plan: VehiclePlan, prof: Profile, seams: dict, zones: dict, b: PartBuilder,
                end_cuts: dict | None = None) -> None:
    """Add the small parts to `b`, in a fixed order (the parts' triangles are concatenated in it). The parts on
    the ends are cut at `end_cuts` (end -> (|y|, z): where its relief bends, `core.vehicle_ends`), none if None."""
    none = (np.zeros(0), np.zeros(0))
    end_cuts = end_cuts or {"front": none, "rear": none}
    p = plan.profile
    for center in plan.wheel_centers():
        _add_wheel(plan, b, center)
    _add_wheel_wells(p, prof, b)
    front_plate = plate_mounts_of(p, prof)["front"].center
    mw, mh = MOUNT_SIZE_M
    add_lamps(p, prof, b)
    add_grille(p, prof, b, (-mw / 2, mw / 2, front_plate[2] - mh / 2, front_plate[2] + mh / 2), end_cuts["front"])
    for sgn in (1.0, -1.0):
        _add_side(p, prof, seams, zones, b, sgn)
    if p.roof_rails:
        _add_roof_rails(p, prof, b)
    if p.cladding:
        _add_cladding(p, prof, b)
    if p.open_top:
        _convertible_details(p, prof, b)
    if p.bed:
        _add_cab_rear_window(p, prof, b)
    if p.name == "van":
        _add_van_rear_doors(p, prof, b, end_cuts["rear"])


def _convertible_details(p: StyleProfile, prof: Profile, b: PartBuilder) -> None:
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
    # bucket seats, the open cockpit's most visible parts (seen from above, they were boxes): a rounded cushion,
    # a backrest leaning back with a bolster either side, a headrest; then the folded soft top behind them
    seat_z = p.clearance + 0.3
    back_x = L / 2 - (p.roof_front + 0.9)
    for sgn in (1.0, -1.0):
        _add_bucket_seat(b, back_x, sgn * 0.21 * p.width, seat_z, p.belt)
    xs = L / 2 - p.deck
    _box(b, "soft_top", (xs, -0.42 * p.width, p.belt - 0.08), (xs + 0.32, 0.42 * p.width, p.belt + 0.11), "softtop")


def _add_bucket_seat(b: PartBuilder, back_x: float, yc: float, seat_z: float, belt_z: float) -> None:
    """One seat of the open cockpit as part `seats`, in the footprint of the boxes it replaced: x from back_x - 0.12
    to back_x + 0.5, y within 0.25 of yc, z from seat_z to the headrest's top at belt_z + 0.36."""
    v, t = superellipsoid((back_x + 0.24, yc, seat_z + 0.08), (0.25, 0.23, 0.08), n_lat=6, n_lon=16)
    b.add("seats", v, t, "seat")
    lean = 0.2  # radians: the backrest's top towards the rear
    h = 0.5 * (belt_z + 0.16 - seat_z - 0.1)
    mid_z = seat_z + 0.1 + h
    v, t = superellipsoid((back_x - 0.04, yc, mid_z), (0.06, 0.2, h), tilt=lean, n_lat=8, n_lon=16)
    b.add("seats", v, t, "seat")
    for side in (1.0, -1.0):  # the bolsters stand proud of the backrest's face
        v, t = superellipsoid((back_x - 0.01, yc + side * 0.2, mid_z - 0.03), (0.08, 0.05, 0.9 * h), tilt=lean,
                              n_lat=6, n_lon=12)
        b.add("seats", v, t, "seat")
    top_x = back_x - 0.04 - math.sin(lean) * h  # the backrest's top edge, leaned back
    v, t = superellipsoid((top_x - 0.02, yc, belt_z + 0.275), (0.045, 0.13, 0.085), exponent=0.5, n_lat=6,
                          n_lon=12)
    b.add("seats", v, t, "seat")


LAMP_PARTS = ("headlights", "taillights", "lights_amber")  # two lamps each, one either side of the centre line


def tyre_uv(plan: VehiclePlan, vertices: np.ndarray) -> np.ndarray:
    """Per-vertex UVs of the tyres for their material: (cos, sin) of the angle round the nearest axle times the
    distance from it over the tyre radius (no seam: the angle is taken back with atan2 in the shader)."""
    centres = np.array(plan.wheel_centers())
    nearest = np.argmin(np.linalg.norm(vertices[:, None, :] - centres[None], axis=2), axis=1)
    rel = vertices - centres[nearest]
    return np.column_stack([rel[:, 0], rel[:, 2]]) / plan.profile.tyre_radius
