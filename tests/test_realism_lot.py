"""Issue 20, the parking lot's ground, building and vegetation: the new layout (repair patches, shrubs, the
facade's units, the trees' plants) is a pure function of the plan, stays clear of cars and scenery, keeps to
a triangle budget, and changes no draw, pose or measured term of the lot environments.

Reference values were computed with the code before the realism work (a checkout of main before issue 20).
"""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from realitybench_addon import pipeline
from realitybench_addon.core.parking_lot import (CURB_WIDTH_M, PATCH_HEIGHT_M, FacadeLayout, asphalt_patches,
                                                 boxes_overlap, car_boxes,
                                                 draw_lot, facade_layout, shrub_plants, shrubs, tree_plants)
from realitybench_addon.envs.lot_poses import inside_box

SEEDS = range(12)

# plan_frame(env, 0, "random", index) before issue 20: pose (position, aim), subject (x, y, heading), car count
BEFORE = {
    ("car_view", 5): ([1.737873, 7.06227, 1.333757, 9.209283, -2.121927, 0.948388], [-10.46675, -2.835307, 90.626053],
                      9),
    # issue 41 (2026-12-07): the plate sits in a pocket 2 cm behind the bumper's face (core.vehicle_ends); the pose,
    # drawn round the plate, moves with it (it was [1.488136, -6.461033, 1.43722, 2.112445, -5.857147, 0.468923])
    ("car_plate", 13): ([1.487669, -6.441039, 1.43722, 2.111978, -5.837152, 0.468923],
                        [1.980277, -3.275148, -88.66255], 11),
    # issue 41 (2026-12-04): no damage is drawn under a lamp wrapping a corner, which moves the pixel this frame's
    # damage was drawn at (fender_left, d 1.25 m -> 0.44 m): its pose and terms are those of the new damage
    ("damage_view", 31): ([6.305655, -5.230967, 0.569334, 5.393287, -4.894761, 0.513712],
                          [4.413922, -3.10865, -88.303775], 10),
    # issue 41 (2026-12-05): ro_board's pose model was calibrated to the paper's accepted share (sd 45 degrees round
    # the board's normal at 0.35-15 m, was 36 at 0.5-12): the same draws land this frame's photographer elsewhere
    ("ro_board", 0): ([0.247848, 1.916103, 1.322823, -0.110433, -0.498556, 1.280642], [0.567694, -2.742147, -90.814995],
                      12),
}
# measured terms of those frames before issue 20 (geometry only, no render)
BEFORE_TERMS = {
    ("car_view", 5): {"angle_off_face": 38.43928145602828, "camera_distance": 3.24333377023785},
    ("car_plate", 13): {"glyph_px_min": 84.55641517629488, "state_glyph_px_min": 24.340091124283504,
                        "glyphs_visible": 1.0},
    ("damage_view", 31): {"damage_unoccluded": 1.0, "view_angle": 19.15957143375328,  # issue 41: see BEFORE
                          "neighbour_panel_in_frame": 1.0},
    ("ro_board", 0): {"glyph_px_min": 31.28709777999384},  # the calibrated pose (see BEFORE); board_unoccluded:
    # the technician's body (not here)
}


def lot(seed):
    return draw_lot(np.random.default_rng(seed))


@pytest.mark.parametrize("env, index", sorted(BEFORE))
def test_plans_and_poses_are_as_before(env, index):
    spec = pipeline.plan_frame(env, 0, "random", index)
    pose, subject, cars = BEFORE[(env, index)]
    s = spec.plan.lot.subject
    # a damage_view camera is placed from the damage's point on the panel's surface, which the fender's flare
    # (smooth bodies) moves by a fraction of a millimetre: the pose follows it; every other pose is exactly as it was
    tolerance = 1e-3 if env == "damage_view" else 1e-5
    assert np.allclose([*spec.pose.position, *spec.pose.aim], pose, atol=tolerance)
    assert np.allclose([s.x, s.y, s.heading_deg], subject, atol=1e-5)
    assert len(spec.plan.lot.cars) == cars


