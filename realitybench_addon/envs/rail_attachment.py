"""rail_attachment: a close-up of one roof attachment (L-foot, flashing, lag bolt).

Target: one attachment, drawn per frame (bare-rail attachments of a half-installed array
are favoured: that is when installers photograph them). The lag-bolt spot (where the bolt
sits, or would sit) is its own target. Scenes sometimes omit the bolt or the flashing;
such frames are unscored for acceptability (spec).
"""
from __future__ import annotations

import numpy as np

from ..core.doc_fields import JUDGMENT
from ..core.prompt import DocKey, PromptParts
from ..core.roof import RoofPlan, bolt_spot_uvh
from .base import FieldPose, FrameContext
from .measurements import capture_terms, group_measurements, point_visibility
from .poses import Posture
from .roof_poses import RoofPoseModel, draw_roof_pose, on_modules, random_array_point
from .roof_scene import RoofEnvironment, disk_points

BOLT_SPOT_RADIUS_M = 0.012
HIDDEN_DEPTH_M = 0.5  # under the modules, this far in from the array's edge no phone sees an attachment

POSES = RoofPoseModel(
    postures=(Posture("standing", 0.45, (1.35, 1.7)), Posture("crouching", 0.35, (0.7, 1.1)),
              Posture("kneeling, leaning in", 0.2, (0.3, 0.65))),
    distance_m=(0.35, 7.0), azimuth_sd_deg=55.0, aim_sd_deg=5.0, miss_share=0.25)


class RailAttachment(RoofEnvironment):
    name = "rail_attachment"
    subject = "the attachment"
    poses_per_scene = 4
    # Attachments are photographed while the array goes up: most scenes still show bare rails.
    roof_options = {"partial_install_share": 0.85, "min_installed_cols": 0}
    prompt_parts = PromptParts(
        worker="a solar installer",
        work="how one roof attachment of a solar array was installed",
        requirement=("a sharp close-up of a single roof attachment, near enough that the L-foot, the flashing "
                     "slipped under the shingles and the lag bolt through the foot can each be inspected. A wide "
                     "shot of the array where the attachment is a small speck does not meet it."),
        question="Is the lag bolt in place through the L-foot, and is flashing installed under the foot?",
        keys=(DocKey("lag_present", "boolean", "true if the lag bolt is in place, false if it is missing",
                     skill=JUDGMENT),
              DocKey("flashing_present", "boolean", "true if flashing is installed under the foot, false if not",
                     skill=JUDGMENT)),
    )

    def draw_target(self, plan: RoofPlan, rng) -> dict:
        """Mostly an attachment on a bare rail (modules not yet over it); sometimes any attachment."""
        bare_u = plan.module_origin(0, plan.installed_cols)[0] if plan.installed_cols < plan.cols else np.inf
        bare = [a.index for a in plan.attachments if a.u > bare_u - 0.02]
        if bare and rng.random() < 0.9:
            return {"attachment": int(bare[int(rng.integers(len(bare)))])}
        return {"attachment": int(rng.integers(len(plan.attachments)))}

    def _spot_uvh(self, plan: RoofPlan, target: dict) -> tuple[float, float, float]:
        """The bolt spot as a camera sees it: the top of the bolt head, or the bare plate."""
        return bolt_spot_uvh(plan.attachments[target["attachment"]], head_top=True)

    def scene_state(self, plan: RoofPlan, target: dict) -> dict:
        """An attachment under the installed modules, more than HIDDEN_DEPTH_M in from the array's edges, is
        seen from nowhere a phone can be: no move fixes its visibility terms."""
        a = plan.attachments[target["attachment"]]
        if not plan.installed_cols or not on_modules(plan, a.u, a.v, margin=0.0):
            return {}
        u1 = plan.module_origin(0, plan.installed_cols - 1)[0] + plan.module_width_m
        v1 = plan.module_origin(plan.rows - 1, 0)[1] + plan.module_length_m
        depth = min(a.u - plan.array_u0, u1 - a.u, a.v - plan.array_v0, v1 - a.v)
        if depth < HIDDEN_DEPTH_M:
            return {}
        why = (f"the attachment is under the installed modules, {depth:.1f} m in from the array's edge: no phone "
               "position sees it (photograph it before the modules go on)")
        return {"attachment_unoccluded": why, "bolt_spot_unoccluded": why}

    def target_point(self, plan: RoofPlan, target: dict) -> np.ndarray:
        return plan.frame.to_world(self._spot_uvh(plan, target))

    def draw_pose(self, plan: RoofPlan, target: dict, rng) -> FieldPose:
        return draw_roof_pose(plan, self._spot_uvh(plan, target), POSES, rng, elsewhere=random_array_point(plan))

    def mask_targets(self, ctx: FrameContext) -> list[str]:
        return ctx.built.attachments[ctx.target["attachment"]].target

    def measure(self, ctx: FrameContext) -> dict:
        names = self.mask_targets(ctx)
        group = group_measurements(ctx, names)
        spot = self.target_point(ctx.plan, ctx.target)
        spot_points = disk_points(self._spot_uvh(ctx.plan, ctx.target), BOLT_SPOT_RADIUS_M, ctx.plan)
        spot_visible = point_visibility(ctx, spot_points, names)
        return {
            **capture_terms(ctx, "attachment", spot, group["in_frame"], group["unoccluded"]),
            "bolt_spot_unoccluded": float(spot_visible.mean()),
            "attachment_bbox": group["bbox"],
            "camera_distance": float(np.linalg.norm(group["camera"].position - spot)),
        }

    def ground_truth(self, ctx: FrameContext) -> dict:
        a = ctx.plan.attachments[ctx.target["attachment"]]
        return {"lag_present": a.lag_present, "flashing_present": a.flashing_present}

    def unscored_reason(self, plan: RoofPlan, target: dict):
        a = plan.attachments[target["attachment"]]
        missing = [part for part, present in (("lag bolt", a.lag_present), ("flashing", a.flashing_present))
                   if not present]
        return f"{' and '.join(missing)} missing from the scene" if missing else None


ENVIRONMENT = RailAttachment()
