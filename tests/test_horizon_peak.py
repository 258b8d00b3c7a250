"""horizon_peak: houses, surroundings, the analytic skyline (pure) and the environment end to end in the bpy
wheel (builds, determinism, ground truth, agreement with Blender ray casts, a tiny render)."""
import math

import numpy as np
import pytest

from realitybench_addon.core import skyline as sk
from realitybench_addon.core.house import HOUSE_SHAPES, cap_sides, ridge_line, roof_height_at, roof_planes
from realitybench_addon.core.house_draw import draw_house
from realitybench_addon.core.optics import PinholeCamera, look_at
from realitybench_addon.core.ridge_caps import cap_rows
from realitybench_addon.core.rng import scene_rng, stage_rng
from realitybench_addon.core.surroundings import MAX_EYE_Z_M, draw_surroundings, terrain_height
from realitybench_addon.core.surroundings_meshes import skyline_edges

ENV = "horizon_peak"


def _rng(i, stage="t"):
    return stage_rng(scene_rng(0, "horizon_peak/test", i), stage)


# -- pure: houses, surroundings, skyline geometry ------------------------------------------------------------

@pytest.mark.parametrize("shape", HOUSE_SHAPES)
def test_every_house_shape_has_shingleable_planes_and_a_ridge_on_top(shape):
    assert len(HOUSE_SHAPES) >= 10
    for i in range(3):
        house = draw_house(_rng(i, shape), shape)
        planes = roof_planes(house)
        assert len(planes) >= 1
        top = -np.inf
        for p in planes:
            uv = np.asarray(p.polygon_uv)
            # counter-clockwise, starting with the eave on v = 0; the normal points up
            area = 0.5 * np.sum(uv[:, 0] * np.roll(uv[:, 1], -1) - np.roll(uv[:, 0], -1) * uv[:, 1])
            assert area > 0.5, (shape, p.name)
            assert p.edges[0] in ("eave", "break") and np.allclose(uv[:2, 1], 0.0)
            assert p.normal[2] > 0.3
            assert len(p.edges) == len(uv)
            # every polygon vertex lies on its plane at h = 0
            world = p.world_polygon()
            assert np.allclose(p.to_plane(world)[:, 2], 0.0, atol=1e-9)
            top = max(top, world[:, 2].max())
        assert top == pytest.approx(house.peak_z, abs=1e-9), shape
        a, b = ridge_line(house)
        assert a[2] == pytest.approx(house.main.ridge_z) and b[2] == pytest.approx(house.main.ridge_z)
        # the roof surface right under the ridge's middle is the ridge itself
        mid = (a + b) / 2
        assert roof_height_at(house, mid[None, :2])[0] == pytest.approx(house.main.ridge_z, abs=1e-6)


def test_bad_input_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown house shape 'igloo'"):
        draw_house(_rng(0), "igloo")
    with pytest.raises(ValueError, match="house radius must be positive"):
        draw_surroundings(_rng(0), 0.0)
    cam = PinholeCamera(look_at([0, 0, 0], [0, 1, 0]), 500.0, 100, 100)
    edges = (np.zeros((1, 3)), np.ones((1, 3)), np.ones(1))
    with pytest.raises(ValueError, match="sorted"):
        sk.column_skyline(cam, *edges, np.array([50.0, 10.0]))
    with pytest.raises(ValueError, match="accepted has"):
        sk.turn_coverage([0, 90], [True])
    from realitybench_addon.envs.registry import get

    env = get(ENV)
    with pytest.raises(ValueError, match="shot must be in 0..7"):
        env.draw_target_for_shot(env.draw_scene(_rng(1)), 8, _rng(2))


def test_terrain_rim_stands_above_every_camera():
    for i in range(6):
        plan = draw_surroundings(_rng(i, "s"), 12.0)
        t = plan.terrain
        a = np.linspace(0, 2 * np.pi, 720, endpoint=False)
        rim = terrain_height(t, t.rim_radius_m * np.cos(a), t.rim_radius_m * np.sin(a))
        assert rim.min() > MAX_EYE_Z_M + 5.0
        assert terrain_height(t, np.array([0.0, t.flat_radius_m - 1.0]), np.array([0.0, 0.0])).max() == 0.0
        # nothing stands inside the house's circle, and everything is inside the camera's 1000 m clip
        assert all(math.hypot(tr.x, tr.y) > 12.0 for tr in plan.trees)
        a_, b_, _ = skyline_edges(plan)
        assert np.hypot(a_[:, 0], a_[:, 1]).max() <= 900.0


