"""The skyline of a frame, per image column, computed analytically (pure numpy, no bpy).

True skyline. The surroundings are triangle meshes (`core/surroundings.py`). For a pinhole
camera, the pixels of one image column are the rays of one plane through the camera centre,
and a straight 3D edge projects to a straight image segment, so the topmost surroundings
point in a column is the smallest row at which any projected surroundings edge crosses the
column: the upper envelope of the projected edges, exact up to the column's position. The
surfaces are closed and stand on the ground, so below that row the column shows surroundings
(or whatever is nearer: the house's own roof). Edges wholly below the camera are skipped:
the terrain's rim stands above every camera, so the skyline is above the camera's horizontal
in every direction and such edges can never be topmost.

Own-house occlusion. A ray from the camera towards the skyline point of a column is hidden
when it hits the house's own triangles (roof planes at the shingle surface, ridge caps,
walls, chimney) on the way: Moller-Trumbore ray/triangle tests against `occluder_triangles`.

The frame's terms (`measure_frame`):
  horizon_row_fraction   the median skyline row over the columns, / image height (columns with
                         the skyline above the frame count as -inf, with no surroundings as +inf)
  hidden_fraction        of the columns whose skyline is in the frame, the share hidden by the
                         own house
  sky_ground_fraction    share of columns with at least `margin` of sky above the skyline, the
                         skyline visible, and the point `margin` below it inside the frame and
                         not covered by the own house (surroundings there)
  own_bottom_fraction    share of a grid of rays over the bottom quarter that hit the own house
A set of frames from one turn is checked with `turn_coverage`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .optics import PinholeCamera

NEAR_M = 0.05
BAND = (0.1, 0.9)  # the middle 80% of the image height
MARGIN_SHARE = 0.02  # sky above / surroundings below a column's skyline: at least 2% of the image height
BOTTOM_GRID = (8, 32)  # rows x columns of rays over the bottom quarter


@dataclass
class ColumnSkyline:
    """Per column (at pixel x `columns_x`): the skyline row (nan: no surroundings in the column) and
    the world point on the surroundings where the skyline sits."""

    columns_x: np.ndarray
    rows: np.ndarray
    points: np.ndarray


def column_skyline(camera: PinholeCamera, edges_a: np.ndarray, edges_b: np.ndarray, edges_top: np.ndarray,
                   columns_x: np.ndarray) -> ColumnSkyline:
    """The upper envelope of the projected surroundings edges at each of `columns_x` (sorted pixel xs).

    Edges wholly below the camera are skipped (`edges_top`: each edge's higher end; when the edges come
    sorted by it, highest first, as `skyline_edges` gives them, the kept edges are a prefix)."""
    columns_x = np.asarray(columns_x, float)
    if columns_x.ndim != 1 or len(columns_x) == 0 or np.any(np.diff(columns_x) < 0):
        raise ValueError("columns_x must be a non-empty, sorted 1-D array of pixel x coordinates")
    eye = camera.position
    if len(edges_top) > 1 and edges_top[0] >= edges_top[-1]:  # sorted highest first: the candidates are a prefix
        keep = slice(0, int(np.searchsorted(-edges_top, -eye[2], side="right")))
    else:
        keep = edges_top >= eye[2]
    a = camera.world_to_camera(edges_a[keep])
    b = camera.world_to_camera(edges_b[keep])
    da, db = -a[:, 2], -b[:, 2]
    front = (da > NEAR_M) | (db > NEAR_M)
    a, b, da, db = a[front], b[front], da[front], db[front]
    # clip at the near plane: only the part of each edge in front of the camera
    with np.errstate(divide="ignore", invalid="ignore"):
        ta = np.where(da < NEAR_M, (NEAR_M - da) / (db - da), 0.0)
        tb = np.where(db < NEAR_M, (NEAR_M - da) / (db - da), 1.0)
    a_c = a + (b - a) * ta[:, None]
    b_c = a + (b - a) * tb[:, None]
    f, cx, cy = camera.focal_px, camera.width / 2, camera.height / 2
    xa = cx + f * a_c[:, 0] / -a_c[:, 2]
    xb = cx + f * b_c[:, 0] / -b_c[:, 2]
    lo, hi = np.minimum(xa, xb), np.maximum(xa, xb)
    i0 = np.searchsorted(columns_x, lo, side="left")
    i1 = np.searchsorted(columns_x, hi, side="right")
    counts = np.maximum(i1 - i0, 0)
    n = len(columns_x)
    rows = np.full(n, np.nan)
    points = np.full((n, 3), np.nan)
    total = int(counts.sum())
    if total == 0:
        return ColumnSkyline(columns_x, rows, points)
    edge = np.repeat(np.arange(len(counts)), counts)
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    col = np.repeat(i0, counts) + (np.arange(total) - starts)
    # where the 3D edge (camera coordinates) meets the column's plane: c * depth(s) = f * X(s)
    c = columns_x[col] - cx
    pa, pb = a_c[edge], b_c[edge]
    dpa, dpb = -pa[:, 2], -pb[:, 2]
    denom = f * (pb[:, 0] - pa[:, 0]) - c * (dpb - dpa)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.clip((c * dpa - f * pa[:, 0]) / denom, 0.0, 1.0)
    flat = ~np.isfinite(s)  # the edge lies in the column's plane: its higher end in the image is the top
    if np.any(flat):
        ya = pa[flat, 1] / dpa[flat]
        yb = pb[flat, 1] / dpb[flat]
        s[flat] = np.where(yb > ya, 1.0, 0.0)
    p = pa + (pb - pa) * s[:, None]
    y = cy - f * p[:, 1] / -p[:, 2]
    order = np.lexsort((y, col))
    col_sorted = col[order]
    first = np.ones(len(order), bool)
    first[1:] = col_sorted[1:] != col_sorted[:-1]
    best = order[first]
    rows[col[best]] = y[best]
    m = np.asarray(camera.camera_to_world, float)
    points[col[best]] = p[best] @ m[:3, :3].T + m[:3, 3]
    return ColumnSkyline(columns_x, rows, points)


def pixel_rays(camera: PinholeCamera, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """World directions (unit) of the rays through pixel coordinates (xs, ys)."""
    xs, ys = np.broadcast_arrays(np.asarray(xs, float), np.asarray(ys, float))
    d_cam = np.stack([(xs - camera.width / 2) / camera.focal_px, -(ys - camera.height / 2) / camera.focal_px,
                      -np.ones_like(xs)], axis=-1)
    d = d_cam @ np.asarray(camera.camera_to_world, float)[:3, :3].T
    return d / np.linalg.norm(d, axis=-1, keepdims=True)


def ray_triangle_distance(origin, directions: np.ndarray, vertices: np.ndarray, triangles: np.ndarray,
                          chunk: int = 256) -> np.ndarray:
    """Distance along each ray (unit `directions` from `origin`) to the first triangle hit; inf if none."""
    directions = np.atleast_2d(np.asarray(directions, float))
    out = np.full(len(directions), np.inf)
    if len(triangles) == 0 or len(directions) == 0:
        return out
    v0 = vertices[triangles[:, 0]]
    e1 = vertices[triangles[:, 1]] - v0
    e2 = vertices[triangles[:, 2]] - v0
    tvec = np.asarray(origin, float) - v0  # (M, 3)
    qvec = np.cross(tvec, e1)  # (M, 3), independent of the ray
    for start in range(0, len(directions), chunk):
        d = directions[start:start + chunk][:, None, :]  # (N, 1, 3)
        pvec = np.cross(d, e2[None])  # (N, M, 3)
        det = np.einsum("nmk,mk->nm", pvec, e1)
        with np.errstate(divide="ignore", invalid="ignore"):
            inv = 1.0 / det
            u = np.einsum("nmk,mk->nm", pvec, tvec) * inv
            v = np.einsum("nk,mk->nm", d[:, 0], qvec) * inv
            t = np.einsum("mk,mk->m", e2, qvec)[None] * inv
        hit = (np.abs(det) > 1e-12) & (u >= 0) & (v >= 0) & (u + v <= 1) & (t > 1e-6)
        out[start:start + chunk] = np.where(hit, t, np.inf).min(axis=1)
    return out


@dataclass
class FrameSkyline:
    """Everything measured about one frame's skyline (arrays per column; fractions over the frame)."""

    skyline: ColumnSkyline
    in_frame: np.ndarray  # the column's skyline lies inside the frame
    hidden: np.ndarray  # ... and the own house hides it
    sky_ground: np.ndarray  # the column shows sky above, the skyline, and surroundings below
    horizon_row_fraction: float
    horizon_in_band: bool
    hidden_fraction: float
    sky_ground_fraction: float
    own_bottom_fraction: float
    visible_fraction: float  # share of columns whose skyline is in the frame and not hidden
    center_point: np.ndarray = field(default_factory=lambda: np.full(3, np.nan))


