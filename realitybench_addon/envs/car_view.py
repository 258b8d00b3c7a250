"""car_view: one face of the named car, square-on from about two car lengths, the whole car in frame.

The technician is asked for one face (front, rear, driver's side, passenger's side) of the
subject car and walks out along it; the ground truth `side` is the face the photo actually
shows: the face whose outward normal is nearest the direction from the car's centre to the
camera (the driver's side is the car's left, US). `body_style` is the subject's style.

Terms: the whole car in frame (every surface sample of every part projects inside the
frame), |angle off the nearest face| <= 30 degrees, 1.5-3 car lengths from the car's centre
(3-4 gray), the car's bbox >= 3 % of the frame, blur at the car's centre <= 6 px, and the
whole car seen: >= 90 % of its in-frame surface hidden by nothing but itself (80-90 % gray;
`car_unoccluded`: in frame is not seen when a neighbouring car stands in front of it).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..core.doc_fields import JUDGMENT
from ..core.prompt import DocKey, PromptParts
from ..core.vehicle import BODY_STYLES
from .base import FieldPose, FrameContext
from .lot_poses import LotPoseModel, draw_lot_pose
from .lot_scene import FACES, NAMED_VEHICLE, LotEnvironment, LotScene, face_azimuth_deg, nearest_face
from .measurements import capture_terms
from .poses import Posture

POSES = LotPoseModel(
    postures=(Posture("standing", 0.85, (1.3, 1.7)), Posture("holding the phone up", 0.15, (1.75, 2.1))),
    distance_m=(0.8, 4.5),  # in car lengths (scaled by the subject's length)
    azimuth_sd_deg=18.0, aim_sd_deg=4.0, miss_share=0.1)

STYLE_GRAMMAR = ", ".join(f'"{s}"' for s in BODY_STYLES)
SIDE_KEY = DocKey("side", "string", 'the face of the vehicle the photo shows: "front", "rear", "driver" or '
                                    '"passenger" (the driver\'s side is the vehicle\'s left side)', skill=JUDGMENT)
# ro_board asks it too, outside the paper's skill groups; car_view's is a judgment (evaluation/skills.py)
STYLE_KEY = DocKey("body_style", "string", f"the vehicle's body style, one of {STYLE_GRAMMAR}")


# The requirement, written once: {car} names the frame's subject ("the silver sedan"), or NAMED_VEHICLE.
REQUIREMENT = ("a sharp photo taken straight onto one face of {car} (its front, its rear, the driver's side "
               "or the passenger's side) from about two car lengths away, with the whole vehicle, both of "
               "that face's corners included, inside the frame. A three-quarter view, a photo that cuts "
               "off part of the vehicle, or a photo of a different vehicle does not meet it.")


class CarView(LotEnvironment):
    name = "car_view"
    subject = "the car"
    poses_per_scene = 4
    # intake cars are often left at the end of a row, with room around them
    lot_options = {"neighbour_share": 0.45, "row_share": 0.45, "far_share": 0.5, "end_stall_share": 0.5}
    prompt_parts = PromptParts(
        worker="a vehicle-intake technician",
        work="a customer vehicle's condition when it was checked in, one face of it at a time",
        requirement=REQUIREMENT.format(car=NAMED_VEHICLE),
        question="Which face of the vehicle does the photo show, and what is the vehicle's body style?",
        keys=(SIDE_KEY, replace(STYLE_KEY, skill=JUDGMENT)),
    )
    prompt_template = {
        "work": "the condition of {car} when it was checked in, one face of it at a time",
        "requirement": REQUIREMENT,
    }

    def draw_target(self, plan: LotScene, rng) -> dict:
        return {"car": "Car0", "side": FACES[int(rng.integers(len(FACES)))]}

    def target_point(self, plan: LotScene, target: dict) -> np.ndarray:
        return plan.lot.subject.center

    def draw_pose(self, plan: LotScene, target: dict, rng) -> FieldPose:
        lot = plan.lot
        length = lot.subject.vehicle.length
        others = [c for c in lot.cars[1:]]

        def elsewhere(r):  # the phone pointed at another car
            if not others:
                return lot.subject.center + np.array([3.0, 0.0, 0.0])
            return others[int(r.integers(len(others)))].center

        lo, hi = POSES.distance_m
        return draw_lot_pose(lot, lot.subject.center, face_azimuth_deg(lot, target["side"]), POSES, rng,
                             elsewhere=elsewhere, distance_m=(lo * length, hi * length), line_of_sight=True)

    def mask_targets(self, ctx: FrameContext) -> list[str]:
        return self.subject_names(ctx)

    def measure(self, ctx: FrameContext) -> dict:
        lot = ctx.plan.lot
        camera = ctx.pinhole()
        center = lot.subject.center
        in_frame, bbox = self.car_in_frame(ctx, camera)
        _, unoccluded = self.car_unoccluded(ctx)
        face, angle = nearest_face(lot, camera.position)
        distance = float(np.linalg.norm(camera.position - center))
        return {
            **capture_terms(ctx, "car", center, in_frame, unoccluded),
            "angle_off_face": angle,
            "camera_distance": distance / lot.subject.vehicle.length,
            "car_bbox": bbox,
            "nearest_face": face,
            "camera_distance_m": distance,
        }

    def ground_truth(self, ctx: FrameContext) -> dict:
        lot = ctx.plan.lot
        face, _ = nearest_face(lot, np.asarray(ctx.pose.position))
        return {"side": face, "body_style": lot.subject.vehicle.style}


ENVIRONMENT = CarView()
