"""wire_adequacy: the underside of the array, close enough to judge the wiring.

Target: one lead wire of an end column (the worker crouches beside the array and holds the
phone low, looking along the rows under the modules). Ground truth `touching`: any wire
of the scene whose surface reaches the roof (clearance <= 0), read from the plan.
"""
from __future__ import annotations

import numpy as np

from ..core import image_terms
from ..core.doc_fields import JUDGMENT
from ..core.prompt import DocKey, PromptParts
from ..core.roof import RoofPlan, Wire, wire_clearance
from .base import FieldPose, FrameContext
from .measurements import capture_terms, group_measurements, point_visibility
from .poses import Posture
from .roof_poses import RoofPoseModel, draw_roof_pose, random_array_point
from .roof_scene import RoofEnvironment

POSES = RoofPoseModel(
    postures=(Posture("phone held low under the array edge", 0.6, (0.03, 0.09)),
              Posture("crouching", 0.25, (0.35, 0.9)), Posture("standing", 0.2, (1.3, 1.7))),
    distance_m=(0.3, 3.5), azimuth_sd_deg=30.0, aim_sd_deg=6.0, miss_share=0.1)


def _lead(plan: RoofPlan, name: str) -> Wire:
    return next(w for w in plan.wires if w.name == name)


class WireAdequacy(RoofEnvironment):
    name = "wire_adequacy"
    subject = "the wire's low point"
    poses_per_scene = 4
    roof_options = {"partial_install_share": 0.3}
    prompt_parts = PromptParts(
        worker="a solar installer",
        work="how the wiring under a rooftop solar array was run",
        requirement=("a sharp view under the array, close enough to see the lead wires and the trunk cable well "
                     "enough to tell whether any wire touches the roof or is bent hard."),
        question="Does any wire under the array touch the roof surface?",
        keys=(DocKey("touching", "boolean", "true if any wire touches the roof, false if none does", skill=JUDGMENT),),
    )

    def draw_target(self, plan: RoofPlan, rng) -> dict:
        last = plan.installed_cols - 1
        leads = [w.name for w in plan.wires if w.kind == "lead"
                 and ("c0_" in w.name or f"c{last}_" in w.name)]
        name = leads[int(rng.integers(len(leads)))]
        # the array's end the wire hangs at (-1 first column, +1 last); not "side", which is a face name elsewhere
        return {"wire": name, "array_end": -1 if "c0_" in name else 1}

    def _low_point_uvh(self, plan: RoofPlan, target: dict) -> np.ndarray:
        wire = _lead(plan, target["wire"])
        _, i = wire_clearance(plan, wire)
        return np.asarray(wire.points_uvh[i])

    def target_point(self, plan: RoofPlan, target: dict) -> np.ndarray:
        return plan.frame.to_world(self._low_point_uvh(plan, target))

    def draw_pose(self, plan: RoofPlan, target: dict, rng) -> FieldPose:
        # beside the array's end column, looking along the rows under the modules
        return draw_roof_pose(plan, tuple(self._low_point_uvh(plan, target)), POSES, rng,
                              elsewhere=random_array_point(plan), azimuth_center_deg=90.0 * target["array_end"])

    def mask_targets(self, ctx: FrameContext) -> list[str]:
        return [ctx.target["wire"]]

    def measure(self, ctx: FrameContext) -> dict:
        names = self.mask_targets(ctx)
        group = group_measurements(ctx, names, n_samples=1200)
        camera = group["camera"]
        wire = _lead(ctx.plan, ctx.target["wire"])
        low = self.target_point(ctx.plan, ctx.target)
        # the wire's surface at its low point, on the side facing the camera
        toward = camera.position - low
        low_surface = low + wire.radius_m * toward / np.linalg.norm(toward)
        low_visible = bool(camera.in_frame(low_surface[None])[0] and point_visibility(ctx, low_surface, names)[0])
        return {
            **capture_terms(ctx, "wire", low, group["in_frame"], group["unoccluded"]),
            "wire_low_point_visible": low_visible,
            "camera_distance": float(np.linalg.norm(camera.position - low)),
        }

    def measure_image(self, ctx: FrameContext, frame, display) -> dict:
        mask = frame.mask(self.mask_targets(ctx))
        return {"wire_pixels": image_terms.pixel_share(mask),
                "wire_edge_contrast": image_terms.edge_contrast(frame.linear_rgb, mask)}

    def ground_truth(self, ctx: FrameContext) -> dict:
        return {"touching": any(wire_clearance(ctx.plan, w)[0] <= 0.0 for w in ctx.plan.wires)}


ENVIRONMENT = WireAdequacy()
