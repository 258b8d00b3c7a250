"""The full 360-degree surroundings of a house, as a plan (no bpy): terrain with hills, tree lines,
neighbouring buildings, a road with utility poles.

Everything is drawn per scene from the scene's Generator and recorded; the meshes are pure
functions of the plan (`surroundings_parts`), so the Blender builder (`bl/surroundings.py`)
and the analytic skyline (`core/skyline.py`) use the very same triangles.

Layout (distances from the house at the origin):
  yard and street   flat ground out to `flat_radius_m` (90-200 m), a road passing 16-40 m away
  trees             tree lines 22-220 m out (deciduous and conifer, 6-24 m tall), a few yard trees
  buildings         neighbouring houses 24-190 m out (gable, hip or shed wings)
  poles             utility poles along the road, 9-12 m tall, every 35-48 m
  terrain           beyond the flat yard the ground rises into hills and a ring of higher ground
                    (`rim_height_m`, 25-60 m) at `rim_radius_m` (880 m), so every direction has a
                    skyline above the horizontal and the whole scene lies inside the camera's
                    1000 m clip distance

Surface detail that shapes a silhouette (tree crowns' lumps, the forest texture of far hills)
comes from a deterministic hash noise of the plan's `detail_seed`, not from random state.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from functools import lru_cache

import numpy as np

from .geometry import ring_sphere_triangles
from .house import Wing, fan_triangles, wing_planes, wing_walls

RIM_RADIUS_M = 880.0
MAX_EYE_Z_M = 16.0  # no camera of this environment is higher; the rim stands well above it
TERRAIN_RINGS = 40
TERRAIN_SEGMENTS = 720  # 0.5 degree


@dataclass(frozen=True)
class Hill:
    azimuth_deg: float
    distance_m: float
    height_m: float
    width_deg: float  # angular half-width (1 sigma)
    depth_m: float  # radial half-width (1 sigma)


@dataclass(frozen=True)
class Terrain:
    flat_radius_m: float
    rim_radius_m: float
    rim_height_m: float
    hills: tuple[Hill, ...]
    roughness_m: float  # amplitude of the far ground's forest / field texture
    detail_seed: int


@dataclass(frozen=True)
class Tree:
    x: float
    y: float
    base_z: float
    height_m: float
    crown_radius_m: float
    crown_base_m: float  # height of the crown's lowest point above the base
    kind: str  # deciduous | conifer
    shade: float  # 0..1, the crown's colour within its kind
    seed: int  # the crown's lumps


@dataclass(frozen=True)
class Building:
    wing: Wing
    wall_color: tuple[float, float, float]
    roof_color: tuple[float, float, float]


@dataclass(frozen=True)
class Pole:
    x: float
    y: float
    height_m: float
    arm_azimuth_deg: float


@dataclass(frozen=True)
class Road:
    azimuth_deg: float  # direction the road runs
    offset_m: float  # signed distance of its centreline from the origin
    width_m: float


@dataclass(frozen=True)
class SurroundingsPlan:
    terrain: Terrain
    trees: tuple[Tree, ...]
    buildings: tuple[Building, ...]
    poles: tuple[Pole, ...]
    road: Road
    lawn_color: tuple[float, float, float]
    field_color: tuple[float, float, float]
    forest_color: tuple[float, float, float]

    def to_dict(self) -> dict:
        return asdict(self)

    def summary(self) -> dict:
        return {"trees": len(self.trees), "conifer_share": round(
            float(np.mean([t.kind == "conifer" for t in self.trees])) if self.trees else 0.0, 2),
                "buildings": len(self.buildings), "poles": len(self.poles), "hills": len(self.terrain.hills),
                "flat_radius_m": round(self.terrain.flat_radius_m, 1),
                "rim_height_m": round(self.terrain.rim_height_m, 1)}


# -- deterministic noise ---------------------------------------------------------------------------------

def _hash01(ix, iy, seed: int) -> np.ndarray:
    """A hash of integer lattice points to [0, 1) (no random state: the same inputs, the same values)."""
    h = (np.asarray(ix, np.int64) * 374761393 + np.asarray(iy, np.int64) * 668265263 + seed * 2147483647) \
        & 0xFFFFFFFF
    h = ((h ^ (h >> 13)) * 1274126177) & 0xFFFFFFFF
    h = h ^ (h >> 16)
    return (h & 0xFFFFFF).astype(float) / float(0x1000000)


def value_noise(x, y, seed: int) -> np.ndarray:
    """Smooth value noise in [-1, 1] on a unit lattice."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    x0, y0 = np.floor(x), np.floor(y)
    fx, fy = x - x0, y - y0
    sx, sy = fx * fx * (3 - 2 * fx), fy * fy * (3 - 2 * fy)
    ix, iy = x0.astype(np.int64), y0.astype(np.int64)
    a, b = _hash01(ix, iy, seed), _hash01(ix + 1, iy, seed)
    c, d = _hash01(ix, iy + 1, seed), _hash01(ix + 1, iy + 1, seed)
    return 2.0 * (a + (b - a) * sx + (c - a) * sy + (a - b - c + d) * sx * sy) - 1.0


