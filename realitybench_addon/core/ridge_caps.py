"""Ridge and hip caps as rows of cap shingles (pure): what the roof's capped edges look like in a photo.

A cap shingle is a square of shingle folded over the ridge; each is laid over the last one's nails, so a row
shows a butt edge, a little step with a shadow line under it, every `CAP_PIECE_EXPOSURE_M`, and no two pieces
quite the same tone. Blind viewers read the former one smooth strip as a "flat" ridge (issue 41).

The caps are set dressing on the measured cap (`core.house.cap_polygons`, which the ray casts see): each piece
lies on that strip, its butt raised `CAP_PIECE_THICKNESS_M` above it, so what the photo shows stays within a few
millimetres of what is measured. Rows start at the low end of a hip (butts face down the slope, as laid, so water
runs over them) and at the end of a ridge with the smaller (x, y); both sides of an edge step at the same places.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .geometry import merge_shaded

CAP_RISE_M = 0.03  # the fold of a ridge cap stands this far above the line it covers
CAP_HALF_WIDTH_M = 0.12  # a cap reaches this far down each side of its edge
CAP_EDGE_H_M = 0.004  # the cap's lower edge stands this far off the shingles
CAP_PIECE_EXPOSURE_M = 0.14  # a 12 x 12 in cap piece shows 5 5/8 in of its length
CAP_PIECE_THICKNESS_M = 0.009  # a piece's butt stands this far above the piece under it
PIECE_SHADE = (0.0, 1.0)  # per-piece tone (the shingle material's `tab_shade`): each piece from its own bundle
# A piece's 8 corners: its top at the butt (raised) and at the tail, the lower edge's, and the base line's under
# the butt and the tail; its triangles: the top, the butt down to the roof, the lower edge; and the row's far end.
PIECE_FACES = np.array([(0, 3, 2), (0, 2, 1), (4, 5, 1), (4, 1, 0), (1, 2, 6), (1, 6, 5)])
END_FACES = np.array([(7, 3, 2), (7, 2, 6)])


@dataclass(frozen=True)
class CapSide:
    """One side of a capped edge, in world coordinates: the line on the roof surface under the fold (`base`),
    the fold itself (`top`, raised over it), and the cap's lower edge on the plane (`inner`), each from its a
    end to its b end; `normal` is the plane's outward unit normal."""

    base: tuple[np.ndarray, np.ndarray]
    top: tuple[np.ndarray, np.ndarray]
    inner: tuple[np.ndarray, np.ndarray]
    normal: np.ndarray

    def laid_from_b(self) -> bool:
        """Does the row start at the b end (the lower one; on a level ridge, the one with the smaller x, y)?"""
        a, b = (np.round(np.asarray(p, float), 6) for p in self.base)
        return (b[2], b[0], b[1]) < (a[2], a[0], a[1])


def _edge_seed(side: CapSide) -> int:
    """The same integer for both sides of one edge (from its base line, whichever way round)."""
    ends = sorted(tuple(int(round(c * 1000)) for c in p) for p in side.base)
    return int(sum((i + 1) * 7919 * c for i, c in enumerate(ends[0] + ends[1]))) % (2 ** 31)


def cap_side_pieces(side: CapSide, *, exposure: float = CAP_PIECE_EXPOSURE_M,
                    thickness: float = CAP_PIECE_THICKNESS_M, edge_drop: float = 0.004):
    """(vertices (V, 3), triangles (T, 3), per-triangle tone (T,)) of the row of cap pieces along one side.

    The row has ceil(length / `exposure`) pieces, evenly spaced. Each piece is a thin slab: its top from its butt
    (raised `thickness` along the normal, less on a piece under 9 cm) to the next piece's butt, the butt face
    down to the roof, and its lower edge `edge_drop` deep. Triangles face outwards."""
    base, top, inner = (tuple(np.asarray(p, float) for p in pair) for pair in (side.base, side.top, side.inner))
    if side.laid_from_b():
        base, top, inner = base[::-1], top[::-1], inner[::-1]
    normal = np.asarray(side.normal, float)
    length = float(np.linalg.norm(base[1] - base[0]))
    if length < 1e-6:
        return np.zeros((0, 3)), np.zeros((0, 3), int), np.zeros(0)
    n = max(1, math.ceil(length / exposure - 1e-9))
    cuts = np.linspace(0.0, 1.0, n + 1)  # the row spread evenly: a roofer shortens every exposure a little
    tones = np.random.default_rng(_edge_seed(side)).uniform(*PIECE_SHADE, n)
    lift = min(thickness, 0.1 * length / n) * normal  # a short edge's one piece is cut down, not left steep
    drop = edge_drop * normal

    def at(pair, s):  # points at fractions s (n, 1) along a line
        return pair[0] + s * (pair[1] - pair[0])

    s0, s1 = cuts[:-1, None], cuts[1:, None]
    v = np.stack([at(top, s0) + lift, at(inner, s0) + lift, at(inner, s1), at(top, s1),
                  at(base, s0), at(inner, s0) - drop, at(inner, s1) - drop, at(base, s1)], axis=1)  # (n, 8, 3)
    inside = (at(base, (s0 + s1) / 2) + at(inner, (s0 + s1) / 2) - drop) / 2
    tris = _facing_out(v, inside, PIECE_FACES)
    end = _facing_out(v[-1:], inside[-1:], END_FACES) + 8 * (n - 1)
    shade = np.concatenate([np.repeat(tones, len(PIECE_FACES)), np.full(len(END_FACES), tones[-1])])
    return v.reshape(-1, 3), np.concatenate([tris.reshape(-1, 3), end.reshape(-1, 3)]), shade


def _facing_out(v: np.ndarray, inside: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """(pieces, faces, 3) vertex indices into the flattened `v` (pieces, 8, 3), each triangle turned to face away
    from its piece's `inside` point."""
    p = v[:, faces]  # (pieces, faces, 3 corners, 3)
    normal = np.cross(p[:, :, 1] - p[:, :, 0], p[:, :, 2] - p[:, :, 0])
    outward = np.einsum("pfk,pfk->pf", normal, p.mean(axis=2) - inside[:, None]) >= 0
    tris = np.where(outward[..., None], faces, faces[:, ::-1])
    return tris + 8 * np.arange(len(v))[:, None, None]


def level_ridge_sides(a, b, pitch_deg: float) -> tuple[CapSide, CapSide]:
    """Both sides of the cap on a level ridge from `a` to `b` (world points on the shingle surface) between two
    planes of `pitch_deg` falling away from it on either side (a gable's ridge)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    along = (b - a) / np.linalg.norm(b - a)
    z = np.array([0.0, 0.0, 1.0])
    across = np.cross(z, along)
    p = math.radians(pitch_deg)
    rise = CAP_RISE_M * z
    sides = []
    for s in (1.0, -1.0):
        down = math.cos(p) * s * across - math.sin(p) * z  # down the slope of the plane on this side
        normal = math.sin(p) * s * across + math.cos(p) * z
        inner = tuple(end + CAP_HALF_WIDTH_M * down + CAP_EDGE_H_M * normal for end in (a, b))
        sides.append(CapSide(base=(a, b), top=(a + rise, b + rise), inner=inner, normal=normal))
    return sides[0], sides[1]


def cap_rows(sides) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cap pieces of every side in `sides`, merged: (vertices, triangles, per-triangle tone)."""
    return merge_shaded(cap_side_pieces(side) for side in sides)
