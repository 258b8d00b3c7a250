"""The surroundings as meshes (pure): terrain, ground, trees, buildings, poles and the road of a
SurroundingsPlan, the triangles the Blender builder and the analytic skyline both use."""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .facade import footprint_details, quads_to_triangles
from .geometry import merge_meshes, ring_sphere_triangles
from .vegetation import deciduous_tree
from .house import fan_triangles, wing_planes, wing_walls
from .noise import hash01
from .person import loft
from .surroundings import (TERRAIN_RINGS, TERRAIN_SEGMENTS, Building, Pole, Road, SurroundingsPlan, Terrain, Tree,
                           terrain_height)


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
NEAR_TREE_M = 70.0  # closer deciduous trees are built of leaf clusters on branches
NEAR_TREE_CLUSTERS = 11
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
            jitter = 1.0 + 0.12 * hash01(np.arange(n), k, tree.seed)
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
        ang = 2 * math.pi * float(hash01(k, 11, tree.seed))
        off = r * (0.35 + 0.2 * float(hash01(k, 12, tree.seed)))
        rk = r * (0.55 + 0.2 * float(hash01(k, 13, tree.seed)))
        zk0 = z0 + (z1 - z0) * (0.15 + 0.25 * float(hash01(k, 14, tree.seed)))
        zk1 = zk0 + (z1 - z0) * (0.45 + 0.2 * float(hash01(k, 15, tree.seed)))
        blobs.append((cx + off * math.cos(ang), cy + off * math.sin(ang), zk0, min(zk1, z1), rk))
    meshes = [_lumpy_ellipsoid(bx, by, bz0, bz1, br, tree.seed + 17 * k) for k, (bx, by, bz0, bz1, br) in
              enumerate(blobs)]
    return merge_meshes(meshes)


_ELLIPSOID_TRIS = ring_sphere_triangles(CROWN_RINGS, CROWN_SEGMENTS)


def _lumpy_ellipsoid(cx, cy, z0, z1, radius, seed) -> tuple[np.ndarray, np.ndarray]:
    """Rings of an ellipsoid between z0 and z1, radii and heights bumped by hash noise."""
    n, rings = CROWN_SEGMENTS, CROWN_RINGS
    k = np.arange(1, rings)[:, None]
    j = np.arange(n)[None, :]
    phi = np.pi * k / rings
    a = 2 * np.pi * j / n + (seed % 97) * 0.0647 + 0.3 * k
    lump = 1.0 + 0.52 * (hash01(j, k, seed) - 0.5)
    r = radius * np.sin(phi) * lump
    zc, half_h = (z0 + z1) / 2, (z1 - z0) / 2
    z = zc - half_h * np.cos(phi) + 0.14 * half_h * (hash01(j, k + 50, seed) - 0.5)
    ring = np.stack([cx + r * np.cos(a), cy + r * np.sin(a), np.broadcast_to(z, r.shape)], -1).reshape(-1, 3)
    top = [cx, cy, z1 + 0.1 * half_h * (float(hash01(0, 99, seed)) - 0.5)]
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