def fbm(x, y, seed: int, octaves: int = 4) -> np.ndarray:
    total, amp, norm = 0.0, 1.0, 0.0
    for k in range(octaves):
        total = total + amp * value_noise(x * 2 ** k, y * 2 ** k, seed + 101 * k)
        norm += amp
        amp *= 0.5
    return total / norm


def _smoothstep(t):
    t = np.clip(t, 0.0, 1.0)
    return t * t * (3 - 2 * t)


# -- terrain -----------------------------------------------------------------------------------------------

def terrain_height(t: Terrain, x, y) -> np.ndarray:
    """Ground height (m) at world points (x, y): flat (0) inside `flat_radius_m`, then rising."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    r = np.hypot(x, y)
    th = np.arctan2(y, x)
    span = t.rim_radius_m - t.flat_radius_m
    s = _smoothstep((r - t.flat_radius_m) / span)
    z = t.rim_height_m * s ** 1.3
    ramp = _smoothstep((r - t.flat_radius_m) / 60.0)
    for h in t.hills:
        dth = (th - math.radians(h.azimuth_deg) + np.pi) % (2 * np.pi) - np.pi
        z = z + h.height_m * ramp * np.exp(-0.5 * (dth / math.radians(h.width_deg)) ** 2) \
            * np.exp(-0.5 * ((r - h.distance_m) / h.depth_m) ** 2)
    texture = fbm(x / 45.0, y / 45.0, t.detail_seed) + 0.35 * value_noise(x / 9.0, y / 9.0, t.detail_seed + 7)
    z = z + t.roughness_m * texture * _smoothstep((r - t.flat_radius_m) / (0.35 * span))
    return np.maximum(z, 0.0)


def terrain_radii(t: Terrain) -> np.ndarray:
    k = np.arange(TERRAIN_RINGS + 1) / TERRAIN_RINGS
    return t.flat_radius_m + (t.rim_radius_m - t.flat_radius_m) * k ** 1.6


def terrain_mesh(t: Terrain) -> tuple[np.ndarray, np.ndarray]:
    """A polar grid from the flat yard's edge out to the rim: vertices and triangles."""
    radii = terrain_radii(t)
    a = np.linspace(0.0, 2 * np.pi, TERRAIN_SEGMENTS, endpoint=False)
    rr, aa = np.meshgrid(radii, a, indexing="ij")
    x, y = rr * np.cos(aa), rr * np.sin(aa)
    z = terrain_height(t, x, y)
    z[0] = 0.0  # the first ring meets the flat yard
    verts = np.column_stack([x.ravel(), y.ravel(), z.ravel()])
    n = TERRAIN_SEGMENTS
    i = np.arange(TERRAIN_RINGS)[:, None] * n
    j = np.arange(n)[None, :]
    j1 = (j + 1) % n
    a0, a1, b0, b1 = i + j, i + j1, i + n + j, i + n + j1
    tris = np.concatenate([np.stack([a0, a1, b1], -1).reshape(-1, 3), np.stack([a0, b1, b0], -1).reshape(-1, 3)])
    return verts, tris


def ground_mesh(t: Terrain) -> tuple[np.ndarray, np.ndarray]:
    """The flat yard: a disk (fan around the centre) meeting the terrain's first ring."""
    r = t.flat_radius_m
    a = np.linspace(0.0, 2 * np.pi, TERRAIN_SEGMENTS, endpoint=False)
    verts = np.column_stack([np.concatenate([[0.0], r * np.cos(a)]), np.concatenate([[0.0], r * np.sin(a)]),
                             np.zeros(len(a) + 1)])
    j = np.arange(1, len(a) + 1)
    tris = np.stack([np.zeros_like(j), j, j % len(a) + 1], -1)
    return verts, tris


# -- trees, buildings, poles, road ----------------------------------------------------------------------------

CROWN_SEGMENTS = 12
FAR_TREE_M = 120.0
CROWN_RINGS = 7


