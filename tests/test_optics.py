"""Optics against independent derivations: thin lens, pinhole projection, angles."""
import math

import numpy as np
import pytest

from realitybench_addon.core import optics
from realitybench_addon.core.blur import blur_at_target


def camera_at_origin_looking_down_minus_z(focal_px=1000.0, w=1600, h=1200):
    return optics.PinholeCamera(np.eye(4), focal_px, w, h)


def test_projection_of_known_points():
    cam = camera_at_origin_looking_down_minus_z()
    uv, depth = cam.project(np.array([[0, 0, -2.0], [0.2, 0.1, -2.0], [0, 0, 1.0]]))
    assert np.allclose(uv[0], [800, 600]) and depth[0] == 2.0
    assert np.allclose(uv[1], [800 + 1000 * 0.1, 600 - 1000 * 0.05])  # y up in the world is up in the image
    assert np.isnan(uv[2]).all() and depth[2] < 0
    assert list(cam.in_frame(np.array([[0, 0, -2.0], [5, 0, -2.0], [0, 0, 1.0]]))) == [True, False, False]


def test_pixel_ray_inverts_projection():
    cam = optics.PinholeCamera(np.array([[0, 0, 1, 3], [1, 0, 0, -1], [0, 1, 0, 2], [0, 0, 0, 1.0]]), 900.0, 800, 600)
    d = cam.pixel_ray(123.0, 456.0)
    uv, _ = cam.project(cam.position + 2.5 * d)
    assert np.allclose(uv[0], [123.0, 456.0])


def thin_lens_blur_mm(s_mm, sf_mm, f_mm, n):
    """Independent derivation: image distances from 1/f = 1/s + 1/v; the blur disc on a sensor at v_f
    is A * |v - v_f| / v by similar triangles."""
    v = 1 / (1 / f_mm - 1 / s_mm)
    vf = 1 / (1 / f_mm - 1 / sf_mm)
    return (f_mm / n) * abs(v - vf) / v


@pytest.mark.parametrize("s,sf", [(0.5, 1.0), (3.0, 1.0), (0.3, 0.3), (10.0, 0.4)])
def test_circle_of_confusion_matches_the_thin_lens(s, sf):
    f, n, pitch = 5.5, 1.8, 0.0044
    expected = thin_lens_blur_mm(s * 1000, sf * 1000, f, n) / pitch
    assert optics.coc_px(s, sf, f, n, pitch) == pytest.approx(expected, rel=1e-9)


def test_coc_rejects_focus_inside_the_focal_length():
    with pytest.raises(ValueError, match="inside the focal length"):
        optics.coc_px(1.0, 0.001, 5.0, 2.0, 0.004)


def test_motion_blur_of_a_sideways_step():
    a = camera_at_origin_looking_down_minus_z()
    moved = np.eye(4)
    moved[0, 3] = 0.01
    b = optics.PinholeCamera(moved, a.focal_px, a.width, a.height)
    streak = optics.motion_blur_px(np.array([[0.0, 0.0, -2.0]]), a, b)
    assert streak[0] == pytest.approx(1000 * 0.01 / 2.0)


def test_px_per_unit_and_view_angle_of_a_tilted_plane():
    cam = camera_at_origin_looking_down_minus_z(focal_px=1200)
    # a unit along x at 1.5 m, square-on: f * L / d
    assert optics.px_per_unit(cam, [0, 0, -1.5], [1, 0, 0], 0.01) == pytest.approx(1200 * 0.01 / 1.5, rel=1e-3)
    # the normal turned 40 degrees away from the camera about y
    normal = [math.sin(math.radians(40)), 0, math.cos(math.radians(40))]
    assert optics.view_angle_deg(cam.position, [0, 0, -1.5], normal) == pytest.approx(40.0)
    assert optics.view_angle_deg(cam.position, [0, 0, -1.5], [0, 0, -1]) == pytest.approx(180.0)
    # foreshortening: a unit along the tilted surface spans cos(40) as many pixels (to first order)
    along = [math.cos(math.radians(40)), 0, -math.sin(math.radians(40))]
    assert optics.px_per_unit(cam, [0, 0, -1.5], along, 0.001) == pytest.approx(1200 * 0.001 / 1.5 * math.cos(math.radians(40)), rel=1e-3)


def test_blur_at_target_adds_defocus_and_motion():
    cam = camera_at_origin_looking_down_minus_z(focal_px=5.0 / 7.0 * 1600)
    end = np.eye(4)
    end[0, 3] = 0.004
    blur = blur_at_target([0, 0, -0.8], cam, focal_mm=5.0, fstop=1.8, focus_m=1.0, sensor_width_mm=7.0,
                          shutter_start=np.eye(4), shutter_end=end)
    assert blur.defocus_px == pytest.approx(thin_lens_blur_mm(800, 1000, 5.0, 1.8) / (7.0 / 1600), rel=1e-9)
    assert blur.motion_px == pytest.approx(cam.focal_px * 0.004 / 0.8)
    assert blur.total_px == pytest.approx(blur.defocus_px + blur.motion_px)
