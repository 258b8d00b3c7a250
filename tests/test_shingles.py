"""Shingle courses: the geometry of 3-tab tabs and of laminated strips, and the same draws as the tab-by-tab loop."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from realitybench_addon.core.shingles import (COURSE_JITTER_M, MAX_LIFT_M, MIN_TAB_M, SHINGLE_THICKNESS, SLOT_WIDTH,
                                              TABS_PER_STRIP, shingle_courses)


def tab_by_tab(rng, u0, u1, v0, v1, exposure, tab):
    """The loop `shingle_courses` was first written as: the reference for its draws and its output."""
    verts, quads, shade = [], [], []
    for k in range(int(math.ceil((v1 - v0) / exposure))):
        vb = v0 + k * exposure
        vt = min(vb + exposure, v1)
        offset = (k % 2) * tab / 2 + rng.uniform(-0.02, 0.02)
        for s in np.arange(u0 - tab + offset % tab, u1, tab):
            a, b = max(s + SLOT_WIDTH / 2, u0), min(s + tab - SLOT_WIDTH / 2, u1)
            if b - a < 0.01:
                continue
            lift = rng.uniform(0.0, 0.0015)
            base = len(verts)
            verts += [(a, vb, -SHINGLE_THICKNESS), (b, vb, -SHINGLE_THICKNESS), (b, vb, lift - 0.0005),
                      (a, vb, lift - 0.0005), (b, vt, -SHINGLE_THICKNESS), (a, vt, -SHINGLE_THICKNESS)]
            quads += [(base, base + 1, base + 2, base + 3), (base + 3, base + 2, base + 4, base + 5)]
            s_tab = rng.uniform(0.0, 1.0)
            shade += [s_tab * 0.6, s_tab]
    return np.array(verts), np.array(quads), np.array(shade)


def random_roof(seed):
    meta = np.random.default_rng(seed)
    return (float(meta.uniform(-1.0, 0.0)), float(meta.uniform(0.2, 14.0)), float(meta.uniform(-1.0, 0.0)),
            float(meta.uniform(0.1, 9.0)), float(meta.uniform(0.1, 0.2)), float(meta.uniform(0.25, 0.4)))


@pytest.mark.parametrize("seed", range(60))
def test_the_same_roof_as_the_tab_by_tab_loop_bit_for_bit(seed):
    """Resumed and regenerated sets rebuild their roofs from the frame id: the vectorised courses must make the
    same vertices, quads and shades, and leave the generator where the loop left it."""
    args = random_roof(seed)
    ours, reference = np.random.default_rng(seed), np.random.default_rng(seed)
    verts, quads, shade = shingle_courses(ours, *args, tabs_per_strip=1)
    ref_verts, ref_quads, ref_shade = tab_by_tab(reference, *args)
    assert np.array_equal(verts, ref_verts) and np.array_equal(quads, ref_quads)
    assert np.array_equal(shade, ref_shade)
    assert ours.random() == reference.random()


def test_tabs_cover_the_rectangle_with_their_slots_and_steps():
    u0, u1, v0, v1, exposure, tab = -0.3, 6.0, -0.4, 5.0, 0.14, 0.33
    verts, quads, shade = shingle_courses(np.random.default_rng(4), u0, u1, v0, v1, exposure, tab, tabs_per_strip=1)
    tabs = verts.reshape(-1, 6, 3)
    widths = tabs[:, 1, 0] - tabs[:, 0, 0]
    assert (widths >= MIN_TAB_M).all() and (widths <= tab - SLOT_WIDTH + 1e-12).all()
    assert tabs[:, :, 0].min() >= u0 and tabs[:, :, 0].max() <= u1
    assert tabs[:, :, 1].min() == pytest.approx(v0) and tabs[:, :, 1].max() == pytest.approx(v1)
    butt = tabs[:, 2:4, 2]  # the raised butt edge stands proud of the covered top edge
    assert (butt >= -0.0005).all() and (butt <= MAX_LIFT_M - 0.0005).all()
    assert (tabs[:, [0, 1, 4, 5], 2] == -SHINGLE_THICKNESS).all()
    courses = int(math.ceil((v1 - v0) / exposure))
    assert len(np.unique(tabs[:, 0, 1])) == courses
    assert quads.shape == (2 * len(tabs), 4) and quads.max() == len(verts) - 1
    assert np.allclose(shade[0::2], 0.6 * shade[1::2]) and 0 <= shade.min() and shade.max() < 1


def test_an_empty_rectangle_has_no_tabs_and_draws_nothing():
    rng = np.random.default_rng(0)
    verts, quads, shade = shingle_courses(rng, 0.0, 1.0, 2.0, 2.0, 0.14, 0.33)
    assert verts.shape == (0, 3) and quads.shape == (0, 4) and shade.shape == (0,)
    assert rng.random() == np.random.default_rng(0).random()


def _courses(verts, shade):
    """{butt v: [(a, b, lift, top v, shade)] along the eave} of a roof's shingles."""
    out = {}
    for s, face_shade in zip(verts.reshape(-1, 6, 3), shade[1::2]):
        out.setdefault(round(s[0, 1], 9), []).append((s[0, 0], s[1, 0], s[2, 2], s[4, 1], face_shade))
    return {v: sorted(row) for v, row in out.items()}


