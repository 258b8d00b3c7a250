"""Body damage on one side panel of a vehicle (pure): dents, scratches and rust with a known area.

A damage is one or more marks on one panel (a door, fender, quarter panel or bed side):
  dent     the panel pushed in (displaced geometry) over an elliptical footprint
  scratch  a band of thin strokes through the paint to primer or bare metal
  rust     a patchy blotch of corrosion
Marks live in the panel's (d, z) coordinates: d metres back from the front bumper, z metres
above the ground; the side is nearly vertical there, so (d, z) is close to arc length on the
surface (the exact area element is applied). The damaged area is the union of the marks'
footprints, rasterised at 1 mm: a dent's ellipse, a scratch's band (the strip a body shop
refinishes), the rust's own pixels. `severity` follows it: minor < 100 cm2, moderate
100-500 cm2, severe > 500 cm2.

`damaged_panel_parts` re-meshes the panel for the builder: the panel's loft quads under the
damage texture are subdivided to 1 cm (the dent displaces their vertices), and the cells that
hold damage become a separate object (the damage target and its render mask).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from functools import lru_cache

import numpy as np

from .image_terms import window_counts
from .noise import value_noise
from .rng import pick
from .vehicle import SIDES, VehiclePlan
from .vehicle_geometry import vehicle_geometry
from .vehicle_loft import Part, Profile, triangle_areas
from .vehicle_lamps import lamp_footprints

KINDS = ("dent", "scratch", "rust")
SEVERITIES = ("minor", "moderate", "severe")
MINOR_MAX_CM2 = 100.0
SEVERE_MIN_CM2 = 500.0
TEX_M_PER_PX = 0.001  # the damage texture: 1 mm per pixel
CELL_M = 0.01  # the re-meshed patch: 1 cm cells
DAMAGE_PANEL_KINDS = ("door_front", "door_rear", "sliding_door", "fender", "quarter", "bed_side")


def severity_of(area_cm2: float) -> str:
    if area_cm2 < MINOR_MAX_CM2:
        return "minor"
    return "moderate" if area_cm2 <= SEVERE_MIN_CM2 else "severe"


@dataclass(frozen=True)
class Mark:
    kind: str
    d: float  # centre along the car (m from the front)
    z: float  # centre height (m)
    a: float  # half length along its axis (m)
    b: float  # half width across it (m)
    angle_deg: float  # its axis from the horizontal
    depth_m: float  # dents: how far the panel is pushed in
    seed: int  # strokes, rust patches

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class DamagePlan:
    panel: str
    side: str
    marks: tuple[Mark, ...]
    area_cm2: float
    patch: tuple[float, float, float, float]  # the texture's (d0, d1, z0, z1)

    @property
    def severity(self) -> str:
        return severity_of(self.area_cm2)

    @property
    def types(self) -> list[str]:
        return [k for k in KINDS if any(m.kind == k for m in self.marks)]

    @property
    def center_dz(self) -> tuple[float, float]:
        """The centre of the damaged area (mean of the damaged pixels)."""
        return damage_center(self)

    def to_dict(self) -> dict:
        return {"panel": self.panel, "types": self.types, "severity": self.severity,
                "area_cm2": round(self.area_cm2, 1), "marks": [m.to_dict() for m in self.marks]}


# ---------------------------------------------------------------------------------------------
# The texture grid over the patch, and each mark's footprint on it

def _grid(patch) -> tuple[np.ndarray, np.ndarray]:
    """Pixel-centre coordinates (d, z) of the damage texture: columns along d, rows from the top (z1) down."""
    d0, d1, z0, z1 = patch
    w = max(1, int(round((d1 - d0) / TEX_M_PER_PX)))
    h = max(1, int(round((z1 - z0) / TEX_M_PER_PX)))
    d = d0 + (np.arange(w) + 0.5) * (d1 - d0) / w
    z = z1 - (np.arange(h) + 0.5) * (z1 - z0) / h
    return np.meshgrid(d, z)


def _local(mark: Mark, D, Z):
    c, s = math.cos(math.radians(mark.angle_deg)), math.sin(math.radians(mark.angle_deg))
    u = (D - mark.d) * c + (Z - mark.z) * s  # along the mark (d grows towards the rear)
    v = -(D - mark.d) * s + (Z - mark.z) * c
    return u, v


def _value_noise(shape, cells: int, rng: np.random.Generator) -> np.ndarray:
    """Smooth noise in [0, 1]: a coarse random grid, bicubic-ish (smoothstep) interpolated."""
    h, w = shape
    gh, gw = cells + 2, max(2, int(cells * w / max(h, 1))) + 2
    grid = rng.random((gh, gw))
    y = np.linspace(0, gh - 2.001, h)
    x = np.linspace(0, gw - 2.001, w)
    y0, x0 = np.floor(y).astype(int), np.floor(x).astype(int)
    ty, tx = y - y0, x - x0
    ty, tx = ty * ty * (3 - 2 * ty), tx * tx * (3 - 2 * tx)
    a = grid[np.ix_(y0, x0)]
    b = grid[np.ix_(y0, x0 + 1)]
    c = grid[np.ix_(y0 + 1, x0)]
    d = grid[np.ix_(y0 + 1, x0 + 1)]
    top = a + (b - a) * tx[None, :]
    bottom = c + (d - c) * tx[None, :]
    return top + (bottom - top) * ty[:, None]


def mark_footprint(mark: Mark, D, Z) -> np.ndarray:
    """Boolean footprint of a mark on the grid (D, Z)."""
    u, v = _local(mark, D, Z)
    if mark.kind == "dent":
        return (u / mark.a) ** 2 + (v / mark.b) ** 2 <= 1.0
    if mark.kind == "scratch":
        return (np.abs(u) <= mark.a) & (np.abs(v) <= mark.b)
    # rust: patchy blotches inside a ragged ellipse
    r = np.sqrt((u / mark.a) ** 2 + (v / mark.b) ** 2)
    inside = r <= 1.0
    if not inside.any():
        return inside
    rows, cols = np.nonzero(inside)
    r0, r1, c0, c1 = rows.min(), rows.max() + 1, cols.min(), cols.max() + 1
    rng = np.random.default_rng(mark.seed)  # the patches are a pure function of the mark
    noise = _value_noise((r1 - r0, c1 - c0), 6, rng) * 0.7 + _value_noise((r1 - r0, c1 - c0), 18, rng) * 0.3
    out = np.zeros_like(inside)
    falloff = 1.0 - r[r0:r1, c0:c1] ** 2
    out[r0:r1, c0:c1] = inside[r0:r1, c0:c1] & (noise * 0.55 + falloff * 0.75 > 0.62)
    return out


@lru_cache(maxsize=16)
def _area_element(vehicle: VehiclePlan, patch: tuple) -> np.ndarray:
    """Surface area per texture pixel (m2) over the patch: the exact Jacobian of (d, z) -> the side surface."""
    prof = Profile(vehicle.profile)
    D, Z = _grid(patch)
    ds = D[0]
    sec = prof.sections(ds)  # (w, N, 2)
    # y of the side surface as a function of z, per column (p1..p5 are monotonic in z)
    y = np.array([np.interp(Z[:, j], sec[j, 1:6, 1], sec[j, 1:6, 0]) for j in range(len(ds))]).T
    step = TEX_M_PER_PX
    dy_dz = np.gradient(y, axis=0) / -step if y.shape[0] > 1 else np.zeros_like(y)
    dy_dd = np.gradient(y, axis=1) / step if y.shape[1] > 1 else np.zeros_like(y)
    return step * step * np.sqrt(1.0 + dy_dz ** 2 + dy_dd ** 2)


def damage_mask(plan: DamagePlan) -> np.ndarray:
    """The union of the marks' footprints on the texture grid (row 0 at the top of the patch)."""
    D, Z = _grid(plan.patch)
    mask = np.zeros(D.shape, bool)
    for m in plan.marks:
        mask |= mark_footprint(m, D, Z)
    return mask