def test_layout_is_a_pure_function_of_the_plan():
    for seed in (0, 5):
        a, b = lot(seed), lot(seed)
        assert asphalt_patches(a) == asphalt_patches(b)
        assert shrubs(a) == shrubs(b)
        assert facade_layout(a) == facade_layout(b)
        for pa, pb in zip(tree_plants(a), tree_plants(b)):
            for part in ("wood", "leaves"):
                assert np.array_equal(pa[part][0], pb[part][0]) and np.array_equal(pa[part][1], pb[part][1])
        sa, sb = shrub_plants(a), shrub_plants(b)
        assert np.array_equal(sa["leaves"][0], sb["leaves"][0]) and np.array_equal(sa["leaf_shade"], sb["leaf_shade"])
    assert shrubs(lot(0)) != shrubs(lot(1))


def test_patches_lie_on_the_paved_area():
    for seed in SEEDS:
        plan = lot(seed)
        patches = asphalt_patches(plan)
        assert 2 <= len(patches) <= 5
        for p in patches:
            assert p.x0 < p.x1 and p.y0 < p.y1 and 0.0 <= p.age <= 1.0
            assert plan.row_a_head_y <= p.y0 and p.y1 <= plan.row_b_head_y
            assert plan.x0 - 2.0 <= p.x0 and p.x1 <= plan.x1 + 2.0


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_overlapping_patches_never_share_a_top(seed):
    """Two repairs at one height render black where they overlap (each shades in the other's shadow): a later
    patch laid over an earlier one stands higher, and every patch stays under the 3 mm stall paint."""
    patches = asphalt_patches(lot(seed))
    for k, p in enumerate(patches):
        assert PATCH_HEIGHT_M <= p.top_m < 0.003
        for q in patches[:k]:
            if p.overlaps(q):
                assert p.top_m > q.top_m


def test_some_lots_have_overlapping_patches():
    """What the test above guards is common: a third of the lots have at least one overlap."""
    overlapping = sum(any(p.overlaps(q) for k, p in enumerate(ps) for q in ps[:k])
                      for ps in (asphalt_patches(lot(seed)) for seed in range(60)))
    assert overlapping >= 10


def test_shrubs_stand_on_the_lawns_clear_of_cars_and_scenery():
    for seed in SEEDS:
        plan = lot(seed)
        bushes = shrubs(plan)
        assert bushes, "every lot has some shrubs"
        facade = facade_layout(plan)
        cars = [b for i, c in enumerate(plan.cars) for b in car_boxes(c, f"Car{i}")]
        standing = [b for b in plan.scenery_boxes() if not (b.owner.startswith("Tree") and b.z0 > 0.0)]
        lawn = (plan.building_front_y, plan.row_a_head_y - CURB_WIDTH_M - 2.0)
        strip = (plan.row_b_head_y + CURB_WIDTH_M, plan.row_b_head_y + CURB_WIDTH_M + 8.0)
        for k, s in enumerate(bushes):
            box = s.box(f"Shrub{k}")
            assert not any(boxes_overlap(box, c) for c in cars)
            assert not any(boxes_overlap(box, b) for b in standing if b.owner != "Building")
            assert any(lo <= s.y - s.radius_m and s.y + s.radius_m <= hi for lo, hi in (lawn, strip))
            assert s.y - s.radius_m > plan.building_front_y  # in front of the wall, never in it
            assert 0.3 < s.radius_m < 1.0 and 0.5 < s.height_m < 1.5
            if s.y < 0:  # at the wall: doors, bay doors and downspouts stay clear
                assert all(abs(s.x - x) >= s.radius_m + 0.8 for x in facade.doors)
                assert all(abs(s.x - x) >= s.radius_m + w / 2 + 0.3 for x, w, _ in facade.bays)
        for a, b in zip(bushes, bushes[1:]):
            assert math.hypot(a.x - b.x, a.y - b.y) >= max(a.radius_m, b.radius_m) or abs(a.y - b.y) > 3.0


def test_facade_keeps_the_old_units_and_nothing_overlaps():
    for seed in SEEDS:
        plan = lot(seed)
        f = facade_layout(plan)
        assert isinstance(f, FacadeLayout)
        units = int(np.ceil((plan.x1 + 6.0 - (plan.x0 - 6.0)) / 4.4))
        assert len(f.bays) + len(f.windows) == units  # a door shares its unit with a narrower window
        spans = [(x - w / 2 - 0.1, x + w / 2 + 0.1) for x, w, _, _ in f.windows]
        spans += [(x - w / 2 - 0.1, x + w / 2 + 0.1) for x, w, _ in f.bays]
        spans += [(x - 0.56, x + 0.56) for x in f.doors]  # a 0.92 m door and its casing
        spans.sort()
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
        top = min(2.6, plan.building_height_m - 1.2)
        assert all(sill + h <= top + 1e-9 for _, _, sill, h in f.windows)


