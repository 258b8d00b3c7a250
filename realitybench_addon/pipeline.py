"""One frame, end to end: draw it (pure), build its scene, place the phone, measure, render, score.

A frame is a pure function of (set seed, environment, stratum, index):
  scene  = scene_rng(seed, env/stratum, index // poses_per_scene)  -> scene plan, phone
  frame  = frame_rng(seed, env, stratum, index)                     -> target, pose, capture, post
Frames of one scene share the built scene (and its BVH); `SceneCache` rebuilds only when
the scene changes.
"""
from __future__ import annotations

import contextlib
import functools

import time
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from . import __version__
from .core import postprocess
from .core.phone import Capture, Phone, camera_settings, draw_capture, draw_phone
from .core.presets import Preset, load_environment_preset
from .core.prompt import build_prompt
from .core.render_settings import RenderSettings
from .core.rng import frame_id, frame_rng, scene_rng, stage_rng
from .core.sanity import image_discard_reason
from .core.terms import VerdictResult, evaluate
from .envs import registry
from .envs.base import Environment, FieldPose, FrameContext
from .frame_record import FrameRecord


@dataclass(frozen=True)
class FrameSpec:
    """Every draw of one frame (no Blender needed to make it)."""

    frame_id: str
    set_seed: int
    environment: str
    stratum: str
    index: int
    scene_index: int
    plan: Any
    target: dict
    phone: Phone
    capture: Capture
    pose: FieldPose
    post: postprocess.PostParams


@functools.lru_cache(maxsize=8)
def _scene_draws(environment: str, set_seed: int, stratum: str, scene_index: int):
    """The scene plan and phone of one scene: drawn once for its frames (a parking lot with a damage takes
    half a second), the same objects for each; plans are frozen, nobody changes them."""
    env = registry.get(environment)
    srng = scene_rng(set_seed, f"{environment}/{stratum}", scene_index)
    return env.draw_scene(stage_rng(srng, "scene")), draw_phone(stage_rng(srng, "phone"))


def plan_frame(environment: str, set_seed: int, stratum: str, index: int) -> FrameSpec:
    env = registry.get(environment)
    scene_index = index // env.poses_per_scene
    plan, phone = _scene_draws(environment, set_seed, stratum, scene_index)
    frng = frame_rng(set_seed, environment, stratum, index)
    target = env.draw_target_for_shot(plan, index % env.poses_per_scene, stage_rng(frng, "target"))
    pose = env.draw_pose(plan, target, stage_rng(frng, "pose"))
    capture = draw_capture(stage_rng(frng, "capture"), phone)
    post = postprocess.draw_post_params(stage_rng(frng, "post"))
    return FrameSpec(frame_id(set_seed, environment, stratum, index), set_seed, environment, stratum, index,
                     scene_index, plan, target, phone, capture, pose, post)


@dataclass
class SceneCache:
    """The built scene of the last frame; reused by the next frame of the same scene."""

    key: Optional[tuple] = None
    built: Any = None
    build_s: float = 0.0  # time of the last call: 0 when the scene was reused

    def get(self, spec: FrameSpec, build: bool = True):
        """The built scene of `spec`; with build=False, a LookupError instead of a (re)build."""
        import bpy

        from .bl.analytic import reset_scene
        from .bl.sky import dress_sky

        key = (spec.environment, spec.set_seed, spec.stratum, spec.scene_index)
        self.build_s = 0.0
        if key != self.key or self.built is None or bpy.data.objects.get("RB_Sun") is None:
            if not build:
                raise LookupError(f"the scene of {spec.frame_id} is not built; build it first")
            t = time.perf_counter()
            scene = reset_scene()
            env = registry.get(spec.environment)
            srng = scene_rng(spec.set_seed, f"{spec.environment}/{spec.stratum}", spec.scene_index)
            self.built = env.build(scene, spec.plan, stage_rng(srng, "build"))
            if env.outdoor:
                dress_sky(scene, stage_rng(srng, "sky"))
            self.key = key
            self.build_s = time.perf_counter() - t
        return self.built


