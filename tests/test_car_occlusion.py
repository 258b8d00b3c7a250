"""The subject car's occlusion (issue 36): car_view's `car_unoccluded` and ro_board's `car_seen`, in the bpy wheel.

An analytic scene pins the measure: a two-part "car" (a body box with a bumper box in front of it, both centred on
the camera's axis) and a wall in front of it whose corner lies on the camera's axis, covering one quadrant of the
view (x < 0 and z < 0). A ray from the camera to a surface point crosses the wall exactly when the point lies in
that quadrant, so the wall hides exactly a quarter of the car's surface by symmetry: car_unoccluded = 0.75. The
car's own parts hiding one another (the bumper before the body, the near side before the far side) are not
occlusion: without the wall it is exactly 1. Then in the real parking lot: a neighbouring car moved between the
camera and the subject of a car_view frame that passed every term fails the term and rejects the frame, while
car_in_frame (blind to occlusion) still passes.
"""
import math

import numpy as np
import pytest

bpy = pytest.importorskip("bpy")

from realitybench_addon import pipeline  # noqa: E402
from realitybench_addon.bl import analytic, raycast  # noqa: E402
from realitybench_addon.bl.parking_lot import BuiltLot  # noqa: E402
from realitybench_addon.bl.vehicle import BuiltVehicle  # noqa: E402
from realitybench_addon.core.presets import load_environment_preset  # noqa: E402
from realitybench_addon.core.terms import Outcome, evaluate_term  # noqa: E402
from realitybench_addon.envs import registry  # noqa: E402
from realitybench_addon.envs.base import FrameContext, FieldPose  # noqa: E402
import env_support  # noqa: E402

CAR_VIEW = registry.get("car_view")


def outcome(env: str, term: str, value: float) -> str:
    spec = next(t for t in load_environment_preset(env).terms if t.name == term)
    return evaluate_term(spec, {term: value}).outcome.value


@pytest.fixture
def boxes():
    """The two-part car on the camera's axis 4-5.5 m away, a cabin inside it, and the camera; returns its context."""
    raycast.invalidate()
    scene = analytic.reset_scene()
    analytic.add_box(scene, "Car0_body", (2.0, 1.0, 1.0), (0.0, 5.0, 0.0))
    analytic.add_box(scene, "Car0_bumper", (1.6, 0.3, 0.6), (0.0, 4.35, 0.0))
    analytic.add_box(scene, "Car0_cabin_seats", (1.0, 0.4, 0.4), (0.0, 5.0, 0.0))  # inside: never sampled
    camera = analytic.add_camera(scene, "Cam", (0.0, 0.0, 0.0), (0.0, 1.0, 0.0))
    car = BuiltVehicle("Car0", None, np.eye(4), {"body": "Car0_body", "bumper_front": "Car0_bumper",
                                                 "cabin_seats": "Car0_cabin_seats"})
    pose = FieldPose((0.0, 0.0, 0.0), (0.0, 1.0, 0.0), 0.0, "standing")
    return FrameContext(scene, camera, BuiltLot(plan=None, cars=[car]), None, {}, pose)


def test_the_cars_own_parts_hiding_one_another_are_not_occlusion(boxes):
    assert CAR_VIEW.subject_names(boxes) == ["Car0_body", "Car0_bumper"]  # the cabin is not sampled
    in_frame, unoccluded = CAR_VIEW.car_unoccluded(boxes)
    assert in_frame == 1.0
    assert unoccluded == 1.0  # the far side and the body behind the bumper hidden by the car itself
    assert outcome("car_view", "car_unoccluded", unoccluded) == Outcome.PASS.value


def test_a_wall_over_one_quadrant_hides_a_quarter(boxes):
    analytic.add_box(boxes.scene, "Wall", (1.5, 0.05, 1.5), (-0.75, 2.0, -0.75))  # its corner on the axis
    in_frame, unoccluded = CAR_VIEW.car_unoccluded(boxes)
    assert in_frame == 1.0
    assert unoccluded == pytest.approx(0.75, abs=0.02)  # the area share (the samples' own pattern: +-0.02)
    x, _, z = CAR_VIEW.subject_sight_points(boxes).T
    assert unoccluded == pytest.approx(1 - np.mean((x < 0) & (z < 0)), abs=0.002)  # sample by sample
    assert outcome("car_view", "car_unoccluded", unoccluded) == Outcome.FAIL.value
    # what a caller declares part of the shot (ro_board's technician) does not hide the car
    assert CAR_VIEW.car_unoccluded(boxes, see_through=("Wall",))[1] == 1.0


def test_a_wall_over_the_left_half_hides_half(boxes):
    analytic.add_box(boxes.scene, "Wall", (1.5, 0.05, 3.0), (-0.75, 2.0, 0.0))  # its right face on the axis
    in_frame, unoccluded = CAR_VIEW.car_unoccluded(boxes)
    assert in_frame == 1.0
    assert unoccluded == pytest.approx(0.5, abs=0.02)
    assert unoccluded == pytest.approx(1 - np.mean(CAR_VIEW.subject_sight_points(boxes)[:, 0] < 0), abs=0.002)
    assert outcome("car_view", "car_unoccluded", unoccluded) == Outcome.FAIL.value


