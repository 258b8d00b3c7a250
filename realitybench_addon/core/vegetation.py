"""Trees and shrubs as pure geometry: a tapered trunk, branches reaching into the crown and lumpy leaf clusters
(deciduous), tiers of ragged needle skirts (conifer), and low clumps for shrubs.

Everything is fixed by plain numbers and a `seed` (derive it from plan values: no shared random state).
Each builder returns {"wood": (vertices, triangles), "leaves": (vertices, triangles)} in world coordinates,
plus "leaf_shade": one value in [0, 1] per leaf triangle (a per-cluster shade for the material).
"""
from __future__ import annotations

import hashlib
import math
from functools import lru_cache

import numpy as np

from .geometry import merge_meshes, ring_sphere_triangles

CLUSTER_RINGS = 5
ROOT_FLARE = 1.5  # a trunk is this much wider where it meets the ground
TRUNK_BOW = 0.025  # a trunk's bend off its line, a share of its length (one sigma)
CLUSTER_SEGMENTS = 8
_cluster_triangles = lru_cache(maxsize=8)(ring_sphere_triangles)
_CLUSTER_TRIS = _cluster_triangles(CLUSTER_RINGS, CLUSTER_SEGMENTS)


def tapered_tube(p0, p1, r0: float, r1: float, sides: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """A capped tapered prism from p0 (radius r0) to p1 (radius r1): vertices and outward triangles."""
    p0, p1 = np.asarray(p0, float), np.asarray(p1, float)
    axis = p1 - p0
    axis /= np.linalg.norm(axis)
    helper = np.array([1.0, 0.0, 0.0]) if abs(axis[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    e1 = np.cross(axis, helper)
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(axis, e1)
    a = np.linspace(0.0, 2 * np.pi, sides, endpoint=False)
    ring = np.cos(a)[:, None] * e1 + np.sin(a)[:, None] * e2
    verts = np.vstack([p0 + r0 * ring, p1 + r1 * ring, [p1]])
    j = np.arange(sides)
    j1 = (j + 1) % sides
    tris = np.concatenate([np.stack([j, j1, sides + j1], -1), np.stack([j, sides + j1, sides + j], -1),
                           np.stack([sides + j, sides + j1, np.full(sides, 2 * sides)], -1)])
    return verts, tris


def tube_along(points, radii, sides: int = 7) -> tuple[np.ndarray, np.ndarray]:
    """A capped tube through `points` (a polyline, bottom first) with a ring of `radii[k]` at each: vertices and
    outward triangles. Each ring lies across the polyline's direction there (the mean of its two segments)."""
    points, radii = np.asarray(points, float), np.asarray(radii, float)
    seg = np.diff(points, axis=0)
    seg /= np.linalg.norm(seg, axis=1)[:, None]
    axes = np.vstack([seg[:1], seg[:-1] + seg[1:], seg[-1:]])
    axes /= np.linalg.norm(axes, axis=1)[:, None]
    helper = np.array([1.0, 0.0, 0.0]) if abs(axes[0, 0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    a = np.linspace(0.0, 2 * np.pi, sides, endpoint=False)
    rings = []
    for centre, axis, r in zip(points, axes, radii):
        e1 = np.cross(axis, helper)
        e1 /= np.linalg.norm(e1)
        e2 = np.cross(axis, e1)
        rings.append(centre + r * (np.cos(a)[:, None] * e1 + np.sin(a)[:, None] * e2))
    n = len(points)
    verts = np.vstack(rings + [points[-1:]])
    j = np.arange(sides)
    j1 = (j + 1) % sides
    tris = [np.stack([k * sides + j, k * sides + j1, (k + 1) * sides + j1], -1) for k in range(n - 1)]
    tris += [np.stack([k * sides + j, (k + 1) * sides + j1, (k + 1) * sides + j], -1) for k in range(n - 1)]
    top = (n - 1) * sides
    tris.append(np.stack([top + j, top + j1, np.full(sides, n * sides)], -1))
    return verts, np.concatenate(tris)


def grown_trunk(base, top, radius: float, rng: np.random.Generator, sides: int = 7):
    """A trunk from `base` (below the ground) to `top`: a root flare where it leaves the ground (ROOT_FLARE
    times wider), then tapering to 0.7 of `radius`, bent off its line in one smooth arc (TRUNK_BOW of its length)."""
    base, top = np.asarray(base, float), np.asarray(top, float)
    t = np.array([0.0, 0.1, 0.16, 0.3, 0.55, 0.8, 1.0])
    line = base + t[:, None] * (top - base)
    length = float(np.linalg.norm(top - base))
    bow = np.append(rng.normal(0.0, TRUNK_BOW * length, 2), 0.0)
    points = line + np.sin(np.pi * t)[:, None] * bow
    ground = 0.3 / max(length, 1e-9)  # the ground is 0.3 m above the base
    flare = 1.0 + (ROOT_FLARE - 1.0) * np.clip(1.0 - (t - ground) / 0.08, 0.0, 1.0) ** 2
    return tube_along(points, radius * flare * (1.0 - 0.3 * t), sides)


def lumpy_cluster(center, radius: float, squash: float, rng: np.random.Generator, rings: int = CLUSTER_RINGS,
                  seg: int = CLUSTER_SEGMENTS) -> tuple[np.ndarray, np.ndarray]:
    """A small lumpy sphere (a clump of leaves): `rings` - 1 rings of `seg` jittered vertices between two poles,
    flattened vertically by `squash`."""
    k = np.arange(1, rings)[:, None]
    phi = np.pi * k / rings
    a = 2 * np.pi * np.arange(seg)[None, :] / seg + rng.uniform(0, 2 * np.pi) + 0.4 * k
    lump = 1.0 + 0.35 * (rng.random((rings - 1, seg)) - 0.5)
    r = radius * np.sin(phi) * lump
    z = -radius * squash * np.cos(phi) * (1.0 + 0.15 * (rng.random((rings - 1, seg)) - 0.5))
    c = np.asarray(center, float)
    ring = np.stack([c[0] + r * np.cos(a), c[1] + r * np.sin(a), c[2] + z], -1).reshape(-1, 3)
    verts = np.vstack([c + [0, 0, -radius * squash * 0.9], ring, c + [0, 0, radius * squash * 0.95]])
    return verts, _cluster_triangles(rings, seg)


def deciduous_tree(x: float, y: float, z: float, height: float, crown_radius: float, crown_base: float,
                   seed: int, clusters: int | None = None, cluster_rings: int = CLUSTER_RINGS,
                   cluster_segments: int = CLUSTER_SEGMENTS) -> dict:
    """A broadleaf tree: trunk from below the ground to inside the crown, one branch per leaf cluster, and the
    clusters spread over the crown's ellipsoid (between crown_base and height above z, radius crown_radius).
    Nothing reaches above z + height or further than crown_radius * 1.05 from the axis (lumps aside).
    `cluster_rings` / `cluster_segments`: the clusters' resolution (fewer for trees far from the camera)."""
    rng = np.random.default_rng(abs(int(seed)))
    half_h = (height - crown_base) / 2
    # as many clusters as fill the crown: more for a wide one, and more again for a crown deeper than it is wide
    n = clusters or int(np.clip((7 + 1.6 * crown_radius) * max(1.0, half_h / max(crown_radius, 1e-9)), 8, 20))
    center = np.array([x, y, z + crown_base + half_h])
    r_trunk = max(0.09, 0.03 * height)
    lean = rng.normal(0.0, 0.04, 2) * height
    fork = np.array([x + lean[0] * 0.5, y + lean[1] * 0.5, z + crown_base + 0.35 * half_h])
    wood = [grown_trunk([x, y, z - 0.3], fork, r_trunk, np.random.default_rng([abs(int(seed)), 7]))]
    # cluster centres: a jittered spiral from near the top of the ellipsoid down to its lower rim, so the crown
    # hangs low round the trunk (an open-grown tree's skirt) rather than sitting on a bare pole
    i = np.arange(n) + 0.5
    cos_polar = 1.0 - 1.85 * i / n + rng.uniform(-0.08, 0.08, n)
    cos_polar = np.clip(cos_polar, -0.85, 0.95)
    az = i * 2.39996 + rng.uniform(0, 2 * np.pi)
    sin_polar = np.sqrt(1 - cos_polar ** 2)
    depth = rng.uniform(0.5, 0.72, n)
    rc = crown_radius * rng.uniform(0.38, 0.5, n) * (1.0 if n > 9 else 1.12)
    squash = rng.uniform(0.7, 0.85, n)
    px = center[0] + crown_radius * depth * sin_polar * np.cos(az)
    py = center[1] + crown_radius * depth * sin_polar * np.sin(az)
    pz = center[2] + half_h * depth * cos_polar
    # keep every cluster inside the tree's envelope: below the top, within the radius
    pz = np.minimum(pz, z + height - rc * squash)
    pz = np.maximum(pz, z + crown_base + rc * squash)
    reach = np.hypot(px - x, py - y)
    limit = np.maximum(crown_radius * 1.05 - rc, 0.0)
    shrink = np.where(reach > limit, limit / np.maximum(reach, 1e-9), 1.0)
    px, py = x + (px - x) * shrink, y + (py - y) * shrink
    leaves, shade = [], []
    tree_shade = rng.uniform(0.0, 1.0)
    for k in range(n):
        c = np.array([px[k], py[k], pz[k]])
        leaves.append(lumpy_cluster(c, rc[k], squash[k], rng, cluster_rings, cluster_segments))
        shade.append(np.full(len(leaves[-1][1]), np.clip(tree_shade + rng.normal(0, 0.12), 0, 1)))
        start = fork + [0.0, 0.0, rng.uniform(0.0, 0.3) * half_h]  # branches leave the upper trunk
        end = fork + (c - fork) * 0.8
        if np.linalg.norm(end - start) > 0.2:
            wood.append(tapered_tube(start, end, r_trunk * 0.45, r_trunk * 0.15, 4))
    return _plant(wood, leaves, shade, 0)


def _plant(wood, leaves, shade, kind: int) -> dict:
    leaves = merge_meshes(leaves)
    return {"wood": merge_meshes(wood), "leaves": leaves, "leaf_shade": np.concatenate(shade),
            "leaf_kind": np.full(len(leaves[1]), kind)}


def conifer_tree(x: float, y: float, z: float, height: float, crown_radius: float, crown_base: float,
                 seed: int, tiers: int = 5, sides: int = 11) -> dict:
    """A spruce-like tree: a thin trunk and `tiers` drooping, ragged cone skirts, narrower going up."""
    rng = np.random.default_rng(abs(int(seed)))
    r_trunk = max(0.07, 0.022 * height)
    wood = [tapered_tube([x, y, z - 0.3], [x, y, z + height * 0.9], r_trunk, r_trunk * 0.3, 6)]
    leaves, shade = [], []
    span = height - crown_base
    tree_shade = rng.uniform(0.0, 1.0)
    for k in range(tiers):
        t = k / tiers
        bottom = z + crown_base + span * t * 0.85
        top = min(z + height, bottom + span * (0.42 - 0.1 * t)) if k < tiers - 1 else z + height
        radius = crown_radius * (1.0 - 0.8 * t)
        a = np.linspace(0, 2 * np.pi, 2 * sides, endpoint=False) + rng.uniform(0, 2 * np.pi)
        rag = np.where(np.arange(2 * sides) % 2 == 0, 1.0, 0.72) * (1 + 0.12 * (rng.random(2 * sides) - 0.5))
        droop = np.where(np.arange(2 * sides) % 2 == 0, 0.0, 0.12 * (top - bottom))
        m = 2 * sides
        rim = np.column_stack([x + radius * rag * np.cos(a), y + radius * rag * np.sin(a), bottom + droop])
        verts = np.vstack([rim, [[x, y, top], [x, y, bottom + 0.25 * (top - bottom)]]])
        j = np.arange(m)
        j1 = (j + 1) % m
        tris = np.concatenate([np.stack([j, j1, np.full(m, m)], -1), np.stack([j1, j, np.full(m, m + 1)], -1)])
        leaves.append((verts, tris))
        shade.append(np.full(len(tris), np.clip(tree_shade + rng.normal(0, 0.08), 0, 1)))
    return _plant(wood, leaves, shade, 1)


def shrub(x: float, y: float, z: float, radius: float, height: float, seed: int) -> dict:
    """A low bush: 3-5 overlapping leaf clusters sitting on the ground, within `radius` and `height`."""
    rng = np.random.default_rng(abs(int(seed)))
    n = int(rng.integers(3, 6))
    leaves, shade = [], []
    base_shade = rng.uniform(0.2, 0.9)
    for _ in range(n):
        rc = radius * rng.uniform(0.45, 0.62)
        ang, off = rng.uniform(0, 2 * np.pi), rng.uniform(0, radius - rc)
        sq = min(0.95, height / (2 * rc)) * rng.uniform(0.75, 0.95)
        c = [x + off * math.cos(ang), y + off * math.sin(ang), z + rc * sq * rng.uniform(0.55, 0.9)]
        leaves.append(lumpy_cluster(c, rc, sq, rng))
        shade.append(np.full(len(_CLUSTER_TRIS), np.clip(base_shade + rng.normal(0, 0.1), 0, 1)))
    return _plant([], leaves, shade, 0)


def merge_plants(plants) -> dict:
    """Several trees/shrubs merged: one wood and one leaves mesh, and the leaf shades in order."""
    plants = list(plants)
    kinds = [p.get("leaf_kind", np.zeros(len(p["leaves"][1]), int)) for p in plants]
    return {"wood": merge_meshes([p["wood"] for p in plants]), "leaves": merge_meshes([p["leaves"] for p in plants]),
            "leaf_shade": np.concatenate([p["leaf_shade"] for p in plants]) if plants else np.zeros(0),
            "leaf_kind": np.concatenate(kinds) if plants else np.zeros(0, int)}


# -- leaf cards inside the measured crowns -----------------------------------------------------------------------
#
# A crown's triangles (the "leaves" of a plant, a surroundings crown) stay what is measured: the ray casts and the
# analytic skyline see them. The render instead shows leaf cards (`core.leaf_texture` sprays with alpha), and every
# card lies inside the crown: its centre has a non-zero winding number and is further from every crown triangle
# than the card's circumradius, so the ball around it that holds the whole card meets no triangle and keeps that
# winding number. A line of sight from outside (winding 0) to any point of a card must therefore cross a crown
# triangle: whatever the render shows as foliage, the measurement sees as crown (never the reverse of a leaf
# hiding what it calls visible, nor a rendered leaf above the analytic skyline).

CARD_FOLD = 0.15  # the card's halves rise by this (local units) towards its long edges: a shallow trough
CARD_VERTS = np.array([[-1, -1, CARD_FOLD], [1, -1, CARD_FOLD], [1, 0, 0], [-1, 0, 0], [-1, 1, CARD_FOLD],
                       [1, 1, CARD_FOLD]], float)
CARD_QUADS = np.array([[0, 1, 2, 3], [3, 2, 5, 4]])
CARD_RADIUS = float(np.linalg.norm(CARD_VERTS, axis=1).max())  # a card of scale s lies within s * this of its centre
LEAF_KINDS = ("broadleaf", "needle")
PIECE_CARD_SHARE = 0.3  # a card's scale is at most this share of its crown piece's smallest extent
CARD_DENSITY = {"broadleaf": 4.0, "needle": 12.0}  # candidate cards per card area of crown surface
_PAIRS = 200_000  # point-triangle pairs per chunk
# The surroundings' crowns: (from, to metres from the house, card size, candidates per card area of crown surface as
# a share of CARD_DENSITY). Far crowns get larger cards, drawn denser: every card must fit inside the lumpy crown, so
# sparse cards show it as a thin tree with the sky through it. Crowns further out render as their lumps.
SURROUNDINGS_CARDS = ((0.0, 40.0, 0.3, 1.0), (40.0, 80.0, 0.8, 1.6), (80.0, 200.0, 1.6, 1.6))
TIE_M = 1e-11  # distances this close are one (the expanded products round at about 1e-13 m)


def _chunks(n_points: int, n_tris: int):
    step = max(1, _PAIRS // max(n_tris, 1))
    return [slice(i, min(i + step, n_points)) for i in range(0, n_points, step)]


# Both queries below are written as (points x 3) @ (3 x triangles) products of per-triangle vectors: no
# (points x triangles x 3) array is ever made, which is what made card placement most of a scene's build. The
# mesh is first moved to its own centroid, so the expanded squares (|p - a|^2 = |p|^2 - 2 p.a + |a|^2) lose
# nothing that matters at a crown's size (tests/test_crown_geometry_properties.py checks both against direct
# formulas). The kernels take a leading axis of pieces: a crown's pieces of one size are asked in one product,
# since hundreds of small per-piece products spent most of their time in numpy's call overhead.

def _dot_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.einsum("...j,...j->...", x, y)


def _cross_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.stack([x[..., 1] * y[..., 2] - x[..., 2] * y[..., 1], x[..., 2] * y[..., 0] - x[..., 0] * y[..., 2],
                     x[..., 0] * y[..., 1] - x[..., 1] * y[..., 0]], -1)


def _products(q: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """q (..., P, 3) against per-triangle rows (..., T, 3): (..., P, T) dot products."""
    return q @ np.swapaxes(rows, -1, -2)


def _centred(points, corners) -> tuple[np.ndarray, list[np.ndarray]]:
    """Points (G, P, 3) and each piece's triangles' corners (G, T, 3, 3), each piece moved to its corners'
    centroid: (points, [a, b, c]), each corner array (G, T, 3)."""
    origin = corners.reshape(len(corners), -1, 3).mean(1)[:, None]
    return points - origin, [corners[:, :, k] - origin for k in range(3)]


def _winding_kernel(p, a, b, c) -> np.ndarray:
    """Winding numbers (G, P) of centred points about centred pieces (see `winding_numbers`)."""
    det = _dot_rows(a, _cross_rows(b, c))[:, None]  # with x = a - p...: x.(y x z) = det - p.((b - a) x (c - a))
    normal = _cross_rows(b - a, c - a)
    aa, bb, cc = (_dot_rows(x, x)[:, None] for x in (a, b, c))
    ab, ac, bc = (_dot_rows(x, y)[:, None] for x, y in ((a, b), (a, c), (b, c)))
    qq = _dot_rows(p, p)[..., None]
    qa, qb, qc = _products(p, a), _products(p, b), _products(p, c)
    la = np.sqrt(np.maximum(qq - 2 * qa + aa, 0.0))
    lb = np.sqrt(np.maximum(qq - 2 * qb + bb, 0.0))
    lc = np.sqrt(np.maximum(qq - 2 * qc + cc, 0.0))
    num = det - _products(p, normal)
    den = la * lb * lc + (ab - qa - qb + qq) * lc + (ac - qa - qc + qq) * lb + (bc - qb - qc + qq) * la
    return 2 * np.arctan2(num, den).sum(-1) / (4 * np.pi)


def _distance_kernel(p, a, b, c) -> tuple[np.ndarray, np.ndarray]:
    """Distances (G, P) of centred points to centred pieces, and the nearest triangles (see `surface_distance`)."""
    n = _cross_rows(b - a, c - a)
    n /= np.maximum(np.sqrt(_dot_rows(n, n)), 1e-18)[..., None]
    edges = [(u, v - u) for u, v in ((a, b), (b, c), (c, a))]
    # the foot q = p - h n lies inside iff (q - u).(n x e) >= 0 for each edge; n.(n x e) = 0, so p may stand for q
    qq = _dot_rows(p, p)[..., None]
    inside = np.ones(p.shape[:2] + a.shape[1:2], bool)
    for u, e in edges:
        m = _cross_rows(n, e)
        inside &= _products(p, m) - _dot_rows(u, m)[:, None] >= 0
    edge2 = np.full(inside.shape, np.inf)
    for u, e in edges:
        along = _products(p, e) - _dot_rows(u, e)[:, None]  # (p - u).e
        ee = np.maximum(_dot_rows(e, e), 1e-18)[:, None]
        t = np.clip(along / ee, 0.0, 1.0)
        edge2 = np.minimum(edge2, qq - 2 * _products(p, u) + _dot_rows(u, u)[:, None] - 2 * t * along + t * t * ee)
    d = np.where(inside, np.abs(_products(p, n) - _dot_rows(a, n)[:, None]), np.sqrt(np.maximum(edge2, 0.0)))
    dist = d.min(-1)
    # triangles sharing the nearest edge or corner are equally near, up to rounding: the first of them
    return dist, (d <= dist[..., None] + TIE_M).argmax(-1)


def _one_piece(kernel, points, verts, tris):
    """A kernel's answer for points about one mesh, the points taken in chunks of bounded size."""
    corners = np.asarray(verts, float)[np.asarray(tris, int)].reshape(1, -1, 3, 3)
    p, (a, b, c) = _centred(np.asarray(points, float).reshape(1, -1, 3), corners)
    parts = [kernel(p[:, s], a, b, c) for s in _chunks(p.shape[1], a.shape[1])]
    if isinstance(parts[0], tuple):
        return tuple(np.concatenate([part[k][0] for part in parts]) for k in range(len(parts[0])))
    return np.concatenate([part[0] for part in parts])


def winding_numbers(points, verts, tris) -> np.ndarray:
    """The generalized winding number of each point about the closed mesh (1 inside an outward piece): the sum
    of the triangles' signed solid angles (Van Oosterom and Strackee) over 4 pi."""
    if len(tris) == 0:
        return np.zeros(len(np.asarray(points).reshape(-1, 3)))
    return _one_piece(_winding_kernel, points, verts, tris)


def surface_distance(points, verts, tris) -> tuple[np.ndarray, np.ndarray]:
    """Each point's exact distance to the nearest triangle of the mesh, and that triangle's index: the distance to
    the triangle's plane where the point's foot falls inside it, else to the nearest of its three edges."""
    return _one_piece(_distance_kernel, points, verts, tris)


def _pieces_winding_and_distance(candidates: list[np.ndarray], corners: np.ndarray):
    """For pieces of one triangle count (corners (G, T, 3, 3)), each piece's candidate points' winding numbers,
    distances and nearest triangles: lists of G arrays. Points are padded to the longest list, in chunks of
    pieces of bounded size."""
    most = max(len(c) for c in candidates)
    padded = np.stack([np.concatenate([c, np.repeat(c[:1], most - len(c), 0)]) for c in candidates])
    p, (a, b, c) = _centred(padded, corners)
    step = max(1, _PAIRS // (most * corners.shape[1]))
    winding, dist, nearest = [], [], []
    for g in range(0, len(p), step):
        s = slice(g, g + step)
        winding.append(_winding_kernel(p[s], a[s], b[s], c[s]))
        d, n = _distance_kernel(p[s], a[s], b[s], c[s])
        dist.append(d)
        nearest.append(n)
    winding, dist, nearest = (np.concatenate(x) for x in (winding, dist, nearest))
    return [(winding[i, :len(c)], dist[i, :len(c)], nearest[i, :len(c)]) for i, c in enumerate(candidates)]


def mesh_seed(verts) -> int:
    """A seed drawn from a mesh's own vertices (to the millimetre): the same crown always gets the same cards."""
    q = np.round(np.asarray(verts, float) * 1000).astype(np.int64).tobytes()
    return int.from_bytes(hashlib.blake2b(q, digest_size=8).digest(), "little") >> 1


def piece_triangles(tris, n_verts: int) -> list[np.ndarray]:
    """The triangle indices of each connected piece, pieces in the order of their `mesh_pieces` labels."""
    label = mesh_pieces(tris, n_verts)
    order = np.argsort(label, kind="stable")
    _, starts = np.unique(label[order], return_index=True)
    return np.split(order, starts[1:])


def mesh_pieces(tris, n_verts: int) -> np.ndarray:
    """The connected piece (a label per triangle) of each triangle: trees' clusters, blobs and skirts."""
    tris = np.asarray(tris)
    label = np.arange(n_verts)
    while True:
        low = label[tris].min(1)
        new = label.copy()
        np.minimum.at(new, tris, low[:, None])
        new = new[new]
        if np.array_equal(new, label):
            return label[tris[:, 0]]
        label = new


def _card_frames(kind: str, outward: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Unit normals and tangents (the twig, base to tip) of cards whose nearest crown face points `outward`:
    broadleaf sprays face out and up, twigs reaching out and a little down; needle sprays lie nearly flat,
    reaching out from the trunk and drooping."""
    n = len(outward)
    up = np.array([0.0, 0.0, 1.0])
    radial = outward * [1.0, 1.0, 0.0]
    radial /= np.maximum(np.linalg.norm(radial, axis=1), 1e-9)[:, None]
    if kind == "needle":
        tangent = radial + [0.0, 0.0, -1.0] * rng.uniform(0.15, 0.6, (n, 1)) + rng.normal(0, 0.15, (n, 3))
        normal = up + 0.6 * rng.normal(0, 1, (n, 3))
    else:
        tangent = 0.8 * outward + [0.0, 0.0, -0.3] + rng.normal(0, 0.55, (n, 3))
        normal = outward + 0.4 * up + 0.9 * rng.normal(0, 1, (n, 3))
    tangent /= np.linalg.norm(tangent, axis=1)[:, None]
    normal -= np.einsum("ij,ij->i", normal, tangent)[:, None] * tangent
    bad = np.linalg.norm(normal, axis=1) < 1e-6
    normal[bad] = np.cross(tangent[bad], [0.0, 1.0, 0.0]) + [1e-3, 0, 0]
    normal /= np.linalg.norm(normal, axis=1)[:, None]
    return normal, tangent


def _piece_candidates(verts, tris, own, kind: str, card_m: float, density: float, rng):
    """Candidate card centres just under the surface of one closed piece (triangle indices `own`) of a crown,
    or None where the piece draws none."""
    corners = verts[tris[own]]
    cross = _cross_rows(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    area = 0.5 * np.linalg.norm(cross, axis=1)
    count = rng.poisson(density * area / (4 * card_m ** 2))
    if count.sum() == 0:
        return None
    tri = np.repeat(np.arange(len(own)), count)
    u, v = rng.random(len(tri)), rng.random(len(tri))
    flip = u + v > 1
    u[flip], v[flip] = 1 - u[flip], 1 - v[flip]
    c = corners[tri]
    on = c[:, 0] + u[:, None] * (c[:, 1] - c[:, 0]) + v[:, None] * (c[:, 2] - c[:, 0])
    inward = -cross[tri] / np.maximum(2 * area[tri], 1e-12)[:, None]
    deepest = 2.2 if kind == "broadleaf" else 1.0  # a conifer's skirts are thin: candidates stay near the top
    return on + inward * (CARD_RADIUS * card_m * rng.uniform(0.3, deepest, len(tri)))[:, None]


def _alike(drawn: list) -> list[list]:
    """Pieces in groups of one triangle count and of candidate counts within a quarter of each other (the
    shorter lists are padded)."""
    groups = []
    for piece in sorted(drawn, key=lambda d: (len(d[1]), len(d[3]))):
        last = groups[-1] if groups else None
        if last and len(last[0][1]) == len(piece[1]) and len(piece[3]) <= 1.25 * len(last[0][3]):
            last.append(piece)
        else:
            groups.append([piece])
    return groups


def _piece_cards(verts, tris, own, kind: str, card_m: float, points, winding, dist, nearest, rng) -> dict:
    """The candidates of one piece kept where the proof of the section's comment holds for the piece alone
    (inside it is inside the crown), with their frames and scales."""
    smallest = 0.25 if kind == "broadleaf" else 0.15  # small needle sprays reach out to a skirt's thin rim
    keep = (winding > 0.5) & (dist > smallest * CARD_RADIUS * card_m)
    if not keep.any():
        return {}
    points, dist = points[keep], dist[keep]
    nc = verts[tris[own][nearest[keep]]]
    outward = _cross_rows(nc[:, 1] - nc[:, 0], nc[:, 2] - nc[:, 0])
    outward /= np.maximum(np.linalg.norm(outward, axis=1), 1e-12)[:, None]
    normal, tangent = _card_frames(kind, outward, rng)
    scale = np.minimum(card_m, 0.98 * dist / CARD_RADIUS)  # the ball of radius dist holds the whole card
    return {"centers": points, "normals": normal, "tangents": tangent, "scales": scale}


def foliage_cards(verts, tris, kind: str, seed: int, *, card_m: float = 0.35, density: float | None = None,
                  dress=None) -> dict:
    """Leaf cards (centres, unit normals and tangents, scales: a card spans [-1, 1]^2 * scale in its frame)
    inside the closed, outward-facing crown mesh (verts, tris), each provably inside it (module comment).
    `density`: cards per card area of crown surface; `dress`: a bool per connected piece, False leaves a piece
    bare (pieces are numbered as `mesh_pieces` labels, sorted). Deterministic in `seed`."""
    if kind not in LEAF_KINDS:
        raise ValueError(f"leaf kind must be one of {LEAF_KINDS}, got {kind!r}")
    density = density or CARD_DENSITY[kind]
    verts, tris = np.asarray(verts, float), np.asarray(tris, int)
    empty = {k: np.zeros((0, 3)) for k in ("centers", "normals", "tangents")} | {"scales": np.zeros(0)}
    if len(tris) == 0:
        return empty
    drawn = []  # (piece, its triangles, card size, candidates, its generator)
    for i, own in enumerate(piece_triangles(tris, len(verts))):
        if dress is not None and not dress[i]:
            continue
        extent = np.ptp(verts[tris[own]].reshape(-1, 3), axis=0).min()
        size = min(card_m, PIECE_CARD_SHARE * extent)  # a shrub's small clumps get small cards
        rng = np.random.default_rng([abs(int(seed)), i])
        points = _piece_candidates(verts, tris, own, kind, size, density, rng)
        if points is not None:
            drawn.append((i, own, size, points, rng))
    answers = {}
    for group in _alike(drawn):
        corners = np.stack([verts[tris[own]] for _, own, _, _, _ in group])
        for d, answer in zip(group, _pieces_winding_and_distance([d[3] for d in group], corners)):
            answers[d[0]] = answer
    out = []
    for i, own, size, points, rng in drawn:
        cards = _piece_cards(verts, tris, own, kind, size, points, *answers[i], rng)
        if cards:
            out.append(cards)
    if not out:
        return empty
    return {k: np.concatenate([c[k] for c in out]) for k in empty}


def card_instancer(cards: dict) -> tuple[np.ndarray, np.ndarray]:
    """One triangle per card for face instancing (Blender puts an instance at the triangle's centroid, its
    local Z along the normal, X along the first edge, scaled by the square root of the area): equilateral,
    centred on the card, first edge along the tangent, area = scale^2."""
    c, n, t, s = (np.asarray(cards[k], float) for k in ("centers", "normals", "tangents", "scales"))
    b = np.cross(n, t)
    r = s / math.sqrt(3 * math.sqrt(3) / 4)
    ang = np.radians([-150.0, -30.0, 90.0])
    verts = (c[:, None] + r[:, None, None] * (np.cos(ang)[None, :, None] * t[:, None] +
                                                np.sin(ang)[None, :, None] * b[:, None])).reshape(-1, 3)
    return verts, np.arange(len(verts)).reshape(-1, 3)
