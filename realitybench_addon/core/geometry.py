"""Pure geometry on world-space triangles and points: surface samples and the fractions built on them.

The Blender layer hands over world-space vertices and triangles; everything that can be
computed without Blender is computed here.
"""
from __future__ import annotations

import math

import numpy as np

from .optics import PinholeCamera

_PLASTIC = 1.32471795724474602596  # the R2 low-discrepancy sequence's constant


def axis_rotation(axis, angle_rad: float) -> np.ndarray:
    """The rotation by `angle_rad` about `axis` (Rodrigues' formula)."""
    axis = np.asarray(axis, float)
    x, y, z = axis / np.linalg.norm(axis)
    k = np.array([[0, -z, y], [z, 0, -x], [-y, x, 0]])
    return np.eye(3) + math.sin(angle_rad) * k + (1 - math.cos(angle_rad)) * (k @ k)


def triangle_areas(vertices: np.ndarray, triangles: np.ndarray) -> np.ndarray:
    v = np.asarray(vertices, float)
    t = np.asarray(triangles, int)
    return 0.5 * np.linalg.norm(np.cross(v[t[:, 1]] - v[t[:, 0]], v[t[:, 2]] - v[t[:, 0]]), axis=1)


def merge_meshes(meshes, face_size: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """One mesh from (vertices, faces) pairs whose faces all have `face_size` corners; empty parts are skipped."""
    verts, faces, offset = [], [], 0
    for v, f in meshes:
        if len(v) == 0:
            continue
        verts.append(np.asarray(v, float))
        faces.append(np.asarray(f, int) + offset)
        offset += len(v)
    if not verts:
        return np.zeros((0, 3)), np.zeros((0, face_size), int)
    return np.concatenate(verts), np.concatenate(faces)


def merge_shaded(parts) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One triangle mesh from (vertices, triangles, per-triangle value) triples, with its values in order."""
    parts = list(parts)
    verts, tris = merge_meshes([(v, t) for v, t, _ in parts])
    values = [np.asarray(s, float) for v, _, s in parts if len(v)]
    return verts, tris, (np.concatenate(values) if values else np.zeros(0))


def ring_sphere_triangles(rings: int, seg: int) -> np.ndarray:
    """Triangles of a closed sphere-like mesh laid out as [bottom pole, rings - 1 rings of `seg`
    vertices from the bottom up, top pole], facing outwards."""
    tris = [(0, 1 + (j + 1) % seg, 1 + j) for j in range(seg)]
    for i in range(rings - 2):
        b0, b1 = 1 + i * seg, 1 + (i + 1) * seg
        for j in range(seg):
            k = (j + 1) % seg
            tris += [(b0 + j, b0 + k, b1 + k), (b0 + j, b1 + k, b1 + j)]
    last, top = 1 + (rings - 2) * seg, 1 + (rings - 1) * seg
    tris += [(last + j, last + (j + 1) % seg, top) for j in range(seg)]
    return np.array(tris)


def _allocate(weights: np.ndarray, total: int) -> np.ndarray:
    """Split `total` into integer counts proportional to `weights` (largest remainder; stable)."""
    if total <= 0 or weights.sum() <= 0:
        return np.zeros(len(weights), int)
    exact = weights / weights.sum() * total
    counts = np.floor(exact).astype(int)
    remainder = total - counts.sum()
    order = np.argsort(-(exact - counts), kind="stable")
    counts[order[:remainder]] += 1
    return counts


def _r2_barycentric(n: int) -> np.ndarray:
    """n well-spread barycentric coordinates inside a triangle (R2 sequence, folded)."""
    i = np.arange(1, n + 1)
    a1, a2 = 1 / _PLASTIC, 1 / _PLASTIC ** 2
    r = np.stack([(0.5 + a1 * i) % 1.0, (0.5 + a2 * i) % 1.0], axis=1)
    fold = r.sum(axis=1) > 1
    r[fold] = 1 - r[fold]
    return np.column_stack([1 - r.sum(axis=1), r[:, 0], r[:, 1]])


def sample_surface(vertices: np.ndarray, triangles: np.ndarray, n_interior: int = 2000,
                   include_vertices: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Deterministic samples over a triangle mesh: its vertices plus area-weighted face-interior points.

    Corner-only sampling under-reports thin objects, so interior points are always added.
    Returns (points (N,3), normals (N,3), triangle index (N,), -1 for vertex samples).
    """
    v = np.asarray(vertices, float)
    t = np.asarray(triangles, int).reshape(-1, 3)
    if len(t) == 0:
        raise ValueError("the target has no faces to sample")
    e1, e2 = v[t[:, 1]] - v[t[:, 0]], v[t[:, 2]] - v[t[:, 0]]
    cross = np.cross(e1, e2)
    double_area = np.linalg.norm(cross, axis=1)
    normals = np.divide(cross, double_area[:, None], out=np.zeros_like(cross), where=double_area[:, None] > 0)
    counts = _allocate(double_area, n_interior)
    pts, nrm, tri = [], [], []
    for count in np.unique(counts[counts > 0]):
        which = np.nonzero(counts == count)[0]
        bary = _r2_barycentric(int(count))
        corners = v[t[which]]  # (k, 3, 3)
        p = np.einsum("sj,kjd->ksd", bary, corners).reshape(-1, 3)
        pts.append(p)
        nrm.append(np.repeat(normals[which], count, axis=0))
        tri.append(np.repeat(which, count))
    if include_vertices:
        used = np.unique(t)
        vertex_normals = np.zeros((len(v), 3))
        np.add.at(vertex_normals, t.ravel(), np.repeat(cross, 3, axis=0))
        vn = vertex_normals[used]
        length = np.linalg.norm(vn, axis=1, keepdims=True)
        pts.insert(0, v[used])
        nrm.insert(0, np.divide(vn, length, out=np.zeros_like(vn), where=length > 0))
        tri.insert(0, np.full(len(used), -1))
    return np.concatenate(pts), np.concatenate(nrm), np.concatenate(tri)


def bbox_fraction(camera: PinholeCamera, points: np.ndarray) -> float:
    """Area of the projected bounding box of `points`, clipped to the frame, over the frame's area.

    Points behind the camera are left out.
    """
    uv, depth = camera.project(points)
    uv = uv[depth > 0]
    if len(uv) == 0:
        return 0.0
    lo = np.clip(uv.min(axis=0), [0, 0], [camera.width, camera.height])
    hi = np.clip(uv.max(axis=0), [0, 0], [camera.width, camera.height])
    return float(np.prod(hi - lo) / (camera.width * camera.height))


def signed_distance_to_plane(points: np.ndarray, plane_point, plane_normal) -> np.ndarray:
    n = np.asarray(plane_normal, float)
    n = n / np.linalg.norm(n)
    return (np.atleast_2d(points) - np.asarray(plane_point, float)) @ n


def curve_clearance(centerline: np.ndarray, radius_m: float, plane_point, plane_normal) -> tuple[float, int]:
    """Signed clearance between a beveled curve's surface and a plane: min over the centreline of
    (distance to plane - bevel radius). <= 0 means contact. Returns (clearance_m, index of the lowest point)."""
    d = signed_distance_to_plane(centerline, plane_point, plane_normal) - radius_m
    i = int(np.argmin(d))
    return float(d[i]), i


def apparent_blade_reading(camera_position, edge_a, edge_b, blade_origin, blade_direction) -> float:
    """Where, along a tape blade, the camera sees an edge cross it (parallax included).

    The line of sight across the edge sweeps the plane through the camera centre and the
    edge line; the apparent reading is where the blade's axis meets that plane, as a
    distance from the blade's zero (`blade_origin`) along `blade_direction` (unit).
    """
    c = np.asarray(camera_position, float)
    a = np.asarray(edge_a, float)
    b = np.asarray(edge_b, float)
    o = np.asarray(blade_origin, float)
    d = np.asarray(blade_direction, float)
    d = d / np.linalg.norm(d)
    n = np.cross(b - a, c - a)
    denom = float(np.dot(n, d))
    if abs(denom) < 1e-12 * np.linalg.norm(n):
        raise ValueError("the blade is parallel to the line-of-sight plane; no crossing")
    return float(np.dot(n, a - o) / denom)


def angle_between_deg(u, v) -> float:
    u = np.asarray(u, float)
    v = np.asarray(v, float)
    c = float(np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v)))
    return math.degrees(math.acos(max(-1.0, min(1.0, c))))