def test_the_share_is_of_the_samples_in_frame_and_a_car_out_of_frame_is_not_seen(boxes):
    analytic.add_box(boxes.scene, "Wall", (1.5, 0.05, 3.0), (-0.75, 2.0, 0.0))
    # turned to the right until the frame's left edge runs along the axis: the hidden half is out of frame
    half_fov = math.atan(18.0 / 26.0)
    aim = (math.sin(half_fov), math.cos(half_fov), 0.0)
    boxes.camera.matrix_world = analytic.Matrix(analytic.look_at((0.0, 0.0, 0.0), aim).tolist())
    in_frame, unoccluded = CAR_VIEW.car_unoccluded(boxes)
    assert in_frame == pytest.approx(0.5, abs=0.02) and unoccluded == 1.0
    boxes.camera.matrix_world = analytic.Matrix(analytic.look_at((0.0, 0.0, 0.0), (0.0, -1.0, 0.0)).tolist())
    in_frame, unoccluded = CAR_VIEW.car_unoccluded(boxes)
    assert in_frame == 0.0 and np.isnan(unoccluded)
    assert outcome("car_view", "car_unoccluded", unoccluded) == Outcome.NOT_APPLICABLE.value


def first_accepted_car_view_frame(cache, limit=24):
    for index in range(limit):
        result = env_support.run("car_view", index, cache=cache)
        if result.record["verdict"] == "accept":
            return result
    pytest.fail(f"no car_view frame accepted in the first {limit}")


def park_across(k: int, lot, point) -> dict:
    """Move car `k` (every object of it) to stand at world `point`, broadside to the line from the subject to
    `point`; returns the objects' matrices before, to put it back."""
    car = lot.cars[k]
    line = np.asarray(point, float) - lot.subject.center
    turn = math.atan2(line[1], line[0]) + math.pi / 2 - math.radians(car.heading_deg)
    c, s = math.cos(turn), math.sin(turn)
    move = np.eye(4)
    move[:2, :2] = [[c, -s], [s, c]]
    move[:2, 3] = np.asarray(point[:2]) - move[:2, :2] @ car.center[:2]
    before = {}
    for obj in bpy.data.objects:
        if obj.name.startswith(f"Car{k}_") and obj.parent is None:
            before[obj.name] = obj.matrix_world.copy()
            obj.matrix_world = analytic.Matrix((move @ np.array(obj.matrix_world)).tolist())
    return before


@pytest.mark.slow
def test_a_car_behind_another_car_fails_car_unoccluded():
    cache = pipeline.SceneCache()
    result = first_accepted_car_view_frame(cache)
    m = result.record["measurements"]
    assert m["car_in_frame"] == 1.0 and m["car_unoccluded"] >= 0.9
    # another car of the lot parked across the line of sight, halfway between the phone and the subject
    lot = result.spec.plan.lot
    assert len(lot.cars) > 1
    halfway = (np.asarray(result.spec.pose.position) + lot.subject.center) / 2
    before = park_across(1, lot, halfway)
    try:
        hidden = pipeline.run_frame(result.spec, render=False, cache=cache).record
    finally:
        for name, matrix in before.items():
            bpy.data.objects[name].matrix_world = matrix
    hm = hidden["measurements"]
    assert hm["car_in_frame"] == 1.0  # the in-frame share does not see the car in front
    assert hm["car_unoccluded"] < 0.6
    assert hidden["verdict"] == "reject" and hidden["failing_terms"] == ["car_unoccluded"]
    # put back: the frame is what it was
    again = pipeline.run_frame(result.spec, render=False, cache=cache).record
    assert again["measurements"]["car_unoccluded"] == m["car_unoccluded"] and again["verdict"] == "accept"


@pytest.mark.slow
def test_ro_boards_technician_does_not_hide_the_car_but_a_car_in_front_does():
    cache = pipeline.SceneCache()
    for index in range(24):
        result = env_support.run("ro_board", index, cache=cache)
        if result.record["verdict"] == "pending":
            break
    else:
        pytest.fail("no ro_board frame passes geometry in the first 24")
    m = result.record["measurements"]
    assert m["car_unoccluded"] == 1.0 and m["car_seen"] >= 0.5
    env = registry.get("ro_board")
    scene = bpy.context.scene
    ctx = FrameContext(scene, scene.camera, cache.built, result.spec.plan, result.spec.target, result.spec.pose)
    assert env.car_unoccluded(ctx)[1] < 1.0  # counted as an occluder, the technician hides part of the car
    lot = result.spec.plan.lot
    halfway = (np.asarray(result.spec.pose.position) + lot.subject.center) / 2
    before = park_across(1, lot, halfway)
    try:
        hidden = pipeline.run_frame(result.spec, render=False, cache=cache).record
    finally:
        for name, matrix in before.items():
            bpy.data.objects[name].matrix_world = matrix
    assert hidden["measurements"]["car_seen"] < 0.5 and "car_seen" in hidden["failing_terms"]