def crown_mesh(tree: Tree) -> tuple[np.ndarray, np.ndarray]:
    """A tree's crown: a lumpy ellipsoid (deciduous) or three stacked cones (conifer)."""
    cx, cy = tree.x, tree.y
    z0 = tree.base_z + tree.crown_base_m
    z1 = tree.base_z + tree.height_m
    n = CROWN_SEGMENTS
    a = np.linspace(0.0, 2 * np.pi, n, endpoint=False) + (tree.seed % 97) * 0.0647
    if tree.kind == "conifer":
        verts, tris = [], []
        tiers = 3
        height = z1 - z0
        for k in range(tiers):
            bottom = z0 + height * k * 0.28
            top = z0 + height * (0.5 + 0.25 * k) if k < tiers - 1 else z1
            radius = tree.crown_radius_m * (1.0 - 0.28 * k)
            jitter = 1.0 + 0.12 * _hash01(np.arange(n), k, tree.seed)
            base = len(verts) if not verts else sum(len(v) for v in verts)
            ring = np.column_stack([cx + radius * jitter * np.cos(a), cy + radius * jitter * np.sin(a),
                                    np.full(n, bottom)])
            verts.append(np.vstack([ring, [[cx, cy, top], [cx, cy, bottom + 0.15 * (top - bottom)]]]))
            apex, hub = base + n, base + n + 1
            for j in range(n):
                tris.append((base + j, base + (j + 1) % n, apex))
                tris.append((base + (j + 1) % n, base + j, hub))
        return np.concatenate(verts), np.asarray(tris)
    # deciduous: a main lumpy ellipsoid and two smaller ones leaning out of it
    r = tree.crown_radius_m
    blobs = [(cx, cy, z0, z1, r)]
    for k in range(2 if math.hypot(cx, cy) < FAR_TREE_M else 0):  # far trees: one blob is enough
        ang = 2 * math.pi * float(_hash01(k, 11, tree.seed))
        off = r * (0.35 + 0.2 * float(_hash01(k, 12, tree.seed)))
        rk = r * (0.55 + 0.2 * float(_hash01(k, 13, tree.seed)))
        zk0 = z0 + (z1 - z0) * (0.15 + 0.25 * float(_hash01(k, 14, tree.seed)))
        zk1 = zk0 + (z1 - z0) * (0.45 + 0.2 * float(_hash01(k, 15, tree.seed)))
        blobs.append((cx + off * math.cos(ang), cy + off * math.sin(ang), zk0, min(zk1, z1), rk))
    meshes = [_lumpy_ellipsoid(bx, by, bz0, bz1, br, tree.seed + 17 * k) for k, (bx, by, bz0, bz1, br) in
              enumerate(blobs)]
    return _merge(meshes)


_ELLIPSOID_TRIS = ring_sphere_triangles(CROWN_RINGS, CROWN_SEGMENTS)


def _lumpy_ellipsoid(cx, cy, z0, z1, radius, seed) -> tuple[np.ndarray, np.ndarray]:
    """Rings of an ellipsoid between z0 and z1, radii and heights bumped by hash noise."""
    n, rings = CROWN_SEGMENTS, CROWN_RINGS
    k = np.arange(1, rings)[:, None]
    j = np.arange(n)[None, :]
    phi = np.pi * k / rings
    a = 2 * np.pi * j / n + (seed % 97) * 0.0647 + 0.3 * k
    lump = 1.0 + 0.52 * (_hash01(j, k, seed) - 0.5)
    r = radius * np.sin(phi) * lump
    zc, half_h = (z0 + z1) / 2, (z1 - z0) / 2
    z = zc - half_h * np.cos(phi) + 0.14 * half_h * (_hash01(j, k + 50, seed) - 0.5)
    ring = np.stack([cx + r * np.cos(a), cy + r * np.sin(a), np.broadcast_to(z, r.shape)], -1).reshape(-1, 3)
    top = [cx, cy, z1 + 0.1 * half_h * (float(_hash01(0, 99, seed)) - 0.5)]
    return np.vstack([[cx, cy, z0], ring, top]), _ELLIPSOID_TRIS


def _prism(cx, cy, z0, z1, r0, r1, sides) -> tuple[np.ndarray, np.ndarray]:
    a = np.linspace(0.0, 2 * np.pi, sides, endpoint=False)
    bottom = np.column_stack([cx + r0 * np.cos(a), cy + r0 * np.sin(a), np.full(sides, z0)])
    top = np.column_stack([cx + r1 * np.cos(a), cy + r1 * np.sin(a), np.full(sides, z1)])
    verts = np.vstack([bottom, top, [[cx, cy, z1]]])
    tris = []
    for j in range(sides):
        j1 = (j + 1) % sides
        tris += [(j, j1, sides + j1), (j, sides + j1, sides + j), (sides + j, sides + j1, 2 * sides)]
    return verts, np.asarray(tris)