def damaged_area_cm2(vehicle: VehiclePlan, panel_patch: tuple, marks) -> float:
    D, Z = _grid(panel_patch)
    mask = np.zeros(D.shape, bool)
    for m in marks:
        mask |= mark_footprint(m, D, Z)
    return float((_area_element(vehicle, tuple(panel_patch)) * mask).sum() * 1e4)


@lru_cache(maxsize=64)  # measured from every pose of a frame: the plan alone decides it
def damage_center(plan: DamagePlan) -> tuple[float, float]:
    D, Z = _grid(plan.patch)
    mask = damage_mask(plan)
    if not mask.any():
        return plan.marks[0].d, plan.marks[0].z
    return float(D[mask].mean()), float(Z[mask].mean())


# ---------------------------------------------------------------------------------------------
# Drawing a damage

def panel_patch(vehicle: VehiclePlan, panel: str) -> tuple[float, float, float, float]:
    """The (d0, d1, z0, z1) rectangle spanned by the panel's lower and upper side quads (rocker top to belt)."""
    quads = [q for q in vehicle_geometry(vehicle).loft_quads.get(panel, ()) if q[2] in (2, 3)]
    if not quads:
        raise ValueError(f"{vehicle.style} has no side panel {panel!r}")
    d0 = min(q[0] for q in quads)
    d1 = max(q[1] for q in quads)
    z = np.concatenate([q[3][:, 2] for q in quads])
    return (float(d0), float(d1), float(z.min()), float(z.max()))


