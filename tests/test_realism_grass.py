"""Grass blades near the camera (issue 20): the tufts and their scatter are pure functions of a seed; in the bpy
wheel the roof's yard and the lot's lawns carry exactly the scattered tufts, instanced (the instancers never
render), the measuring BVH leaves them out, and no target of any environment with grass can be hidden by it:
every segment from a frame's camera to its target's vertices clears every grass volume."""
import math

import numpy as np
import pytest

from realitybench_addon.core import grass

GRASS_ENVS = ["equipment_label", "tape_gap", "wire_adequacy", "rail_attachment", "slope_gauge", "car_view",
              "damage_view", "car_plate", "ro_board"]


def test_no_blade_is_taller_than_the_bound_that_keeps_targets_clear():
    tallest = [grass.tallest_blade(grass.tuft_variants(seed)) for seed in range(40)]
    assert max(tallest) <= grass.MAX_BLADE_HEIGHT_M
    assert min(tallest) > 0.8 * grass.MAX_BLADE_HEIGHT_M  # the bound is close, not a loose guess
    v, t = grass.tuft(3)
    assert v[:, 2].min() == 0.0 and len(t) == 24 * 5  # 24 blades of 5 triangles, standing on the ground
    # blades stand within the radius and lean out by at most 0.55 of their height
    assert np.linalg.norm(v[:, :2], axis=1).max() < grass.TUFT_RADIUS_M + 0.55 * grass.BLADE_HEIGHT_M[1] + 0.003


def test_blades_lean_without_growing():
    """The bend keeps a blade's length: its tip never reaches above the height it was drawn with."""
    for lean in (0.0, 0.3, 0.6):
        v, _ = grass.blade((0, 0, 0), 0.1, 0.005, 0.3, lean, 1.0)
        assert v[:, 2].max() == pytest.approx(0.1 * (1 - 0.5 * lean * lean))
        tip = v[-1]
        assert math.hypot(tip[0], tip[1]) == pytest.approx(lean * 0.1)


def _blade_one_at_a_time(base, height, width, lean_azimuth, lean, facing, levels=(0.0, 0.4, 0.75)):
    """The blade as it was built before `grass.blades` (one blade per call): the reference below."""
    base = np.asarray(base, float)
    t = np.append(np.asarray(levels, float), 1.0)
    out = np.array([math.cos(lean_azimuth), math.sin(lean_azimuth), 0.0])
    drop = 1.0 - 0.5 * lean * lean
    spine = base + np.outer(t * t * lean * height, out) + np.outer(t * height * drop, [0.0, 0.0, 1.0])
    across = np.array([math.cos(facing), math.sin(facing), 0.0])
    half = 0.5 * width * (1.0 - 0.85 * t[:-1])
    left, right = spine[:-1] - half[:, None] * across, spine[:-1] + half[:, None] * across
    verts = np.vstack([np.stack([left, right], 1).reshape(-1, 3), spine[-1:]])
    n = len(levels)
    tris = [t for k in range(n - 1) for t in ((2 * k, 2 * k + 1, 2 * k + 3), (2 * k, 2 * k + 3, 2 * k + 2))]
    return verts, np.array(tris + [(2 * (n - 1), 2 * (n - 1) + 1, 2 * n)], np.int64)


def _tuft_one_blade_at_a_time(seed, blades=24):
    rng = np.random.default_rng([abs(int(seed)), 7331])
    parts_v, parts_t, offset = [], [], 0
    for _ in range(blades):
        r = grass.TUFT_RADIUS_M * math.sqrt(rng.random())
        a = rng.uniform(0.0, 2 * math.pi)
        lean_az = a + rng.normal(0.0, 0.6)
        v, t = _blade_one_at_a_time((r * math.cos(a), r * math.sin(a), 0.0), rng.uniform(*grass.BLADE_HEIGHT_M),
                                    rng.uniform(0.003, 0.006), lean_az, rng.uniform(0.1, 0.55),
                                    lean_az + math.pi / 2 + rng.normal(0.0, 0.5))
        parts_v.append(v)
        parts_t.append(t + offset)
        offset += len(v)
    return np.vstack(parts_v), np.vstack(parts_t)