def tree_meshes(tree: Tree) -> tuple[tuple[np.ndarray, np.ndarray], np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """(crown mesh, per-triangle shade, wood mesh) of a tree. Deciduous trees within NEAR_TREE_M of the house
    are leaf clusters on branches (`core.vegetation.deciduous_tree`, in the same envelope as the lumpy crown);
    further out a lumpy crown on a trunk is all a photo resolves."""
    if tree.kind == "deciduous" and math.hypot(tree.x, tree.y) < NEAR_TREE_M:
        plant = deciduous_tree(tree.x, tree.y, tree.base_z, tree.height_m, tree.crown_radius_m, tree.crown_base_m,
                               tree.seed, clusters=NEAR_TREE_CLUSTERS, cluster_rings=4, cluster_segments=7)
        shade = np.clip(tree.shade + 0.5 * (plant["leaf_shade"] - plant["leaf_shade"].mean()), 0.0, 1.0)
        return plant["leaves"], shade, plant["wood"]
    crown = crown_mesh(tree)
    return crown, np.full(len(crown[1]), tree.shade), trunk_mesh(tree)


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


# Overhead lines between the poles (a row of bare poles read as unfinished, issue 41): three conductors on the
# cross arm's insulators and a telecom cable lower on the poles, each sagging as a parabola (a catenary this
# shallow is one to a millimetre). Set dressing: never part of the skyline (`skyline_edges`), and they cast no
# shadow (`bl.surroundings`), so no measured light changes.
CONDUCTOR_OFFSETS_M = (-1.05, -0.35, 1.05)  # along the cross arm, from the pole's axis
CONDUCTOR_DROP_M = 0.55  # below the pole's top: on insulators over the arm (whose top is 0.63 m down)
CONDUCTOR_RADIUS_M = 0.008
CABLE_DROP_M = 3.2  # the telecom cable, on the pole's side, this far below its top
CABLE_OFFSET_M = 0.17
CABLE_RADIUS_M = 0.012
CONDUCTOR_SAG, CABLE_SAG = 0.015, 0.024  # mid-span sag as a share of the span
MAX_SPAN_M = 60.0  # poles further apart (one left out where a drive or a tree stood) carry no span
WIRE_SEGMENTS = 16
WIRE_SIDES = 4


def _arm(pole: Pole) -> np.ndarray:
    a = math.radians(pole.arm_azimuth_deg)
    return np.array([math.cos(a), math.sin(a), 0.0])


def sagging_line(a, b, sag_share: float, segments: int = WIRE_SEGMENTS) -> np.ndarray:
    """(segments + 1, 3) points of a wire hung from `a` to `b`: the chord less a parabola, `sag_share` of the
    horizontal span deep at mid-span."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    t = np.linspace(0.0, 1.0, segments + 1)[:, None]
    sag = sag_share * float(np.hypot(*(b - a)[:2]))
    return a + t * (b - a) - 4.0 * sag * t * (1.0 - t) * np.array([0.0, 0.0, 1.0])


def _wire(points: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray]:
    """An open tube of `WIRE_SIDES` faces along `points` (its ends are hidden at the poles)."""
    return loft(points, np.full(len(points), radius), (0.0, 0.0, 1.0), seg=WIRE_SIDES, caps=False)


def spans(poles) -> list[tuple[Pole, Pole]]:
    """Neighbouring poles along the line (the plan keeps them in order along the road) close enough to carry
    wires between them."""
    return [(p, q) for p, q in zip(poles, poles[1:]) if math.hypot(q.x - p.x, q.y - p.y) <= MAX_SPAN_M]


def wire_meshes(poles) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """(conductors, telecom cables) of the spans between `poles`, each as (vertices, triangles)."""
    conductors, cables = [], []
    for p, q in spans(poles):
        base_p, base_q = np.array([p.x, p.y, 0.0]), np.array([q.x, q.y, 0.0])
        for offset in CONDUCTOR_OFFSETS_M:
            a = base_p + offset * _arm(p) + [0.0, 0.0, p.height_m - CONDUCTOR_DROP_M]
            b = base_q + offset * _arm(q) + [0.0, 0.0, q.height_m - CONDUCTOR_DROP_M]
            conductors.append(_wire(sagging_line(a, b, CONDUCTOR_SAG), CONDUCTOR_RADIUS_M))
        a = base_p + CABLE_OFFSET_M * _arm(p) + [0.0, 0.0, p.height_m - CABLE_DROP_M]
        b = base_q + CABLE_OFFSET_M * _arm(q) + [0.0, 0.0, q.height_m - CABLE_DROP_M]
        cables.append(_wire(sagging_line(a, b, CABLE_SAG), CABLE_RADIUS_M))
    return merge_meshes(conductors), merge_meshes(cables)


def building_polygons(b: Building) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """(walls, roof, windows) of a neighbouring building as world polygons (windows: the glass panes' fronts;
    `building_details` gives the panes' full boxes with their casings, doors and gutters)."""
    w = b.wing
    walls = list(wing_walls(w))
    roof = [p.world_polygon() for p in wing_planes(w)]
    windows = [v[q[0]] for v, q in building_details(b)["glass"]]  # each pane's outer face (+d)
    return walls, roof, windows


def building_details(b: Building) -> dict[str, list]:
    """Facade details of a neighbouring building (`core.facade.footprint_details`): window panes in plain casings
    (no muntins or sills: they are tens of metres away), a door on one long wall, corner boards, and gutters
    under the eaves. Seeded by the building's own numbers."""
    w = b.wing
    hl, hw = w.length_m / 2, w.width_m / 2
    corners = w.to_world([(-hl, -hw, 0.0), (hl, -hw, 0.0), (hl, hw, 0.0), (-hl, hw, 0.0)])[:, :2]
    seed = int(abs(w.center[0]) * 1000 + abs(w.center[1]) * 7919 + w.length_m * 104729) % (2 ** 31)
    eaves = (0, 2) if w.roof in ("gable", "hip", "gambrel", "saltbox") else (0,)
    drop = w.overhang_m * math.tan(math.radians(w.pitch_deg))
    details = footprint_details(corners, w.eave_z, seed=seed, gutter_edges=eaves,
                                gutter_projection_m=w.overhang_m + 0.02, gutter_z=w.eave_z - drop - 0.01,
                                door_edge=0 if seed % 2 else 2, muntins=False, corner_boards=False, pitch_m=3.4)
    # fewer edges for the analytic skyline: no box faces lying on the wall, and each pane as its front face alone
    details = {kind: [(v, q.reshape(-1, 6, 4)[:, [0, 1, 3, 4, 5]].reshape(-1, 4)) for v, q in parts]
               for kind, parts in details.items()}
    details["glass"] = [(v, q.reshape(-1, 5, 4)[:, 2]) for v, q in details["glass"]]
    return details


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
    kind: str  # terrain | ground | road | crown | trunk | building_walls | building_roof | window | window_frame
    #            | door | gutter | pole | wire
    vertices: np.ndarray
    triangles: np.ndarray
    material: str
    face_shade: np.ndarray | None = None  # per-triangle value in [0, 1] (crowns: which tree shade)


@lru_cache(maxsize=4)
def surroundings_parts(plan: SurroundingsPlan) -> tuple[Part, ...]:
    """Every mesh of the surroundings (merged per kind and material)."""
    parts = [Part("Terrain", "terrain", *terrain_mesh(plan.terrain), "terrain"),
             Part("Ground", "ground", *ground_mesh(plan.terrain), "lawn"),
             Part("Road", "road", *road_mesh(plan.road, plan.terrain.flat_radius_m), "asphalt")]
    meshes = {t: tree_meshes(t) for t in plan.trees}
    for kind in ("deciduous", "conifer"):
        trees = [t for t in plan.trees if t.kind == kind]
        if not trees:
            continue
        v, tri = merge_meshes([meshes[t][0] for t in trees])
        shade = np.concatenate([meshes[t][1] for t in trees])
        parts.append(Part(f"Crowns_{kind}", "crown", v, tri, kind, shade))
    if plan.trees:
        parts.append(Part("Trunks", "trunk", *merge_meshes([meshes[t][2] for t in plan.trees]), "bark"))
    for i, b in enumerate(plan.buildings):
        walls, roof, _ = building_polygons(b)
        parts.append(Part(f"Neighbour{i:02d}_Walls", "building_walls", *fan_triangles(walls), f"wall{i}"))
        parts.append(Part(f"Neighbour{i:02d}_Roof", "building_roof", *fan_triangles(roof), f"roof{i}"))
        details = building_details(b)
        for kind, part_kind, material in (("glass", "window", "window"), ("frame", "window_frame", "trim"),
                                          ("door", "door", "door"), ("gutter", "gutter", "gutter")):
            v, q = merge_meshes(details[kind], 4)
            if len(q):
                parts.append(Part(f"Neighbour{i:02d}_{kind.title()}", part_kind, v, quads_to_triangles(q), material))
    if plan.poles:
        parts.append(Part("Poles", "pole", *merge_meshes([pole_mesh(p) for p in plan.poles]), "wood"))
    if spans(plan.poles):
        conductors, cables = wire_meshes(plan.poles)
        parts.append(Part("PowerLines", "wire", *conductors, "conductor"))
        parts.append(Part("TelecomCables", "wire", *cables, "cable"))
    return tuple(parts)


@lru_cache(maxsize=4)
def skyline_edges(plan: SurroundingsPlan) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The unique edges of every surroundings triangle (endpoints A, B) and each edge's top height,
    sorted by that height, highest first.

    Flat parts at ground level (the yard and the road) are left out: they never reach the skyline; so are the
    overhead wires, a line a pixel thin that hides no hill or roof behind it."""
    a_all, b_all = [], []
    for part in surroundings_parts(plan):
        if part.kind in ("ground", "road", "wire"):
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