@lru_cache(maxsize=16)
def valid_region(vehicle: VehiclePlan, panel: str, patch: tuple) -> np.ndarray:
    """Texture pixels where a mark may go: covered by the panel's own lower and upper side quads (not a
    bumper's, not a shut line's gap, not under a lamp wrapping a corner), at least 1.5 cm in from every edge of
    that cover."""
    D, Z = _grid(patch)
    covered = np.zeros(D.shape, bool)
    for qd0, qd1, e, quad, _mat in vehicle_geometry(vehicle).loft_quads.get(panel, ()):
        if e not in (2, 3):
            continue
        cols = (D[0] >= qd0) & (D[0] <= qd1)
        if not cols.any():
            continue
        t = (D[0, cols] - qd0) / max(qd1 - qd0, 1e-9)
        lo = quad[0, 2] + t * (quad[1, 2] - quad[0, 2])
        hi = quad[3, 2] + t * (quad[2, 2] - quad[3, 2])
        covered[:, cols] |= (Z[:, cols] >= lo[None, :]) & (Z[:, cols] <= hi[None, :])
    prof = Profile(vehicle.profile)
    for d0, d1, z0, z1 in lamp_footprints(vehicle.profile, prof):  # no damage under a lamp wrapping the corner
        covered &= ~((D >= d0) & (D <= d1) & (Z >= z0) & (Z <= z1))
    k = int(round(0.015 / TEX_M_PER_PX))  # erode: the whole (2k+1)^2 neighbourhood must be covered
    count, whole = window_counts(covered, k)
    return covered & whole & (count == (2 * k + 1) ** 2)


def candidate_panels(vehicle: VehiclePlan) -> list[tuple[str, float]]:
    """(panel, flat area m2) of every side panel a damage can go on."""
    out = []
    for name, panel in vehicle_geometry(vehicle).panels.items():
        if panel.kind in DAMAGE_PANEL_KINDS and panel.side in SIDES:
            patch = panel_patch(vehicle, name)
            area = float(valid_region(vehicle, name, patch).sum()) * TEX_M_PER_PX ** 2
            if area > 0.02:
                out.append((name, area))
    return out


