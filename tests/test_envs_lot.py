"""The parking-lot environments end to end in the bpy wheel: car_view, damage_view, car_plate, ro_board.

Builds for several seeds with every term measured, determinism, ground truth checked against the
built scene (the plate and board textures as packed in the .blend, the damage's mesh, the face the
camera sees), the render-sanity rejection of intersecting cars, and one rendered mask per image term.
"""
import math

import numpy as np
import pytest

bpy = pytest.importorskip("bpy")

from realitybench_addon import pipeline  # noqa: E402
from realitybench_addon.bl.scene_data import matrix_to_numpy  # noqa: E402
from realitybench_addon.core.damage import severity_of  # noqa: E402
from realitybench_addon.core.parking_lot import SceneIntersection, draw_lot  # noqa: E402
from realitybench_addon.core.plate import plate_texture  # noqa: E402
from realitybench_addon.core.presets import load_environment_preset  # noqa: E402
from realitybench_addon.core.ro_board import board_texture, vin_is_valid  # noqa: E402
from realitybench_addon.core.vehicle import BODY_STYLES  # noqa: E402
from realitybench_addon.core.vehicle_geometry import vehicle_geometry  # noqa: E402
from realitybench_addon.envs import registry  # noqa: E402
from realitybench_addon.envs.lot_scene import nearest_face  # noqa: E402
import env_support  # noqa: E402
from blender_lines import cases  # noqa: E402
from env_support import VERDICTS, packed_pixels  # noqa: E402

ENVS = ("car_view", "damage_view", "car_plate", "ro_board")
CACHE = pipeline.SceneCache()


def run(env, index, seed=0, cache=CACHE, **kw):
    return env_support.run(env, index, seed=seed, cache=cache, **kw)


def quad_world(name: str) -> np.ndarray:
    obj = bpy.data.objects[name]
    m = matrix_to_numpy(obj.matrix_world)
    co = np.array([v.co[:] for v in obj.data.vertices])
    return co @ m[:3, :3].T + m[:3, 3]


def check_car_view(result):
    truth = result.record["ground_truth"]
    lot = result.spec.plan.lot
    face, angle = nearest_face(lot, result.spec.pose.position)
    assert truth == {"side": face, "body_style": lot.subject.vehicle.style}
    assert result.record["measurements"]["angle_off_face"] == pytest.approx(angle, abs=1e-3)  # float32 camera
    assert result.record["measurements"]["nearest_face"] == face


def check_damage_view(result):
    plan = result.spec.plan
    damage = plan.extras["damage"]
    truth = result.record["ground_truth"]
    assert truth["severity"] == severity_of(damage.area_cm2)
    assert truth["damage_types"] == damage.types and truth["damage_types"]
    name = f"Car0_{damage.panel}_damage"
    obj = bpy.data.objects[name]
    assert name in CACHE.built.subject.body and f"Car0_{damage.panel}" in CACHE.built.subject.body
    from realitybench_addon.bl.scene_data import world_triangles
    from realitybench_addon.core.geometry import triangle_areas

    v, t = world_triangles(obj, bpy.context.evaluated_depsgraph_get())
    assert triangle_areas(v, t).sum() * 1e4 >= damage.area_cm2 * 0.97  # the mask object covers the damage
    assert result.record["measurements"]["neighbour_panel"] in vehicle_geometry(plan.lot.subject.vehicle).panels


def check_car_plate(result):
    plan = result.spec.plan
    truth = result.record["ground_truth"]
    car = plan.lot.subject
    assert truth == {"plate": car.plate.text, "state": car.plate.state}
    image, layout = plate_texture(car.plate)
    assert layout.text == truth["plate"] and layout.row("state").text == truth["state"]
    assert np.array_equal(packed_pixels("Car0_PlateImage"), image)  # the texture on the car is the one drawn
    end = result.spec.target["plate"]
    corners = quad_world(f"Car0_plate_{end}")
    assert np.linalg.norm(corners[1] - corners[0]) == pytest.approx(0.305, abs=1e-4)
    assert np.linalg.norm(corners[3] - corners[0]) == pytest.approx(0.152, abs=1e-4)
    outward = car.direction(vehicle_geometry(car.vehicle).plate_mounts[end].normal)
    normal = np.cross(corners[1] - corners[0], corners[3] - corners[0])
    assert np.dot(normal, outward) > 0  # the print faces out of the car, upright
    assert corners[3][2] > corners[0][2]


def check_ro_board(result):
    plan = result.spec.plan
    board = plan.extras["board"]
    truth = result.record["ground_truth"]
    assert truth == {"ro": board.ro, "vin": board.vin, "body_style": plan.lot.subject.vehicle.style}
    assert vin_is_valid(truth["vin"])
    image, layout = board_texture(board)
    assert (layout.text_of("ro"), layout.text_of("vin")) == (truth["ro"], truth["vin"])
    assert np.array_equal(packed_pixels("RB_ROBoardImage"), image)
    # the written face looks out of the technician's front, upright
    corners = quad_world("RO_Board")
    normal = np.cross(corners[1] - corners[0], corners[3] - corners[0])
    facing = math.radians(board.facing_deg)
    assert np.dot(normal[:2], [math.cos(facing), math.sin(facing)]) > 0 and corners[3][2] > corners[0][2]


