"""ro_board: the hand-held repair-order board readable in the same frame as the vehicle.

A technician stands by one face of the subject car (most often the end that faces the aisle),
facing out, holding a dry-erase RO board at chest height with its face tilted up a little;
the board carries an RO number, a 17-character VIN with a valid check digit and a date,
hand-lettered in marker (core/ro_board.py). The photographer faces the board and frames it
with more or less of the car. Ground truth: `ro`, `vin`, the subject's `body_style`.

Terms: the board fully in frame and >= 90 % unoccluded (the hands hold its edges), >= 9 px
per written row (the projected cap height of the VIN as written, the row that is hardest to
read), view angle <= 40 degrees, >= 50 % of the car's surface samples in frame, >= 50 % of its
surface in frame and hidden by nothing but itself and the technician with the board (`car_seen`:
a neighbouring car in front of it hides it), <= 30 % saturated board pixels, writing Weber
contrast >= 0.3, blur at the board <= 6 px.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ..core import image_terms
from ..core.doc_fields import READING
from ..core.feasibility import Chord
from ..core.optics import px_per_unit, view_angle_deg
from ..core.parking_lot import boxes_overlap, car_boxes
from ..core.prompt import DocKey, PromptParts
from ..core.rng import stage_rng
from ..core.ro_board import BOARD_SIZE_M, BoardPlan, board_texture, draw_board, technician_footprint
from .base import FieldPose, FrameContext
from .car_view import STYLE_KEY
from .lot_poses import LotPoseModel, draw_lot_pose, standable
from .lot_scene import FACE_NORMALS, FACES, NAMED_VEHICLE, LotEnvironment, LotScene, face_azimuth_deg
from .measurements import WrittenField, WrittenSurface, capture_terms, glyph_terms, group_measurements
from .poses import Posture

# The photographer's spot round the board's normal and distance; calibrated to the paper's accepted share (0.18):
# with 36 degrees and 0.5-12 m, 0.283 of random frames passed every geometric term and the image terms of
# export-like renders turned away almost none (docs/environments/ro_board.md, "Calibration").
POSES = LotPoseModel(postures=(Posture("standing", 0.9, (1.3, 1.7)), Posture("crouching", 0.1, (0.8, 1.1))),
                     distance_m=(0.35, 15.0), azimuth_sd_deg=45.0, aim_sd_deg=4.0, miss_share=0.1)
CAR_AIM_SHARE = (0.0, 0.9)  # the aim slides from the board towards the car's centre by this much
FACE_WEIGHTS = {"aisle_end": 1.2, "side": 1.0, "curb_end": 0.3}  # where the technician stands with the board


def place_technician(scene: LotScene, rng: np.random.Generator) -> BoardPlan:
    """The technician by one of the subject's faces, 0.45-0.9 m out from it, clear of every car and of the
    scenery: by a side or at the end facing the aisle, rarely at the curb end (FACE_WEIGHTS)."""
    lot = scene.lot
    car = lot.subject
    aisle_end = "rear" if car.direction([1, 0, 0])[1] < 0 else "front"  # the end pointing at the aisle (+y)
    weights = np.array([FACE_WEIGHTS["aisle_end"] if f == aisle_end else FACE_WEIGHTS["side"]
                        if f in ("driver", "passenger") else FACE_WEIGHTS["curb_end"] for f in FACES])
    cars = [b for i, c in enumerate(lot.cars) for b in car_boxes(c, f"Car{i}")]
    scenery = lot.scenery_boxes()
    for _attempt in range(60):
        face = FACES[int(rng.choice(len(FACES), p=weights / weights.sum()))]
        n = np.asarray(FACE_NORMALS[face])
        half = np.array([car.vehicle.length / 2, car.vehicle.width / 2 + 0.15, 0.0])
        along = np.array([n[1], -n[0], 0.0])  # along the face
        extent = float(abs(along) @ half)
        local = n * (float(abs(n) @ half) + float(rng.uniform(0.45, 0.9))) + along * extent * float(rng.uniform(-0.6, 0.6))
        feet = car.to_world(local)[:2]
        facing = face_azimuth_deg(lot, face) + float(rng.normal(0.0, 20.0))
        board = draw_board(rng, feet, facing, face)
        box = technician_footprint(board)
        if any(boxes_overlap(box, b) for b in cars + scenery) or not standable(lot, *feet):
            continue
        return board
    raise ValueError("no room for the technician beside the subject car")


DOCUMENTED_ROWS = ("ro", "vin", "date")  # the writing the requirement asks to be legible end to end


# The pixel-size terms core/feasibility.py bounds over every pose, so an export refuses a positive stratum
# that no frame could pass at its --resolution.
# core/ro_board.py board_texture: the VIN is written at most 26 mm high on a 230 mm board, its centre
# 0.57-0.59 of the height from the top (0.35 is the worst case used).
FEATURES = (Chord("text_row_px", "board_in_frame", 0.026 / BOARD_SIZE_M[1], 0.35),)


# The requirement, written once: {car} names the frame's subject ("the silver sedan"), or NAMED_VEHICLE.
REQUIREMENT = ("a sharp photo of the repair-order board the technician holds, with its RO number, VIN and "
               "date readable, taken nearly square-on to the board and showing at least half of {car} in "
               "the same frame. A wide shot in which the writing is a smudge, or a close-up of the board "
               "without the vehicle, does not meet it.")


class RoBoard(LotEnvironment):
    name = "ro_board"
    features = FEATURES
    subject = "the board"
    poses_per_scene = 4
    lot_options = {"neighbour_share": 0.55, "far_share": 0.5}
    prompt_parts = PromptParts(
        worker="a vehicle-intake technician",
        work="which repair order a vehicle was checked in under",
        requirement=REQUIREMENT.format(car=NAMED_VEHICLE),
        question="What RO number and VIN are written on the board, and what is the vehicle's body style?",
        keys=(DocKey("ro", "string", "the repair-order number written on the board, digits only", skill=READING),
              DocKey("vin", "string", "the 17-character VIN written on the board, exactly as written", skill=READING),
              STYLE_KEY),
    )
    prompt_template = {
        "work": "which repair order {car} was checked in under",
        "requirement": REQUIREMENT,
    }

    def draw_extras(self, scene: LotScene, rng) -> LotScene:
        board = place_technician(scene, stage_rng(rng, "technician"))
        lot = replace(scene.lot, extra_boxes=(technician_footprint(board),))
        return replace(scene, lot=lot, extras={**scene.extras, "board": board})

    def build_extras(self, scene, plan: LotScene, built) -> None:
        from ..bl.ro_board import build_board

        names = build_board(scene, plan.extras["board"])
        built.extras["board"] = names
        built.standing["Technician"] = names["body"]

    def describe_scene(self, plan: LotScene) -> dict:
        b = plan.extras["board"]
        return {**super().describe_scene(plan), "board": {"ro": b.ro, "vin": b.vin, "date": b.date, "face": b.face,
                                                          "feet_xy": [round(v, 3) for v in b.feet_xy],
                                                          "tilt_deg": round(b.board_tilt_deg, 1)}}

    def draw_target(self, plan: LotScene, rng) -> dict:
        return {"board": "RO_Board", "car": "Car0", "car_aim": float(rng.uniform(*CAR_AIM_SHARE))}

    def target_point(self, plan: LotScene, target: dict) -> np.ndarray:
        return plan.extras["board"].frame[0]

    def draw_pose(self, plan: LotScene, target: dict, rng) -> FieldPose:
        center, _, _, normal = plan.extras["board"].frame
        car_center = plan.lot.subject.center
        t = target.get("car_aim", 0.0)
        aim = (1 - t) * center + t * car_center
        return draw_lot_pose(plan.lot, center, math.degrees(math.atan2(normal[1], normal[0])), POSES, rng, aim=aim,
                             elsewhere=lambda r: car_center, line_of_sight=True)

    def mask_targets(self, ctx: FrameContext) -> list[str]:
        return ["RO_Board"]

    def layout(self, ctx: FrameContext):
        names = ctx.built.extras.get("board") if hasattr(ctx.built, "extras") else None
        return names["layout"] if names else board_texture(ctx.plan.extras["board"], worn=False)[1]

    def written_surface(self, ctx: FrameContext) -> WrittenSurface:
        layout = self.layout(ctx)
        return WrittenSurface(ctx.plan.extras["board"].frame, ("RO_Board",),
                              tuple(WrittenField(role, *layout.field_m(role)) for role in DOCUMENTED_ROWS))

    @staticmethod
    def technician_names(ctx: FrameContext) -> tuple:
        """The board and the technician holding it (body, hands, the board's frame): they stand before the car
        by design, so they do not hide it as far as car_seen is concerned."""
        names = ctx.built.extras["board"]
        return (names["board"], *names["body"])

    def measure(self, ctx: FrameContext) -> dict:
        board: BoardPlan = ctx.plan.extras["board"]
        center, right, up, normal = board.frame
        layout = self.layout(ctx)
        group = group_measurements(ctx, ["RO_Board"], n_samples=800)
        camera = group["camera"]
        vin = layout.row("vin")
        vin_at = board.to_world(*layout.center_m(vin.box_px))
        car_in_frame, _ = self.car_in_frame(ctx, camera)
        car_in_sight, car_unoccluded = self.car_unoccluded(ctx, see_through=self.technician_names(ctx))
        return {
            **glyph_terms(ctx, self.written_surface(ctx)),
            **capture_terms(ctx, "board", center, group["in_frame"], group["unoccluded"]),
            "text_row_px": px_per_unit(camera, vin_at, up, layout.cap_height_m("vin")),
            "view_angle": view_angle_deg(camera.position, center, normal),
            "car_in_frame": car_in_frame,
            "car_seen": car_in_sight * car_unoccluded if car_in_sight > 0 else 0.0,
            "car_unoccluded": car_unoccluded,
            "camera_distance_m": float(np.linalg.norm(camera.position - center)),
        }

    def measure_image(self, ctx: FrameContext, frame, display) -> dict:
        mask = frame.mask(self.mask_targets(ctx))
        return {"saturated_fraction": image_terms.saturated_fraction(display, mask),
                "weber_contrast": image_terms.weber_contrast(frame.linear_rgb, mask)}

    def ground_truth(self, ctx: FrameContext) -> dict:
        board: BoardPlan = ctx.plan.extras["board"]
        return {"ro": board.ro, "vin": board.vin, "body_style": ctx.plan.lot.subject.vehicle.style}


ENVIRONMENT = RoBoard()
