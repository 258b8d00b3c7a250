"""The full 360-degree surroundings of a house, as a plan (no bpy): terrain with hills, tree lines,
neighbouring buildings, a road with utility poles.

Everything is drawn per scene from the scene's Generator and recorded; the meshes are pure
functions of the plan (`surroundings_meshes.surroundings_parts`), so the Blender builder
(`bl/surroundings.py`) and the analytic skyline (`core/skyline.py`) use the very same triangles.

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
comes from a deterministic hash noise of the plan's `detail_seed` (core/noise.py), not from random state.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace

import numpy as np

from .house import Wing
from .noise import fbm, smoothstep, value_noise
from .rng import choose

RIM_RADIUS_M = 880.0
MAX_EYE_Z_M = 16.0  # no camera of this environment is higher; the rim stands well above it
TERRAIN_RINGS = 40
TERRAIN_SEGMENTS = 720  # 0.5 degree
MIN_YARD_M = 45.0  # the flat ground reaches at least this far past the house's circle (room for a neighbour)


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


# -- terrain -----------------------------------------------------------------------------------------------

def terrain_height(t: Terrain, x, y) -> np.ndarray:
    """Ground height (m) at world points (x, y): flat (0) inside `flat_radius_m`, then rising."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    r = np.hypot(x, y)
    th = np.arctan2(y, x)
    span = t.rim_radius_m - t.flat_radius_m
    s = smoothstep((r - t.flat_radius_m) / span)
    z = t.rim_height_m * s ** 1.3
    ramp = smoothstep((r - t.flat_radius_m) / 60.0)
    for h in t.hills:
        dth = (th - math.radians(h.azimuth_deg) + np.pi) % (2 * np.pi) - np.pi
        z = z + h.height_m * ramp * np.exp(-0.5 * (dth / math.radians(h.width_deg)) ** 2) \
            * np.exp(-0.5 * ((r - h.distance_m) / h.depth_m) ** 2)
    texture = fbm(x / 45.0, y / 45.0, t.detail_seed) + 0.35 * value_noise(x / 9.0, y / 9.0, t.detail_seed + 7)
    z = z + t.roughness_m * texture * smoothstep((r - t.flat_radius_m) / (0.35 * span))
    return np.maximum(z, 0.0)


# -- drawing the surroundings ---------------------------------------------------------------------------------

WALL_COLORS = [(0.7, 0.7, 0.68), (0.55, 0.48, 0.36), (0.3, 0.36, 0.42), (0.36, 0.42, 0.32), (0.7, 0.6, 0.3),
               (0.35, 0.12, 0.08), (0.45, 0.45, 0.47), (0.6, 0.55, 0.5)]
ROOF_COLORS = [(0.05, 0.05, 0.055), (0.11, 0.095, 0.075), (0.09, 0.1, 0.11), (0.09, 0.06, 0.04), (0.2, 0.07, 0.05),
               (0.16, 0.14, 0.11), (0.3, 0.3, 0.32)]


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


def _draw_terrain(rng: np.random.Generator, house_radius_m: float) -> Terrain:
    """The flat yard's radius, the hills beyond it and the rim. The yard reaches at least `MIN_YARD_M` past the
    house's circle (a parking lot's site is wider than a house's; for a house that bound never binds, so its
    draws are what they were)."""
    flat = max(float(rng.uniform(90.0, 200.0)), house_radius_m + MIN_YARD_M)
    hills = []
    for _ in range(int(rng.integers(3, 9))):
        distance = float(rng.uniform(flat + 80.0, RIM_RADIUS_M - 60.0))
        hills.append(Hill(float(rng.uniform(0, 360)), distance, float(rng.uniform(12.0, 0.13 * distance)),
                          float(rng.uniform(6.0, 35.0)), float(rng.uniform(60.0, 220.0))))
    return Terrain(flat, RIM_RADIUS_M, float(rng.uniform(MAX_EYE_Z_M + 9.0, 60.0)), tuple(hills),
                   float(rng.uniform(2.0, 7.0)), int(rng.integers(1, 2 ** 30)))


