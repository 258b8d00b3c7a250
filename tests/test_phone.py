"""The phone camera model: draws within the spec's ranges, conversions to Blender settings."""
import math

import numpy as np
import pytest

from realitybench_addon.core import phone as ph
from realitybench_addon.core.rng import frame_rng, stage_rng


def _phones(n=400):
    return [ph.draw_phone(stage_rng(frame_rng(0, "demo", "random", i), "phone")) for i in range(n)]


def test_phone_ranges_match_the_spec():
    phones = _phones()
    main = np.array([[p.main.equivalent_focal_mm, p.main.sensor_width_mm, p.main.f_number] for p in phones])
    assert main[:, 0].min() >= 24 and main[:, 0].max() <= 28
    assert main[:, 1].min() >= 5.6 and main[:, 1].max() <= 9.8
    assert main[:, 2].min() >= 1.6 and main[:, 2].max() <= 2.4
    # the ranges are used, not just respected
    assert main[:, 0].max() - main[:, 0].min() > 3.5 and main[:, 1].max() - main[:, 1].min() > 3.5
    assert 0.45 < np.mean([p.ultra_wide is not None for p in phones]) < 0.75
    assert 0.28 < np.mean([p.telephoto is not None for p in phones]) < 0.52


def test_equivalent_focal_length_uses_the_sensor_diagonal():
    lens = ph.Lens("main", 26.0, 8.0, 1.8)
    diagonal = math.hypot(8.0, 6.0)  # 4:3 sensor, 8 mm long side
    assert lens.focal_mm == pytest.approx(26.0 * diagonal / 43.2666, rel=1e-6)
    assert lens.aperture_diameter_mm == pytest.approx(lens.focal_mm / 1.8)


def test_capture_mode_shares_and_shutters():
    phone = ph.Phone(ph.Lens("main", 26, 7, 1.8))
    caps = [ph.draw_capture(stage_rng(frame_rng(3, "demo", "random", i), "capture"), phone) for i in range(4000)]
    modes = np.array([c.mode for c in caps])
    assert np.mean(modes == ph.STEADY) == pytest.approx(0.70, abs=0.03)
    assert np.mean(modes == ph.FOCUS_ELSEWHERE) == pytest.approx(0.15, abs=0.02)
    assert np.mean(modes == ph.HAND_SHAKE) == pytest.approx(0.15, abs=0.02)
    shake = np.array([c.shutter_s for c in caps if c.mode == ph.HAND_SHAKE])
    assert shake.min() >= 1 / 500 and shake.max() <= 1 / 25
    # log-uniform: the median sits at the geometric mean of the range
    assert np.median(shake) == pytest.approx(math.sqrt(1 / 500 * 1 / 25), rel=0.2)
    assert all(c.shake_rate_deg_s == 0 for c in caps if c.mode != ph.HAND_SHAKE)
    assert all(c.focus_factor == 1.0 for c in caps if c.mode != ph.FOCUS_ELSEWHERE)
    assert all(c.focus_factor < 0.7 or c.focus_factor > 1.7 for c in caps if c.mode == ph.FOCUS_ELSEWHERE)
    assert 0.4 < np.mean([c.orientation == ph.LANDSCAPE for c in caps]) < 0.6
    assert all(c.lens == "main" for c in caps)  # this phone has no other lens


def test_camera_settings_keep_the_physical_aperture_under_digital_zoom():
    phone = ph.Phone(ph.Lens("main", 26, 7.0, 1.8))
    base = ph.camera_settings(phone, ph.Capture(zoom=1.0), 1.0)
    zoomed = ph.camera_settings(phone, ph.Capture(zoom=2.0, orientation=ph.PORTRAIT), 1.0)
    assert zoomed.focal_mm == pytest.approx(2 * base.focal_mm)
    assert zoomed.aperture_diameter_mm == pytest.approx(base.aperture_diameter_mm)
    assert base.resolution == (1600, 1200) and zoomed.resolution == (1200, 1600)
    assert base.focal_px == pytest.approx(base.focal_mm / 7.0 * 1600)


def test_focus_follows_the_capture():
    phone = ph.Phone(ph.Lens("main", 26, 7.0, 1.8))
    assert ph.camera_settings(phone, ph.Capture(focus_factor=3.0), 0.5).focus_distance_m == pytest.approx(1.5)
    with pytest.raises(ValueError, match="no telephoto lens"):
        ph.camera_settings(phone, ph.Capture(lens="telephoto"), 1.0)


def test_shutter_poses_turn_by_rate_times_shutter():
    cap = ph.Capture(mode=ph.HAND_SHAKE, shutter_s=0.04, shake_rate_deg_s=5.0, shake_axis=(0, 1, 0),
                     shake_speed_m_s=0.02, shake_direction=(1, 0, 0))
    start, end = ph.shutter_poses(np.eye(4), cap)
    relative = start[:3, :3].T @ end[:3, :3]
    angle = math.degrees(math.acos((np.trace(relative) - 1) / 2))
    assert angle == pytest.approx(5.0 * 0.04, rel=1e-6)
    assert np.linalg.norm(end[:3, 3] - start[:3, 3]) == pytest.approx(0.02 * 0.04)
    # centred on the nominal pose
    assert np.allclose((start[:3, 3] + end[:3, 3]) / 2, 0)


def test_phone_and_capture_round_trip_through_dicts():
    p = _phones(1)[0]
    assert ph.Phone.from_dict(p.to_dict()) == p
    c = ph.draw_capture(np.random.default_rng(np.random.SeedSequence(5)), p)
    assert ph.Capture.from_dict(c.to_dict()) == c


def test_capture_alternatives_are_what_this_phone_can_do_each_in_words():
    from dataclasses import replace

    from realitybench_addon.core.phone import Capture, Lens, Phone, capture_alternatives

    main = Lens("main", 26.0, 9.8, 1.8)
    both = Phone(main, Lens("ultra_wide", 14.0, 5.0, 2.2), Lens("telephoto", 77.0, 5.0, 2.8), 5.0)
    zoomed = Capture(lens="main", zoom=1.6, orientation="portrait")
    alts = dict((words, c) for c, words in capture_alternatives(both, zoomed))
    assert alts["turn the phone sideways (landscape)"] == replace(zoomed, orientation="landscape")
    assert alts["switch to the main camera at 1x"] == replace(zoomed, zoom=1.0)
    assert alts["switch to the ultra-wide camera (0.5x)"].lens == "ultra_wide"
    assert alts["switch to the telephoto camera"].lens == "telephoto" and "zoom in to 2x" not in alts
    bare = Phone(main, None, None, 2.0)
    alts = dict((words, c) for c, words in capture_alternatives(bare, Capture(orientation="landscape")))
    assert set(alts) == {"hold the phone upright (portrait)", "zoom in to 2x"}
    assert alts["zoom in to 2x"].zoom == 2.0
    assert capture_alternatives(Phone(main, None, None, 1.0), Capture())[1:] == []  # no zoom to offer