# target damaged area per severity class (cm2), drawn log-uniformly
CLASS_AREA_CM2 = {"minor": (25.0, 90.0), "moderate": (120.0, 450.0), "severe": (560.0, 1600.0)}
SEVERITY_SHARES = (0.4, 0.35, 0.25)
KIND_SHARES = (0.45, 0.35, 0.2)
TWO_KINDS_SHARE = 0.3


def _draw_mark(kind: str, area_cm2: float, rng: np.random.Generator) -> Mark:
    area = area_cm2 / 1e4
    angle = float(rng.normal(0.0, 12.0))
    seed = int(rng.integers(0, 2 ** 31 - 1))
    if kind == "dent":
        aspect = float(rng.uniform(1.0, 1.8))
        b = math.sqrt(area / (math.pi * aspect))
        a, depth = aspect * b, float(min(0.035, rng.uniform(0.12, 0.25) * b))
        return Mark("dent", 0.0, 0.0, a, b, angle, depth, seed)
    if kind == "scratch":
        width = float(np.clip(math.sqrt(area) * rng.uniform(0.12, 0.3), 0.01, 0.12))
        length = area / width
        return Mark("scratch", 0.0, 0.0, length / 2, width / 2, float(rng.normal(0.0, 10.0)), 0.0, seed)
    aspect = float(rng.uniform(1.0, 1.6))
    b = math.sqrt(area / 0.55 / (math.pi * aspect))  # rust fills about 55 % of its ragged ellipse
    return Mark("rust", 0.0, 0.0, aspect * b, b, angle, 0.0, seed)


def draw_damage(vehicle: VehiclePlan, rng: np.random.Generator) -> DamagePlan:
    """One to two kinds of marks on one side panel, sized for a severity class; the recorded area is the
    union of what was drawn (so the class is read off the area, not assumed)."""
    candidates = candidate_panels(vehicle)
    if not candidates:
        raise ValueError(f"no side panel of the {vehicle.style} can take a damage")
    panel = pick(rng, [c[0] for c in candidates], [c[1] for c in candidates])
    patch = panel_patch(vehicle, panel)
    valid = valid_region(vehicle, panel, patch)
    D, Z = _grid(patch)
    severity = SEVERITIES[int(rng.choice(3, p=SEVERITY_SHARES))]
    n = 2 if rng.random() < TWO_KINDS_SHARE else 1
    kinds = [KINDS[int(i)] for i in rng.choice(3, size=n, replace=False, p=KIND_SHARES)]
    lo, hi = CLASS_AREA_CM2[severity]
    total = math.exp(rng.uniform(math.log(lo), math.log(hi)))
    marks = []
    ys, xs = np.nonzero(valid)
    for i, kind in enumerate(kinds):
        share = total / n * (1.3 if kind == "dent" and n == 2 else 1.0)
        for _attempt in range(80):
            shape = _draw_mark(kind, share, rng)
            if marks:  # a second kind overlaps the first one's neighbourhood (a scraped dent, rust in a scratch)
                base = marks[0]
                dc = base.d + float(rng.normal(0.0, 0.5 * base.a))
                zc = base.z + float(rng.normal(0.0, 0.5 * base.b))
            else:
                k = int(rng.integers(len(xs)))
                dc, zc = float(D[ys[k], xs[k]]), float(Z[ys[k], xs[k]])
            mark = Mark(kind, dc, zc, shape.a, shape.b, shape.angle_deg, shape.depth_m, shape.seed)
            foot = mark_footprint(mark, D, Z)
            if foot.any() and not (foot & ~valid).any():
                marks.append(mark)
                break
            share *= 0.97  # too big for where it landed: a little smaller next time
        else:
            continue
    if not marks:  # the panel is too small for the drawn size: a small dent in the middle of its flat
        k = len(xs) // 2
        marks.append(Mark("dent", float(D[ys[k], xs[k]]), float(Z[ys[k], xs[k]]), 0.03, 0.025, 0.0, 0.006,
                          int(rng.integers(0, 2 ** 31 - 1))))
    area = damaged_area_cm2(vehicle, patch, marks)
    return DamagePlan(panel, vehicle_geometry(vehicle).panels[panel].side, tuple(marks), area, patch)