def test_trees_stay_out_of_every_car():
    for seed in SEEDS:
        plan = lot(seed)
        cars = [b for i, c in enumerate(plan.cars) for b in car_boxes(c, f"Car{i}")]
        for plant in tree_plants(plan) + [shrub_plants(plan)]:
            for part in ("wood", "leaves"):
                v = plant[part][0]
                for b in cars:
                    near = v[(np.abs(v[:, 0] - b.x) < 6) & (np.abs(v[:, 1] - b.y) < 6)]
                    assert not any(b.z0 <= p[2] <= b.z1 and inside_box(b, p[0], p[1]) for p in near)


def test_vegetation_triangle_budget():
    for seed in SEEDS:
        plan = lot(seed)
        plants = tree_plants(plan) + [shrub_plants(plan)]
        triangles = sum(len(p[part][1]) for p in plants for part in ("wood", "leaves"))
        assert triangles < 40_000, triangles


def test_the_phone_is_never_inside_a_shrub():
    for env in ("car_view", "car_plate", "damage_view", "ro_board"):
        for index in range(0, 120, 7):
            spec = pipeline.plan_frame(env, 0, "random", index)
            x, y, z = spec.pose.position
            for s in shrubs(spec.plan.lot):
                assert math.hypot(x - s.x, y - s.y) > s.radius_m + 0.1 or z > s.height_m + 0.3


@pytest.mark.slow
def test_built_lots_do_not_intersect_and_terms_are_as_before():
    pytest.importorskip("bpy")
    from realitybench_addon.bl.analytic import reset_scene
    from realitybench_addon.bl.parking_lot import build_lot, intersecting_pairs

    for seed in (0, 3, 7):
        built = build_lot(reset_scene(), lot(seed))
        assert intersecting_pairs(built) == []
        names = set(built.scenery) | set(built.ground)
        assert {"Shrubs_Leaves", "Building_Glass", "Building_Frame", "AsphaltPatch0", "Tree0_Leaves"} <= names
    cache = pipeline.SceneCache()
    for (env, index), terms in BEFORE_TERMS.items():
        spec = pipeline.plan_frame(env, 0, "random", index)
        m = pipeline.run_frame(spec, render=False, cache=cache).record["measurements"]
        for name, value in terms.items():
            # damage_view's damage sits on a fender the smooth bodies flared, and the neighbour panel's surface
            # samples include its (now more) vertices: the terms move in the third digit (0.0028 at most)
            # car_plate's camera moved with its plate (see BEFORE): the same view to 1e-7
            close = pytest.approx(value, abs=0.005) if env == "damage_view" else \
                pytest.approx(value, rel=1e-7 if env == "car_plate" else 1e-9)
            assert m[name] == close, (env, index, name, m[name])


def test_a_lots_tall_trees_are_limbed_up_not_balls_on_bare_poles():
    """Every lot tree's leaves keep to its envelope (from `Tree.crown_base_m` to its height), which the scenery
    box the poses avoid is; a tree of 9 m or more carries its crown over at least 60 % of its height (a round
    crown two radii deep left 45-64 % of a tall tree's trunk bare), and no crown comes down below the cars'
    roofs unless the tree is too short for its round crown."""
    from realitybench_addon.core.parking_lot import TREE_CLEAR_M

    tall = 0
    for seed in range(20):
        plan = draw_lot(np.random.default_rng(seed))
        boxes = {b.owner: b for b in plan.scenery_boxes() if b.owner.startswith("Tree") and b.z0 > 0.0}
        for i, (tree, plant) in enumerate(zip(plan.trees, tree_plants(plan))):
            leaves = plant["leaves"][0]
            assert boxes[f"Tree{i}"].z0 == tree.crown_base_m
            assert leaves[:, 2].max() <= tree.height_m + 0.05
            assert leaves[:, 2].min() >= 0.5 * tree.crown_base_m - 0.3  # a far conifer's skirts start lower
            assert tree.crown_base_m >= min(TREE_CLEAR_M, tree.height_m - 2 * tree.crown_radius_m) - 1e-9
            if tree.height_m >= 9.0:
                tall += 1
                assert tree.height_m - tree.crown_base_m >= 0.6 * tree.height_m
    assert tall >= 150  # 192 trees of 9 m or more in these 20 lots