def test_tufts_built_blade_by_blade_and_all_at_once_are_the_same_bit_for_bit():
    """`grass.blades` builds a tuft's blades as arrays; every scene's grass (and so every frame) stays as it was
    when each blade was its own call: the same vertices, bit for bit, over 300 seeds and any blade count."""
    for seed in [*range(300), -7, 2**31 - 1]:
        for count in ((24,) if seed % 50 else (24, 1, 5)):
            v, t = grass.tuft(seed, count)
            v_ref, t_ref = _tuft_one_blade_at_a_time(seed, count)
            assert v.tobytes() == v_ref.tobytes() and np.array_equal(t, t_ref), (seed, count)
    rng = np.random.default_rng(1)
    for _ in range(50):
        args = ((*rng.normal(size=2), 0.0), *rng.uniform(0.01, 0.2, 2), *rng.uniform(-4, 4, 1), rng.uniform(0, 0.6),
                *rng.uniform(-4, 4, 1))
        for levels in ((0.0, 0.4, 0.75), (0.0, 0.5)):
            v, t = grass.blade(*args, levels=levels)
            v_ref, t_ref = _blade_one_at_a_time(*args, levels=levels)
            assert v.tobytes() == v_ref.tobytes() and np.array_equal(t, t_ref)


def test_scatter_is_deterministic_keeps_out_of_holes_and_fades_at_open_edges():
    patch = grass.GrassPatch((0.0, 0.0, 10.0, 8.0), 0.1, holes=((3.0, 3.0, 6.0, 5.0),), fade=(1.5, 0.0, 1.5, 1.5))
    a, b = grass.scatter_patch(5, patch), grass.scatter_patch(5, patch)
    for key in a:
        assert np.array_equal(a[key], b[key])
    assert not np.array_equal(grass.scatter_patch(6, patch)["centers"], a["centers"])
    c = a["centers"]
    assert np.all((c[:, 0] > 0) & (c[:, 0] < 10) & (c[:, 1] > 0) & (c[:, 1] < 8)) and np.all(c[:, 2] == 0.1)
    in_hole = (c[:, 0] >= 3) & (c[:, 0] <= 6) & (c[:, 1] >= 3) & (c[:, 1] <= 5)
    assert not in_hole.any()
    cell = grass.TUFT_SPACING_M ** 2

    def density(mask):
        x0, y0, x1, y1 = mask
        n = ((c[:, 0] >= x0) & (c[:, 0] < x1) & (c[:, 1] >= y0) & (c[:, 1] < y1)).sum()
        return n * cell / ((x1 - x0) * (y1 - y0))

    # one tuft per cell inside (beyond where a fading edge can wander to: 1.5 m of fade, 1.2 x 1.5 m of wander)
    assert density((3.3, 0.5, 6.7, 2.5)) == pytest.approx(1.0, abs=0.05)
    assert density((0.0, 2.0, 0.3, 6.0)) < 0.45  # thinning at the fading x0 edge
    assert density((2.0, 0.0, 8.0, 0.3)) == pytest.approx(1.0, abs=0.1)  # the y0 edge (a curb) does not fade
    inner = a["scale"][(c[:, 0] > 2) & (c[:, 0] < 8) & (c[:, 1] < 1.5)]
    edge = a["scale"][c[:, 0] < 1.2]  # the open edge's outermost tufts (where its fade starts wanders)
    assert edge.mean() < 0.75 * inner.mean()  # and the tufts shrink into the flat lawn
    assert np.all(a["variant"] >= 0) and np.all(a["variant"] < 6) and len(set(a["variant"].tolist())) == 6


def test_an_open_edge_wanders_and_a_curb_edge_stays_straight():
    """A straight edge of blades read as "a square patch of grass" to a blind panel: where an open edge's fade
    starts wanders along it (the outermost tufts of 0.5 m strips along it lie at different depths), while an
    edge at a curb (no fade) stays where it is."""
    for seed in range(5):
        patch = grass.GrassPatch((0.0, 0.0, 30.0, 30.0), 0.0, fade=(1.5, 0.0, 1.5, 1.5))
        c = grass.scatter_patch(seed, patch)["centers"]
        strips = np.floor(c[:, 1] / 0.5)
        open_edge = np.array([c[strips == k, 0].min() for k in range(4, 56)])  # along x0, away from the corners
        assert np.percentile(open_edge, 90) - np.percentile(open_edge, 10) > 0.6
        strips = np.floor(c[:, 0] / 0.5)
        curb = np.array([c[strips == k, 1].min() for k in range(8, 52)])
        assert curb.max() < 0.2


def test_empty_area_is_an_error():
    with pytest.raises(ValueError, match="empty area"):
        grass.scatter_tufts(0, (1.0, 0.0, 1.0, 5.0))


