"""slope_gauge: a digital angle gauge on a module, aligned with the slope, its display legible.

Target: the gauge's LCD. Ground truth: `reading_deg`, what the display shows (the tilt of
the gauge's own long axis, so a yawed gauge under-reads: core/gauge.py), and `on_module`.
The module it lies on is its own target twice over: some of its glass must be in frame,
and enough of its frame's pixels (`module_edge_pixels`) for a reviewer to recognise it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import image_terms
from ..core.doc_fields import FieldRule, JUDGMENT, READING
from ..core.feasibility import Chord, PixelCount
from ..core.gauge import DIGIT_HEIGHT_M, WINDOW_ALONG_M, GaugePlan, display_layout, draw_gauge, module_outline_uvh
from ..core.optics import px_per_unit, view_angle_deg
from ..core.prompt import DocKey, PromptParts
from ..core.rng import stage_rng
from ..core.roof import RoofPlan, draw_roof_plan
from .base import FieldPose, FrameContext
from ..core.terms import TermSpec
from .measurements import WrittenField, WrittenSurface, capture_terms, glyph_terms, group_measurements, point_visibility
from .poses import Posture
from .roof_poses import RoofPoseModel, draw_roof_pose, random_array_point
from .roof_scene import RoofEnvironment

POSES = RoofPoseModel(
    postures=(Posture("crouching at the array edge", 0.45, (0.5, 1.0), reach_m=(0.2, 0.8)),
              Posture("kneeling, reaching out over it", 0.35, (0.4, 0.8), reach_m=(0.3, 0.9)),
              Posture("standing", 0.2, (1.35, 1.7))),
    distance_m=(0.1, 0.9), azimuth_sd_deg=40.0, aim_sd_deg=5.0, miss_share=0.1)

GLASS_VISIBLE_MIN = 0.01  # share of the module glass's samples seen in frame for "some glass is visible"
# module_edge_pixels (>= 300 px of the module's frame) is read off the render; this share of the frame's outline
# in frame and unblocked stands in for it when Suggest a Pose searches: over 32 frames of seed 0, outline 0
# went with 0-268 px and any outline above 0.004 with 10,000 px or more.
MODULE_OUTLINE_PROXY = TermSpec("module_outline_seen", "Module frame in view", "geometric", "fraction", ">=", 0.02,
                                description="Share of points along the module frame's bars in frame and unblocked")


@dataclass(frozen=True)
class GaugeScene:
    roof: RoofPlan
    gauge: GaugePlan


# The pixel-size terms core/feasibility.py bounds over every pose, so an export refuses a positive stratum
# that no frame could pass at its --resolution.
# core/gauge.py: digits DIGIT_HEIGHT_M high, measured at the centre of the LCD window (WINDOW_ALONG_M long).
FEATURES = (Chord("digit_height_px", "display_in_frame", DIGIT_HEIGHT_M / WINDOW_ALONG_M, 0.5),
            PixelCount("module_edge_pixels"))


class SlopeGauge(RoofEnvironment):
    name = "slope_gauge"
    features = FEATURES
    subject = "the gauge"
    poses_per_scene = 4
    scene_state_terms = {
        "gauge_on_module": "the gauge lies on bare roof: lay it on the module's glass or frame",
        "gauge_yaw": "the gauge is turned off the slope: turn it to lie along the slope",
    }
    search_proxies = (MODULE_OUTLINE_PROXY,)

    def scene_state(self, plan: GaugeScene, target: dict) -> dict:
        """A gauge off the modules: no module to show either, whatever the pose."""
        state = dict(self.scene_state_terms)
        if not plan.gauge.on_module:
            why = "the gauge lies on bare roof, so no module of its own is there to show: lay it on a module"
            state.update({"module_glass_in_frame": why, MODULE_OUTLINE_PROXY.name: why})
        return state
    prompt_parts = PromptParts(
        worker="a solar installer",
        work="the tilt of a solar module, measured with a digital angle gauge",
        requirement=("a sharp photo of a digital angle gauge lying on the module's glass or frame with its long "
                     "side along the slope, its display clearly readable and not washed out, and enough of the "
                     "module under it in view to recognise it. A gauge lying on bare roof, or turned across the "
                     "slope, does not meet it."),
        question="What angle does the gauge's display show, and is the gauge lying on the solar module?",
        keys=(DocKey("reading_deg", "number", "the angle shown on the display, in degrees, as a decimal number",
                     skill=READING, rule=FieldRule("tolerance", tolerance=0.2)),
              DocKey("on_module", "boolean", "true if the gauge lies on the module's glass or frame, false if not",
                     skill=JUDGMENT)),
    )

    def draw_scene(self, rng) -> GaugeScene:
        roof = draw_roof_plan(stage_rng(rng, "roof"), partial_install_share=0.3)
        return GaugeScene(roof, draw_gauge(roof, stage_rng(rng, "gauge")))

    def build_extras(self, scene, plan: GaugeScene, built) -> None:
        from ..bl.gauge import build_gauge

        built.extras["gauge"] = build_gauge(scene, plan.roof, plan.gauge)

    def describe_scene(self, plan: GaugeScene) -> dict:
        return {**super().describe_scene(plan.roof), "gauge": plan.gauge.to_dict()}

    def draw_target(self, plan: GaugeScene, rng) -> dict:
        return {"gauge": plan.gauge.placement}

    def target_point(self, plan: GaugeScene, target: dict) -> np.ndarray:
        return plan.roof.frame.to_world(plan.gauge.display_center_uvh())

    def draw_pose(self, plan: GaugeScene, target: dict, rng) -> FieldPose:
        return draw_roof_pose(plan.roof, tuple(plan.gauge.display_center_uvh()), POSES, rng,
                              elsewhere=random_array_point(plan.roof))

    def mask_targets(self, ctx: FrameContext) -> list[str]:
        return [ctx.built.extras["gauge"]["display"]]

    def _module_parts(self, ctx: FrameContext) -> tuple[str, str] | None:
        module = ctx.plan.gauge.module
        return ctx.built.modules[module] if module is not None else None

    def written_surface(self, ctx: FrameContext) -> WrittenSurface:
        """The reading on the LCD: each digit's cell and the decimal point, all judged at the digits' height."""
        gauge: GaugePlan = ctx.plan.gauge
        frame = ctx.plan.roof.frame
        center, right, up, normal = gauge.lcd_frame_uvh()
        world = (frame.to_world(center), frame.axes @ right, frame.axes @ up, frame.axes @ normal)
        reading = WrittenField("reading_deg", gauge.display_text, display_layout(gauge.display_text).boxes_m(),
                               DIGIT_HEIGHT_M)
        return WrittenSurface(world, tuple(self.mask_targets(ctx)), (reading,))

    def measure(self, ctx: FrameContext) -> dict:
        plan: GaugeScene = ctx.plan
        frame = plan.roof.frame
        group = group_measurements(ctx, self.mask_targets(ctx), n_samples=600)
        camera = group["camera"]
        center = self.target_point(plan, ctx.target)
        along, _ = plan.gauge.axes_uvh()
        glass_seen = outline_seen = 0.0
        parts = self._module_parts(ctx)
        if parts is not None:
            glass = group_measurements(ctx, [parts[1]], n_samples=800)
            glass_seen = glass["seen"]
            outline = frame.to_world(module_outline_uvh(plan.roof, plan.gauge.module))
            outline_seen = float((camera.in_frame(outline) & point_visibility(ctx, outline, list(parts))).mean())
        return {
            **glyph_terms(ctx, self.written_surface(ctx)),
            **capture_terms(ctx, "display", center, group["in_frame"], group["unoccluded"]),
            "digit_height_px": px_per_unit(camera, center, frame.axes @ along, DIGIT_HEIGHT_M),
            "view_angle": view_angle_deg(camera.position, center, frame.normal),
            "gauge_on_module": plan.gauge.on_module,
            "gauge_yaw": abs(plan.gauge.yaw_deg),
            "module_glass_in_frame": bool(glass_seen >= GLASS_VISIBLE_MIN),
            "module_glass_seen": glass_seen,
            "module_outline_seen": outline_seen,
        }

    def measure_image(self, ctx: FrameContext, frame, display) -> dict:
        mask = frame.mask(self.mask_targets(ctx))
        parts = self._module_parts(ctx)
        edge_pixels = image_terms.pixel_count(frame.mask([parts[0]])) if parts is not None else 0
        return {"saturated_fraction": image_terms.saturated_fraction(display, mask),
                "weber_contrast": image_terms.weber_contrast(frame.linear_rgb, mask),
                "module_edge_pixels": float(edge_pixels)}

    def ground_truth(self, ctx: FrameContext) -> dict:
        gauge: GaugePlan = ctx.plan.gauge
        return {"reading_deg": gauge.reading_deg, "on_module": gauge.on_module}


ENVIRONMENT = SlopeGauge()
