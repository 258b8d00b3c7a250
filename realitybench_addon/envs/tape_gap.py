"""tape_gap: a tape measure hooked on the roof and standing up to the module frame.

Ground truth: `gap_in`, the true perpendicular module-to-roof gap; `reading_in`, the
apparent reading, i.e. the blade point the camera sees on the module's front-bottom edge
(parallax included); `tilted`, a lean over 5 degrees. The tilt term is gray when a real
lean over 5 degrees shows as 5 degrees or less in the image (`apparent_tilt_deg`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import geometry
from ..core.doc_fields import FieldRule, JUDGMENT, MEASUREMENT
from ..core.prompt import DocKey, PromptParts
from ..core.rng import stage_rng
from ..core.roof import INCH, RoofPlan, draw_roof_plan
from ..core.tape import TapePlan, blade_axes, draw_tape, module_front_edge
from .base import FieldPose, FrameContext
from .measurements import capture_terms, point_visibility
from .poses import Posture
from .roof_poses import RoofPoseModel, draw_roof_pose, random_array_point
from .roof_scene import RoofEnvironment

POSES = RoofPoseModel(
    postures=(Posture("crouching at the array edge", 0.55, (0.2, 0.7)), Posture("kneeling, close", 0.25, (0.08, 0.25)),
              Posture("standing", 0.2, (1.3, 1.7))),
    distance_m=(0.12, 1.5), azimuth_sd_deg=30.0, aim_sd_deg=5.0, miss_share=0.1)


@dataclass(frozen=True)
class TapeScene:
    roof: RoofPlan
    tape: TapePlan


class TapeGap(RoofEnvironment):
    name = "tape_gap"
    subject = "the tape"
    poses_per_scene = 4
    scene_state_terms = {"tape_tilt": "the tape itself leans: hold it plumb against the module's edge"}
    prompt_parts = PromptParts(
        worker="a solar installer",
        work="the clearance between a solar module and the roof",
        requirement=("a sharp close-up of a tape measure hooked on the roof surface and standing up to the module "
                     "frame, seated flush (square to the roof), photographed from its printed side, with the number "
                     "where the frame's lower edge crosses the tape legible."),
        question=("What number does the module frame's lower edge cross on the tape, what is the true gap between "
                  "the module and the roof, and is the tape leaning?"),
        keys=(DocKey("reading_in", "number", "the tape reading at the frame's edge, in inches, as a decimal number",
                     skill=MEASUREMENT, rule=FieldRule("tolerance", tolerance=1 / 8)),
              DocKey("gap_in", "number", "the true perpendicular gap from roof to module, in inches, as a decimal "
                                         "number", skill=MEASUREMENT, rule=FieldRule("tolerance", tolerance=1 / 4)),
              DocKey("tilted", "boolean", "true if the tape leans more than 5 degrees from square to the roof",
                     skill=JUDGMENT, rule=FieldRule("exact", all_frames=True))),
    )

    def draw_scene(self, rng) -> TapeScene:
        roof = draw_roof_plan(stage_rng(rng, "roof"), partial_install_share=0.3, touching_share=0.2)
        return TapeScene(roof, draw_tape(roof, stage_rng(rng, "tape")))

    def build_extras(self, scene, plan: TapeScene, built) -> None:
        from ..bl.tape import build_tape

        built.extras["tape"] = build_tape(scene, plan.roof, plan.tape)

    def describe_scene(self, plan: TapeScene) -> dict:
        return {**super().describe_scene(plan.roof), "tape": plan.tape.to_dict()}

    def draw_target(self, plan: TapeScene, rng) -> dict:
        return {"tape": 0}

    def _nominal_crossing_uvh(self, plan: TapeScene) -> np.ndarray:
        axis, _, _ = blade_axes(plan.roof, plan.tape)
        return np.array([plan.tape.u, plan.tape.v, 0.0]) + axis * plan.roof.module_bottom_h / axis[2]

    def target_point(self, plan: TapeScene, target: dict) -> np.ndarray:
        return plan.roof.frame.to_world(self._nominal_crossing_uvh(plan))

    def draw_pose(self, plan: TapeScene, target: dict, rng) -> FieldPose:
        return draw_roof_pose(plan.roof, tuple(self._nominal_crossing_uvh(plan)), POSES, rng,
                              elsewhere=random_array_point(plan.roof))

    def mask_targets(self, ctx: FrameContext) -> list[str]:
        return [ctx.built.extras["tape"]["face"], ctx.built.extras["tape"]["blade"]]

    def apparent_reading_m(self, plan: TapeScene, camera_position) -> float:
        roof = plan.roof
        frame = roof.frame
        axis, _, _ = blade_axes(roof, plan.tape)
        edge_a, edge_b = module_front_edge(roof)
        hook = frame.to_world([plan.tape.u, plan.tape.v, 0.0])
        return geometry.apparent_blade_reading(camera_position, frame.to_world(edge_a), frame.to_world(edge_b), hook,
                                               frame.axes @ axis)

    def apparent_tilt_deg(self, camera, plan: TapeScene) -> float:
        """The lean as the image shows it: the angle between the projected blade and the projected roof normal."""
        roof = plan.roof
        axis, _, _ = blade_axes(roof, plan.tape)
        hook = np.array([plan.tape.u, plan.tape.v, 0.0])
        pts = roof.frame.to_world(np.stack([hook, hook + 0.1 * axis, hook + np.array([0, 0, 0.1])]))
        uv, depth = camera.project(pts)
        if np.any(depth <= 0):
            return float("nan")
        a, b = uv[1] - uv[0], uv[2] - uv[0]
        return geometry.angle_between_deg(a, b)

    def measure(self, ctx: FrameContext) -> dict:
        plan: TapeScene = ctx.plan
        camera = ctx.pinhole()
        frame = plan.roof.frame
        axis, face, _ = blade_axes(plan.roof, plan.tape)
        reading = self.apparent_reading_m(plan, camera.position)
        on_blade = 0.0 <= reading <= plan.tape.length_m
        crossing = frame.to_world(np.array([plan.tape.u, plan.tape.v, 0.0]) + reading * axis)
        face_world = frame.axes @ face
        in_frame = bool(on_blade and camera.in_frame(crossing[None])[0])
        visible = bool(on_blade and point_visibility(ctx, crossing + 0.0005 * face_world, self.mask_targets(ctx))[0])
        return {
            **capture_terms(ctx, "crossing", crossing, in_frame, visible),
            "camera_distance": float(np.linalg.norm(camera.position - crossing)),
            "tape_tilt": plan.tape.lean_deg,
            "apparent_tilt_deg": self.apparent_tilt_deg(camera, plan),
            "viewed_from_blade_front": bool(np.dot(camera.position - crossing, face_world) > 0),
            "apparent_reading_in": reading / INCH,
        }

    def ground_truth(self, ctx: FrameContext) -> dict:
        plan: TapeScene = ctx.plan
        camera = ctx.pinhole()
        return {"reading_in": round(self.apparent_reading_m(plan, camera.position) / INCH, 4),
                "gap_in": round(plan.roof.module_bottom_h / INCH, 4),
                "tilted": plan.tape.tilted}


ENVIRONMENT = TapeGap()