def test_instancer_triangles_carry_each_tufts_place_turn_and_scale():
    centers = np.array([[1.0, 2.0, 0.1], [-3.0, 0.5, 0.0]])
    turn, scale = np.array([0.3, 2.0]), np.array([0.9, 1.25])
    v, t = grass.instancer_triangles(centers, turn, scale)
    tri = v[t]
    assert np.allclose(tri.mean(axis=1), centers)
    normal = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    area = 0.5 * np.linalg.norm(normal, axis=1)
    assert np.allclose(np.sqrt(area), scale)  # face instancing scales by the root of the area
    assert np.all(normal[:, 2] > 0) and np.allclose(normal[:, :2], 0)  # facing up
    first = tri[:, 0] - centers
    assert np.allclose(np.arctan2(first[:, 1], first[:, 0]), turn)


def test_segment_box_crossing():
    low, high = np.array([0.0, 0.0, 0.0]), np.array([2.0, 2.0, 0.13])
    origin = np.array([-1.0, 1.0, 1.5])
    points = np.array([
        [1.0, 1.0, 0.05],   # ends inside the grass
        [2.2, 1.0, 0.0],    # beside it on the ground: the line dips through its far edge on the way
        [3.0, 1.0, 0.5],    # passes above it
        [-1.0, 1.0, 0.0],   # straight down, beside it
        [1.0, 3.5, 0.1],    # beside it, at grass height
    ])
    assert grass.segments_cross_box(origin, points, low, high).tolist() == [True, True, False, False, False]
    level = np.array([[3.0, 1.0, 0.1]])
    assert grass.segments_cross_box([-1.0, 1.0, 0.1], level, low, high).tolist() == [True]  # along the blades
    assert grass.segments_cross_box([-1.0, 1.0, 0.2], level + [0, 0, 0.1], low, high).tolist() == [False]


@pytest.fixture(scope="module")
def bpy():
    return pytest.importorskip("bpy")


def _grass_objects(bpy):
    from realitybench_addon.bl.grass import is_grass
    return [o for o in bpy.context.scene.objects if is_grass(o)]


def test_yard_and_lot_carry_exactly_the_scattered_tufts_and_the_bvh_skips_them(bpy):
    from realitybench_addon import pipeline
    from realitybench_addon.bl.raycast import build_scene_bvh

    for env in ("equipment_label", "car_plate"):
        spec = pipeline.plan_frame(env, 0, "random", 0)
        cache = pipeline.SceneCache()
        built = cache.get(spec)
        assert built.grass, env
        objects = _grass_objects(bpy)
        instancers = [o for o in objects if o.instance_type == "FACES"]
        assert instancers and all(not o.show_instancer_for_render for o in instancers)
        assert all(o.parent in instancers for o in objects if o not in instancers)
        depsgraph = bpy.context.evaluated_depsgraph_get()
        tufts = sum(1 for inst in depsgraph.object_instances if inst.is_instance and inst.object.get("rb_grass"))
        assert tufts == sum(len(p.data.polygons) for p in instancers) > 1000
        heights = [inst.matrix_world.translation.z for inst in depsgraph.object_instances
                   if inst.is_instance and inst.object.get("rb_grass")]
        assert min(heights) >= min(p.z for p in built.grass) - 1e-6
        names = set(build_scene_bvh(bpy.context.scene, depsgraph).names)
        assert names and not names & {o.name for o in objects}


@pytest.mark.parametrize("env", GRASS_ENVS)
def test_no_target_is_seen_through_grass(bpy, env):
    """Grass is left out of every measurement; this is why that is right: over the first frames of the
    environment, no segment from the camera to a vertex of its masked targets enters a grass volume
    (`benchmarks/audit_grass.py` runs the same check over more frames)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from audit_grass import audit

    frames, behind, points = audit(env, 6)
    assert frames == 6 and points > 0
    assert behind == 0


def test_a_target_under_grass_is_counted(bpy):
    """The check can fail: a target object laid in the grass of the yard is seen through it."""
    from realitybench_addon import pipeline
    from realitybench_addon.bl.grass import target_points_behind_grass
    from realitybench_addon.bl.meshes import boxes, mesh_object

    spec = pipeline.plan_frame("equipment_label", 0, "random", 0)
    built = pipeline.SceneCache().get(spec)
    x0, y0, _, _ = built.grass[0].area
    v, q = boxes([x0 + 0.5, y0 + 0.5, 0.0], [x0 + 0.6, y0 + 0.6, 0.05])
    mesh_object("RB_TestStone", v, q, bpy.context.scene.collection)
    assert target_points_behind_grass(built, (x0 + 3.0, y0 + 3.0, 1.5), ["RB_TestStone"]) == (8, 8)
    assert target_points_behind_grass(built, (x0 + 3.0, y0 + 3.0, 1.5), ["Fascia"]) == (0, 8)