def test_column_skyline_of_a_known_edge():
    # camera at the origin looking along +Y; a horizontal edge 50 m ahead, 5 m up: row 500 - 1000 * 5 / 50
    cam = PinholeCamera(look_at([0, 0, 0], [0, 10, 0]), 1000.0, 1000, 1000)
    a, b = np.array([[-100.0, 50.0, 5.0]]), np.array([[100.0, 50.0, 5.0]])
    xs = np.array([100.0, 500.0, 900.0])
    sky = sk.column_skyline(cam, a, b, np.array([5.0]), xs)
    assert np.allclose(sky.rows, 400.0)
    assert np.allclose(sky.points[:, 1], 50.0) and np.allclose(sky.points[:, 2], 5.0)
    assert np.allclose(sky.points[:, 0], (xs - 500) / 1000 * 50)
    # a pole 80 m ahead, 30 m tall, in the middle column's plane: its top is that column's skyline
    a, b = np.vstack([a, [0.0, 80.0, 0.0]]), np.vstack([b, [0.0, 80.0, 30.0]])
    sky = sk.column_skyline(cam, a, b, np.array([5.0, 30.0]), xs)
    assert np.allclose(sky.rows, [400.0, 500.0 - 1000 * 30 / 80, 400.0])
    assert np.allclose(sky.points[1], [0.0, 80.0, 30.0])
    # an edge behind the camera and one wholly below it never count
    below = sk.column_skyline(cam, np.array([[-100.0, 50.0, -1.0]]), np.array([[100.0, 50.0, -1.0]]),
                              np.array([-1.0]), np.array([500.0]))
    assert np.isnan(below.rows[0])
    behind = sk.column_skyline(cam, np.array([[-100.0, -50.0, 5.0]]), np.array([[100.0, -50.0, 5.0]]),
                               np.array([5.0]), np.array([500.0]))
    assert np.isnan(behind.rows[0])


def test_ray_triangle_distance():
    v = np.array([[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 2.0, 0.0]])
    t = np.array([[0, 1, 2]])
    dirs = np.array([[0.0, 0.0, -1.0], [0.0, 0.0, 1.0], [0.28, 0.0, -0.96], [0.6, 0.0, -0.8]])
    d = sk.ray_triangle_distance([0.5, 0.5, 3.0], dirs, v, t)
    # straight down; away; slanting onto (1.375, 0.5); slanting past the hypotenuse to (2.75, 0.5)
    assert d[0] == pytest.approx(3.0) and np.isinf(d[1]) and d[2] == pytest.approx(3.125) and np.isinf(d[3])


def test_turn_coverage_counts_directions_and_the_largest_gap():
    four = sk.turn_coverage([3, 92, 178, 271])
    assert four["passes"] and four["directions"] == 4 and four["largest_gap_deg"] == pytest.approx(93.0)
    assert not sk.turn_coverage([0, 90, 180])["passes"]  # three directions
    gap = sk.turn_coverage([0, 45, 90, 135, 180])  # five directions, but 180 degrees unseen
    assert gap["directions"] == 5 and gap["largest_gap_deg"] == pytest.approx(180.0) and not gap["passes"]
    # frames within 22.5 degrees are one direction, also across 0/360
    same = sk.turn_coverage([350, 5, 90, 180, 270])
    assert same["directions"] == 4 and same["passes"]
    # only accepted frames count
    yaws = [0, 45, 90, 135, 180, 225, 270, 315]
    assert sk.turn_coverage(yaws, [True, False, True, False, True, False, True, False])["passes"]
    assert not sk.turn_coverage(yaws, [True, True, True, True, True, False, False, False])["passes"]


def test_camera_attitude_reads_the_pose():
    m = look_at([0, 0, 5], [math.cos(math.radians(30)), math.sin(math.radians(30)), 5 + math.tan(math.radians(-10))],
                roll_deg=12.0)
    az, pitch, roll = sk.camera_attitude(m)
    assert az == pytest.approx(30.0) and pitch == pytest.approx(-10.0) and roll == pytest.approx(12.0)


# -- the environment in Blender --------------------------------------------------------------------------

bpy = pytest.importorskip("bpy")

