"""equipment_label: a square-on close-up of an equipment data label, model and serial readable.

Each scene has one labelled piece of equipment (core/equipment.py): the back of an
installed module at the array's end (reached with the phone held low under the array), a
microinverter bolted to a bare rail (label up, before its module goes on), or the string
inverter on the house wall (label on a side face, the worker on the ground). Ground truth:
`brand`, `model`, `serial`, `on`. The label's row pitch and the barcode's module width come
from the label's layout, so px per row and px per bar are measured, not guessed.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core import image_terms
from ..core.doc_fields import JUDGMENT, READING
from ..core.equipment import (CAP_PER_PITCH, KINDS, LABEL_SIZES, EquipmentLabel, EquipmentPlacement, draw_label,
                              label_layout, place_inverter, place_microinverter, place_on_module_back)
from ..core.feasibility import Chord
from ..core.optics import px_per_unit, view_angle_deg
from ..core.prompt import DocKey, PromptParts
from ..core.rng import log_uniform, stage_rng
from ..core.roof import WALL_INSET_M, RoofPlan, draw_roof_plan
from .base import FieldPose, FrameContext
from .measurements import WrittenField, WrittenSurface, capture_terms, glyph_terms, group_measurements
from .poses import Posture, aim_with_error
from .roof_poses import RoofPoseModel, draw_roof_pose, random_array_point
from .roof_scene import RoofEnvironment

DOCUMENTED_ROWS = ("brand", "model", "serial")  # read off the label: the brand, the model and serial numbers
PRINTED_PREFIXES = {"model": "MODEL NO. ", "serial": "S/N: "}  # printed before the values, not part of them
KIND_SHARES = (0.35, 0.35, 0.3)  # module back, microinverter, inverter
EQUIPMENT_SEEN_MIN = 0.01  # share of the equipment's (non-label) surface samples seen: "some of it in view"

MODULE_BACK_POSES = RoofPoseModel(
    postures=(Posture("phone held low under the array edge", 0.55, (0.03, 0.08)),
              Posture("crouching beside the array", 0.3, (0.35, 0.9)), Posture("standing", 0.15, (1.3, 1.7))),
    distance_m=(0.12, 2.5), azimuth_sd_deg=25.0, aim_sd_deg=6.0, miss_share=0.1)
MICRO_POSES = RoofPoseModel(
    postures=(Posture("crouching at the rail", 0.45, (0.45, 0.9), reach_m=(0.1, 0.6)),
              Posture("kneeling, reaching out over it", 0.3, (0.3, 0.6), reach_m=(0.2, 0.7)),
              Posture("standing", 0.25, (1.35, 1.7))),
    distance_m=(0.12, 2.5), azimuth_sd_deg=40.0, aim_sd_deg=5.0, miss_share=0.1)


@dataclass(frozen=True)
class GroundPoseModel:
    """A worker on the ground in front of a wall-mounted label."""

    distance_m: tuple[float, float] = (0.2, 3.0)  # from the label, log-uniform
    azimuth_sd_deg: float = 40.0  # around the label's normal
    height_m: tuple[float, float] = (1.1, 1.75)  # the phone above the ground
    aim_sd_deg: float = 5.0
    wide_share: float = 0.15  # aimed at the whole inverter instead of its label
    roll_sd_deg: float = 4.0


INVERTER_POSES = GroundPoseModel()
UNDER_MODULE_SHARE = 0.4  # module backs: the phone slid under the module, camera up at the backsheet


def draw_under_module_pose(plan: RoofPlan, placement: EquipmentPlacement, rng: np.random.Generator) -> FieldPose:
    """The phone slid face-up into the gap under an end module, a hand's width from the label.

    Clear of the rails (the label sits between them) and of the shingles; only this pose sees a
    module's back label square-on: from beside the array the frame's bar hides it.
    """
    label_uvh = plan.frame.to_roof(placement.label_pose.center)
    u = label_uvh[0] + placement.side * rng.uniform(-0.04, 0.1)  # a little towards the edge it came in from
    v = label_uvh[1] + rng.normal(0.0, 0.04)
    h = rng.uniform(0.015, max(0.02, plan.foot_height_m - 0.02))
    position = plan.frame.to_world([u, v, h])
    aim = aim_with_error(rng, position, np.asarray(placement.label_pose.center), 8.0)
    return FieldPose(tuple(map(float, position)), tuple(map(float, aim)), float(rng.uniform(-180.0, 180.0)),
                     "phone slid under the module, facing up")


def draw_ground_pose(placement: EquipmentPlacement, model: GroundPoseModel, rng: np.random.Generator) -> FieldPose:
    center = np.asarray(placement.label_pose.center)
    normal = np.asarray(placement.label_pose.normal)
    base = math.atan2(normal[1], normal[0])
    d = log_uniform(rng, *model.distance_m)
    az = base + math.radians(rng.normal(0.0, model.azimuth_sd_deg))
    position = np.array([center[0] + d * math.cos(az), center[1] + d * math.sin(az), rng.uniform(*model.height_m)])
    position[1] = min(position[1], WALL_INSET_M - 0.12)  # in front of the wall, not inside the house
    if rng.random() < model.wide_share:
        x, wall_y, z = placement.body_origin
        aim = aim_with_error(rng, position, np.array([x, wall_y - 0.1, z]), 8.0)
        posture = "standing, the whole inverter in view"
    else:
        aim = aim_with_error(rng, position, center, model.aim_sd_deg)
        posture = "standing at the wall"
    return FieldPose(tuple(map(float, position)), tuple(map(float, aim)), float(rng.normal(0.0, model.roll_sd_deg)),
                     posture)


@dataclass(frozen=True)
class EquipmentScene:
    roof: RoofPlan
    label: EquipmentLabel
    placement: EquipmentPlacement


# The pixel-size terms core/feasibility.py bounds over every pose, so an export refuses a positive stratum
# that no frame could pass at its --resolution.
# core/equipment.py label_texture: the serial row's text centre sits about 4 row pitches below the
# label's top (>= 0.22 of its height), the barcode's centre about 0.24 of its width from the left.
FEATURES = (Chord("text_row_px", "label_in_frame", max(s.row_pitch_m / s.height_m for s in LABEL_SIZES.values()),
                  0.20),
            Chord("barcode_bar_px", "label_in_frame", max(s.bar_module_m / s.width_m for s in LABEL_SIZES.values()),
                  0.20))


class EquipmentLabelEnv(RoofEnvironment):
    name = "equipment_label"
    features = FEATURES
    subject = "the label"
    poses_per_scene = 4
    prompt_parts = PromptParts(
        worker="a solar installer",
        work="which equipment was installed, read from its data label",
        requirement=("a sharp, square-on close-up of the equipment's data label (on the back of a solar module, on "
                     "a microinverter, or on the inverter) in which the model number, the serial number and the "
                     "barcode can be read, with a little of the equipment or its mounting around the label in view."),
        question="What brand, model number and serial number does the label show, and what equipment is it on?",
        keys=(DocKey("brand", "string", "the brand name on the label", skill=READING),
              DocKey("model", "string", "the model number, exactly as printed", skill=READING),
              DocKey("serial", "string", "the serial number, exactly as printed", skill=READING),
              DocKey("on", "string", 'the equipment the label is on: "module", "microinverter" or "inverter"',
                     skill=JUDGMENT)),
    )

    def draw_scene(self, rng) -> EquipmentScene:
        kind = str(stage_rng(rng, "kind").choice(KINDS, p=KIND_SHARES))
        # a microinverter is photographed on a bare rail, before its module goes on
        roof = draw_roof_plan(stage_rng(rng, "roof"), partial_install_share=1.0 if kind == "microinverter" else 0.3)
        label = draw_label(kind, stage_rng(rng, "label"))
        prng = stage_rng(rng, "placement")
        if kind == "module":
            placement = place_on_module_back(roof, prng)
        elif kind == "microinverter":
            placement = place_microinverter(roof, prng)
        else:
            placement = place_inverter(roof, prng, WALL_INSET_M)
        return EquipmentScene(roof, label, placement)

    def build_extras(self, scene, plan: EquipmentScene, built) -> None:
        from ..bl.equipment import build_inverter, build_label, build_microinverter

        kind = plan.placement.kind
        if kind == "module":
            body = list(built.modules[plan.placement.module])
        elif kind == "microinverter":
            body = build_microinverter(scene, plan.roof, plan.placement)
        else:
            body = build_inverter(scene, plan.roof, plan.placement)
        built.extras["equipment"] = {"label": build_label(scene, plan.label, plan.placement), "body": body}

    def describe_scene(self, plan: EquipmentScene) -> dict:
        return {**super().describe_scene(plan.roof), "equipment": plan.placement.kind,
                "label": plan.label.to_dict(), "placement": plan.placement.to_dict()}

    def draw_target(self, plan: EquipmentScene, rng) -> dict:
        return {"equipment": plan.placement.kind}

    def target_point(self, plan: EquipmentScene, target: dict) -> np.ndarray:
        return np.asarray(plan.placement.label_pose.center)

    def draw_pose(self, plan: EquipmentScene, target: dict, rng) -> FieldPose:
        placement = plan.placement
        if placement.kind == "inverter":
            return draw_ground_pose(placement, INVERTER_POSES, rng)
        center_uvh = tuple(plan.roof.frame.to_roof(placement.label_pose.center))
        if placement.kind == "module":
            if rng.random() < UNDER_MODULE_SHARE:
                return draw_under_module_pose(plan.roof, placement, rng)
            return draw_roof_pose(plan.roof, center_uvh, MODULE_BACK_POSES, rng, elsewhere=random_array_point(plan.roof),
                                  azimuth_center_deg=90.0 * placement.side)
        return draw_roof_pose(plan.roof, center_uvh, MICRO_POSES, rng, elsewhere=random_array_point(plan.roof))

    def mask_targets(self, ctx: FrameContext) -> list[str]:
        return [ctx.built.extras["equipment"]["label"]]

    def written_surface(self, ctx: FrameContext) -> WrittenSurface:
        """The brand, model and serial; each character's size is its row's height (capitals over
        CAP_PER_PITCH), the unit of text_row_px."""
        layout = label_layout(ctx.plan.label)
        pose = ctx.plan.placement.label_pose
        fields = []
        for role in DOCUMENTED_ROWS:
            text, boxes, cap_m = layout.field_m(role, PRINTED_PREFIXES.get(role, ""))
            fields.append(WrittenField(role, text, boxes, cap_m / CAP_PER_PITCH))
        return WrittenSurface((pose.center, pose.right, pose.up, pose.normal), tuple(self.mask_targets(ctx)),
                              tuple(fields))

    def measure(self, ctx: FrameContext) -> dict:
        plan: EquipmentScene = ctx.plan
        pose = plan.placement.label_pose
        layout = label_layout(plan.label)
        group = group_measurements(ctx, self.mask_targets(ctx), n_samples=800)
        camera = group["camera"]
        center = np.asarray(pose.center)
        # the serial row and the barcode are what must be read: measure at their own places on the label
        serial_row = next(r for r in layout.rows if r.role == "serial")
        serial_at = pose.to_world(*layout.center_m(serial_row.box_px))
        bars_at = pose.to_world(*layout.center_m(layout.barcode_box_px))
        body = group_measurements(ctx, ctx.built.extras["equipment"]["body"], n_samples=800)
        return {
            **glyph_terms(ctx, self.written_surface(ctx)),
            **capture_terms(ctx, "label", center, group["in_frame"], group["unoccluded"]),
            "text_row_px": px_per_unit(camera, serial_at, pose.up, layout.row_pitch_m),
            "barcode_bar_px": px_per_unit(camera, bars_at, pose.right, layout.bar_module_m),
            "view_angle": view_angle_deg(camera.position, center, pose.normal),
            "equipment_in_view": bool(body["seen"] >= EQUIPMENT_SEEN_MIN),
            "equipment_seen": body["seen"],
            "camera_distance": float(np.linalg.norm(camera.position - center)),
        }

    def measure_image(self, ctx: FrameContext, frame, display) -> dict:
        mask = frame.mask(self.mask_targets(ctx))
        return {"saturated_fraction": image_terms.saturated_fraction(display, mask),
                "paper_luminance": image_terms.paper_luminance(frame.linear_rgb, mask),
                "weber_contrast": image_terms.weber_contrast(frame.linear_rgb, mask)}

    def ground_truth(self, ctx: FrameContext) -> dict:
        label: EquipmentLabel = ctx.plan.label
        return {"brand": label.brand, "model": label.model, "serial": label.serial, "on": label.kind}


ENVIRONMENT = EquipmentLabelEnv()