def trunk_mesh(tree: Tree) -> tuple[np.ndarray, np.ndarray]:
    radius = max(0.12, 0.035 * tree.height_m)
    top = tree.crown_base_m + 0.35 * (tree.height_m - tree.crown_base_m)
    return _prism(tree.x, tree.y, tree.base_z - 0.5, tree.base_z + top, radius, radius * 0.7, 6)


def _box(lo, hi) -> list[np.ndarray]:
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    c = np.array([[x, y, z] for z in (z0, z1) for y in (y0, y1) for x in (x0, x1)], float)
    quads = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]]
    return [c[q] for q in quads]


def pole_mesh(pole: Pole) -> tuple[np.ndarray, np.ndarray]:
    v, t = _prism(pole.x, pole.y, -0.3, pole.height_m, 0.15, 0.11, 8)
    a = math.radians(pole.arm_azimuth_deg)
    ca, sa = math.cos(a), math.sin(a)
    local = _box((-1.2, -0.06, pole.height_m - 0.75), (1.2, 0.06, pole.height_m - 0.63))
    arm = [np.column_stack([pole.x + ca * p[:, 0] - sa * p[:, 1], pole.y + sa * p[:, 0] + ca * p[:, 1], p[:, 2]])
           for p in local]
    av, at = fan_triangles(arm)
    return np.vstack([v, av]), np.vstack([t, at + len(v)])


def building_polygons(b: Building) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """(walls, roof, windows) of a neighbouring building as world polygons."""
    w = b.wing
    walls = list(wing_walls(w))
    roof = [p.world_polygon() for p in wing_planes(w)]
    windows = []
    # windows on the long walls: dark panes 3 cm proud of the wall
    n_win = max(1, int(w.length_m / 3.2))
    storeys = 2 if w.eave_z > 4.5 else 1
    for side in (-1, 1):
        for k in range(n_win):
            x = -w.length_m / 2 + (k + 0.5) * w.length_m / n_win
            for s in range(storeys):
                z0 = 0.9 + 2.7 * s
                y = side * (w.width_m / 2 + 0.03)
                quad = np.array([(x - 0.5, y, z0), (x + 0.5, y, z0), (x + 0.5, y, z0 + 1.2), (x - 0.5, y, z0 + 1.2)])
                if side > 0:
                    quad = quad[::-1]
                windows.append(w.to_world(quad))
    return walls, roof, windows


def road_mesh(road: Road, flat_radius: float) -> tuple[np.ndarray, np.ndarray]:
    a = math.radians(road.azimuth_deg)
    d = np.array([math.cos(a), math.sin(a)])
    n = np.array([-math.sin(a), math.cos(a)])
    half = math.sqrt(max(flat_radius ** 2 - road.offset_m ** 2, 1.0)) - 3.0
    c = road.offset_m * n
    ts = np.linspace(-half, half, 41)
    left = c + ts[:, None] * d + road.width_m / 2 * n
    right = c + ts[:, None] * d - road.width_m / 2 * n
    z = np.full(len(ts), 0.02)
    verts = np.vstack([np.column_stack([right, z]), np.column_stack([left, z])])
    m = len(ts)
    tris = []
    for i in range(m - 1):
        tris += [(i, i + 1, m + i + 1), (i, m + i + 1, m + i)]
    return verts, np.asarray(tris)


@dataclass(frozen=True)
class Part:
    """One mesh of the surroundings: its triangles and what it is made of."""

    name: str
    kind: str  # terrain | ground | road | crown | trunk | building_walls | building_roof | window | pole
    vertices: np.ndarray
    triangles: np.ndarray
    material: str
    face_shade: np.ndarray | None = None  # per-triangle value in [0, 1] (crowns: which tree shade)


def _merge(meshes) -> tuple[np.ndarray, np.ndarray]:
    verts, tris, offset = [], [], 0
    for v, t in meshes:
        verts.append(np.asarray(v, float))
        tris.append(np.asarray(t, int) + offset)
        offset += len(v)
    if not verts:
        return np.zeros((0, 3)), np.zeros((0, 3), int)
    return np.concatenate(verts), np.concatenate(tris)


