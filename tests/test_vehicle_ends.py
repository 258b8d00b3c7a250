"""Issue 41, the cars' ends (`core.vehicle_ends`): the bumper stands proud of the end above and below it, the nose
and the tail lean back, the plates sit upright on their pockets' floors, and no side panel (where a damage is
drawn) moves. Rays are cast along the car at the shaped parts themselves. No bpy."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from realitybench_addon.core.damage import DAMAGE_PANEL_KINDS
from realitybench_addon.core.vehicle import BODY_STYLES, draw_vehicle
from realitybench_addon.core.vehicle_details import MOUNT_SIZE_M, plate_mounts_of
from realitybench_addon.core.vehicle_ends import (FADE_M, LIP_BAND_M, LIP_M, POCKET_M, POCKET_WALL_M, TUCK_M,
                                                   EndRelief)
from realitybench_addon.core.vehicle_geometry import vehicle_geometry
from realitybench_addon.core.vehicle_lamps import GRILLE_FRAME_M
from realitybench_addon.core.vehicle_loft import PartBuilder, Profile, box_quads, cut_quads
from realitybench_addon.core.vehicle_panels import door_seams

DETAILS = ("headlights", "taillights", "lights_amber", "grille", "rear_glass", "trim_strips")  # stand proud


def _relief(vehicle) -> EndRelief:
    p = vehicle.profile
    prof = Profile(p)
    return EndRelief(p, prof, plate_mounts_of(p, prof), door_seams(p), MOUNT_SIZE_M)


def _end_surface_x(vehicle, end: str, y: float, z, skip=DETAILS) -> np.ndarray:
    """x of the outermost body surface (no part in `skip`: no lamp, grille or glass) that a ray along the car
    meets at (y, z), coming from beyond `end`; nan where it meets none."""
    g = vehicle_geometry(vehicle)
    sign = 1.0 if end == "front" else -1.0
    z = np.atleast_1d(np.asarray(z, float))
    best = np.full(len(z), np.nan)
    for name, part in g.parts.items():
        if name in skip:
            continue
        v, t = part.vertices, part.triangles
        near = (sign * v[t, 0] > vehicle.length / 2 - 0.3).all(axis=1)
        tri = v[t[near]]
        if not len(tri):
            continue
        a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
        # barycentric coordinates of (y, z) in each triangle's projection on the end plane
        e1, e2 = (b - a)[:, 1:], (c - a)[:, 1:]
        det = e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]
        ok = np.abs(det) > 1e-12
        a, e1, e2, det = a[ok], e1[ok], e2[ok], det[ok]
        bx, cx = (b - tri[:, 0])[ok][:, 0], (c - tri[:, 0])[ok][:, 0]
        py, pz = y - a[:, None, 1], z[None, :] - a[:, None, 2]
        u = (py * e2[:, None, 1] - pz * e2[:, None, 0]) / det[:, None]
        w = (e1[:, None, 0] * pz - e1[:, None, 1] * py) / det[:, None]
        inside = (u >= -1e-9) & (w >= -1e-9) & (u + w <= 1 + 1e-9)
        x = a[:, None, 0] + u * bx[:, None] + w * cx[:, None]
        x = np.where(inside, sign * x, -np.inf).max(axis=0)
        hit = np.isfinite(x)
        best = np.where(hit & ~(sign * best >= x), sign * x, best)
    return best


@pytest.mark.parametrize("style", BODY_STYLES)
def test_the_bumper_stands_proud_the_lip_steps_back_and_the_valance_tucks_under(style):
    vehicle = draw_vehicle(np.random.default_rng(4), style=style)
    relief = _relief(vehicle)
    half = vehicle.length / 2
    for end, sign in (("front", 1.0), ("rear", -1.0)):
        zb, tuck_top, tuck, lip0, lip1, _ = relief.bands[end]
        # beside the plate's pocket (and, at the front, beside the grille's surround)
        y = relief.half_pocket[0] + POCKET_WALL_M + 0.02
        if end == "front":
            y = max(y, relief.grille_y + GRILLE_FRAME_M[0] + 0.01)
        # the bumper's face: between the tuck and the crease
        face_z = np.array([tuck_top + 0.005, 0.5 * (tuck_top + lip0), lip0 - 0.002])
        x = _end_surface_x(vehicle, end, y, face_z)
        np.testing.assert_allclose(x, sign * half, atol=2e-3, err_msg=f"{style} {end} bumper face")
        shelf = lip1 + 0.003  # on the shelf's top: as deep as the relief says, LIP_M where it is at full depth
        depth = half - sign * _end_surface_x(vehicle, end, y, shelf)[0]
        want = float(relief.relief_m(end, y, shelf))
        assert abs(depth - want) < 2e-3 and depth > 0.5 * LIP_M, (style, end, depth, want)
        if y < relief.y_out[end] - FADE_M:
            assert LIP_M - 1e-3 < depth < LIP_M + 0.01, (style, end, depth)
        if end == "front":  # the grille stands flat in the plane: no step behind it
            behind = _end_surface_x(vehicle, end, 0.5 * relief.grille_y, shelf)[0]
            assert abs(half - sign * behind) < 1e-3, (style, half - sign * behind)
        if tuck:  # the valance: TUCK_M back at the end's bottom edge
            bottom = _end_surface_x(vehicle, end, y, zb + 0.004)[0]
            want = float(relief.relief_m(end, y, zb + 0.004))
            assert TUCK_M * 0.6 < half - sign * bottom < TUCK_M + 1e-3, (style, end, half - sign * bottom)
            assert abs(half - sign * bottom - want) < 3e-3, (style, end, half - sign * bottom, want)


@pytest.mark.parametrize("style", BODY_STYLES)
def test_each_plate_sits_upright_on_its_pockets_floor(style):
    vehicle = draw_vehicle(np.random.default_rng(9), style=style)
    g = vehicle_geometry(vehicle)
    relief = _relief(vehicle)
    mw, mh = MOUNT_SIZE_M
    for end, m in g.plate_mounts.items():
        sign = 1.0 if end == "front" else -1.0
        assert m.normal == (sign, 0.0, 0.0) and m.up == (0.0, 0.0, 1.0)
        x, y, z = m.center
        zs = np.array([z - mh / 2, z, z + mh / 2])
        for yy in (y - mw / 2, y, y + mw / 2):  # the floor under the whole mount is flat, 4 mm behind it
            floor = _end_surface_x(vehicle, end, yy, zs)
            np.testing.assert_allclose(floor, x - sign * 0.004, atol=5e-4, err_msg=f"{style} {end}")
        # beside the pocket the end stands POCKET_M proud of the floor
        beside = _end_surface_x(vehicle, end, relief.half_pocket[0] + POCKET_WALL_M + 0.004, z)[0]
        assert abs(sign * (beside - (x - sign * 0.004)) - POCKET_M) < 2e-3, (style, end)


@settings(max_examples=25, deadline=None)
@given(style=st.sampled_from(BODY_STYLES), seed=st.integers(0, 2 ** 31 - 1))
def test_no_side_panel_moves_so_every_damage_stays_where_it_was(style, seed):
    vehicle = draw_vehicle(np.random.default_rng(seed), style=style)
    g = vehicle_geometry(vehicle)
    relief = _relief(vehicle)
    for name, quads in g.loft_quads.items():  # the damaged panel is rebuilt from these, unshaped
        corners = np.concatenate([q[3] for q in quads])
        np.testing.assert_array_equal(relief.shaped(corners), corners, err_msg=name)
    for name, panel in g.panels.items():
        if panel.kind in DAMAGE_PANEL_KINDS:
            v = g.parts[name].vertices
            np.testing.assert_array_equal(relief.shaped(v), v, err_msg=name)


@pytest.mark.parametrize("style", BODY_STYLES)
def test_every_ray_into_an_end_meets_the_body(style):
    """No crack where the cut caps meet the loft: a grid of rays over the middle of each end all hit."""
    vehicle = draw_vehicle(np.random.default_rng(2), style=style)
    relief = _relief(vehicle)
    for end in ("front", "rear"):
        zb, *_ = relief.bands[end]
        top = relief.z_belt[end]
        z = np.linspace(zb + 0.01, top - 0.01, 60)
        for y in np.linspace(-relief.y_out[end], relief.y_out[end], 23):
            x = _end_surface_x(vehicle, end, float(y), z)
            assert np.isfinite(x).all(), (style, end, y, z[~np.isfinite(x)])
            # the dark inner shell (seen through the shut lines) never stands out through the shaped end
            outer = _end_surface_x(vehicle, end, float(y), z, skip=DETAILS + ("inner",))
            np.testing.assert_array_equal(x, outer, err_msg=f"{style} {end} y={y}")
            assert (np.abs(x) <= vehicle.length / 2 + 1e-6).all()
            assert (np.abs(x) > vehicle.length / 2 - TUCK_M - LIP_M - 0.05 - POCKET_M - LIP_BAND_M).all()


@pytest.mark.parametrize("style", BODY_STYLES)
def test_the_shaping_never_folds_space_along_the_car(style):
    """Points in order along the car stay in order, so nothing inside the body is pushed out through its end."""
    vehicle = draw_vehicle(np.random.default_rng(5), style=style)
    relief = _relief(vehicle)
    half = vehicle.length / 2
    ys, zs = np.meshgrid(np.linspace(-1.0, 1.0, 21), np.linspace(0.0, 2.6, 53))
    xs = np.linspace(half - 0.3, half + 0.05, 141)
    for sign in (1.0, -1.0):
        pts = np.stack(np.broadcast_arrays(sign * xs[:, None], ys.ravel()[None], zs.ravel()[None]), axis=-1)
        moved = relief.shaped(pts.reshape(-1, 3)).reshape(pts.shape)
        step = sign * np.diff(moved[..., 0], axis=0)
        assert step.min() > 0.05 * (xs[1] - xs[0]), (style, sign, step.min())


def test_a_box_cut_where_the_relief_bends_stays_closed_and_keeps_its_area():
    box = box_quads((0.0, -0.3, 0.2), (0.02, 0.3, 0.5))
    cut = cut_quads(box, [0.1, 0.25, 0.4], [0.3, 0.31, 0.9])  # 0.4 and 0.9 miss the box
    b = PartBuilder()
    b.add_quads("whole", box, "m")
    b.add_quads("cut", cut, "m")
    parts = b.parts()
    assert parts["cut"].area_m2 == pytest.approx(parts["whole"].area_m2, rel=1e-12)
    v, t = parts["cut"].vertices, parts["cut"].triangles
    edges = np.sort(np.concatenate([t[:, [0, 1]], t[:, [1, 2]], t[:, [2, 0]]]), axis=1)
    _, uses = np.unique(edges, axis=0, return_counts=True)
    assert (uses == 2).all()  # closed: the faces sharing a side cut it at the same points
    for y in (-0.25, -0.1, 0.1, 0.25):
        assert np.isclose(v[:, 1], y).sum() >= 4
    for z in (0.3, 0.31):
        assert np.isclose(v[:, 2], z).sum() >= 4
    assert not np.isclose(v[:, 1], 0.4).any() and not np.isclose(v[:, 2], 0.9).any()
