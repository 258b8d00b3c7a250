"""The roof scene shared by the roof environments: draw, build, describe, and points on the roof."""
from __future__ import annotations

import numpy as np

from ..core.phone import PHONE_REACH_M
from ..core.rng import stage_rng
from ..core.roof import RoofPlan, draw_roof_plan
from .base import Environment
from .roof_poses import on_modules

HELD_OUT_M = 0.8  # how far past the roof's edge a worker on it (or on the ladder) holds the phone out


class RoofEnvironment(Environment):
    """An environment on the roof scene; subclasses set `roof_options` (see `draw_roof_plan`)."""

    scene_kind = "roof"
    roof_options: dict = {}

    def draw_scene(self, rng: np.random.Generator) -> RoofPlan:
        return draw_roof_plan(stage_rng(rng, "roof"), **self.roof_options)

    def roof_plan(self, plan) -> RoofPlan:
        """The roof of this environment's plan: the plan itself, or, for a plan that adds to the roof (a tape,
        a gauge, a label), its `roof`."""
        return plan if isinstance(plan, RoofPlan) else plan.roof

    def build(self, scene, plan, rng: np.random.Generator):
        """The roof, then what the environment adds to it (`build_extras`)."""
        from ..bl.roof import build_roof_scene

        built = build_roof_scene(scene, self.roof_plan(plan), stage_rng(rng, "roof-cosmetic"))
        self.build_extras(scene, plan, built)
        return built

    def pose_feasible(self, plan, target: dict, position):
        """Over the roof: above its shingles and modules, within a raised arm of the roof under the phone. Past its
        edges: held out from the roof or the ladder, or from the ground below (an inverter on the wall): never
        under the ground, never higher than a worker on the ladder at the eave reaches."""
        roof = self.roof_plan(plan)
        u, v, h = roof.frame.to_roof(position)
        over_roof = 0.0 <= u <= roof.eave_length_m and 0.0 <= v <= roof.slope_length_m
        if over_roof:
            if h < 0.05:
                return "under the roof's surface"
            top = roof.module_bottom_h + roof.module_thickness_m
            if on_modules(roof, u, v, margin=0.0) and roof.module_bottom_h - 0.01 <= h <= top + 0.03:
                return "inside a module"
            if h > PHONE_REACH_M:
                return f"higher than a worker on the roof holds a phone ({PHONE_REACH_M} m)"
            return None
        z = float(position[2])
        if z < 0.2:
            return "below the ground"
        within_reach = -HELD_OUT_M <= u <= roof.eave_length_m + HELD_OUT_M and v <= roof.slope_length_m + HELD_OUT_M
        if h > 0 and not within_reach:
            return "past the roof's edge, out of a worker's reach"
        if z > roof.eave_height_m + PHONE_REACH_M and v < 0:
            return "higher than a worker on the ladder at the eave reaches"
        return None

    def describe_scene(self, plan: RoofPlan) -> dict:
        return {"kind": "roof", "pitch_deg": round(plan.pitch_deg, 2), "style": plan.style, "rows": plan.rows,
                "cols": plan.cols, "installed_cols": plan.installed_cols, "siding": plan.siding,
                "shingle_color": plan.shingle_color, "chimney": plan.chimney is not None,
                "module_gap_to_roof_m": round(plan.module_bottom_h, 4), "touching_wire": plan.touching_wire,
                "sun_elevation_deg": round(plan.sun_elevation_deg, 1), "sun_azimuth_deg": round(plan.sun_azimuth_deg, 1)}


def disk_points(center_uvh, radius: float, plan: RoofPlan, n: int = 24) -> np.ndarray:
    """Points on a small disk in the roof plane around a roof point (world coordinates)."""
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    r = radius * np.sqrt((np.arange(n) + 0.5) / n)
    uvh = np.column_stack([center_uvh[0] + r * np.cos(a * 7.0), center_uvh[1] + r * np.sin(a * 7.0),
                           np.full(n, center_uvh[2])])
    return plan.frame.to_world(uvh)