# ---------------------------------------------------------------------------------------------
# The damage texture and the re-meshed panel

def damage_texture(plan: DamagePlan, paint_rgb) -> np.ndarray:
    """RGBA float image (row 0 at the top of the patch): the colour of scratches and rust, alpha = how much
    of the paint they replace (0 elsewhere, and under dents, which are geometry only)."""
    D, Z = _grid(plan.patch)
    h, w = D.shape
    rgba = np.zeros((h, w, 4), np.float32)
    for m in plan.marks:
        rng = np.random.default_rng(m.seed)
        if m.kind == "dent":
            continue
        if m.kind == "rust":
            foot = mark_footprint(m, D, Z)
            tone = (0.45 * _value_noise((h, w), 60, rng) + 0.35 * _value_noise((h, w), 180, rng)
                    + 0.2 * _value_noise((h, w), 500, rng))
            dark = np.array([0.06, 0.022, 0.008])
            light = np.array([0.42, 0.14, 0.035])
            color = dark + (light - dark) * tone[..., None]
            rgba[foot, :3] = color[foot]
            rgba[foot, 3] = 1.0
            continue
        colour, cover = scratch_strokes(m, D, Z, paint_rgb, rng)
        hit = cover > 0
        rgba[hit, :3] = colour[hit]
        rgba[hit, 3] = np.maximum(rgba[hit, 3], cover[hit])
    return rgba


def dent_depth(plan: DamagePlan, d, z) -> np.ndarray:
    """How far (m) the panel is pushed in at (d, z): the sum of the dents' smooth bowls."""
    out = np.zeros(np.shape(d))
    for m in plan.marks:
        if m.kind != "dent":
            continue
        u, v = _local(m, np.asarray(d, float), np.asarray(z, float))
        r2 = (u / m.a) ** 2 + (v / m.b) ** 2
        out += m.depth_m * np.clip(1.0 - r2, 0.0, 1.0) ** 2
    return out


