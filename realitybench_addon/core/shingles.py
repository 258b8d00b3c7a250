"""Asphalt shingle courses as geometry: each shingle a sloped face and a butt step, its own shade.

Roofs carry laminated (dimensional) shingles: strips of `TABS_PER_STRIP` tabs' length with no slots, their
teeth drawn by the material (`bl.materials.shingle`), so the only cut in the geometry is the joint between
two strips, staggered from course to course. `tabs_per_strip=1` gives the 3-tab courses the first roofs had.

A roof carries a few thousand tabs, so they are drawn a course at a time (vectorised). The draws are
those of a tab-by-tab loop, in the same order (each course's offset, then each kept tab's lift and
shade), whatever the strip length, so everything drawn after the roof stays as it was
(`tests/test_shingles.py`). A strip takes the lift and shade of its first tab.
"""
from __future__ import annotations

import math

import numpy as np

SHINGLE_THICKNESS = 0.004  # m: a course's exposed face slopes down this far under the next course
SLOT_WIDTH = 0.006  # m: the cut-out between two 3-tab tabs, or the joint between two laminated strips
MIN_TAB_M = 0.01  # a tab clipped narrower than this at the roof's edge is left out
MAX_LIFT_M = 0.0015  # a tab's butt edge stands up to this far proud of the roof plane
COURSE_JITTER_M = 0.02  # each course's offset along the eave varies by up to this much
TABS_PER_STRIP = 3  # a laminated strip is ~1 m long (39 3/8 in): three 12 in tabs' length

# A tab's two quads over its six corners: the butt step, then the exposed face.
_TAB_QUADS = np.array([[0, 1, 2, 3], [3, 2, 4, 5]])


def shingle_courses(rng: np.random.Generator, u0: float, u1: float, v0: float, v1: float, exposure: float,
                    tab: float, tabs_per_strip: int = TABS_PER_STRIP) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Vertices (float), quads (int) and per-face shade of shingle courses over [u0, u1] x [v0, v1]
    (roof coordinates: u along the eave, v up the slope, h out of the roof plane).

    Each shingle's exposed face slopes from its butt edge (h = 0, the roof plane) down to
    h = -thickness where the next course covers it; a vertical butt face shows the step.
    Courses are offset by half a tab, with a little jitter; each shingle has its own shade. A shingle is
    `tabs_per_strip` tabs long; where a course's strip joints fall (which tab starts a strip) follows its
    jitter, so joints stagger irregularly up the roof rather than repeating every few courses.
    """
    verts, shade = [], []
    for k in range(int(math.ceil((v1 - v0) / exposure))):
        vb = v0 + k * exposure
        vt = min(vb + exposure, v1)
        jitter = rng.uniform(-COURSE_JITTER_M, COURSE_JITTER_M)
        offset = (k % 2) * tab / 2 + jitter
        starts = np.arange(u0 - tab + offset % tab, u1, tab)
        a = np.maximum(starts + SLOT_WIDTH / 2, u0)
        b = np.minimum(starts + tab - SLOT_WIDTH / 2, u1)
        kept = ~(b - a < MIN_TAB_M)
        # per tab, in this order: its lift, then its shade
        draws = rng.uniform(0.0, [MAX_LIFT_M, 1.0], size=(int(kept.sum()), 2))
        # which tab starts a strip follows the course's jitter (tabs_per_strip=1: every tab is one)
        phase = int((jitter + COURSE_JITTER_M) / (2 * COURSE_JITTER_M) * tabs_per_strip) % tabs_per_strip
        strip = ((np.arange(len(starts)) + phase) // tabs_per_strip)[kept]
        first, last = np.ones(len(strip), bool), np.ones(len(strip), bool)
        first[1:] = last[:-1] = strip[1:] != strip[:-1]
        a, b, draws = a[kept][first], b[kept][last], draws[first]
        corners = np.empty((len(a), 6, 3))  # butt edge a, b; raised butt b, a; top edge b, a
        corners[:, (0, 3, 5), 0] = a[:, None]
        corners[:, (1, 2, 4), 0] = b[:, None]
        corners[:, :4, 1] = vb
        corners[:, 4:, 1] = vt
        corners[:, (0, 1, 4, 5), 2] = -SHINGLE_THICKNESS
        corners[:, (2, 3), 2] = (draws[:, 0] - 0.0005)[:, None]
        verts.append(corners.reshape(-1, 3))
        tab_shade = np.empty((len(a), 2))  # the butt face darker than the exposed face
        tab_shade[:, 0] = draws[:, 1] * 0.6
        tab_shade[:, 1] = draws[:, 1]
        shade.append(tab_shade.ravel())
    if not verts:
        return np.zeros((0, 3)), np.zeros((0, 4), int), np.zeros(0)
    verts = np.concatenate(verts)
    quads = (_TAB_QUADS[None] + 6 * np.arange(len(verts) // 6)[:, None, None]).reshape(-1, 4)
    return verts, quads, np.concatenate(shade)
