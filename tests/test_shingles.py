"""Shingle courses: the geometry of 3-tab tabs, and the same roofs as the tab-by-tab loop drew them."""
import math

import numpy as np
import pytest

from realitybench_addon.core.shingles import (MAX_LIFT_M, MIN_TAB_M, SHINGLE_THICKNESS, SLOT_WIDTH,
                                              shingle_courses)


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
    verts, quads, shade = shingle_courses(ours, *args)
    ref_verts, ref_quads, ref_shade = tab_by_tab(reference, *args)
    assert np.array_equal(verts, ref_verts) and np.array_equal(quads, ref_quads)
    assert np.array_equal(shade, ref_shade)
    assert ours.random() == reference.random()


def test_tabs_cover_the_rectangle_with_their_slots_and_steps():
    u0, u1, v0, v1, exposure, tab = -0.3, 6.0, -0.4, 5.0, 0.14, 0.33
    verts, quads, shade = shingle_courses(np.random.default_rng(4), u0, u1, v0, v1, exposure, tab)
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