def damaged_panel_parts(vehicle: VehiclePlan, plan: DamagePlan) -> tuple[Part, Part]:
    """(the panel without its damage, the damage) as Parts in the vehicle frame, with UVs on the patch.

    Loft quads of the panel's lower and upper side are subdivided into ~1 cm cells (bilinear in the
    quad, so the surface is the loft's own); cells whose texture pixels hold damage go to the damage
    part. Dents push vertices inward (towards the car's centre line)."""
    geometry = vehicle_geometry(vehicle)
    quads = geometry.loft_quads[plan.panel]
    d0, d1, z0, z1 = plan.patch
    mask = damage_mask(plan)
    h, w = mask.shape
    integral = np.zeros((h + 1, w + 1), np.int64)  # summed-area table: damaged pixels in any box
    integral[1:, 1:] = mask.cumsum(0).cumsum(1)
    sign = 1.0 if plan.side == "left" else -1.0
    rest_v, rest_t, rest_m, rest_uv = [], [], [], []
    dmg_v, dmg_t, dmg_uv = [], [], []

    def uv_of(d, z):
        return np.column_stack([(d - d0) / (d1 - d0), (z - z0) / (z1 - z0)])

    # Every quad of a loft column is cut at the same `nd` places along d, so no vertex of the fine side sits on
    # the edge of an uncut rocker or shoulder quad (a T-junction across a crease: its shading showed a row of
    # dark teeth along the rocker in a close-up). The lower and upper side keep their own rows per quad (the
    # damage cells, the target, are as they were); where two columns' rows differ the side is flat, so those
    # seams shade evenly.
    for qd0, qd1, e, quad, mat in quads:
        nd = max(1, int(math.ceil((qd1 - qd0) / CELL_M)))
        cut = e in (2, 3)  # the lower and upper side: cut into rows too, and where a damage can lie
        ne = max(1, int(math.ceil(float(np.linalg.norm(quad[3] - quad[0])) / CELL_M))) if cut else 1
        s = np.linspace(0, 1, nd + 1)
        t = np.linspace(0, 1, ne + 1)
        S, T = np.meshgrid(s, t)  # (ne+1, nd+1)
        a0, b0, b1, a1 = quad
        P = ((1 - S)[..., None] * (1 - T)[..., None] * a0 + S[..., None] * (1 - T)[..., None] * b0
             + S[..., None] * T[..., None] * b1 + (1 - S)[..., None] * T[..., None] * a1)
        dd = qd0 + S * (qd1 - qd0)
        zz = P[..., 2]
        P = P.copy()
        if cut:  # dents lie on the lower and upper side
            P[..., 1] -= sign * dent_depth(plan, dd, zz)
        verts = P.reshape(-1, 3)
        uv = uv_of(dd.ravel(), zz.ravel())
        idx = np.arange((ne + 1) * (nd + 1)).reshape(ne + 1, nd + 1)
        cells_a, cells_b = idx[:-1, :-1], idx[:-1, 1:]
        cells_c, cells_d = idx[1:, 1:], idx[1:, :-1]
        # which cells hold damage: any damaged pixel inside the cell's (d, z) box
        cd0, cd1 = dd[:-1, :-1], dd[1:, 1:]
        cz0, cz1 = np.minimum(zz[:-1, :-1], zz[1:, 1:]), np.maximum(zz[:-1, :-1], zz[1:, 1:])
        c0 = np.clip(np.floor((cd0 - d0) / (d1 - d0) * w).astype(int), 0, w)
        c1 = np.clip(np.ceil((cd1 - d0) / (d1 - d0) * w).astype(int), 0, w)
        r0 = np.clip(np.floor((z1 - cz1) / (z1 - z0) * h).astype(int), 0, h)
        r1 = np.clip(np.ceil((z1 - cz0) / (z1 - z0) * h).astype(int), 0, h)
        hits = integral[r1, c1] - integral[r0, c1] - integral[r1, c0] + integral[r0, c0]
        damaged = (hits > 0) & (c1 > c0) & (r1 > r0) & cut
        tris = np.stack([np.stack([cells_a, cells_b, cells_c], -1), np.stack([cells_a, cells_c, cells_d], -1)], 2)
        for flag, vl, tl, uvl in ((False, rest_v, rest_t, rest_uv), (True, dmg_v, dmg_t, dmg_uv)):
            sel = tris[damaged == flag].reshape(-1, 3)
            if len(sel) == 0:
                continue
            base = sum(len(v) for v in vl)
            vl.append(verts)
            tl.append(sel + base)
            uvl.append(uv)
            if not flag:
                rest_m += ["damage_paint" if cut else mat] * len(sel)
    rest = _part(plan.panel, rest_v, rest_t, rest_uv, rest_m)
    damage = _part(f"{plan.panel}_damage", dmg_v, dmg_t, dmg_uv, ["damage_paint"] * sum(len(t) for t in dmg_t))
    return rest, damage


def _part(name, vl, tl, uvl, mats) -> Part:
    v = np.concatenate(vl) if vl else np.zeros((0, 3))
    t = np.concatenate(tl) if tl else np.zeros((0, 3), int)
    uv = np.concatenate(uvl) if uvl else np.zeros((0, 2))
    keep = triangle_areas(v, t) > 1e-12
    t = t[keep]
    mats = [m for m, k in zip(mats, keep) if k]
    order = tuple(dict.fromkeys(mats))
    fm = np.array([order.index(m) for m in mats], np.int32)
    # weld while keeping one UV per vertex (coincident vertices share their (d, z), hence their UV)
    used = np.unique(t)
    key = np.round(v[used] / 1e-6).astype(np.int64)
    _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    remap = np.zeros(len(v), np.int64)
    remap[used] = inverse.ravel()
    part = Part(name, v[used][first], remap[t], order, fm)
    part.uv = uv[used][first]
    return part