def _draw_road(rng: np.random.Generator, house_radius_m: float) -> Road:
    return Road(float(rng.uniform(0, 180)), float(rng.choice([-1, 1]) * rng.uniform(house_radius_m + 6.0,
                                                                                  house_radius_m + 26.0)),
                float(rng.uniform(5.5, 7.5)))


def _road_axes(road: Road) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors along the road and across it."""
    a = math.radians(road.azimuth_deg)
    return np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])


def _street_reach(flat: float, road: Road, margin: float) -> float:
    """Half the length of the road inside the flat yard, less `margin`."""
    return math.sqrt(max(flat ** 2 - road.offset_m ** 2, 1.0)) - margin


def _eave_height(rng: np.random.Generator, storeys: int) -> float:
    return float(rng.uniform(2.6, 3.0)) if storeys == 1 else float(rng.uniform(5.2, 5.8))


def _painted(rng: np.random.Generator, wing: Wing) -> Building:
    return Building(wing, tuple(map(float, choose(rng, WALL_COLORS))), tuple(map(float, choose(rng, ROOF_COLORS))))


def _place_neighbour(rng: np.random.Generator, occ: _Occupancy, road: Road, flat: float, house_radius_m: float,
                     name: str) -> Building | None:
    """One neighbouring building, roughly parallel to the road, or None when 20 tries found no free ground."""
    for _attempt in range(20):
        d = float(rng.uniform(house_radius_m + 14.0, min(190.0, flat - 15.0)))
        az = float(rng.uniform(0, 2 * math.pi))
        x, y = d * math.cos(az), d * math.sin(az)
        length, width = float(rng.uniform(8.0, 16.0)), float(rng.uniform(6.5, 10.5))
        radius = math.hypot(length, width) / 2 + 0.6
        if not occ.free(x, y, radius, 4.0):
            continue
        roof = choose(rng, ["gable", "gable", "gable", "hip", "shed"])
        storeys = 2 if rng.random() < 0.35 else 1
        eave = _eave_height(rng, storeys)
        if roof == "hip":
            length = max(length, width)
        pitch = math.degrees(math.atan(float(rng.uniform(3.0, 6.0) if roof == "shed" else rng.uniform(4.0, 10.0))
                                       / 12.0))
        # roughly parallel to the road, as streets are built
        axis = road.azimuth_deg + float(rng.choice([0.0, 90.0])) + float(rng.normal(0.0, 8.0))
        wing = Wing(name, (x, y), axis, length, width, eave, roof, pitch,
                    float(rng.uniform(0.25, 0.5)), float(rng.uniform(0.15, 0.3)))
        building = _painted(rng, wing)
        occ.take(x, y, radius)
        return building
    return None


def _draw_neighbours(rng: np.random.Generator, occ: _Occupancy, road: Road, flat: float,
                     house_radius_m: float) -> list[Building]:
    buildings = []
    for _ in range(int(rng.integers(5, 16))):
        building = _place_neighbour(rng, occ, road, flat, house_radius_m, f"N{len(buildings)}")
        if building is not None:
            buildings.append(building)
    return buildings


def _place_street_house(rng: np.random.Generator, occ: _Occupancy, road: Road, side: float, t: float,
                        name: str) -> Building | None:
    """A house on lot `t` along the road's `side`, facing it; None where the ground is taken."""
    along, across = _road_axes(road)
    length, width = float(rng.uniform(9.0, 15.0)), float(rng.uniform(7.0, 10.0))
    setback = float(rng.uniform(7.0, 14.0))
    center = (road.offset_m + side * (road.width_m / 2 + setback + width / 2)) * across + t * along
    x, y = float(center[0]), float(center[1])
    radius = math.hypot(length, width) / 2 + 0.6
    if not occ.free(x, y, radius, 3.0):
        return None
    roof = choose(rng, ["gable", "gable", "gable", "hip"])
    if roof == "hip":
        length = max(length, width)
    storeys = 2 if rng.random() < 0.35 else 1
    eave = _eave_height(rng, storeys)
    pitch = math.degrees(math.atan(float(rng.uniform(4.0, 10.0)) / 12.0))
    wing = Wing(name, (x, y), road.azimuth_deg + float(rng.normal(0.0, 2.0)), length,
                width, eave, roof, pitch, float(rng.uniform(0.25, 0.5)), float(rng.uniform(0.15, 0.3)))
    building = _painted(rng, wing)
    occ.take(x, y, radius)
    return building


