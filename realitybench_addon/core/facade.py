"""Facade details as pure geometry: framed windows with a sill, doors, corner boards, gutters and
downspouts, placed on a vertical wall given by plain numbers.

A wall is described by a `WallFrame`: a point on the wall line at ground level, the horizontal direction
along the wall and the outward normal. Local coordinates (a, d, z) are: a along the wall, d out of the wall
(0 = the wall's face), z up. Every function returns (vertices, quads) in world coordinates; `quads_to_triangles`
turns them into triangles for the analytic code that needs those.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# A unit box's corners and outward quads (corners at 0/1 on each axis), as in bl.meshes.
_BOX_CORNERS = np.array([[x, y, z] for z in (0, 1) for y in (0, 1) for x in (0, 1)], float)
_BOX_QUADS = np.array([[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]])

FRAME_WIDTH_M = 0.065  # window frame / casing board seen from outside
FRAME_DEPTH_M = 0.045  # how far the casing stands proud of the wall
GLASS_RECESS_M = 0.015  # the glass sits behind the casing's face (still in front of the wall)
SILL_DEPTH_M = 0.07
SILL_HEIGHT_M = 0.04


@dataclass(frozen=True)
class WallFrame:
    origin: tuple[float, float, float]  # a point of the wall's face at ground level (a = 0, d = 0, z = 0)
    along: tuple[float, float]  # horizontal unit direction of +a
    outward: tuple[float, float]  # horizontal unit normal of the face (+d)

    @staticmethod
    def from_edge(p0, p1, z0: float = 0.0) -> "WallFrame":
        """The wall over the ground edge p0 -> p1 (xy), its outside on the right of that direction
        (counter-clockwise footprints have their outside on the right)."""
        p0, p1 = np.asarray(p0, float)[:2], np.asarray(p1, float)[:2]
        along = (p1 - p0) / np.linalg.norm(p1 - p0)
        outward = np.array([along[1], -along[0]])
        return WallFrame((float(p0[0]), float(p0[1]), z0), (float(along[0]), float(along[1])),
                         (float(outward[0]), float(outward[1])))

    def to_world(self, local) -> np.ndarray:
        local = np.atleast_2d(np.asarray(local, float))
        o = np.asarray(self.origin, float)
        u = np.array([*self.along, 0.0])
        n = np.array([*self.outward, 0.0])
        return o + local[:, :1] * u + local[:, 1:2] * n + local[:, 2:3] * np.array([0.0, 0.0, 1.0])


def local_boxes(wall: WallFrame, lows, highs) -> tuple[np.ndarray, np.ndarray]:
    """Boxes given by low/high corners in the wall's (a, d, z) frame: world vertices and outward quads."""
    lows = np.atleast_2d(np.asarray(lows, float))
    highs = np.atleast_2d(np.asarray(highs, float))
    verts = lows[:, None, :] + _BOX_CORNERS[None] * (highs - lows)[:, None, :]
    quads = _BOX_QUADS[None] + 8 * np.arange(len(lows))[:, None, None]
    world = wall.to_world(verts.reshape(-1, 3))
    quads = quads.reshape(-1, 4)
    if np.cross(np.array([*wall.along, 0.0]), np.array([*wall.outward, 0.0]))[2] < 0:
        quads = quads[:, ::-1]  # a left-handed (a, d, z) frame mirrors the boxes: keep normals outward
    return world, quads


