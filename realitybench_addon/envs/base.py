"""The contract every environment fulfils.

An environment is a pure description plus thin Blender hooks:
  draw_scene(rng)                  -> a scene plan (pure; everything the scene *is*)
  build(scene, plan, rng)          -> the built scene (bpy; names of its parts)
  build_extras(scene, plan, built) -> what the environment adds to a shared scene (names in built.extras)
  draw_target(plan, rng)           -> which part this frame is about (pure)
  draw_target_for_shot(plan, k, rng) -> the same for the scene's k-th frame (sequences: a turn in place)
  draw_pose(plan, target, rng)     -> where the worker holds the phone (pure)
  target_point(plan, target)       -> the world point the phone focuses on (pure)
  measure(ctx)                     -> geometric measurements keyed like the preset's terms (bpy)
  measure_image(ctx, frame, image) -> image measurements from a render and its mask
  ground_truth(ctx)                -> the documentation answer key (from the plan, never the render)
  unscored_reason(plan, target)    -> why the frame is excluded from acceptability scoring, or None
  prompt_parts                     -> the model's question (keys and grammars as the spec names them; each key's
                                      skill group and scoring rule)
  features                         -> the pixel-size terms core/feasibility.py bounds
  prompt_parts_for(plan, target)   -> the question of one frame (defaults to prompt_parts; same keys)

Bpy is imported only inside the hooks that need it, so the pure parts are testable with numpy.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from ..core.optics import look_at
from ..core.prompt import PromptParts


@dataclass(frozen=True)
class FieldPose:
    """How the worker holds the phone: where, aimed at what, rolled how much."""

    position: tuple[float, float, float]
    aim: tuple[float, float, float]
    roll_deg: float
    posture: str

    def camera_to_world(self) -> np.ndarray:
        return look_at(self.position, self.aim, roll_deg=self.roll_deg)

    def to_dict(self) -> dict:
        return {"position_m": list(self.position), "aim_m": list(self.aim), "roll_deg": self.roll_deg,
                "posture": self.posture}


@dataclass
class FrameContext:
    """Everything a measurement hook needs for one frame (Blender objects by name only)."""

    scene: Any
    camera: Any
    built: Any
    plan: Any
    target: dict
    pose: FieldPose
    extras: dict = field(default_factory=dict)

    def pinhole(self):
        """The frame's camera as a core PinholeCamera, made once and made again only when what it is made
        of changes: the render size (a quick check renders smaller), the camera's placement or its lens."""
        from ..bl.scene_data import pinhole_camera, render_size

        data = self.camera.data
        key = (render_size(self.scene), tuple(map(tuple, self.camera.matrix_world)), data.lens, data.sensor_fit,
               data.sensor_width, data.sensor_height, data.shift_x, data.shift_y, data.type)
        cached = self.extras.get("pinhole")
        if cached is None or cached[0] != key:
            cached = self.extras["pinhole"] = (key, pinhole_camera(self.camera, self.scene))
        return cached[1]


class Environment:
    name: str = ""
    scene_kind: str = ""
    poses_per_scene: int = 4
    # Outdoors the pipeline lays clouds over the scene's sky (bl/sky.dress_sky). Indoors the sky is only seen
    # through a window, if at all: clouds would change the light on the target and show in no frame.
    outdoor: bool = True
    prompt_parts: PromptParts
    # Terms the scene alone decides, with what to do instead of moving the phone (Suggest a Pose reports them).
    scene_state_terms: dict = {}
    subject: str = "the target"  # what the photo is of, in a worker's words ("point the phone at the card")
    # Geometric stand-ins for image terms (core.terms.TermSpec) that Suggest a Pose searches on too, so that the
    # pose it suggests does not fail its image terms for want of something the geometry can see.
    search_proxies: tuple = ()
    # The share of the frame's size Suggest a Pose renders at to confirm the image terms: half, unless a term
    # reads writing so small that half the pixels change its value.
    quick_render_scale: float = 0.5
    # The pixel-size terms (core.feasibility Chord, Range, PixelCount) bounded over every pose: an export refuses a
    # positive stratum no frame can pass at its resolution. The skill and scoring rule of each documentation key
    # are on the key (core.prompt.DocKey).
    features: tuple = ()

    def draw_scene(self, rng: np.random.Generator):
        raise NotImplementedError

    def build(self, scene, plan, rng: np.random.Generator):
        raise NotImplementedError

    def build_extras(self, scene, plan, built) -> None:
        """Add this environment's own objects to a shared scene (the roof, the parking lot) once it is built,
        and keep their object names in `built.extras` under this environment's keys."""

    def draw_target(self, plan, rng: np.random.Generator) -> dict:
        raise NotImplementedError

    def draw_target_for_shot(self, plan, shot: int, rng: np.random.Generator) -> dict:
        """The target of the scene's `shot`-th frame (0 .. poses_per_scene - 1). Frames are independent draws
        unless an environment's frames form a sequence in their scene (horizon_peak's turn in place)."""
        return self.draw_target(plan, rng)

    def draw_pose(self, plan, target: dict, rng: np.random.Generator) -> FieldPose:
        raise NotImplementedError

    def target_point(self, plan, target: dict) -> np.ndarray:
        raise NotImplementedError

    def measure(self, ctx: FrameContext) -> dict:
        raise NotImplementedError

    def measure_image(self, ctx: FrameContext, frame, display: np.ndarray) -> dict:
        return {}

    def ground_truth(self, ctx: FrameContext) -> dict:
        raise NotImplementedError

    def unscored_reason(self, plan, target: dict) -> Optional[str]:
        return None

    def prompt_parts_for(self, plan, target: dict) -> PromptParts:
        """The prompt parts of one frame: `prompt_parts` unless the wording depends on the scene (the parking
        lot names its subject car, "the silver sedan"). The keys are always `prompt_parts.keys`."""
        return self.prompt_parts

    def describe_scene(self, plan) -> dict:
        """A compact summary of the scene for the frame's record (the plan itself rebuilds from the id)."""
        return {}

    def written_surface(self, ctx: FrameContext):
        """The documented writing of a text environment (measurements.WrittenSurface): the surface it is on and
        each field's characters; the glyph terms and the legibility audit read it. None: no such writing."""
        return None

    def scene_state(self, plan, target: dict) -> dict:
        """Terms this frame's scene alone decides, each with what to do instead of moving the phone: the
        environment's `scene_state_terms`, and any this frame adds (an attachment deep under the array)."""
        return dict(self.scene_state_terms)

    def pose_space(self, plan, target: dict):
        """The poses Suggest a Pose searches (core/pose_search.py): by default, about the target point, aimed at
        it, never nearer than the phone focuses."""
        from ..core.phone import MIN_FOCUS_M
        from ..core.pose_search import OrbitSpace

        return OrbitSpace(self.target_point(plan, target), MIN_FOCUS_M)

    def pose_feasible(self, plan, target: dict, position) -> Optional[str]:
        """None where a worker can hold the phone at `position` (world, metres); otherwise why not. Suggest a
        Pose keeps out of such places; Blender's own check keeps it out of geometry."""
        return None

    def mask_targets(self, ctx: FrameContext) -> list[str]:
        """Objects whose render mask is the frame's target (for checks and overlays)."""
        return []