# Scratches: most strokes of a key or a branch only cut the clear coat and show the paint under it whitened (on a
# dark paint) or filled with grime (on a light one); some reach the primer, a few the bare metal. A stroke wanders
# a little, thins where the point skipped, and tapers at both ends (a panel: "decal-like", "painted-on scratch
# lines"). Every depth keeps the contrast the scratches always had: light on a dark paint, dark on a light one.
SCRATCH_DEPTHS = (("clear", 0.6), ("primer", 0.3), ("metal", 0.1))
SCRATCH_ON_DARK, SCRATCH_ON_LIGHT = np.array([0.55, 0.55, 0.56]), np.array([0.09, 0.09, 0.095])
DARK_PAINT_LUMINANCE = 0.25  # below this a paint is dark: its scratches show light
PRIMER_RGB = np.array([0.42, 0.42, 0.4])
STROKE_WIDTH_M = (0.0017, 0.0048)  # width of a stroke at its widest (its core; the edges fade over as much again)
STROKE_JITTER_M = 0.0004  # sideways wander of the point over a few centimetres


def _noise_1d(x: np.ndarray, period: float, rng: np.random.Generator) -> np.ndarray:
    """Smooth 1-D value noise in [0, 1] over `x` (metres), one knot every `period` metres (`core.noise`'s lattice,
    keyed by one draw of `rng`)."""
    return 0.5 + 0.5 * value_noise(np.asarray(x) / period, 0.0, int(rng.integers(2 ** 31 - 1)))


def stroke_width(u: np.ndarray, start: float, end: float, widest: float, rng: np.random.Generator) -> np.ndarray:
    """A stroke's width at `u` (m along its mark): 0 outside [start, end], tapering in over the first and last
    12 % of its length, and between 35 % and all of `widest` elsewhere as the point's pressure changes over a
    few centimetres."""
    pressure = _noise_1d(u, rng.uniform(0.015, 0.05), rng)
    along = np.clip((u - start) / max(end - start, 1e-4), 0.0, 1.0)
    taper = np.clip(np.minimum(along, 1.0 - along) / 0.12, 0.0, 1.0) * ((u >= start) & (u <= end))
    return widest * np.clip(0.9 * pressure + 0.35, 0.0, 1.0) * np.sqrt(taper)


