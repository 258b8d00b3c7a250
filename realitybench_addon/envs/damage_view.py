"""damage_view: a dent, scratch or rust mark on the named car, square-on from about an arm's length.

Each scene damages one side panel of the subject car (core/damage.py): a dent (the panel's
mesh pushed in), a band of scratches through the paint, or a rust blotch, sometimes two kinds
together; its damaged area is known in cm2, so `severity` (minor < 100, moderate 100-500,
severe > 500 cm2) and `damage_types` are exact. The damaged cells are their own object
(`Car0_<panel>_damage`): the target's samples and its render mask.

Terms: the damage in frame (every sample) and >= 95 % unoccluded, view angle <= 45 degrees
at its centre (the panel's normal there), 0.3-1.5 m away (1.5-3 m gray), >= 10 % of a
neighbouring panel in frame, >= 3 px per cm at the damage, blur at the damage <= 6 px; and two image terms
read on the final JPEG that the picture shows the damage (not only that it is in view), each against the
adjacent undamaged panel (a ring of the damaged panel's own pixels around the damage, core/image_terms.py
`surround_ring`): `damage_pixels`, how many damage pixels differ from the ring's median colour by at least
DISTINCT_DELTA_E (CIELAB Delta E: the damage resolved), and `damage_contrast`, that difference at the 90th
percentile of the damage's pixels (the damage distinct from the panel). Road dirt never lies over the damage
(core/damage.py `dirt_keepout`).
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ..core import geometry
from ..core.damage import DamagePlan, draw_damage
from ..core import image_terms
from ..core.doc_fields import FieldRule, JUDGMENT
from ..core.feasibility import PixelCount, Range
from ..core.optics import px_per_unit, view_angle_deg
from ..core.prompt import DocKey, PromptParts
from ..core.rng import stage_rng
from ..core.vehicle_geometry import vehicle_geometry
from ..core.vehicle_loft import Profile
from .base import FieldPose, FrameContext
from .lot_poses import LotPoseModel, draw_lot_pose
from .lot_scene import NAMED_VEHICLE, LotEnvironment, LotScene
from .measurements import capture_terms, group_measurements
from .poses import Posture

POSES = LotPoseModel(
    postures=(Posture("crouching at the panel", 0.4, (0.45, 0.95), (0.3, 1.4)),
             Posture("standing at arm's length", 0.35, (1.25, 1.7), (0.4, 1.6)),
             Posture("stepped back", 0.25, (1.3, 1.7), (1.2, 3.5))),
    distance_m=(0.3, 3.5), azimuth_sd_deg=24.0, aim_sd_deg=5.0, miss_share=0.08)
ROOM_BESIDE_DAMAGE_SHARE = 0.75  # scenes whose stall beside the damaged side is left empty
DISTINCT_DELTA_E = 5.0  # a damage pixel shows the damage when its colour differs this much from the panel beside it
CONTRAST_PERCENTILE = 90.0  # damage_contrast: the difference of the damage's most distinct tenth (a dent's shaded
# side, a scratch's strokes, not the whole 1 cm-cell mask)


def damage_frame(scene: LotScene) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """World centre of the damaged area (on the undented surface), the panel's outward normal there and
    the direction along the car (towards its rear)."""
    car = scene.lot.subject
    damage: DamagePlan = scene.extras["damage"]
    d, z = damage.center_dz
    prof = Profile(car.vehicle.profile)
    sec = prof.sections([d])[0]
    zs, ys = sec[1:6, 1], sec[1:6, 0]
    y = float(np.interp(z, zs, ys))
    dz = 0.01
    slope = (float(np.interp(z + dz, zs, ys)) - float(np.interp(z - dz, zs, ys))) / (2 * dz)  # dy/dz
    sign = 1.0 if damage.side == "left" else -1.0
    L = car.vehicle.length
    center = car.to_world([L / 2 - d, sign * y, z])
    normal = car.direction(np.array([0.0, sign, -slope]) / math.hypot(1.0, slope))
    along = car.direction([-1.0, 0.0, 0.0])
    return center, normal, along


# The pixel-size terms core/feasibility.py bounds over every pose, so an export refuses a positive stratum
# that no frame could pass at its --resolution.
FEATURES = (Range("px_per_cm", "damage_in_frame", "camera_distance", 0.01), PixelCount("damage_pixels"))


# The requirement, written once: {car} names the frame's subject ("the silver sedan"), or NAMED_VEHICLE.
REQUIREMENT = ("a sharp photo taken roughly square-on to the damage on {car} from about an arm's length "
               "away, showing all of the damage and part of the undamaged panel next to it. An oblique or "
               "distant shot in which the damage is a smudge, or a close-up so tight that none of the "
               "surrounding bodywork shows, does not meet it.")


class DamageView(LotEnvironment):
    name = "damage_view"
    features = FEATURES
    subject = "the damage"
    poses_per_scene = 4
    lot_options = {"neighbour_share": 0.45, "far_share": 0.5}
    prompt_parts = PromptParts(
        worker="a vehicle-intake technician",
        work="existing body damage on a customer's vehicle when it was checked in",
        requirement=REQUIREMENT.format(car=NAMED_VEHICLE),
        question="What kinds of damage does the photo show, and how severe is the damage?",
        keys=(DocKey("damage_types", "array", 'a JSON array of the kinds of damage shown, each one of "dent", '
                                              '"scratch" or "rust" (for example ["dent", "scratch"])',
                     skill=JUDGMENT, rule=FieldRule("set")),
              DocKey("severity", "string", 'the damage\'s severity by its damaged area: "minor" (under 100 cm2), '
                                           '"moderate" (100 to 500 cm2) or "severe" (over 500 cm2)', skill=JUDGMENT)),
    )
    prompt_template = {
        "work": "existing body damage on {car} when it was checked in",
        "requirement": REQUIREMENT,
    }

    def draw_extras(self, scene: LotScene, rng) -> LotScene:
        damage = draw_damage(scene.lot.subject.vehicle, stage_rng(rng, "damage"))
        lot = scene.lot
        # most damaged cars are parked (or moved) so that the damaged side has room beside it
        if stage_rng(rng, "room").random() < ROOM_BESIDE_DAMAGE_SHARE:
            s = lot.subject
            normal = s.direction([0.0, 1.0 if damage.side == "left" else -1.0, 0.0])
            beside = s.stall + (1 if normal[0] > 0 else -1)
            lot = replace(lot, cars=tuple(c for c in lot.cars if not (c.row == s.row and c.stall == beside)))
        return replace(scene, lot=lot, extras={**scene.extras, "damage": damage})

    def subject_replacements(self, scene, plan: LotScene):
        from ..bl.damage import damage_material
        from ..core.damage import damaged_panel_parts

        vehicle = plan.lot.subject.vehicle
        rest, damage = damaged_panel_parts(vehicle, plan.extras["damage"])
        name = plan.extras["damage"].panel
        material = damage_material("Car0_DamagePaint", vehicle, plan.extras["damage"])
        return ({name: [(name, rest, rest.uv), (f"{name}_damage", damage, damage.uv)]},
                {"damage_paint": material})

    def describe_scene(self, plan: LotScene) -> dict:
        return {**super().describe_scene(plan), "damage": plan.extras["damage"].to_dict()}

    def draw_target(self, plan: LotScene, rng) -> dict:
        return {"car": "Car0", "panel": plan.extras["damage"].panel}

    def target_point(self, plan: LotScene, target: dict) -> np.ndarray:
        return damage_frame(plan)[0]

    def draw_pose(self, plan: LotScene, target: dict, rng) -> FieldPose:
        center, normal, _ = damage_frame(plan)
        car_center = plan.lot.subject.center
        return draw_lot_pose(plan.lot, center, math.degrees(math.atan2(normal[1], normal[0])), POSES, rng,
                             elsewhere=lambda r: car_center, line_of_sight=True)

    def damage_object(self, ctx: FrameContext) -> str:
        return ctx.built.subject.objects[f"{ctx.plan.extras['damage'].panel}_damage"]

    def panel_object(self, ctx: FrameContext) -> str:
        return ctx.built.subject.objects[ctx.plan.extras["damage"].panel]

    def mask_targets(self, ctx: FrameContext) -> list[str]:
        return [self.damage_object(ctx)]

    def neighbour_points(self, ctx: FrameContext) -> dict[str, np.ndarray]:
        """Surface samples of each panel next to the damaged one (world), once per built scene."""
        cache = ctx.built.cache
        if "neighbour_points" not in cache:
            import bpy

            from ..bl.scene_data import group_triangles

            depsgraph = bpy.context.evaluated_depsgraph_get()
            panel = vehicle_geometry(ctx.plan.lot.subject.vehicle).panels[ctx.plan.extras["damage"].panel]
            out = {}
            for name in panel.neighbours:
                obj = ctx.built.subject.objects.get(name)
                if obj is None:
                    continue
                verts, tris = group_triangles([obj], depsgraph)
                out[name], _, _ = geometry.sample_surface(verts, tris, 600)
            cache["neighbour_points"] = out
        return cache["neighbour_points"]

    def measure(self, ctx: FrameContext) -> dict:
        center, normal, along = damage_frame(ctx.plan)
        group = group_measurements(ctx, self.mask_targets(ctx), n_samples=800, own=[self.panel_object(ctx)])
        camera = group["camera"]
        neighbours = {name: float(camera.in_frame(p).mean()) for name, p in self.neighbour_points(ctx).items()}
        best = max(neighbours, key=neighbours.get) if neighbours else None
        return {
            **capture_terms(ctx, "damage", center, group["in_frame"], group["unoccluded"]),
            "view_angle": view_angle_deg(camera.position, center, normal),
            "camera_distance": float(np.linalg.norm(camera.position - center)),
            "neighbour_panel_in_frame": neighbours[best] if best else 0.0,
            "neighbour_panel": best,
            "px_per_cm": px_per_unit(camera, center, along, 0.01),
        }

    def measure_image(self, ctx: FrameContext, frame, display) -> dict:
        return damage_visibility(display, frame.mask(self.mask_targets(ctx)), frame.mask([self.panel_object(ctx)]))

    def ground_truth(self, ctx: FrameContext) -> dict:
        damage: DamagePlan = ctx.plan.extras["damage"]
        return {"damage_types": damage.types, "severity": damage.severity}


def damage_visibility(display: np.ndarray, damage_mask: np.ndarray, panel_mask: np.ndarray) -> dict:
    """The image terms that the final image shows the damage, from its pixels (`damage_mask`, the damage object's
    object-index mask) against the adjacent undamaged panel (`panel_mask`, the rest of the damaged panel):
      damage_pixels    damage pixels whose CIELAB colour differs from the ring's median by >= DISTINCT_DELTA_E
      damage_contrast  that Delta E at CONTRAST_PERCENTILE of the damage's pixels (nan: no panel around it)
    A dent shows only through its shading, a scratch through its strokes, rust through its colour: one colour
    difference reads all three, and rust on a red door (close in luminance, not in hue) too."""
    differences = image_terms.color_differences(display, damage_mask, panel_mask)
    return {"damage_pixels": image_terms.distinct_pixels(differences, DISTINCT_DELTA_E),
            "damage_contrast": image_terms.distinct_contrast(differences, CONTRAST_PERCENTILE)}


ENVIRONMENT = DamageView()