def measure_frame(camera: PinholeCamera, edges, house_vertices: np.ndarray, house_triangles: np.ndarray,
                  n_columns: int = 160, margin_share: float = MARGIN_SHARE) -> FrameSkyline:
    """The skyline terms of one frame. `edges`: (A, B, top z) of the surroundings (`skyline_edges`)."""
    if n_columns < 1:
        raise ValueError(f"n_columns must be at least 1, got {n_columns}")
    W, H = camera.width, camera.height
    xs = (np.arange(n_columns) + 0.5) * W / n_columns
    xs = np.sort(np.append(xs, W / 2))  # plus the centre column (the target's)
    sky = column_skyline(camera, *edges, xs)
    center = int(np.searchsorted(xs, W / 2))
    is_center = np.zeros(len(xs), bool)
    is_center[center] = True
    rows = sky.rows
    present = np.isfinite(rows)
    in_frame = present & (rows >= 0) & (rows < H)
    eye = camera.position
    # own house in front of the skyline points
    hidden = np.zeros(len(xs), bool)
    if np.any(in_frame):
        idx = np.nonzero(in_frame)[0]
        to_points = sky.points[idx] - eye
        dist = np.linalg.norm(to_points, axis=1)
        t = ray_triangle_distance(eye, to_points / dist[:, None], house_vertices, house_triangles)
        hidden[idx] = t < dist
    # sky above and surroundings below
    margin = margin_share * H
    candidate = in_frame & ~hidden & (rows >= margin) & (rows + margin < H)
    sky_ground = np.zeros(len(xs), bool)
    if np.any(candidate):
        idx = np.nonzero(candidate)[0]
        below = pixel_rays(camera, xs[idx], rows[idx] + margin)
        sky_ground[idx] = ~np.isfinite(ray_triangle_distance(eye, below, house_vertices, house_triangles))
    # the bottom quarter
    nr, nc = BOTTOM_GRID
    gy = 0.75 * H + (np.arange(nr) + 0.5) * 0.25 * H / nr
    gx = (np.arange(nc) + 0.5) * W / nc
    gxx, gyy = np.meshgrid(gx, gy)
    bottom = ray_triangle_distance(eye, pixel_rays(camera, gxx.ravel(), gyy.ravel()), house_vertices,
                                   house_triangles)
    # the horizon's row: the median over columns (above the frame: -inf; no surroundings at all: +inf)
    cols = ~is_center
    r = np.where(present, rows, np.inf)[cols]
    median_row = float(np.median(r))
    row_fraction = median_row / H if np.isfinite(median_row) else (math.inf if median_row > 0 else -math.inf)
    n_in = int(in_frame[cols].sum())
    return FrameSkyline(
        skyline=sky, in_frame=in_frame, hidden=hidden, sky_ground=sky_ground,
        horizon_row_fraction=row_fraction, horizon_in_band=bool(BAND[0] <= row_fraction <= BAND[1]),
        hidden_fraction=float(hidden[cols].sum() / n_in) if n_in else 0.0,
        sky_ground_fraction=float(sky_ground[cols].mean()),
        own_bottom_fraction=float(np.isfinite(bottom).mean()),
        visible_fraction=float((in_frame & ~hidden)[cols].mean()),
        center_point=sky.points[center].copy())