FRAME_ID_PROPERTY = "realitybench_frame_id"
SHARED_CACHE = SceneCache()  # this process's built scene: the sidebar's frames and the API's share it


@dataclass
class FrameResult:
    spec: FrameSpec
    frame: FrameRecord
    jpeg: Optional[bytes] = None
    timings: dict = field(default_factory=dict)
    display: Optional[np.ndarray] = None  # the decoded JPEG in [0, 1]
    mask: Optional[np.ndarray] = None  # the target's pixels in the object-index pass
    discard_reason: Optional[str] = None  # render sanity: why no phone would have taken this frame

    @property
    def record(self) -> dict:
        """The frame's record in its JSON form (a new dict each time)."""
        return self.frame.to_dict()


@dataclass(frozen=True)
class Score:
    """Every term's result, the verdict, the ground truth and the prompt of one frame's measurements."""

    terms: list  # core.terms.TermResult
    verdict: VerdictResult
    ground_truth: dict
    prompt: dict


def score(env: Environment, ctx: FrameContext, spec: FrameSpec, preset: Preset, measurements: dict) -> Score:
    """The one scoring of a frame, for the export and the sidebar's live check alike."""
    unscored = env.unscored_reason(spec.plan, spec.target)
    if not preset.acceptability_scored:
        unscored = unscored or f"acceptability is not scored for {spec.environment}"
    results, verdict = evaluate(preset.terms, measurements, unscored)
    return Score(results, verdict, env.ground_truth(ctx), build_prompt(env.prompt_parts_for(spec.plan, spec.target)))


@contextlib.contextmanager
def render_session():
    """The renders of this process's scene inside this block share one compositor set-up and pair of images
    (`bl.render.render_session`); an export renders all its frames inside one."""
    import bpy

    from .bl.render import render_session as scene_render_session

    with scene_render_session(bpy.context.scene):
        yield


def place_camera(spec: FrameSpec, long_side_px: int):
    import bpy

    from .bl.camera import apply_capture, ensure_camera

    env = registry.get(spec.environment)
    scene = bpy.context.scene
    camera = ensure_camera(scene)
    distance = float(np.linalg.norm(np.asarray(spec.pose.position) - env.target_point(spec.plan, spec.target)))
    settings = camera_settings(spec.phone, spec.capture, max(distance, 0.05), long_side_px)
    apply_capture(scene, camera, settings, spec.capture, spec.phone, spec.pose.camera_to_world())
    scene[FRAME_ID_PROPERTY] = spec.frame_id  # a saved .blend knows which frame it is (`suggest --blend`)
    return camera, settings


