"""What stands around a parking lot (pure): the paved area, and the neighbourhood beyond it.

A blind panel (issue 41) saw the lot as "empty asphalt to the horizon", "a grey void": the asphalt ran 300 m out in
every direction under a bare sky. Now the asphalt covers the lot's site only (`paved_area`), and the roof scenes'
surroundings (`core.surroundings`: houses along a street with poles, tree lines and woods, a lawn out to hills)
stand outside the circle that holds the paved site and the building (`site_circle`).

None of it is measured, and it leaves what is measured as it was:
- it is drawn from a stream of its own, (the plan's layout seed, `SURROUNDINGS_STREAM`), so no draw of the plan,
  pose or damage moves;
- it stands outside `site_circle`, farther than any camera of the lot stands from the cars, so it never comes
  between a camera and a car;
- anything whose shadow could reach the cars' rows (`lit_circle`) for the plan's sun is left out
  (`core.surroundings.clear_of_sun`), so the light on every car is what it was.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from .parking_lot import CURB_WIDTH_M, LotPlan, layout_seed
from .surroundings import SurroundingsPlan, clear_of_sun, draw_surroundings

PAVED_PAST_ROWS_M = 40.0  # the asphalt reaches this far past the rows' ends (as do the sidewalk and front lawn)
PLANTED_STRIP_M = 8.0  # the planted strip behind row B (built in `bl.parking_lot`): the asphalt ends at its far edge
PAVED_BEHIND_BUILDING_M = 6.0  # a service drive behind the building
LIT_MARGIN_M = 4.0  # no surrounding shadow comes within this of a stall
TREE_REACH_M = 150.0  # trees beyond this from the site's middle are left out: a wide view across a lot rendered
#                       1.30x as long with the 150-300 m tree lines (1.17x without); the hills' forest texture stays
SURROUNDINGS_STREAM = 0x10715  # the surroundings' generator: (layout_seed(plan), this)


def paved_area(plan: LotPlan) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) of the lot's asphalt: past the rows' ends as far as the sidewalk runs, from a drive behind
    the building to the far edge of the planted strip behind row B."""
    box = plan.building_box()
    return (plan.x0 - PAVED_PAST_ROWS_M, box.y - box.half_w - PAVED_BEHIND_BUILDING_M,
            plan.x1 + PAVED_PAST_ROWS_M, plan.row_b_head_y + CURB_WIDTH_M + PLANTED_STRIP_M)


def site_circle(plan: LotPlan) -> tuple[tuple[float, float], float]:
    """((x, y), radius) of the circle round the paved area's middle that holds the paved area and the building
    (its trees may reach out of it: a tree beside a neighbour's house is how a neighbourhood looks)."""
    x0, y0, x1, y1 = paved_area(plan)
    box = plan.building_box()
    x0, x1 = min(x0, box.x - box.half_l), max(x1, box.x + box.half_l)
    centre = ((x0 + x1) / 2, (y0 + y1) / 2)
    return centre, math.hypot(x1 - x0, y1 - y0) / 2


def lit_circle(plan: LotPlan) -> tuple[tuple[float, float], float]:
    """((x, y), radius) round the site's middle that holds every stall of both rows, with a margin: no shadow of
    the surroundings falls inside it."""
    (cx, cy), _ = site_circle(plan)
    xs = (plan.x0 - LIT_MARGIN_M, plan.x1 + LIT_MARGIN_M)
    ys = (plan.row_a_head_y - LIT_MARGIN_M, plan.row_b_head_y + LIT_MARGIN_M)
    return (cx, cy), max(math.hypot(x - cx, y - cy) for x in xs for y in ys)


def lot_surroundings(plan: LotPlan) -> SurroundingsPlan:
    """The neighbourhood round the lot, centred on `site_circle`'s middle (its coordinates are relative to that
    point), less the trees beyond `TREE_REACH_M` and whatever could shade a stall."""
    (_cx, _cy), radius = site_circle(plan)
    _, lit = lit_circle(plan)
    drawn = draw_surroundings(np.random.default_rng([layout_seed(plan), SURROUNDINGS_STREAM]), radius)
    near = replace(drawn, trees=tuple(t for t in drawn.trees if math.hypot(t.x, t.y) <= TREE_REACH_M))
    return clear_of_sun(near, lit, plan.sun_azimuth_deg, plan.sun_elevation_deg)