CHECKS = {"car_view": check_car_view, "damage_view": check_damage_view, "car_plate": check_car_plate,
          "ro_board": check_ro_board}


@pytest.mark.slow
@pytest.mark.parametrize("env", ENVS)
def test_builds_for_several_seeds_with_every_term_measured_and_true_ground_truth(env):
    preset = load_environment_preset(env)
    keys = {k.name for k in registry.get(env).prompt_parts.keys}
    for seed in range(cases(3, other_line=1)):
        result = run(env, 0, seed=seed)
        record = result.record
        assert record["verdict"] in VERDICTS
        outcomes = {t["name"]: t["outcome"] for t in record["terms"]}
        assert set(outcomes) == {t.name for t in preset.terms}
        geometric = [t.name for t in preset.terms if t.kind == "geometric"]
        assert all(outcomes[name] in ("pass", "fail", "gray") for name in geometric), outcomes
        assert set(record["ground_truth"]) == keys
        assert record["scene"]["kind"] == "parking_lot"
        # the prompt names the subject by colour and style, and no other car in the lot is that
        subject = result.spec.plan.lot.subject.vehicle
        assert f"the {subject.label}" in record["prompt"]
        assert all(bpy.data.objects.get(n) is not None for n in registry.get(env).mask_targets(
            pipeline.FrameContext(bpy.context.scene, bpy.context.scene.camera, CACHE.built, result.spec.plan,
                                  result.spec.target, result.spec.pose)))
        CHECKS[env](result)
        if env == "car_plate":
            assert record["unscored_reason"] and record["verdict"] == "unscored"


@pytest.mark.slow
def test_same_id_same_record_and_frames_of_a_scene_share_its_build():
    a = run("damage_view", 5, cache=pipeline.SceneCache()).record
    cache = pipeline.SceneCache()
    b = run("damage_view", 5, cache=cache).record
    for key in ("measurements", "terms", "ground_truth", "verdict", "capture", "camera", "scene", "prompt"):
        assert a[key] == b[key], key
    other = run("damage_view", 6, cache=cache)  # same scene (4 poses per scene): no rebuild
    assert other.timings["scene_build_s"] == 0.0 and other.record["camera"] != a["camera"]


def test_nearest_face_names_the_drivers_side_as_the_left():
    lot = draw_lot(np.random.default_rng(0))
    car = lot.subject
    L = car.vehicle.length
    for local, face in (([L * 2, 0.3, 1.5], "front"), ([-L * 2, -0.3, 1.5], "rear"), ([0.4, 9.0, 1.5], "driver"),
                        ([-0.4, -9.0, 1.5], "passenger")):
        got, angle = nearest_face(lot, car.to_world(local))
        assert got == face and angle < 15


@pytest.mark.slow
def test_a_built_scene_with_intersecting_cars_is_rejected():
    from dataclasses import replace

    from realitybench_addon.bl.analytic import reset_scene
    from realitybench_addon.bl.parking_lot import build_lot, intersecting_pairs

    lot = draw_lot(np.random.default_rng(2))
    s = lot.subject
    clash = replace(lot.cars[1], x=s.x + 0.6, y=s.y - 0.4, heading_deg=s.heading_deg + 30)
    bad = replace(lot, cars=(s, clash))
    with pytest.raises(SceneIntersection, match="Car0"):
        build_lot(reset_scene(), bad)
    good = replace(lot, cars=(s,))
    built = build_lot(reset_scene(), good)
    assert intersecting_pairs(built) == []
    CACHE.key = None  # the scene was replaced under the shared cache


@pytest.mark.slow
@pytest.mark.parametrize("env, image_terms", [("damage_view", ("damage_pixels",)),
                                              ("ro_board", ("weber_contrast", "saturated_fraction"))])
def test_rendered_mask_and_image_terms(env, image_terms):
    preset = load_environment_preset(env)
    for index in range(24):
        spec = pipeline.plan_frame(env, 0, "random", index)
        record = pipeline.run_frame(spec, render=False, cache=CACHE).record
        if record["verdict"] in ("pending", "gray"):
            break
    else:
        pytest.fail(f"no {env} frame passes geometry in the first 24")
    result = pipeline.run_frame(spec, long_side_px=200, samples=4, preset=preset, cache=CACHE)
    m = result.record["measurements"]
    assert result.mask.sum() > 10
    assert all(name in m for name in image_terms)
    if env == "damage_view":
        assert 0 <= m["damage_pixels"] <= result.mask.sum()
    else:
        assert 0.3 < m["weber_contrast"] < 1.0 and 0.0 <= m["saturated_fraction"] <= 1.0
    assert result.discard_reason is None


def test_every_style_can_be_the_subject():
    assert {draw_lot(np.random.default_rng(s)).subject.vehicle.style for s in range(60)} == set(BODY_STYLES)
