"""Trees and shrubs as pure geometry: a tapered trunk, branches reaching into the crown and lumpy leaf clusters
(deciduous), tiers of ragged needle skirts (conifer), and low clumps for shrubs.

Everything is fixed by plain numbers and a `seed` (derive it from plan values: no shared random state).
Each builder returns {"wood": (vertices, triangles), "leaves": (vertices, triangles)} in world coordinates,
plus "leaf_shade": one value in [0, 1] per leaf triangle (a per-cluster shade for the material).
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from .geometry import merge_meshes, ring_sphere_triangles

CLUSTER_RINGS = 5
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
    n = clusters or int(np.clip(7 + 1.6 * crown_radius, 8, 15))
    half_h = (height - crown_base) / 2
    center = np.array([x, y, z + crown_base + half_h])
    r_trunk = max(0.09, 0.03 * height)
    lean = rng.normal(0.0, 0.04, 2) * height
    fork = np.array([x + lean[0] * 0.5, y + lean[1] * 0.5, z + crown_base + 0.35 * half_h])
    wood = [tapered_tube([x, y, z - 0.3], fork, r_trunk, r_trunk * 0.7, 7)]
    # cluster centres: a jittered spiral over the ellipsoid's upper two thirds and rim
    i = np.arange(n) + 0.5
    cos_polar = 1.0 - 1.6 * i / n + rng.uniform(-0.08, 0.08, n)  # from near the top down to below the middle
    cos_polar = np.clip(cos_polar, -0.7, 0.95)
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
    return {"wood": merge_meshes(wood), "leaves": merge_meshes(leaves), "leaf_shade": np.concatenate(shade)}


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
    return {"wood": merge_meshes(wood), "leaves": merge_meshes(leaves), "leaf_shade": np.concatenate(shade)}


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
    return {"wood": (np.zeros((0, 3)), np.zeros((0, 3), int)), "leaves": merge_meshes(leaves),
            "leaf_shade": np.concatenate(shade)}


def merge_plants(plants) -> dict:
    """Several trees/shrubs merged: one wood and one leaves mesh, and the leaf shades in order."""
    plants = list(plants)
    return {"wood": merge_meshes([p["wood"] for p in plants]), "leaves": merge_meshes([p["leaves"] for p in plants]),
            "leaf_shade": np.concatenate([p["leaf_shade"] for p in plants]) if plants else np.zeros(0)}