def skyline_point(eye, azimuth_deg: float, edges) -> np.ndarray:
    """The skyline's world point seen from `eye` in the horizontal direction `azimuth_deg` (counter-
    clockwise from +X): the top of the surroundings straight ahead."""
    from .optics import look_at

    a = math.radians(azimuth_deg)
    eye = np.asarray(eye, float)
    m = look_at(eye, eye + np.array([math.cos(a), math.sin(a), 0.0]))
    probe = PinholeCamera(m, 1000.0, 2, 2000)
    sky = column_skyline(probe, *edges, np.array([1.0]))
    if not np.all(np.isfinite(sky.points[0])):
        return eye + 500.0 * np.array([math.cos(a), math.sin(a), 0.0])
    return sky.points[0]


# -- the camera's attitude and the turn's coverage -----------------------------------------------------------

def camera_attitude(camera_to_world) -> tuple[float, float, float]:
    """(view azimuth, pitch, roll) in degrees: the optical axis's azimuth (counter-clockwise from +X) and
    elevation, and the roll about it (0 when the image's x axis is level; the horizon then runs level
    across the image, and a roll of r tilts it by r)."""
    m = np.asarray(camera_to_world, float)[:3, :3]
    forward = -m[:, 2]
    right, up = m[:, 0], m[:, 1]
    azimuth = math.degrees(math.atan2(forward[1], forward[0])) % 360.0
    pitch = math.degrees(math.asin(max(-1.0, min(1.0, forward[2]))))
    roll = math.degrees(math.atan2(right[2], up[2]))
    return azimuth, pitch, roll


