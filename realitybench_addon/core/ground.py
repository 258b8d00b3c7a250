"""The ground's texture frame and where dirt may lie (pure; issue 41). `bl/lot_ground.py` and `bl/surroundings.py`
build the shader nodes from these numbers; `lot_dirt` is the same dirt envelope in numpy, so tests can read it.

Asphalt aggregate is two Voronoi layers of stones whose cell sizes (`COARSE_STONE_M`, `FINE_STONE_M`) and turn
(`FINE_TURN_RAD`) are incommensurate, over a domain warped at two scales and shifted per scene by
`texture_offset` (a pure function of plan values): no lattice or tile lines up with the pixel grid or with itself.

Dirt on the lot (`lot_dirt`): collected in a band against both head curbs, thrown in lanes where wheels roll
into and out of every stall, and never on the ground under the subject car or near it (`lot_keepouts`): every
target a lot environment measures (plates, damage marks) lies on the subject's body, whose projection on the
ground is inside that rectangle, so no dirt is ever laid over or next to one.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .parking_lot import LotPlan

TEXTURE_SHIFT_M = 40.0  # per-scene shift of every ground pattern: within +-40 m (float32 keeps 1 mm detail)
COARSE_STONE_M = 0.0143  # cell of the coarse aggregate: stones of 8-15 mm
FINE_STONE_M = 0.005405  # cell of the fine aggregate (sqrt(7) x finer: no common period with the coarse one)
FINE_TURN_RAD = 0.6435  # the fine layer's grid is turned by this much (atan(3/4): rational tan, irrational angle)
WARP_FINE = (41.0, 0.0035)  # (noise scale 1/m, amount m): stones' outlines and cells wobble by a few mm
WARP_BROAD = (0.23, 0.6)  # the broad tone's domain bends over metres
TONE_SCALES = (0.047, 0.31, 1.83)  # broad tone noise scales, 1/m, pairwise incommensurate

CURB_DIRT_M = 0.45  # dirt collected against a head curb fades out over this distance from its face
LANE_OFFSET_M = 0.78  # wheel lanes into a stall: this far either side of its centre line
LANE_HALF_M = 0.32  # half-width of a wheel lane's dirt
KEEP_CLEAR_M = 0.3  # no dirt within this distance of the subject car's footprint (mirrors included)
KEEP_FADE_M = 0.15  # dirt fades in over this much beyond that


def texture_offset(seed: int) -> tuple[float, float, float]:
    """A shift in metres of the ground's texture domain, drawn from its own generator of `seed` (a plan value)."""
    rng = np.random.default_rng([abs(int(seed)) % (2 ** 63), 41])
    x, y = rng.uniform(-TEXTURE_SHIFT_M, TEXTURE_SHIFT_M, 2)
    return float(x), float(y), 0.0


@dataclass(frozen=True)
class KeepOut:
    """A rectangle on the ground (centre, half sizes along and across `heading_deg`) where no dirt lies."""

    x: float
    y: float
    half_l: float
    half_w: float
    heading_deg: float

    def outside_m(self, x, y) -> np.ndarray:
        """Box distance outside the rectangle (<= 0 inside), the same formula as the shader."""
        h = math.radians(self.heading_deg)
        dx, dy = np.asarray(x, float) - self.x, np.asarray(y, float) - self.y
        u = dx * math.cos(h) + dy * math.sin(h)
        v = -dx * math.sin(h) + dy * math.cos(h)
        return np.maximum(np.abs(u) - self.half_l, np.abs(v) - self.half_w)


def lot_keepouts(plan: LotPlan) -> list[KeepOut]:
    """The subject car's footprint (body and mirrors) grown by `KEEP_CLEAR_M`."""
    s = plan.subject
    p = s.vehicle.profile
    return [KeepOut(s.x, s.y, p.length / 2 + KEEP_CLEAR_M, p.width / 2 + 0.18 + KEEP_CLEAR_M, s.heading_deg)]


def smoothstep(value, lo: float, hi: float, to_lo: float = 0.0, to_hi: float = 1.0) -> np.ndarray:
    """Blender's Map Range (smoothstep, clamped): `value` from [lo, hi] (either order) to [to_lo, to_hi]."""
    t = np.clip((np.asarray(value, float) - lo) / (hi - lo), 0.0, 1.0)
    return to_lo + t * t * (3.0 - 2.0 * t) * (to_hi - to_lo)


def lot_dirt(plan: LotPlan, x, y) -> np.ndarray:
    """The dirt envelope (0..1) at ground points (x, y): the most dirt the shader lays there (its noise only
    breaks it up, never adds). Curb bands and wheel lanes, along the rows, cleared around the subject."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    a_face, b_face = plan.row_a_head_y, plan.row_b_head_y
    curb = np.maximum(smoothstep(y - a_face, CURB_DIRT_M, 0.02), smoothstep(b_face - y, CURB_DIRT_M, 0.02))
    across = (np.mod((x - plan.x0) / plan.stall_width_m, 1.0) - 0.5) * plan.stall_width_m
    lane = smoothstep(np.abs(np.abs(across) - LANE_OFFSET_M), LANE_HALF_M, 0.08)
    in_stalls = np.maximum(smoothstep(y, 0.4, -0.2) * smoothstep(y - a_face, -0.05, 0.1),
                           smoothstep(y - plan.aisle_width_m, -0.4, 0.2) * smoothstep(b_face - y, -0.05, 0.1))
    # the lanes are dirtiest where cars stop near the head and where they cross into the aisle
    to_head = np.minimum(np.abs(y - a_face), np.abs(b_face - y))
    lane = lane * in_stalls * (0.45 + 0.55 * smoothstep(to_head, 1.6, 0.4))
    along_rows = smoothstep(x, plan.x0 - 1.0, plan.x0 - 0.5) * smoothstep(x, plan.x1 + 1.0, plan.x1 + 0.5)
    envelope = np.maximum(curb, lane) * along_rows
    for k in lot_keepouts(plan):
        envelope = envelope * smoothstep(k.outside_m(x, y), 0.0, KEEP_FADE_M)
    return envelope