def window(wall: WallFrame, center_a: float, sill_z: float, width: float, height: float, *,
           mullions: int = 1, transom: bool = False) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """A window on `wall`: {"glass": pane, "frame": casing + muntins, "sill": sill}. The opening is
    [center_a -/+ width/2] x [sill_z, sill_z + height]; the casing frames it on the outside."""
    a0, a1, z0, z1 = center_a - width / 2, center_a + width / 2, sill_z, sill_z + height
    fw, fd = FRAME_WIDTH_M, FRAME_DEPTH_M
    glass = local_boxes(wall, [a0, fd - GLASS_RECESS_M - 0.004, z0], [a1, fd - GLASS_RECESS_M, z1])
    lows = [[a0 - fw, 0.0, z0 - fw], [a0 - fw, 0.0, z1], [a0 - fw, 0.0, z0], [a1, 0.0, z0]]
    highs = [[a1 + fw, fd, z0], [a1 + fw, fd, z1 + fw], [a0, fd, z1], [a1 + fw, fd, z1]]
    bar = 0.022  # muntin / meeting rail, slightly behind the casing's face
    for k in range(1, mullions + 1):
        a = a0 + k * width / (mullions + 1)
        lows.append([a - bar / 2, 0.0, z0])
        highs.append([a + bar / 2, fd - 0.008, z1])
    if transom or height > 1.0:
        z = z0 + 0.55 * height  # the meeting rail of a sash window
        lows.append([a0, 0.0, z - bar / 2])
        highs.append([a1, fd - 0.008, z + bar / 2])
    frame = local_boxes(wall, lows, highs)
    sill = local_boxes(wall, [a0 - fw - 0.03, 0.0, z0 - fw - SILL_HEIGHT_M],
                       [a1 + fw + 0.03, fd + SILL_DEPTH_M, z0 - fw])
    return {"glass": glass, "frame": frame, "sill": sill}


def door(wall: WallFrame, center_a: float, width: float = 0.92, height: float = 2.05, *,
         step_m: float = 0.0) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """A door on `wall`: {"leaf": the door slab (a little proud of the wall), "frame": casing and head,
    "step": a concrete step when step_m > 0}."""
    a0, a1 = center_a - width / 2, center_a + width / 2
    fw, fd = FRAME_WIDTH_M + 0.01, FRAME_DEPTH_M
    z0 = step_m
    leaf = local_boxes(wall, [a0, 0.0, z0], [a1, 0.03, z0 + height])
    frame = local_boxes(wall, [[a0 - fw, 0.0, z0], [a1, 0.0, z0], [a0 - fw, 0.0, z0 + height]],
                        [[a0, fd, z0 + height], [a1 + fw, fd, z0 + height], [a1 + fw, fd + 0.01, z0 + height + fw]])
    out = {"leaf": leaf, "frame": frame}
    if step_m > 0:
        out["step"] = local_boxes(wall, [a0 - 0.25, 0.0, -0.05], [a1 + 0.25, 0.45, step_m])
    return out


def corner_board(wall: WallFrame, a: float, z0: float, z1: float, width: float = 0.1,
                 depth: float = 0.025) -> tuple[np.ndarray, np.ndarray]:
    """A vertical trim board at `a` along the wall (its centre), from z0 to z1."""
    return local_boxes(wall, [a - width / 2, 0.0, z0], [a + width / 2, depth, z1])


GUTTER_SIZE_M = 0.11  # a box gutter's width (out from the fascia) and, with 0.8 of it, its depth


def gutter(wall: WallFrame, a0: float, a1: float, z_top: float, *, projection_m: float,
           downspout_at: tuple[float, ...] = (), size_m: float = GUTTER_SIZE_M) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """A box gutter along the eave (its top at z_top, hanging `projection_m` out from the wall, i.e. in front
    of the fascia) and downspouts running from it down the wall to the ground at the given `a` values."""
    d0 = projection_m
    trough = local_boxes(wall, [a0, d0, z_top - size_m * 0.8], [a1, d0 + size_m, z_top])
    lows, highs = [], []
    s = 0.075  # a 3 x 2 in downspout
    for a in downspout_at:
        lows += [[a - s / 2, 0.02, 0.05], [a - s / 2, 0.02, z_top - size_m * 0.8 - 0.25]]
        highs += [[a + s / 2, 0.02 + s * 0.7, z_top - size_m * 0.8 - 0.2],
                  [a + s / 2, d0 + size_m * 0.5, z_top - size_m * 0.8]]
        lows.append([a - s / 2, 0.02, 0.0])  # the kick-out at the bottom
        highs.append([a + s / 2, 0.32, 0.06])
    out = {"gutter": trough}
    if lows:
        out["downspout"] = local_boxes(wall, lows, highs)
    return out


def quads_to_triangles(quads: np.ndarray) -> np.ndarray:
    quads = np.asarray(quads, int).reshape(-1, 4)
    return np.concatenate([quads[:, [0, 1, 2]], quads[:, [0, 2, 3]]])


def window_columns(wall_length: float, pitch_m: float = 3.0, margin_m: float = 0.9) -> np.ndarray:
    """Evenly spaced window centres along a wall (a values), at least one, kept `margin_m` from the ends."""
    usable = max(wall_length - 2 * margin_m, 0.0)
    n = max(1, int(usable / pitch_m) + 1) if usable > 1.2 else 1
    return margin_m + (np.arange(n) + 0.5) * usable / n if usable > 1.2 else np.array([wall_length / 2])