from blender_lines import cases  # noqa: E402
from realitybench_addon import pipeline  # noqa: E402
from realitybench_addon.bl.scene_data import pinhole_camera, world_triangles  # noqa: E402
from realitybench_addon.core.presets import load_environment_preset  # noqa: E402
from realitybench_addon.envs import registry  # noqa: E402
from realitybench_addon.envs.horizon_peak import LEVEL_ROLL_DEG, measure_view  # noqa: E402

VERDICTS = {"accept", "reject", "gray", "unscored", "pending"}


def run(index, seed=0, cache=None, **kw):
    return pipeline.run_frame(pipeline.plan_frame(ENV, seed, "random", index), render=kw.pop("render", False),
                              cache=cache or pipeline.SceneCache(), **kw)


def test_builds_for_many_seeds_with_every_term_measured():
    preset = load_environment_preset(ENV)
    env = registry.get(ENV)
    wired = 0
    for seed in range(cases(10, other_line=3)):
        result = run(0, seed=seed)
        record = result.record
        assert record["verdict"] in VERDICTS
        outcomes = {t["name"]: t["outcome"] for t in record["terms"]}
        assert set(outcomes) == {t.name for t in preset.terms}
        assert all(o in ("pass", "fail") for o in outcomes.values()), outcomes
        assert set(record["ground_truth"]) == {k.name for k in env.prompt_parts.keys}
        assert record["discard_reason"] is None
        assert result.timings["scene_build_s"] > 0.0  # recorded; how long it takes is benchmarks/bench_export.py's
        for name in ("HouseShingles", "HouseRidgeCaps", "HouseWalls", "Terrain", "Ground", "RB_Sun"):
            assert bpy.data.objects.get(name) is not None, name
        # the caps render as rows of cap pieces on the measured strips (core/ridge_caps.py)
        caps = bpy.data.objects["HouseRidgeCaps"].data
        assert len(caps.polygons) == len(cap_rows(cap_sides(result.spec.plan.house))[1]) > 8 * len(
            cap_sides(result.spec.plan.house))
        for name in ("PowerLines", "TelecomCables"):  # set dressing that casts no shadow (surroundings_meshes)
            wires = bpy.data.objects.get(name)
            wired += wires is not None
            assert wires is None or not wires.visible_shadow
        assert bpy.context.scene.world is not None
        assert record["scene"]["house_shape"] == result.spec.plan.house.shape
    assert wired > 0
    # the houses differ in shape from seed to seed (read from the plans: no build needed)
    assert len({pipeline.plan_frame(ENV, seed, "random", 0).plan.house.shape for seed in range(10)}) >= 5
    assert '"horizon_visible"' in record["prompt"] and '"own_roof_blocks"' in record["prompt"]


def test_same_id_same_record():
    a, b = run(5).record, run(5).record
    for key in ("measurements", "terms", "ground_truth", "verdict", "capture", "camera", "scene", "target"):
        assert a[key] == b[key], key
    assert run(6).record["camera"] != a["camera"]


def test_frames_of_a_scene_turn_in_place():
    cache = pipeline.SceneCache()
    records = [run(i, cache=cache).record for i in range(8, 16)]
    assert {r["scene_index"] for r in records} == {1}
    positions = np.array([r["camera"]["pose"]["position_m"] for r in records])
    assert np.ptp(positions, axis=0).max() < 0.3  # the same spot, hand jitter aside
    start = records[0]["scene"]["turn_start_deg"]
    for k, r in enumerate(records):
        assert r["target"] == {"shot": k, "yaw_deg": pytest.approx((start + 45.0 * k) % 360.0, abs=0.01)}
        off = (r["measurements"]["view_azimuth_deg"] - r["target"]["yaw_deg"] + 180.0) % 360.0 - 180.0
        assert abs(off) < 35.0
    check = registry.get(ENV).set_check(records)
    assert check["frames"] == sum(r["verdict"] == "accept" for r in records)
    with pytest.raises(ValueError, match="one scene"):
        registry.get(ENV).set_check(records + [run(0).record])