roofs = st.tuples(st.floats(-1.0, 0.0), st.floats(0.02, 14.0), st.floats(-1.0, 0.0), st.floats(0.05, 9.0),
                  st.floats(0.1, 0.2), st.floats(0.25, 0.4), st.integers(0, 2 ** 32 - 1))


@settings(max_examples=150)
@given(roofs)
def test_laminated_strips_join_runs_of_whole_tabs_with_the_same_draws(roof):
    """A laminated roof is the 3-tab roof with the slots inside each strip closed: every strip spans a run of at most
    TABS_PER_STRIP consecutive tabs (from the first tab's left edge to the last one's right edge) and carries the
    first tab's lift and shade; the generator ends where the tab-by-tab loop leaves it, so nothing drawn after
    a roof moves."""
    u0, width, v0, height, exposure, tab, seed = roof
    args = (u0, u0 + width, v0, v0 + height, exposure, tab)
    tabs_rng, strips_rng = np.random.default_rng(seed), np.random.default_rng(seed)
    tab_verts, _, tab_shade = shingle_courses(tabs_rng, *args, tabs_per_strip=1)
    verts, quads, shade = shingle_courses(strips_rng, *args)
    assert tabs_rng.random() == strips_rng.random()
    assert quads.shape == (len(verts) // 3, 4) and np.allclose(shade[0::2], 0.6 * shade[1::2])
    tab_rows, strip_rows = _courses(tab_verts, tab_shade), _courses(verts, shade)
    assert tab_rows.keys() == strip_rows.keys()
    for v, strips in strip_rows.items():
        tabs = tab_rows[v]
        i = 0
        for a, b, lift, top, face_shade in strips:
            assert (tabs[i][0], tabs[i][2], tabs[i][3], tabs[i][4]) == (a, lift, top, face_shade)  # its first tab
            j = next(j for j in range(i, len(tabs)) if tabs[j][1] == b)  # the run's last tab
            assert j - i < TABS_PER_STRIP
            assert all(tabs[n + 1][0] - tabs[n][1] == pytest.approx(SLOT_WIDTH) for n in range(i, j))
            i = j + 1
        assert i == len(tabs)  # every tab in one strip


def test_strip_joints_stagger_from_course_to_course():
    """Where a course's joints fall follows its jitter: over 300 courses the joints fall at each of the
    TABS_PER_STRIP tab positions about equally often (not in a cycle every few courses), and every strip away from
    the roof's edges is whole."""
    tab, exposure = 12 * 0.0254, 0.14
    verts, _, shade = shingle_courses(np.random.default_rng(11), 0.0, 12.0, 0.0, 0.14 * 300, exposure, tab)
    rows = _courses(verts, shade)
    phases = []
    for k, v in enumerate(sorted(rows)):
        first_joint = rows[v][0][1] + SLOT_WIDTH / 2  # between the first strip and the second
        course_offset = (k % 2) * tab / 2
        phases.append(round(((first_joint - course_offset) % (TABS_PER_STRIP * tab)) / tab) % TABS_PER_STRIP)
    counts = np.bincount(phases, minlength=TABS_PER_STRIP)
    assert counts.min() > 300 / TABS_PER_STRIP * 0.7, counts
    widths = [b - a for row in rows.values() for a, b, *_ in row[1:-1]]  # inner strips are whole
    assert np.allclose(widths, TABS_PER_STRIP * tab - SLOT_WIDTH)
    assert COURSE_JITTER_M < tab / 2