def _draw_street_houses(rng: np.random.Generator, occ: _Occupancy, road: Road, flat: float,
                        buildings: list[Building]) -> None:
    """Houses along the street, facing it (a suburb), or none (the country): appended to `buildings`."""
    if not rng.random() < 0.7:
        return
    lot = float(rng.uniform(24.0, 38.0))
    reach = _street_reach(flat, road, 20.0)
    for side in (-1.0, 1.0):
        for t in np.arange(-reach + float(rng.uniform(0, lot)), reach, lot):
            if rng.random() < 0.2:
                continue
            building = _place_street_house(rng, occ, road, side, t, f"N{len(buildings)}")
            if building is not None:
                buildings.append(building)


class _Planter:
    """Plants trees where the ground is free, in the order drawn."""

    def __init__(self, rng: np.random.Generator, occ: _Occupancy):
        self.rng, self.occ, self.trees = rng, occ, []

    def add(self, x, y, height, kind) -> None:
        rng = self.rng
        deciduous = kind == "deciduous"
        crown = height * float(rng.uniform(0.2, 0.32) if deciduous else rng.uniform(0.15, 0.22))
        if not self.occ.free(x, y, crown * 0.8, 1.0):
            return
        crown_base = height * float(rng.uniform(0.12, 0.3) if deciduous else rng.uniform(0.04, 0.12))
        self.trees.append(Tree(float(x), float(y), 0.0, float(height), float(crown), float(crown_base), kind,
                               float(rng.uniform(0, 1)), int(rng.integers(1, 2 ** 30))))
        self.occ.take(x, y, crown * 0.7)


def _kind(rng: np.random.Generator, conifer_share: float) -> str:
    return "conifer" if rng.random() < conifer_share else "deciduous"


def _plant_belt(rng: np.random.Generator, plant: _Planter, flat: float) -> None:
    """A belt of trees around the neighbourhood, with gaps: the tree-line horizon of most directions."""
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
        plant.add(r * math.cos(az), r * math.sin(az), height, _kind(rng, conifer_share))


def _plant_by_buildings(rng: np.random.Generator, plant: _Planter, buildings: list[Building]) -> None:
    """Trees around the neighbouring houses."""
    for b in buildings:
        bx, by = b.wing.center
        for _k in range(int(rng.integers(1, 6))):
            ang = float(rng.uniform(0, 2 * math.pi))
            dist = math.hypot(b.wing.length_m, b.wing.width_m) / 2 + float(rng.uniform(2.5, 9.0))
            plant.add(bx + dist * math.cos(ang), by + dist * math.sin(ang), float(rng.uniform(5.0, 17.0)),
                      _kind(rng, 0.25))


def _plant_street(rng: np.random.Generator, plant: _Planter, road: Road, flat: float) -> None:
    """Street trees along the road (in some scenes)."""
    if not rng.random() < 0.6:
        return
    along, across = _road_axes(road)
    gap = float(rng.uniform(9.0, 18.0))
    height = float(rng.uniform(7.0, 15.0))
    reach = _street_reach(flat, road, 10.0)
    for side in (-1.0, 1.0):
        for t in np.arange(-reach, reach, gap):
            if rng.random() < 0.25:
                continue
            p = (road.offset_m + side * (road.width_m / 2 + 3.5)) * across + (t + float(rng.normal(0, 1.5))) * along
            plant.add(float(p[0]), float(p[1]), height * float(rng.uniform(0.8, 1.2)), "deciduous")