@lru_cache(maxsize=4)
def surroundings_parts(plan: SurroundingsPlan) -> tuple[Part, ...]:
    """Every mesh of the surroundings (merged per kind and material)."""
    parts = [Part("Terrain", "terrain", *terrain_mesh(plan.terrain), "terrain"),
             Part("Ground", "ground", *ground_mesh(plan.terrain), "lawn"),
             Part("Road", "road", *road_mesh(plan.road, plan.terrain.flat_radius_m), "asphalt")]
    for kind in ("deciduous", "conifer"):
        trees = [t for t in plan.trees if t.kind == kind]
        if not trees:
            continue
        meshes = [crown_mesh(t) for t in trees]
        v, tri = _merge(meshes)
        shade = np.concatenate([np.full(len(m[1]), t.shade) for t, m in zip(trees, meshes)])
        parts.append(Part(f"Crowns_{kind}", "crown", v, tri, kind, shade))
    if plan.trees:
        parts.append(Part("Trunks", "trunk", *_merge([trunk_mesh(t) for t in plan.trees]), "bark"))
    for i, b in enumerate(plan.buildings):
        walls, roof, windows = building_polygons(b)
        parts.append(Part(f"Neighbour{i:02d}_Walls", "building_walls", *fan_triangles(walls), f"wall{i}"))
        parts.append(Part(f"Neighbour{i:02d}_Roof", "building_roof", *fan_triangles(roof), f"roof{i}"))
        parts.append(Part(f"Neighbour{i:02d}_Windows", "window", *fan_triangles(windows), "window"))
    if plan.poles:
        parts.append(Part("Poles", "pole", *_merge([pole_mesh(p) for p in plan.poles]), "wood"))
    return tuple(parts)


