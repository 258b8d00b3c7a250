"""Issue 41, the neighbourhood round the parking lot (`core.lot_site`): the asphalt covers the lot's site, and the
houses, poles and trees drawn round it stand outside the site's circle, never near a camera, never shading a stall,
from a stream of their own (the plan and the poses are what they were)."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from realitybench_addon import pipeline
from realitybench_addon.core import surroundings as core_surroundings
from realitybench_addon.core.lot_site import TREE_REACH_M, lit_circle, lot_surroundings, paved_area, site_circle
from realitybench_addon.core.parking_lot import car_boxes, draw_lot
from realitybench_addon.core.surroundings_meshes import building_polygons

LOT_ENVS = ("car_view", "car_plate", "damage_view", "ro_board")


def box_corners(b) -> np.ndarray:
    c, s = math.cos(math.radians(b.heading_deg)), math.sin(math.radians(b.heading_deg))
    local = np.array([[sx * b.half_l, sy * b.half_w] for sx in (-1, 1) for sy in (-1, 1)])
    return local @ np.array([[c, s], [-s, c]]) + [b.x, b.y]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 31 - 1))
def test_the_site_holds_the_lot_and_the_neighbourhood_stands_outside_it(seed):
    plan = draw_lot(np.random.default_rng(seed))
    x0, y0, x1, y1 = paved_area(plan)
    (cx, cy), radius = site_circle(plan)
    (lx, ly), lit = lit_circle(plan)
    assert (lx, ly) == (cx, cy)
    box = plan.building_box()
    corners = np.array([[x, y] for x in (x0, x1) for y in (y0, y1)]
                       + [[box.x + sx * box.half_l, box.y + sy * box.half_w] for sx in (-1, 1) for sy in (-1, 1)])
    assert np.all(np.hypot(corners[:, 0] - cx, corners[:, 1] - cy) <= radius + 1e-9)
    for i, car in enumerate(plan.cars):  # every car on the asphalt and in the lit circle
        for b in car_boxes(car, f"Car{i}"):
            xy = box_corners(b)
            assert np.all((xy[:, 0] > x0) & (xy[:, 0] < x1) & (xy[:, 1] > y0) & (xy[:, 1] < y1))
            assert np.all(np.hypot(xy[:, 0] - cx, xy[:, 1] - cy) < lit)
    around = lot_surroundings(plan)  # relative to the site's middle
    assert around.terrain.flat_radius_m >= radius + core_surroundings.MIN_YARD_M - 1e-9
    for t in around.trees:
        assert radius < math.hypot(t.x, t.y) <= TREE_REACH_M, t
    for b in around.buildings:
        walls, _roof, _ = building_polygons(b)
        xy = np.vstack(walls)[:, :2]
        assert np.hypot(xy[:, 0], xy[:, 1]).min() > radius, b.wing.name
    for p in around.poles:
        assert math.hypot(p.x, p.y) > radius
    # nothing left can shade the lit circle: clearing it again removes nothing
    again = core_surroundings.clear_of_sun(around, lit, plan.sun_azimuth_deg, plan.sun_elevation_deg)
    assert again == around


def test_the_neighbourhood_is_a_pure_function_of_the_plan_and_differs_between_lots():
    a, b = draw_lot(np.random.default_rng(5)), draw_lot(np.random.default_rng(5))
    assert lot_surroundings(a) == lot_surroundings(b)
    assert lot_surroundings(a) != lot_surroundings(draw_lot(np.random.default_rng(6)))
    # some lots keep neighbours, and some of them lose trees or houses to the sun
    kept = [lot_surroundings(draw_lot(np.random.default_rng(s))) for s in range(12)]
    assert sum(len(k.buildings) > 0 for k in kept) >= 10


@pytest.mark.parametrize("house_radius_m", [4.0, 12.5, 30.0, 45.0])
def test_a_house_yard_is_drawn_as_before(house_radius_m):
    """The flat yard's lower bound (`MIN_YARD_M` past the house) binds only for a site as wide as a lot: a roof
    scene's terrain is the first draw of its generator, as it was."""
    for seed in range(20):
        first = float(np.random.default_rng(seed).uniform(90.0, 200.0))
        drawn = core_surroundings.draw_surroundings(np.random.default_rng(seed), house_radius_m)
        assert drawn.terrain.flat_radius_m == first


def test_every_camera_of_the_lot_stands_on_its_asphalt():
    """120 frames of the four lot environments (random and positive strata, two set seeds): the phone is on the
    paved site, inside the circle that no surrounding thing enters."""
    count = 0
    for env in LOT_ENVS:
        for set_seed in (11, 2027):
            for stratum, n in (("random", 12), ("positive", 3)):
                for index in range(n):
                    spec = pipeline.plan_frame(env, set_seed, stratum, index)
                    x0, y0, x1, y1 = paved_area(spec.plan.lot)
                    x, y, _z = spec.pose.position
                    assert x0 < x < x1 and y0 < y < y1, (env, set_seed, stratum, index)
                    count += 1
    assert count == 120


@pytest.mark.slow
def test_a_built_lot_has_its_neighbourhood_outside_the_site():
    pytest.importorskip("bpy")
    import bpy

    from realitybench_addon.bl.analytic import reset_scene
    from realitybench_addon.bl.parking_lot import SURROUNDINGS_SINK_M, build_lot

    plan = draw_lot(np.random.default_rng(3))
    built = build_lot(reset_scene(), plan)
    asphalt = np.array([v.co[:] for v in bpy.data.objects["Asphalt"].data.vertices])
    assert asphalt[:, :2].min(0) == pytest.approx(paved_area(plan)[:2])
    assert asphalt[:, :2].max(0) == pytest.approx(paved_area(plan)[2:])
    kinds = {"SurroundingsGround", "Terrain", "Road", "Trunks"}
    assert kinds <= set(built.surroundings)
    assert any(n.startswith("Neighbour") for n in built.surroundings)
    ground = np.array([v.co[:] for v in bpy.data.objects["SurroundingsGround"].data.vertices])
    assert np.all(ground[:, 2] == pytest.approx(-SURROUNDINGS_SINK_M))
    (cx, cy), radius = site_circle(plan)
    for name in built.surroundings:
        if name in ("SurroundingsGround", "Terrain", "Road"):
            continue
        xy = np.array([v.co[:2] for v in bpy.data.objects[name].data.vertices])
        assert np.hypot(xy[:, 0] - cx, xy[:, 1] - cy).min() > radius - 1.0, name  # a crown's lumps may lean in