def footprint_details(corners_xy, eave_z: float, *, seed: int, gutter_edges=(), gutter_projection_m: float = 0.35,
                      gutter_z: float | None = None, door_edge: int | None = 0, avoid=(), corner_boards: bool = True,
                      window_w: float = 0.95, window_h: float = 1.25, muntins: bool = True,
                      pitch_m: float = 3.2) -> dict[str, list]:
    """Windows, a door, corner boards and gutters for a block with the footprint `corners_xy` (counter-clockwise
    xy corners; the walls run from ground level up to eave_z). Returns {"glass", "frame", "door", "gutter"} ->
    lists of (vertices, quads).

    Windows sit on every wall long enough for one, per storey (2.7 m); the door replaces the ground-floor window
    nearest the middle of `door_edge` (a seeded choice among the middle ones); `avoid` lists (edge, a, half_width)
    spans kept clear (a ladder). Gutters hang along `gutter_edges` at `gutter_z` (default: just below the eave),
    `gutter_projection_m` out from the wall, with a downspout near each end."""
    corners = np.asarray(corners_xy, float)[:, :2]
    rng = np.random.default_rng(abs(int(seed)))
    out = {"glass": [], "frame": [], "door": [], "gutter": []}
    storeys = max(1, int((eave_z - 0.4) / 2.6))
    for e in range(len(corners)):
        p0, p1 = corners[e], corners[(e + 1) % len(corners)]
        length = float(np.linalg.norm(p1 - p0))
        wall = WallFrame.from_edge(p0, p1)
        if corner_boards:
            out["frame"].append(corner_board(wall, 0.05, 0.0, eave_z))
            out["frame"].append(corner_board(wall, length - 0.05, 0.0, eave_z))
        if e in gutter_edges:
            g = gutter(wall, -0.15, length + 0.15, gutter_z if gutter_z is not None else eave_z - 0.05,
                       projection_m=gutter_projection_m, downspout_at=(0.25, length - 0.25))
            out["gutter"] += list(g.values())
        if length < window_w + 1.2:
            continue
        columns = window_columns(length, pitch_m)
        blocked = [any(abs(a - aa) < half + window_w / 2 + 0.1 for ee, aa, half in avoid if ee == e) for a in columns]
        door_k = None
        free = [k for k in np.argsort(np.abs(columns - length / 2)) if not blocked[k]]
        if e == door_edge and free:
            middle = free[:2]
            door_k = int(middle[rng.integers(len(middle))])
        for k, a in enumerate(columns):
            for s in range(storeys):
                if blocked[k] and s == 0:
                    continue
                if k == door_k and s == 0:
                    d = door(wall, float(a), step_m=0.2)  # the sill above a foundation strip
                    out["door"].append(d["leaf"])
                    out["frame"] += [d["frame"], d["step"]]
                    continue
                sill = 0.9 + 2.7 * s
                if sill + window_h > eave_z - 0.3:
                    continue
                w = window(wall, float(a), sill, window_w, window_h, mullions=1 if muntins else 0,
                           transom=muntins)
                if not muntins:
                    w["frame"] = local_boxes(wall, *_casing(float(a), sill, window_w, window_h))
                out["glass"].append(w["glass"])
                out["frame"] += [w["frame"], w["sill"]]
    return out


def _casing(center_a: float, sill_z: float, width: float, height: float):
    """The four casing boards of a window without muntins (lows, highs)."""
    a0, a1, z0, z1 = center_a - width / 2, center_a + width / 2, sill_z, sill_z + height
    fw, fd = FRAME_WIDTH_M, FRAME_DEPTH_M
    return ([[a0 - fw, 0.0, z0 - fw], [a0 - fw, 0.0, z1], [a0 - fw, 0.0, z0], [a1, 0.0, z0]],
            [[a1 + fw, fd, z0], [a1 + fw, fd, z1 + fw], [a0, fd, z1], [a1 + fw, fd, z1]])


def count_faces(details: dict) -> int:
    """Quads over every kind of a `footprint_details` result."""
    return int(sum(len(q) for parts in details.values() for _, q in parts))