MIN_DIRECTIONS = 4
MAX_GAP_DEG = 120.0
SAME_DIRECTION_DEG = 22.5


def directions(yaws_deg, same_within_deg: float = SAME_DIRECTION_DEG) -> np.ndarray:
    """Distinct view directions among `yaws_deg`: frames whose azimuths lie within `same_within_deg`
    of a direction already counted are the same direction (greedy, around the circle)."""
    yaws = np.sort(np.asarray(yaws_deg, float) % 360.0)
    if len(yaws) == 0:
        return yaws
    # start the sweep just after the largest gap, so a cluster is never split across 0/360
    gaps = np.diff(np.append(yaws, yaws[0] + 360.0))
    start = (int(np.argmax(gaps)) + 1) % len(yaws)
    ordered = np.concatenate([yaws[start:], yaws[:start] + 360.0])
    kept = [ordered[0]]
    for y in ordered[1:]:
        if y - kept[-1] > same_within_deg:
            kept.append(y)
    return np.sort(np.asarray(kept) % 360.0)


def largest_gap_deg(yaws_deg) -> float:
    """The widest angle between neighbouring directions around the circle (360 for one or none)."""
    yaws = np.sort(np.asarray(yaws_deg, float) % 360.0)
    if len(yaws) < 2:
        return 360.0
    return float(np.max(np.diff(np.append(yaws, yaws[0] + 360.0))))


def turn_coverage(yaws_deg, accepted=None, *, min_directions: int = MIN_DIRECTIONS,
                  max_gap_deg: float = MAX_GAP_DEG, same_within_deg: float = SAME_DIRECTION_DEG) -> dict:
    """The set-level check over the frames of one turn: the accepted frames must show at least
    `min_directions` distinct directions with no gap between neighbouring directions wider than
    `max_gap_deg`."""
    yaws = np.asarray(yaws_deg, float)
    if accepted is not None:
        accepted = np.asarray(accepted, bool)
        if accepted.shape != yaws.shape:
            raise ValueError(f"accepted has {accepted.shape} entries for {yaws.shape} yaws")
        yaws = yaws[accepted]
    dirs = directions(yaws, same_within_deg)
    gap = largest_gap_deg(dirs)
    return {"frames": int(len(yaws)), "directions": int(len(dirs)),
            "directions_deg": [round(float(d), 1) for d in dirs],
            "largest_gap_deg": round(gap, 2),
            "passes": bool(len(dirs) >= min_directions and gap <= max_gap_deg)}
