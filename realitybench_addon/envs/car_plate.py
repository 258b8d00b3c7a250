"""car_plate: a straight-on close-up of the named car's mounted licence plate.

The subject carries a US plate (core/plate.py: the state's name, characters in that state's
usual format, a slogan) on its rear mount, and on its front mount too in states that require
one. The target is one of its mounted plates. Ground truth: `plate` (the characters as
printed) and `state`. The character height comes from the plate's layout as drawn, so px per
character is measured on the row actually printed. As in the paper, the terms are computed
and exported but acceptability is not scored for this environment (preset:
acceptability_scored = false).
"""
from __future__ import annotations

import math

import numpy as np

from ..core import image_terms
from ..core.doc_fields import READING
from ..core.feasibility import Chord
from ..core.optics import px_per_unit, view_angle_deg
from ..core.plate import MAX_CHAR_HEIGHT_MM, PLATE_PX_PER_MM, plate_texture
from ..core.prompt import DocKey, PromptParts
from ..core.vehicle_details import PLATE_SIZE_M
from ..core.vehicle_geometry import vehicle_geometry
from .base import FieldPose, FrameContext
from .lot_poses import LotPoseModel, draw_lot_pose
from .lot_scene import NAMED_VEHICLE, LotEnvironment, LotScene
from .measurements import WrittenField, WrittenSurface, capture_terms, glyph_terms, group_measurements
from .poses import Posture

POSES = LotPoseModel(
    postures=(Posture("crouching at the bumper", 0.4, (0.45, 0.9)), Posture("standing", 0.6, (1.25, 1.7))),
    distance_m=(0.35, 6.0), azimuth_sd_deg=28.0, aim_sd_deg=5.0, miss_share=0.1)

PLATE_OFFSET_M = 0.013  # the plate stands this far out of its mount point (bl/parking_lot.py)


def plate_pose(scene: LotScene, end: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """World centre, reading right, up and normal of the subject's plate at `end`."""
    car = scene.lot.subject
    mount = vehicle_geometry(car.vehicle).plate_mounts[end]
    n = car.direction(mount.normal)
    up = np.array([0.0, 0.0, 1.0])
    center = car.to_world(mount.center) + PLATE_OFFSET_M * n
    return center, np.cross(up, n), up, n


DOCUMENTED_ROWS = ("characters", "state")  # the plate's characters and its state's name, read off the image


# The pixel-size terms core/feasibility.py bounds over every pose, so an export refuses a positive stratum
# that no frame could pass at its --resolution.
# core/plate.py plate_texture: characters at most MAX_CHAR_HEIGHT_MM high, baseline 114 mm below the top
# of the 152 mm plate: their centre is at least 38 mm from the bottom edge.
_PLATE_HEIGHT_MM = PLATE_SIZE_M[1] * 1000
FEATURES = (Chord("char_cell_px", "plate_in_frame", MAX_CHAR_HEIGHT_MM / _PLATE_HEIGHT_MM,
                  (_PLATE_HEIGHT_MM - 114.0) / _PLATE_HEIGHT_MM),)


# The requirement, written once: {car} names the frame's subject ("the silver sedan"), or NAMED_VEHICLE.
REQUIREMENT = ("a sharp, straight-on close-up of the licence plate mounted on {car} in which every "
               "character can be read from end to end. A wide shot in which the characters are too small "
               "to read, or a photo of another vehicle's plate, does not meet it.")


class CarPlate(LotEnvironment):
    name = "car_plate"
    features = FEATURES
    subject = "the plate"
    poses_per_scene = 4
    lot_options = {"neighbour_share": 0.55, "far_share": 0.5}
    prompt_parts = PromptParts(
        worker="a vehicle-intake technician",
        work="which vehicle was checked in, read from its licence plate",
        requirement=REQUIREMENT.format(car=NAMED_VEHICLE),
        question="What are the plate's characters, and which state issued the plate?",
        keys=(DocKey("plate", "string", "the plate's characters exactly as printed, in order (letters and digits)",
                     skill=READING),
              DocKey("state", "string", 'the issuing state\'s name as printed on the plate, for example "TEXAS"',
                     skill=READING)),
    )
    prompt_template = {
        "work": "which vehicle was checked in, read from the licence plate of {car}",
        "requirement": REQUIREMENT,
    }

    def draw_target(self, plan: LotScene, rng) -> dict:
        ends = ["rear", "front"] if plan.lot.subject.front_plate else ["rear"]
        return {"car": "Car0", "plate": ends[int(rng.integers(len(ends)))]}

    def target_point(self, plan: LotScene, target: dict) -> np.ndarray:
        return plate_pose(plan, target["plate"])[0]

    def draw_pose(self, plan: LotScene, target: dict, rng) -> FieldPose:
        center, _, _, normal = plate_pose(plan, target["plate"])
        lot = plan.lot

        def elsewhere(r):  # another car's plate
            others = lot.cars[1:]
            if not others:
                return center + 2.0 * normal
            car = others[int(r.integers(len(others)))]
            return car.to_world(vehicle_geometry(car.vehicle).plate_mounts["rear"].center)

        return draw_lot_pose(lot, center, math.degrees(math.atan2(normal[1], normal[0])), POSES, rng,
                             elsewhere=elsewhere, line_of_sight=True)

    def mask_targets(self, ctx: FrameContext) -> list[str]:
        return [ctx.built.plates[(0, ctx.target["plate"])]]

    def layout(self, ctx: FrameContext):
        drawn = ctx.built.plate_layouts.get((0, ctx.target["plate"])) if hasattr(ctx.built, "plate_layouts") else None
        return drawn if drawn is not None else plate_texture(ctx.plan.lot.subject.plate, PLATE_PX_PER_MM)[1]

    def written_surface(self, ctx: FrameContext) -> WrittenSurface:
        layout = self.layout(ctx)
        return WrittenSurface(plate_pose(ctx.plan, ctx.target["plate"]), tuple(self.mask_targets(ctx)),
                              tuple(WrittenField(role, *layout.field_m(role)) for role in DOCUMENTED_ROWS))

    def measure(self, ctx: FrameContext) -> dict:
        center, right, up, normal = plate_pose(ctx.plan, ctx.target["plate"])
        layout = self.layout(ctx)
        group = group_measurements(ctx, self.mask_targets(ctx), n_samples=800)
        camera = group["camera"]
        row = layout.row("characters")
        x, y = layout.center_m(row.box_px)
        row_center = center + x * right + y * up
        return {
            **glyph_terms(ctx, self.written_surface(ctx),
                          {"glyph_px_min": ("characters",), "state_glyph_px_min": ("state",)}),
            **capture_terms(ctx, "plate", center, group["in_frame"], group["unoccluded"]),
            "char_cell_px": px_per_unit(camera, row_center, up, layout.char_height_m),
            "view_angle": view_angle_deg(camera.position, center, normal),
            "plate_bbox": group["bbox"],
            "camera_distance_m": float(np.linalg.norm(camera.position - center)),
        }

    def measure_image(self, ctx: FrameContext, frame, display) -> dict:
        mask = frame.mask(self.mask_targets(ctx))
        return {"weber_contrast": image_terms.weber_contrast(frame.linear_rgb, mask),
                "saturated_fraction": image_terms.saturated_fraction(display, mask)}

    def ground_truth(self, ctx: FrameContext) -> dict:
        plate = ctx.plan.lot.subject.plate
        return {"plate": plate.text, "state": plate.state}


ENVIRONMENT = CarPlate()