def _plant_tree_lines(rng: np.random.Generator, plant: _Planter, flat: float, house_radius_m: float) -> None:
    """Rows of trees along gently curved lines, mostly across the view from the house."""
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
            plant.add(x, y, height, _kind(rng, conifer_share))


def _plant_woods(rng: np.random.Generator, plant: _Planter, flat: float, house_radius_m: float) -> None:
    """Clumps of trees further out."""
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
            plant.add(x, y, height, _kind(rng, conifer_share))


def _plant_hedges(rng: np.random.Generator, plant: _Planter, house_radius_m: float) -> None:
    """Hedges and shrubs along the nearer lots."""
    for _ in range(int(rng.integers(2, 7))):
        d = float(rng.uniform(house_radius_m + 4.0, 90.0))
        az = float(rng.uniform(0, 2 * math.pi))
        heading = az + math.pi / 2 + float(rng.normal(0.0, 0.6))
        length = float(rng.uniform(6.0, 30.0))
        cx, cy = d * math.cos(az), d * math.sin(az)
        for k in range(int(length / 1.6)):
            s_ = -length / 2 + k * 1.6
            plant.add(cx + s_ * math.cos(heading), cy + s_ * math.sin(heading), float(rng.uniform(1.4, 2.6)),
                      "deciduous")


def _plant_yard(rng: np.random.Generator, plant: _Planter, house_radius_m: float) -> None:
    """A few yard trees near the house."""
    for _ in range(int(rng.integers(2, 8))):
        d = float(rng.uniform(house_radius_m + 5.0, house_radius_m + 35.0))
        az = float(rng.uniform(0, 2 * math.pi))
        plant.add(d * math.cos(az), d * math.sin(az), float(rng.uniform(5.0, 16.0)), _kind(rng, 0.3))


def _on_the_ground(terrain: Terrain, trees: list[Tree]) -> list[Tree]:
    """Each tree stood on the ground (the terrain rises beyond the flat yard)."""
    if not trees:
        return trees
    base = terrain_height(terrain, np.array([t.x for t in trees]), np.array([t.y for t in trees]))
    return [replace(t, base_z=float(z)) for t, z in zip(trees, base)]


def _draw_poles(rng: np.random.Generator, occ: _Occupancy, road: Road, flat: float) -> list[Pole]:
    """Utility poles along the road, on one side."""
    poles = []
    d_vec, n_vec = _road_axes(road)
    side = float(rng.choice([-1.0, 1.0]))
    spacing = float(rng.uniform(35.0, 48.0))
    start = float(rng.uniform(0.0, spacing))
    reach = _street_reach(flat, road, 10.0)
    s = -reach + start
    while s < reach:
        p = (road.offset_m + side * (road.width_m / 2 + 2.0)) * n_vec + s * d_vec
        if occ.free(float(p[0]), float(p[1]), 0.4, -10.0):
            poles.append(Pole(float(p[0]), float(p[1]), float(rng.uniform(9.0, 12.0)),
                              float(road.azimuth_deg + 90.0 + rng.normal(0.0, 3.0))))
        s += spacing
    return poles


LAWN_COLORS = [(0.08, 0.13, 0.045), (0.1, 0.14, 0.05), (0.11, 0.13, 0.055), (0.07, 0.12, 0.05)]
FIELD_COLORS = [(0.1, 0.15, 0.05), (0.14, 0.16, 0.06), (0.12, 0.13, 0.06), (0.09, 0.13, 0.045)]
FOREST_COLORS = [(0.035, 0.06, 0.025), (0.045, 0.065, 0.03), (0.05, 0.06, 0.035)]