@lru_cache(maxsize=4)
def skyline_edges(plan: SurroundingsPlan) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The unique edges of every surroundings triangle (endpoints A, B) and each edge's top height,
    sorted by that height, highest first.

    Flat parts at ground level (the yard and the road) are left out: they never reach the skyline."""
    a_all, b_all = [], []
    for part in surroundings_parts(plan):
        if part.kind in ("ground", "road"):
            continue
        t = part.triangles
        e = np.concatenate([t[:, [0, 1]], t[:, [1, 2]], t[:, [2, 0]]])
        e = np.sort(e, axis=1)
        key = np.unique(e[:, 0].astype(np.int64) * len(part.vertices) + e[:, 1])
        e = np.column_stack([key // len(part.vertices), key % len(part.vertices)])
        a_all.append(part.vertices[e[:, 0]])
        b_all.append(part.vertices[e[:, 1]])
    a, b = np.concatenate(a_all), np.concatenate(b_all)
    top = np.maximum(a[:, 2], b[:, 2])
    order = np.argsort(-top, kind="stable")  # highest first: a camera's candidates are a prefix
    return a[order], b[order], top[order]


# -- drawing the surroundings ---------------------------------------------------------------------------------

WALL_COLORS = [(0.7, 0.7, 0.68), (0.55, 0.48, 0.36), (0.3, 0.36, 0.42), (0.36, 0.42, 0.32), (0.7, 0.6, 0.3),
               (0.35, 0.12, 0.08), (0.45, 0.45, 0.47), (0.6, 0.55, 0.5)]
ROOF_COLORS = [(0.05, 0.05, 0.055), (0.11, 0.095, 0.075), (0.09, 0.1, 0.11), (0.09, 0.06, 0.04), (0.2, 0.07, 0.05),
               (0.16, 0.14, 0.11), (0.3, 0.3, 0.32)]


def _pick(rng, options):
    return options[int(rng.integers(len(options)))]


class _Occupancy:
    """Circles already taken on the ground (house, buildings, trees) and the road strip."""

    def __init__(self, road: Road):
        self.xyr = np.zeros((0, 3))
        a = math.radians(road.azimuth_deg)
        self.road_n = np.array([-math.sin(a), math.cos(a)])
        self.road = road

    def road_distance(self, x: float, y: float) -> float:
        return abs(float(np.dot([x, y], self.road_n)) - self.road.offset_m) - self.road.width_m / 2

    def free(self, x: float, y: float, radius: float, road_clearance: float) -> bool:
        if self.road_distance(x, y) < radius + road_clearance:
            return False
        c = self.xyr
        return bool(np.all(np.hypot(c[:, 0] - x, c[:, 1] - y) >= radius + c[:, 2]))

    def take(self, x: float, y: float, radius: float) -> None:
        self.xyr = np.vstack([self.xyr, [x, y, radius]])


def draw_surroundings(rng: np.random.Generator, house_radius_m: float) -> SurroundingsPlan:
    """Draw the surroundings of a house that fits in a circle of `house_radius_m` around the origin."""
    if not house_radius_m > 0:
        raise ValueError(f"house radius must be positive, got {house_radius_m}")
    flat = float(rng.uniform(90.0, 200.0))
    hills = []
    for _ in range(int(rng.integers(3, 9))):
        distance = float(rng.uniform(flat + 80.0, RIM_RADIUS_M - 60.0))
        hills.append(Hill(float(rng.uniform(0, 360)), distance, float(rng.uniform(12.0, 0.13 * distance)),
                          float(rng.uniform(6.0, 35.0)), float(rng.uniform(60.0, 220.0))))
    terrain = Terrain(flat, RIM_RADIUS_M, float(rng.uniform(MAX_EYE_Z_M + 9.0, 60.0)), tuple(hills),
                      float(rng.uniform(2.0, 7.0)), int(rng.integers(1, 2 ** 30)))

    road = Road(float(rng.uniform(0, 180)), float(rng.choice([-1, 1]) * rng.uniform(house_radius_m + 6.0,
                                                                                   house_radius_m + 26.0)),
                float(rng.uniform(5.5, 7.5)))
    occ = _Occupancy(road)
    occ.take(0.0, 0.0, house_radius_m + 3.0)

    # neighbouring buildings
    buildings = []
    for _ in range(int(rng.integers(5, 16))):
        for _attempt in range(20):
            d = float(rng.uniform(house_radius_m + 14.0, min(190.0, flat - 15.0)))
            az = float(rng.uniform(0, 2 * math.pi))
            x, y = d * math.cos(az), d * math.sin(az)
            length, width = float(rng.uniform(8.0, 16.0)), float(rng.uniform(6.5, 10.5))
            radius = math.hypot(length, width) / 2 + 0.6
            if not occ.free(x, y, radius, 4.0):
                continue
            roof = _pick(rng, ["gable", "gable", "gable", "hip", "shed"])
            storeys = 2 if rng.random() < 0.35 else 1
            eave = float(rng.uniform(2.6, 3.0)) if storeys == 1 else float(rng.uniform(5.2, 5.8))
            if roof == "hip":
                length = max(length, width)
            pitch = math.degrees(math.atan(float(rng.uniform(3.0, 6.0) if roof == "shed" else rng.uniform(4.0, 10.0))
                                           / 12.0))
            # roughly parallel to the road, as streets are built
            axis = road.azimuth_deg + float(rng.choice([0.0, 90.0])) + float(rng.normal(0.0, 8.0))
            wing = Wing(f"N{len(buildings)}", (x, y), axis, length, width, eave, roof, pitch,
                        float(rng.uniform(0.25, 0.5)), float(rng.uniform(0.15, 0.3)))
            buildings.append(Building(wing, tuple(map(float, _pick(rng, WALL_COLORS))),
                                      tuple(map(float, _pick(rng, ROOF_COLORS)))))
            occ.take(x, y, radius)
            break

    # houses along the street, facing it (a suburb) or only a few far apart (the country)
    if rng.random() < 0.7:
        a = math.radians(road.azimuth_deg)
        along = np.array([math.cos(a), math.sin(a)])
        across = np.array([-math.sin(a), math.cos(a)])
        lot = float(rng.uniform(24.0, 38.0))
        reach = math.sqrt(max(flat ** 2 - road.offset_m ** 2, 1.0)) - 20.0
        for side in (-1.0, 1.0):
            for t in np.arange(-reach + float(rng.uniform(0, lot)), reach, lot):
                if rng.random() < 0.2:
                    continue
                length, width = float(rng.uniform(9.0, 15.0)), float(rng.uniform(7.0, 10.0))
                setback = float(rng.uniform(7.0, 14.0))
                center = (road.offset_m + side * (road.width_m / 2 + setback + width / 2)) * across + t * along
                x, y = float(center[0]), float(center[1])
                radius = math.hypot(length, width) / 2 + 0.6
                if not occ.free(x, y, radius, 3.0):
                    continue
                roof = _pick(rng, ["gable", "gable", "gable", "hip"])
                if roof == "hip":
                    length = max(length, width)
                storeys = 2 if rng.random() < 0.35 else 1
                eave = float(rng.uniform(2.6, 3.0)) if storeys == 1 else float(rng.uniform(5.2, 5.8))
                pitch = math.degrees(math.atan(float(rng.uniform(4.0, 10.0)) / 12.0))
                wing = Wing(f"N{len(buildings)}", (x, y), road.azimuth_deg + float(rng.normal(0.0, 2.0)), length,
                            width, eave, roof, pitch, float(rng.uniform(0.25, 0.5)), float(rng.uniform(0.15, 0.3)))
                buildings.append(Building(wing, tuple(map(float, _pick(rng, WALL_COLORS))),
                                          tuple(map(float, _pick(rng, ROOF_COLORS)))))
                occ.take(x, y, radius)

    trees = []

    def add_tree(x, y, height, kind):
        deciduous = kind == "deciduous"
        crown = height * float(rng.uniform(0.2, 0.32) if deciduous else rng.uniform(0.15, 0.22))
        if not occ.free(x, y, crown * 0.8, 1.0):
            return
        crown_base = height * float(rng.uniform(0.12, 0.3) if deciduous else rng.uniform(0.04, 0.12))
        trees.append(Tree(float(x), float(y), 0.0, float(height), float(crown), float(crown_base), kind,
                          float(rng.uniform(0, 1)), int(rng.integers(1, 2 ** 30))))
        occ.take(x, y, crown * 0.7)

    # a belt of trees around the neighbourhood, with gaps: the tree-line horizon of most directions
    belt = float(rng.uniform(110.0, min(250.0, flat + 80.0)))
    belt_h = float(rng.uniform(10.0, 22.0))
    cover = float(rng.uniform(0.45, 0.85))
    phase = float(rng.uniform(0, 2 * math.pi))
    wobble = [float(rng.uniform(0, 2 * math.pi)) for _ in range(3)]
    conifer_share = float(rng.choice([0.0, 0.2, 0.5, 0.8]))
    n_belt = int(2 * math.pi * belt / 5.5)
    for k in range(n_belt):
        az = 2 * math.pi * (k + float(rng.uniform(-0.3, 0.3))) / n_belt
        # gaps: where a slow wave around the circle is low, no trees
        wave = 0.5 + 0.5 * math.sin(3 * az + phase) * math.cos(2 * az + wobble[0])
        if wave > cover:
            continue
        r = belt + 18.0 * math.sin(2 * az + wobble[1]) + 10.0 * math.sin(5 * az + wobble[2]) \
            + float(rng.normal(0.0, 4.0))
        height = float(np.clip(belt_h * rng.normal(1.0, 0.18), 5.0, 26.0))
        add_tree(r * math.cos(az), r * math.sin(az), height, "conifer" if rng.random() < conifer_share else "deciduous")
    # trees around the neighbouring houses
    for b in buildings:
        bx, by = b.wing.center
        for _k in range(int(rng.integers(1, 6))):
            ang = float(rng.uniform(0, 2 * math.pi))
            dist = math.hypot(b.wing.length_m, b.wing.width_m) / 2 + float(rng.uniform(2.5, 9.0))
            add_tree(bx + dist * math.cos(ang), by + dist * math.sin(ang), float(rng.uniform(5.0, 17.0)),
                     "conifer" if rng.random() < 0.25 else "deciduous")
    # street trees along the road
    if rng.random() < 0.6:
        a = math.radians(road.azimuth_deg)
        along = np.array([math.cos(a), math.sin(a)])
        across = np.array([-math.sin(a), math.cos(a)])
        gap = float(rng.uniform(9.0, 18.0))
        height = float(rng.uniform(7.0, 15.0))
        reach = math.sqrt(max(flat ** 2 - road.offset_m ** 2, 1.0)) - 10.0
        for side in (-1.0, 1.0):
            for t in np.arange(-reach, reach, gap):
                if rng.random() < 0.25:
                    continue
                p = (road.offset_m + side * (road.width_m / 2 + 3.5)) * across + (t + float(rng.normal(0, 1.5))) * along
                add_tree(float(p[0]), float(p[1]), height * float(rng.uniform(0.8, 1.2)), "deciduous")
    # tree lines: rows of trees along gently curved lines, mostly across the view from the house
    for _ in range(int(rng.integers(5, 12))):
        d = float(rng.uniform(house_radius_m + 12.0, 220.0))
        az = float(rng.uniform(0, 2 * math.pi))
        heading = az + math.pi / 2 + float(rng.normal(0.0, 0.45))
        length = float(rng.uniform(35.0, 200.0))
        spacing = float(rng.uniform(3.0, 6.0))
        mean_h = float(rng.uniform(7.0, 21.0))
        conifer_share = float(rng.choice([0.0, 0.15, 0.5, 0.9]))
        bend = float(rng.normal(0.0, 0.004))
        cx, cy = d * math.cos(az), d * math.sin(az)
        for k in range(int(length / spacing)):
            s = -length / 2 + k * spacing + float(rng.normal(0.0, spacing * 0.18))
            h_dir = heading + bend * s
            x = cx + s * math.cos(h_dir) + float(rng.normal(0.0, 1.0))
            y = cy + s * math.sin(h_dir) + float(rng.normal(0.0, 1.0))
            if math.hypot(x, y) > flat + 120.0:
                continue
            height = float(np.clip(mean_h * rng.normal(1.0, 0.17), 4.5, 26.0))
            add_tree(x, y, height, "conifer" if rng.random() < conifer_share else "deciduous")
    # woods: clumps of trees further out
    for _ in range(int(rng.integers(2, 6))):
        d = float(rng.uniform(house_radius_m + 50.0, flat + 60.0))
        az = float(rng.uniform(0, 2 * math.pi))
        spread = float(rng.uniform(12.0, 35.0))
        mean_h = float(rng.uniform(9.0, 22.0))
        conifer_share = float(rng.choice([0.0, 0.3, 0.8]))
        for _k in range(int(rng.integers(10, 36))):
            x = d * math.cos(az) + float(rng.normal(0.0, spread))
            y = d * math.sin(az) + float(rng.normal(0.0, spread * 0.6))
            height = float(np.clip(mean_h * rng.normal(1.0, 0.2), 4.5, 26.0))
            add_tree(x, y, height, "conifer" if rng.random() < conifer_share else "deciduous")
    # hedges and shrubs along the nearer lots
    for _ in range(int(rng.integers(2, 7))):
        d = float(rng.uniform(house_radius_m + 4.0, 90.0))
        az = float(rng.uniform(0, 2 * math.pi))
        heading = az + math.pi / 2 + float(rng.normal(0.0, 0.6))
        length = float(rng.uniform(6.0, 30.0))
        cx, cy = d * math.cos(az), d * math.sin(az)
        for k in range(int(length / 1.6)):
            s_ = -length / 2 + k * 1.6
            add_tree(cx + s_ * math.cos(heading), cy + s_ * math.sin(heading), float(rng.uniform(1.4, 2.6)),
                     "deciduous")
    # a few yard trees near the house
    for _ in range(int(rng.integers(2, 8))):
        d = float(rng.uniform(house_radius_m + 5.0, house_radius_m + 35.0))
        az = float(rng.uniform(0, 2 * math.pi))
        add_tree(d * math.cos(az), d * math.sin(az), float(rng.uniform(5.0, 16.0)),
                 "conifer" if rng.random() < 0.3 else "deciduous")

    if trees:  # stand each tree on the ground (the terrain rises beyond the flat yard)
        base = terrain_height(terrain, np.array([t.x for t in trees]), np.array([t.y for t in trees]))
        trees = [replace(t, base_z=float(z)) for t, z in zip(trees, base)]

    # utility poles along the road, on one side
    poles = []
    a = math.radians(road.azimuth_deg)
    d_vec = np.array([math.cos(a), math.sin(a)])
    n_vec = np.array([-math.sin(a), math.cos(a)])
    side = float(rng.choice([-1.0, 1.0]))
    spacing = float(rng.uniform(35.0, 48.0))
    start = float(rng.uniform(0.0, spacing))
    reach = math.sqrt(max(flat ** 2 - road.offset_m ** 2, 1.0)) - 10.0
    s = -reach + start
    while s < reach:
        p = (road.offset_m + side * (road.width_m / 2 + 2.0)) * n_vec + s * d_vec
        if occ.free(float(p[0]), float(p[1]), 0.4, -10.0):
            poles.append(Pole(float(p[0]), float(p[1]), float(rng.uniform(9.0, 12.0)),
                              float(road.azimuth_deg + 90.0 + rng.normal(0.0, 3.0))))
        s += spacing

    lawn = _pick(rng, [(0.08, 0.13, 0.045), (0.1, 0.14, 0.05), (0.11, 0.13, 0.055), (0.07, 0.12, 0.05)])
    field = _pick(rng, [(0.1, 0.15, 0.05), (0.14, 0.16, 0.06), (0.12, 0.13, 0.06), (0.09, 0.13, 0.045)])
    forest = _pick(rng, [(0.035, 0.06, 0.025), (0.045, 0.065, 0.03), (0.05, 0.06, 0.035)])
    return SurroundingsPlan(terrain, tuple(trees), tuple(buildings), tuple(poles), road,
                            tuple(map(float, lawn)), tuple(map(float, field)), tuple(map(float, forest)))