def scratch_strokes(m: Mark, D, Z, paint_rgb, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(colour, cover) of one scratch mark's strokes on the grid (D, Z): 3-12 strokes inside its band."""
    u, v = _local(m, D, Z)
    paint = np.asarray(paint_rgb, float)
    dark = float(np.dot(paint, [0.2126, 0.7152, 0.0722])) < DARK_PAINT_LUMINANCE
    bare = SCRATCH_ON_DARK if dark else SCRATCH_ON_LIGHT
    by_depth = {"clear": 0.25 * paint + 0.75 * bare, "primer": 0.8 * bare + 0.2 * PRIMER_RGB, "metal": bare}
    colour = np.zeros(D.shape + (3,), np.float32)
    cover = np.zeros(D.shape, np.float32)
    inside = (np.abs(u) <= m.a) & (np.abs(v) <= m.b)
    if not inside.any():
        return colour, cover
    ui, vi = u[inside], v[inside]
    n_strokes = int(rng.integers(3, 13))
    depths = [d for d, _ in SCRATCH_DEPTHS]
    for _ in range(n_strokes):
        depth = depths[int(rng.choice(len(depths), p=[p for _, p in SCRATCH_DEPTHS]))]
        start, end = rng.uniform(-1.0, -0.3) * m.a, rng.uniform(0.3, 1.0) * m.a
        widest = rng.uniform(*STROKE_WIDTH_M)
        sway = rng.uniform(0.0, 0.2) * m.b
        room = max(m.b - sway - STROKE_JITTER_M, 0.0)  # the centre line stays in the band (its edge is cut there)
        offset = rng.uniform(-0.9, 0.9) * room
        wave = sway * np.sin(ui / max(m.a, 1e-3) * rng.uniform(1.0, 3.0) + rng.uniform(0, 6))
        jitter = STROKE_JITTER_M * (2.0 * _noise_1d(ui, 0.02, rng) - 1.0)
        width = stroke_width(ui, start, end, widest, rng)
        dist = np.abs(vi - offset - wave - jitter)
        stroke = np.clip(1.0 - dist / np.maximum(width, 1e-6), 0.0, 1.0) * (width > 0.1 * widest)
        fresh = stroke > cover[inside]
        where = np.flatnonzero(inside)[fresh]
        cover.flat[where] = stroke[fresh]
        colour.reshape(-1, 3)[where] = by_depth[depth]
    return colour, cover


# ---------------------------------------------------------------------------------------------
# Keeping road dirt off the damage

DIRT_CLEAR_M = 0.035  # road dirt stays off a damage and this far around it (box distance)...
DIRT_FADE_M = 0.02  # ...fading back in over this much either side of that edge: clean within 1.5 cm of a mark
KEEPOUT_M_PER_PX = 0.0025  # the keep-out texture's pixel (it is smooth: 2.5 mm is plenty)


def _box_sum(mask: np.ndarray, k: int) -> np.ndarray:
    """Sum of `mask` over the (2k+1)^2 box around every pixel (clipped at the edges), by a summed-area table."""
    h, w = mask.shape
    integral = np.zeros((h + 1, w + 1), np.float64)
    integral[1:, 1:] = np.asarray(mask, np.float64).cumsum(0).cumsum(1)
    r0 = np.clip(np.arange(h) - k, 0, h)[:, None]
    r1 = np.clip(np.arange(h) + k + 1, 0, h)[:, None]
    c0 = np.clip(np.arange(w) - k, 0, w)[None, :]
    c1 = np.clip(np.arange(w) + k + 1, 0, w)[None, :]
    return integral[r1, c1] - integral[r0, c1] - integral[r1, c0] + integral[r0, c0]


def dirt_keepout(plan: DamagePlan, clear_m: float = DIRT_CLEAR_M, fade_m: float = DIRT_FADE_M,
                 m_per_px: float = KEEPOUT_M_PER_PX) -> np.ndarray:
    """How much of the road dirt to take off, in [0, 1], on a grid over the damage patch (row 0 at its top,
    `m_per_px` pixels; the same UVs as the damage texture): 1 on every mark and within `clear_m - fade_m` of it,
    0 beyond `clear_m + fade_m`, smooth between. The body's dirt is multiplied by (1 - keepout): a damage is never
    hidden under grime (a photographer wipes it before taking the picture), and the whole 1 cm cell of the
    damage object (at most 1 cm from a mark) stays clean. The footprint dilated by `clear_m`, box-blurred by
    `fade_m`: a blur no wider than the dilation leaves every pixel near the footprint at exactly 1."""
    if fade_m > clear_m:
        raise ValueError(f"the fade ({fade_m} m) must not exceed the clear margin ({clear_m} m)")
    d0, d1, z0, z1 = plan.patch
    w = max(1, int(round((d1 - d0) / m_per_px)))
    h = max(1, int(round((z1 - z0) / m_per_px)))
    fine = damage_mask(plan)  # a keep-out pixel holds damage when any 1 mm pixel in it does
    fh, fw = fine.shape
    rows, cols = np.nonzero(fine)
    foot = np.zeros((h, w), bool)
    foot[np.minimum(rows * h // fh, h - 1), np.minimum(cols * w // fw, w - 1)] = True
    kc = int(math.ceil(clear_m / m_per_px))
    kf = int(round(fade_m / m_per_px))
    near = _box_sum(foot, kc) > 0
    if not kf:
        return near.astype(np.float32)
    # the mean over the part of each box inside the patch: the patch's edge is not taken for clean paint
    return (_box_sum(near, kf) / _box_sum(np.ones_like(near), kf)).astype(np.float32)
