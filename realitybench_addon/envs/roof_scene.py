"""The roof scene shared by the roof environments: draw, build, and the measurements they share."""
from __future__ import annotations

import numpy as np

from ..core import geometry
from ..core.roof import RoofPlan, draw_roof_plan
from ..core.rng import stage_rng
from .base import Environment, FrameContext


class RoofEnvironment(Environment):
    """An environment on the roof scene; subclasses set `roof_options` (see `draw_roof_plan`)."""

    scene_kind = "roof"
    roof_options: dict = {}

    def draw_scene(self, rng: np.random.Generator) -> RoofPlan:
        return draw_roof_plan(stage_rng(rng, "roof"), **self.roof_options)

    def build(self, scene, plan: RoofPlan, rng: np.random.Generator):
        from ..bl.roof import build_roof_scene

        return build_roof_scene(scene, plan, stage_rng(rng, "roof-cosmetic"))

    def describe_scene(self, plan: RoofPlan) -> dict:
        return {"kind": "roof", "pitch_deg": round(plan.pitch_deg, 2), "style": plan.style, "rows": plan.rows,
                "cols": plan.cols, "installed_cols": plan.installed_cols, "siding": plan.siding,
                "shingle_color": plan.shingle_color, "chimney": plan.chimney is not None,
                "module_gap_to_roof_m": round(plan.module_bottom_h, 4), "touching_wire": plan.touching_wire,
                "sun_elevation_deg": round(plan.sun_elevation_deg, 1), "sun_azimuth_deg": round(plan.sun_azimuth_deg, 1)}


def group_measurements(ctx: FrameContext, names: list[str], n_samples: int = 1500) -> dict:
    """in-frame, unoccluded, seen and bbox fractions of a target made of `names`, for the frame's camera."""
    import bpy

    from ..bl.measure import sample_target, visibility
    from ..bl.scene_data import pinhole_camera

    depsgraph = bpy.context.evaluated_depsgraph_get()
    camera = pinhole_camera(ctx.camera, ctx.scene)
    points, _, _ = sample_target(names, depsgraph, n_samples)
    in_frame = camera.in_frame(points)
    visible = visibility(ctx.scene, camera, points, names, depsgraph)
    return {"in_frame": float(in_frame.mean()), "unoccluded": float(visible.mean()),
            "seen": float((in_frame & visible).mean()),  # in frame and not hidden: what the photo shows of it
            "bbox": geometry.bbox_fraction(camera, points), "camera": camera}


def point_visibility(ctx: FrameContext, points_world: np.ndarray, names: list[str]) -> np.ndarray:
    """Per point: not blocked by anything but the target's own parts."""
    from ..bl.measure import visibility
    from ..bl.scene_data import pinhole_camera

    camera = pinhole_camera(ctx.camera, ctx.scene)
    return visibility(ctx.scene, camera, np.atleast_2d(points_world), names)


def blur_at(ctx: FrameContext, point_world) -> float:
    from ..bl.measure import blur_for_camera, camera_capture
    from ..bl.scene_data import pinhole_camera

    camera = pinhole_camera(ctx.camera, ctx.scene)
    return blur_for_camera(ctx.camera, ctx.scene, camera, np.asarray(point_world, float),
                           camera_capture(ctx.camera)).total_px


def disk_points(center_uvh, radius: float, plan: RoofPlan, n: int = 24) -> np.ndarray:
    """Points on a small disk in the roof plane around a roof point (world coordinates)."""
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    r = radius * np.sqrt((np.arange(n) + 0.5) / n)
    uvh = np.column_stack([center_uvh[0] + r * np.cos(a * 7.0), center_uvh[1] + r * np.sin(a * 7.0),
                           np.full(n, center_uvh[2])])
    return plan.frame.to_world(uvh)
