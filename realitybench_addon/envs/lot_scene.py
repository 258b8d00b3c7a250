"""The parking-lot scene shared by car_view, damage_view, car_plate and ro_board: draw, build, the
prompt that names the subject car, and the measurements they share.

Each environment's plan is a `LotScene`: the lot (cars, stalls, scenery, sun) plus what the
environment adds to it in `extras` (a damage on the subject car, the technician with the RO board).
The built lot (bl/parking_lot.BuiltLot) keeps three dicts apart: `extras`, the object names an
environment's `build_extras` adds under its own keys; `standing`, groups of objects a car must not
intersect (ro_board's technician), checked with the cars after `build_extras`; `cache`, what the
shared measurements compute once per built scene (the subject's surface samples).
The subject car is named in the prompt by colour and body style ("the silver sedan"); the
lot is drawn so that no other car shares both.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..core import geometry
from ..core.parking_lot import LotPlan, draw_lot
from ..core.prompt import PromptParts
from ..core.rng import stage_rng
from .base import Environment, FrameContext

NAMED_VEHICLE = "the named vehicle"  # the subject in an environment's prompt_parts, the wording of no one frame
SIGHT_SAMPLES = 1500  # area-weighted samples over the subject for its occlusion (car_unoccluded): +-0.013 at 0.5
ARM_REACH_M = 0.6  # how far over a car's footprint a worker beside it holds the phone
FACES = ("front", "rear", "driver", "passenger")
FACE_NORMALS = {"front": (1.0, 0.0, 0.0), "rear": (-1.0, 0.0, 0.0), "driver": (0.0, 1.0, 0.0),
                "passenger": (0.0, -1.0, 0.0)}  # vehicle frame; the driver sits on the left (US)


@dataclass(frozen=True)
class LotScene:
    """The lot, and what an environment adds to it under keys of its own (`extras`: damage_view's "damage", a
    core.damage.DamagePlan; ro_board's "board", a core.ro_board.BoardPlan), drawn in `draw_extras`."""

    lot: LotPlan
    extras: Mapping[str, Any] = field(default_factory=dict)


def face_normal_world(lot: LotPlan, face: str) -> np.ndarray:
    return lot.subject.direction(FACE_NORMALS[face])


def face_azimuth_deg(lot: LotPlan, face: str) -> float:
    n = face_normal_world(lot, face)
    return math.degrees(math.atan2(n[1], n[0]))


def nearest_face(lot: LotPlan, camera_position) -> tuple[str, float]:
    """The subject's face whose outward normal is closest to the direction from the car's centre to
    the camera, and the angle between them (degrees, 0 = square onto that face)."""
    to_cam = np.asarray(camera_position, float) - lot.subject.center
    to_cam /= max(np.linalg.norm(to_cam), 1e-9)
    best, best_angle = "front", 180.0
    for face in FACES:
        angle = geometry.angle_between_deg(to_cam, face_normal_world(lot, face))
        if angle < best_angle:
            best, best_angle = face, angle
    return best, best_angle


class LotEnvironment(Environment):
    """An environment in the parking lot; subclasses set `lot_options` (see `draw_lot`) and may add
    to the scene in `draw_extras` / `build_extras`."""

    scene_kind = "parking_lot"
    lot_options: dict = {}
    # PromptParts fields with a "{car}" placeholder for the subject's name ("the silver sedan"). Write a text once,
    # with the placeholder, and fill the environment's `prompt_parts` from it with NAMED_VEHICLE (a module's
    # REQUIREMENT): `prompt_parts` is the wording of no one frame (real photos are asked with it).
    prompt_template: dict = {}

    def draw_scene(self, rng) -> LotScene:
        lot = draw_lot(stage_rng(rng, "lot"), **self.lot_options)
        return self.draw_extras(LotScene(lot), rng)

    def draw_extras(self, scene: LotScene, rng) -> LotScene:
        return scene

    def build(self, scene, plan: LotScene, rng):
        """The lot, then what the environment adds (`build_extras`), then the render-sanity check on the
        built meshes: a car intersecting another car, the scenery or the added objects raises
        SceneIntersection."""
        from ..bl.parking_lot import build_lot, intersecting_pairs
        from ..core.parking_lot import SceneIntersection

        replace_parts, materials = self.subject_replacements(scene, plan)
        built = build_lot(scene, plan.lot, replace_parts=replace_parts, extra_materials=materials, check=False)
        self.build_extras(scene, plan, built)
        pairs = intersecting_pairs(built, built.standing)
        if pairs:
            raise SceneIntersection(f"cars intersect: {pairs}")
        return built

    def subject_replacements(self, scene, plan: LotScene):
        """Parts of the subject car built differently (a damaged panel): (replace_parts, extra_materials)."""
        return None, None

    def build_extras(self, scene, plan: LotScene, built) -> None:
        pass

    def pose_feasible(self, plan: LotScene, target: dict, position):
        """In the lot: between knee height and a raised arm above the asphalt, out of the building, and not
        over a car or other obstacle farther in than an arm reaches from where one can stand."""
        from ..core.phone import PHONE_REACH_M
        from .lot_poses import inside_box, obstacle_boxes

        x, y, z = (float(c) for c in position)
        if not 0.2 <= z <= PHONE_REACH_M:
            return f"not between knee height and a raised arm (0.2 to {PHONE_REACH_M} m above the ground)"
        if y < plan.lot.building_front_y:
            return "inside the building"
        if any(inside_box(b, x, y, -ARM_REACH_M) for b in obstacle_boxes(plan.lot)):
            return "over a car or an obstacle, out of a worker's reach"
        return None

    def describe_scene(self, plan: LotScene) -> dict:
        return {"kind": "parking_lot", **plan.lot.to_dict()}

    def prompt_parts_for(self, plan: LotScene, target: dict) -> PromptParts:
        car = f"the {plan.lot.subject.vehicle.label}"
        return replace(self.prompt_parts, **{k: v.format(car=car) for k, v in self.prompt_template.items()})

    # shared measurements -------------------------------------------------------------------------

    @staticmethod
    def subject_names(ctx: FrameContext) -> list[str]:
        return ctx.built.subject.body

    @staticmethod
    def subject_points(ctx: FrameContext, n_samples: int = 3000) -> np.ndarray:
        """Surface samples over the whole subject car (vertices and face interiors), world space; computed
        once per built scene."""
        cache = ctx.built.cache
        if "subject_points" not in cache:
            import bpy

            from ..bl.scene_data import group_triangles

            depsgraph = bpy.context.evaluated_depsgraph_get()
            verts, tris = group_triangles(LotEnvironment.subject_names(ctx), depsgraph)
            points, _, _ = geometry.sample_surface(verts, tris, n_samples)
            cache["subject_points"] = points
        return cache["subject_points"]

    def car_in_frame(self, ctx: FrameContext, camera) -> tuple[float, float]:
        """(share of the subject's surface samples inside the frame, its bbox share of the frame)."""
        points = self.subject_points(ctx)
        return float(camera.in_frame(points).mean()), geometry.bbox_fraction(camera, points)

    @staticmethod
    def subject_sight_points(ctx: FrameContext, n_samples: int = SIGHT_SAMPLES) -> np.ndarray:
        """Area-weighted samples over the subject's outside (face interiors only: a share of the surface, not
        of its vertices, which crowd on the wheels), world space; computed once per built scene."""
        cache = ctx.built.cache
        if "subject_sight_points" not in cache:
            import bpy

            from ..bl.scene_data import group_triangles

            depsgraph = bpy.context.evaluated_depsgraph_get()
            verts, tris = group_triangles(LotEnvironment.subject_names(ctx), depsgraph)
            points, _, _ = geometry.sample_surface(verts, tris, n_samples, include_vertices=False)
            cache["subject_sight_points"] = points
        return cache["subject_sight_points"]

    def car_unoccluded(self, ctx: FrameContext, see_through: tuple = ()) -> tuple[float, float]:
        """(share of the subject's surface in frame, share of that in-frame surface the camera sees directly).
        A ray that first meets any part of the subject (its body, glass, cabin, plates) is not blocked: the car
        hiding its own far side is how a car looks. Anything else first (a neighbouring car, a person, a pole,
        a tree) blocks it, except the objects `see_through`. `measurements.unoccluded_in_frame`."""
        from .measurements import unoccluded_in_frame

        own = list(ctx.built.subject.objects.values()) + list(see_through)
        return unoccluded_in_frame(ctx, self.subject_sight_points(ctx), own)