def draw_surroundings(rng: np.random.Generator, house_radius_m: float) -> SurroundingsPlan:
    """Draw the surroundings of a house that fits in a circle of `house_radius_m` around the origin."""
    if not house_radius_m > 0:
        raise ValueError(f"house radius must be positive, got {house_radius_m}")
    terrain = _draw_terrain(rng, house_radius_m)
    flat = terrain.flat_radius_m
    road = _draw_road(rng, house_radius_m)
    occ = _Occupancy(road)
    occ.take(0.0, 0.0, house_radius_m + 3.0)
    buildings = _draw_neighbours(rng, occ, road, flat, house_radius_m)
    _draw_street_houses(rng, occ, road, flat, buildings)

    plant = _Planter(rng, occ)
    _plant_belt(rng, plant, flat)
    _plant_by_buildings(rng, plant, buildings)
    _plant_street(rng, plant, road, flat)
    _plant_tree_lines(rng, plant, flat, house_radius_m)
    _plant_woods(rng, plant, flat, house_radius_m)
    _plant_hedges(rng, plant, house_radius_m)
    _plant_yard(rng, plant, house_radius_m)
    trees = _on_the_ground(terrain, plant.trees)

    poles = _draw_poles(rng, occ, road, flat)
    lawn, field, forest = choose(rng, LAWN_COLORS), choose(rng, FIELD_COLORS), choose(rng, FOREST_COLORS)
    return SurroundingsPlan(terrain, tuple(trees), tuple(buildings), tuple(poles), road,
                            tuple(map(float, lawn)), tuple(map(float, field)), tuple(map(float, forest)))


# -- set dressing around a scene that measures none of it -----------------------------------------------------

def _shadow_reaches(x: float, y: float, radius: float, top_z: float, house_radius_m: float, away: np.ndarray,
                    reach_per_m: float) -> bool:
    """Whether an upright thing at (x, y), `radius` wide and `top_z` tall, shades any point within
    `house_radius_m` of the origin: its shadow sweeps a disc of `radius` from its foot to `top_z * reach_per_m`
    away from the sun."""
    foot = np.array([x, y])
    tip = foot + away * top_z * reach_per_m
    seg = tip - foot
    t = float(np.clip(-foot @ seg / max(float(seg @ seg), 1e-12), 0.0, 1.0))
    return float(np.linalg.norm(foot + t * seg)) < house_radius_m + radius


def clear_of_sun(plan: SurroundingsPlan, house_radius_m: float, sun_azimuth_deg: float,
                 sun_elevation_deg: float) -> SurroundingsPlan:
    """`plan` less every tree, building and pole whose shadow could fall within `house_radius_m` of the origin
    for the sun at (azimuth, elevation) (azimuth 0 towards -Y, 90 towards +X, as `bl.sky.sun_direction`): set
    dressing around a scene whose light on the house is part of what it measures leaves that light as it was."""
    a, e = math.radians(sun_azimuth_deg), math.radians(sun_elevation_deg)
    away = np.array([-math.sin(a), math.cos(a)])
    reach = 1.0 / math.tan(max(e, math.radians(1.0)))

    def keeps(x, y, radius, top_z):
        return not _shadow_reaches(x, y, radius, top_z, house_radius_m, away, reach)

    trees = tuple(t for t in plan.trees if keeps(t.x, t.y, t.crown_radius_m, t.base_z + t.height_m))
    buildings = []
    for b in plan.buildings:
        w = b.wing
        half_diagonal = 0.5 * math.hypot(w.length_m + 2 * w.rake_m, w.width_m + 2 * w.overhang_m)
        ridge = w.eave_z + w.width_m * math.tan(math.radians(max(w.pitch_deg, w.upper_pitch_deg)))  # a shed's too
        if keeps(w.center[0], w.center[1], half_diagonal, ridge):
            buildings.append(b)
    poles = tuple(p for p in plan.poles if keeps(p.x, p.y, 1.0, p.height_m))  # 1 m: the cross arm
    return replace(plan, trees=trees, buildings=tuple(buildings), poles=poles)