def test_ground_truth_follows_its_definitions():
    seen = {"level": set(), "horizon_visible": set(), "own_roof_blocks": set(), "ridge": set()}
    cache = pipeline.SceneCache()
    for index in range(0, 64, 3):
        result = run(index, cache=cache)
        m, truth = result.record["measurements"], result.record["ground_truth"]
        camera = pinhole_camera(bpy.context.scene.camera, bpy.context.scene)
        _, _, roll = sk.camera_attitude(camera.camera_to_world)
        assert roll == pytest.approx(result.spec.pose.roll_deg, abs=1.0)  # hand shake: the shutter's start pose
        assert truth["level"] == (abs(roll) <= LEVEL_ROLL_DEG)
        assert truth["own_roof_blocks"] == (m["own_roof_hides_horizon"] > 0.1)
        assert truth["horizon_visible"] == (m["skyline_visible_fraction"] >= 0.5)
        plan = result.spec.plan
        above = camera.position[2] >= plan.house.peak_z
        assert m["camera_at_or_above_ridge"] == above
        if plan.station.kind == "ridge":
            assert above
        if plan.station.kind == "ladder":
            assert not above
        for key in ("level", "horizon_visible", "own_roof_blocks"):
            seen[key].add(truth[key])
        seen["ridge"].add(above)
    assert all(v == {True, False} for v in seen.values()), seen


def _bvh(names):
    from mathutils.bvhtree import BVHTree

    depsgraph = bpy.context.evaluated_depsgraph_get()
    verts, tris, offset = [], [], 0
    for name in names:
        v, t = world_triangles(bpy.data.objects[name], depsgraph)
        verts.append(v)
        tris.append(t + offset)
        offset += len(v)
    return BVHTree.FromPolygons(np.concatenate(verts).tolist(), np.concatenate(tris).tolist(), all_triangles=True)


def test_skyline_agrees_with_blender_ray_casts():
    """The analytic skyline row of a column is where Blender's rays (against the built surroundings) start
    to hit; own-roof occlusion and the bottom-quarter share agree with rays against the built house."""
    from mathutils import Vector

    checked = hidden_seen = 0
    cache = pipeline.SceneCache()
    for index in (7, 9, 21, 26):  # 7 and 21: from a ladder, the own roof hides part of the skyline
        result = run(index, cache=cache)
        built = cache.built
        scene = bpy.context.scene
        camera = pinhole_camera(scene.camera, scene)
        fs = measure_view(result.spec.plan, camera)
        surroundings, house = _bvh(built.surroundings), _bvh(built.house)
        eye = Vector(camera.position.tolist())

        def hits(tree, x, y, reach=5000.0):
            d = sk.pixel_rays(camera, np.array([x]), np.array([y]))[0]
            return tree.ray_cast(eye, Vector(d.tolist()), reach)[0] is not None

        columns = np.nonzero(np.isfinite(fs.skyline.rows))[0]
        for c in columns[:: max(1, len(columns) // 5)]:
            x, row = fs.skyline.columns_x[c], fs.skyline.rows[c]
            assert not hits(surroundings, x, row - 0.3), (index, x, row)
            assert hits(surroundings, x, row + 0.3), (index, x, row)
            if fs.in_frame[c]:
                point = fs.skyline.points[c]
                to = point - camera.position
                dist = float(np.linalg.norm(to))
                blocked = house.ray_cast(eye, Vector((to / dist).tolist()), dist)[0] is not None
                assert blocked == fs.hidden[c], (index, x)
                hidden_seen += blocked
            checked += 1
        # the bottom quarter: the same grid of rays against the built house
        nr, nc = sk.BOTTOM_GRID
        gy = 0.75 * camera.height + (np.arange(nr) + 0.5) * 0.25 * camera.height / nr
        gx = (np.arange(nc) + 0.5) * camera.width / nc
        share = np.mean([hits(house, x, y, 200.0) for y in gy for x in gx])
        assert share == pytest.approx(fs.own_bottom_fraction, abs=2.0 / (nr * nc))
        assert result.record["measurements"]["own_roof_bottom"] == pytest.approx(fs.own_bottom_fraction)
    assert checked >= 16 and hidden_seen >= 1


def test_tiny_render_shows_the_own_roof_where_measured():
    for index in range(9, 40):
        m = run(index).record["measurements"]
        if m["own_roof_bottom"] >= 0.3 and m["sky_and_ground_width"] >= 0.65:
            result = run(index, render=True, long_side_px=160, samples=4)
            mask = result.mask
            assert result.record["measurements"]["target_mask_pixels"] > 0
            h = mask.shape[0]
            assert mask[3 * h // 4:].mean() > 0.15  # the own roof along the bottom
            assert mask[: h // 10].mean() < 0.05  # sky and surroundings at the top
            assert result.record["discard_reason"] is None
            return
    pytest.fail("no frame with the own roof along the bottom among 31")