def run_frame(spec: FrameSpec, *, long_side_px: int = 1600, render: bool = True, samples: int = 16,
              denoise: bool = False, device: str = "cpu", preset: Optional[Preset] = None,
              cache: SceneCache, settings: Optional[RenderSettings] = None) -> FrameResult:
    """Build (or reuse) the frame's scene, measure it and, with `render`, render it and measure its image.
    `settings` (Cycles' samples, denoising, bounces...) override `samples` and `denoise` when given."""
    import bpy

    from .bl.raycast import geometry_frozen, inside_geometry
    from .bl.render import render_frame

    env: Environment = registry.get(spec.environment)
    preset = preset or load_environment_preset(spec.environment)
    timings = {}
    built = cache.get(spec)
    timings["scene_build_s"] = cache.build_s
    t = time.perf_counter()
    camera, cam_settings = place_camera(spec, long_side_px)
    scene = bpy.context.scene
    ctx = FrameContext(scene, camera, built, spec.plan, spec.target, spec.pose)
    jpeg = display = mask = None
    discard = None
    with geometry_frozen(scene):  # from here only the camera is new: one check that the BVH is current
        measurements = env.measure(ctx)
        if inside_geometry(scene, np.asarray(spec.pose.position)):
            discard = "camera inside a mesh"
        timings["geometric_s"] = time.perf_counter() - t
        if render:
            t = time.perf_counter()
            settings = settings or RenderSettings(samples=samples, denoise=denoise)
            frame = render_frame(scene, camera, device=device, settings=settings)
            timings["render_s"] = time.perf_counter() - t
            t = time.perf_counter()
            jpeg, display = postprocess.process(frame.linear_rgb, spec.post)
            discard = discard or image_discard_reason(display)
            measurements.update(env.measure_image(ctx, frame, display))
            mask = frame.mask(env.mask_targets(ctx))
            measurements["target_mask_pixels"] = int(mask.sum())
            timings["image_terms_s"] = time.perf_counter() - t
    scored = score(env, ctx, spec, preset, measurements)
    record = FrameRecord(
        frame_id=spec.frame_id,
        file_name=f"{spec.frame_id}.jpg" if render else None,
        environment=spec.environment,
        stratum=spec.stratum,
        set_seed=spec.set_seed,
        index=spec.index,
        scene_index=spec.scene_index,
        target=spec.target,
        scene=env.describe_scene(spec.plan),
        phone=spec.phone.to_dict(),
        capture=spec.capture.to_dict(),
        camera={**cam_settings.to_dict(), "pose": spec.pose.to_dict(),
                "camera_to_world": np.asarray(spec.pose.camera_to_world()).round(6).tolist()},
        postprocess=spec.post.to_dict(),
        render={"rendered": render, "samples": settings.samples if render else None,
                "denoise": settings.denoise if render else None, "resolution": list(cam_settings.resolution),
                **({"settings": settings.to_dict()} if render else {})},
        terms=[r.to_dict() for r in scored.terms],
        measurements=measurements,
        verdict=scored.verdict.verdict,
        scored=scored.verdict.scored,
        failing_terms=list(scored.verdict.failing),
        gray_terms=list(scored.verdict.gray),
        unscored_reason=scored.verdict.unscored_reason,
        ground_truth=scored.ground_truth,
        prompt=scored.prompt,
        versions={"realitybench": __version__, "blender": bpy.app.version_string,
                  "preset_hash": preset.content_hash()},
        discard_reason=discard,
    )
    return FrameResult(spec, record, jpeg, timings, display=display, mask=mask, discard_reason=discard)


def check_camera(spec: FrameSpec, camera, *, render: bool = False, samples: int = 8, resolution_scale: float = 1.0,
                 preset: Optional[Preset] = None, cache: SceneCache, build: bool = True) -> dict:
    """Every term, the verdict, the ground truth and the prompt of `spec`'s scene seen by `camera`,
    any camera, hand-placed included (the sidebar's readouts and "Check acceptability").

    With `render`, a quick render at `resolution_scale` of the scene's resolution gives the image
    terms; geometric terms are always read at the full resolution.
    """
    import bpy

    from .bl.render import render_frame

    env: Environment = registry.get(spec.environment)
    preset = preset or load_environment_preset(spec.environment)
    built = cache.get(spec, build=build)
    scene = bpy.context.scene
    ctx = FrameContext(scene, camera, built, spec.plan, spec.target, spec.pose)
    measurements = env.measure(ctx)
    if render:
        saved = scene.render.resolution_percentage
        scene.render.resolution_percentage = max(1, int(round(saved * resolution_scale)))
        try:  # the image terms at the render's size: a term that projects geometry onto the image needs it
            frame = render_frame(scene, camera, samples=samples)
            _, display = postprocess.process(frame.linear_rgb, spec.post)
            measurements.update(env.measure_image(ctx, frame, display))
        finally:
            scene.render.resolution_percentage = saved
    scored = score(env, ctx, spec, preset, measurements)
    verdict = scored.verdict
    return {"frame_id": spec.frame_id, "camera": camera.name, "terms": [r.to_dict() for r in scored.terms],
            "measurements": measurements, "verdict": verdict.verdict.value, "failing_terms": list(verdict.failing),
            "gray_terms": list(verdict.gray), "pending_terms": list(verdict.pending),
            "unscored_reason": verdict.unscored_reason, "ground_truth": scored.ground_truth,
            "prompt": scored.prompt, "rendered": render, "targets": env.mask_targets(ctx)}
