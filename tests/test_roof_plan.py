"""The roof plan and the tape (pure): draws, layout rules and the printed scale."""
import math

import numpy as np
import pytest

from realitybench_addon.core import tape as tp
from realitybench_addon.core.rng import scene_rng
from realitybench_addon.core.roof import (BOLT_HEAD_HEIGHT, FLASHING_TOP, FOOT_PLATE_THICKNESS, INCH, RAIL_HALF_WIDTH,
                                          RoofFrame, bolt_spot_uvh, draw_roof_plan, wire_clearance)


def plans(n=40, **kw):
    return [draw_roof_plan(scene_rng(0, "roof-test", i), **kw) for i in range(n)]


def test_same_seed_same_plan_and_realistic_ranges():
    assert draw_roof_plan(scene_rng(1, "x", 2)) == draw_roof_plan(scene_rng(1, "x", 2))
    for p in plans():
        assert 4 <= p.pitch_rise_per_12 <= 10 and p.style in ("gable", "shed")
        assert 0.055 + 0.03 <= p.module_bottom_h <= 0.10 + 0.045
        # the array fits on the roof with setbacks
        assert 0 < p.array_u0 and p.array_u1 < p.eave_length_m
        assert p.array_v0 + p.rows * p.module_length_m < p.slope_length_m
        assert 1 <= p.installed_cols <= p.cols


def test_attachments_sit_on_rafters_and_rails():
    for p in plans(20):
        for a in p.attachments:
            k = (a.u - p.rafter_u0) / p.rafter_spacing_m
            assert abs(k - round(k)) < 1e-9
            assert a.v == pytest.approx(p.rail_v(a.row, a.rail))
            assert p.array_u0 < a.u < p.array_u1


def test_missing_parts_are_drawn_at_the_requested_rate():
    atts = [a for p in plans(200, lag_missing_share=0.3, flashing_missing_share=0.2) for a in p.attachments]
    assert np.mean([not a.lag_present for a in atts]) == pytest.approx(0.3, abs=0.04)
    assert np.mean([not a.flashing_present for a in atts]) == pytest.approx(0.2, abs=0.04)


def test_touching_is_exactly_the_wire_with_nonpositive_clearance():
    seen_touching = 0
    for p in plans(60, touching_share=0.5, partial_install_share=0.0):
        touching = [w.name for w in p.wires if wire_clearance(p, w)[0] <= 0]
        assert touching == ([p.touching_wire] if p.touching_wire else [])
        seen_touching += bool(touching)
        # no wire dips through the shingles
        assert all(min(pt[2] for pt in w.points_uvh) >= w.radius_m - 1e-12 for w in p.wires)
    assert 15 < seen_touching < 45


def test_roof_frame_round_trips_and_is_orthonormal():
    f = RoofFrame((1.0, 2.0, 3.0), 30.0)
    assert np.allclose(f.axes.T @ f.axes, np.eye(3))
    pts = np.array([[0.3, 1.2, 0.05], [4.0, 0.0, -0.2]])
    assert np.allclose(f.to_roof(f.to_world(pts)), pts)
    assert f.normal[2] == pytest.approx(math.cos(math.radians(30)))


def test_bolt_spot_sits_on_the_plate():
    for a in plans(5)[0].attachments + plans(5)[1].attachments:
        base, top = bolt_spot_uvh(a), bolt_spot_uvh(a, head_top=True)
        assert base[0] == a.u and base[1] < a.v - RAIL_HALF_WIDTH
        assert base[2] == pytest.approx(FOOT_PLATE_THICKNESS + (FLASHING_TOP if a.flashing_present else 0.0))
        assert top[2] - base[2] == pytest.approx(BOLT_HEAD_HEIGHT if a.lag_present else 0.0)


def test_tape_is_clear_of_the_module_and_its_axes_are_orthonormal():
    for i, p in enumerate(plans(30, partial_install_share=0.0)):
        t = tp.draw_tape(p, scene_rng(5, "tape", i))
        axis, face, width = tp.blade_axes(p, t)
        assert np.allclose(np.stack([axis, face, width]) @ np.stack([axis, face, width]).T, np.eye(3), atol=1e-12)
        assert math.degrees(math.acos(axis[2])) == pytest.approx(t.lean_deg)
        # every point of the blade below the module's top stays in front of the module
        for s in np.linspace(0, (p.module_bottom_h + p.module_thickness_m) / axis[2], 20):
            for edge in (-0.5, 0.5):
                point_v = t.v + s * axis[1] + edge * tp.BLADE_WIDTH_M * width[1]
                assert point_v < p.array_v0
        assert t.length_m > p.module_bottom_h


def test_scale_marks_and_texture_put_ticks_at_true_scale():
    marks = tp.scale_marks(3)
    assert len(marks) == 48 and [m.label for m in marks if m.label] == ["1", "2", "3"]
    assert marks[7].length_frac == 0.32 and marks[15].length_frac == 0.42  # half inch, inch
    img = tp.blade_texture(3, px_per_inch=160)
    assert img.shape == (160, 480, 3)
    # the top row is dark exactly at each 1/16 in tick
    dark = img[1, :, 0] < 100
    columns = np.nonzero(dark)[0]
    ticks = np.unique(np.round(columns / 10.0))
    assert set(range(1, 48)) <= set(int(t) for t in ticks)
    assert not dark[5] and dark[160]  # no tick at 1/32 in, a tick at 1 in
    assert INCH == 0.0254
