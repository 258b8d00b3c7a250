"""One frame, end to end: draw it (pure), build its scene, place the phone, measure, render, score.

A frame is a pure function of (set seed, environment, stratum, index):
  scene  = scene_rng(seed, env/stratum, index // poses_per_scene)  -> scene plan, phone
  frame  = frame_rng(seed, env, stratum, index)                     -> target, pose, capture, post
Frames of one scene share the built scene (and its BVH); `SceneCache` rebuilds only when
the scene changes.

One render-and-measure path: `render_and_measure(spec, settings, long_side_px=..., device=..., preset=...)`
is how the export, `frame` and `replay` make a frame, so the same id and the same `RenderSettings` give the
same JPEG, terms and verdict wherever it is made. Every view of a built scene is measured by one function,
`measure_view` (the geometric terms, and with `RenderSettings` a render's image terms through `render_image`):
a frame's camera (`run_frame`), any camera (`check_camera`, the sidebar's Check) and Suggest a Pose's
confirming render (at a fraction of the frame's size, their pixel counts scaled back up).
`checked_plan` is every entry point's check of a frame's address (environment, seed, stratum, index).
`DEFAULT_LONG_SIDE` and `RenderSettings()` are the export's defaults.
"""
from __future__ import annotations

import contextlib
import functools

import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import numpy as np

from .version import __version__
from .core import postprocess
from .core.phone import Capture, Phone, camera_settings, draw_capture, draw_phone
from .core.capture_terms import target_capture_terms
from .core.errors import RealityBenchError
from .core.presets import Preset, load_environment_preset
from .core.prompt import build_prompt
from .core.render_settings import RenderSettings
from .core.rng import STRATA, frame_id, frame_rng, scene_rng, stage_rng
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


def checked_plan(environment: str, set_seed: int, stratum: str, index: int) -> FrameSpec:
    """`plan_frame` for a frame named by a user (the API, the CLI, the sidebar): a one-line RealityBenchError for
    an unknown environment or stratum, or a seed or index that is not a whole number from 0."""
    try:
        registry.get(environment)
    except LookupError as exc:
        raise RealityBenchError(str(exc)) from None
    if any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in (set_seed, index)):
        raise RealityBenchError(f"seed and index must be non-negative whole numbers (got seed {set_seed!r}, "
                                f"index {index!r})")
    if stratum not in STRATA:
        raise RealityBenchError(f"unknown stratum {stratum!r}; expected one of {', '.join(STRATA)}")
    return plan_frame(environment, set_seed, stratum, index)


def _object_addresses() -> dict:
    """name -> address of every object in the file: what a scene cache compares to know its scene is still there."""
    import bpy

    return {obj.name: obj.as_pointer() for obj in bpy.data.objects}


@dataclass
class SceneCache:
    """The built scene of the last frame; reused by the next frame of the same scene, and only while that scene is
    still there: its stamp on the current scene and every object it made, by name and address. A scene emptied
    (`reset_scene`), another built in its place, an object deleted or renamed, another file opened: a rebuild."""

    key: Optional[tuple] = None
    built: Any = None
    build_s: float = 0.0  # time of the last call: 0 when the scene was reused
    stamp: str = ""
    objects: dict = field(default_factory=dict)  # name -> as_pointer() of every object the build left

    def holds(self, key: tuple) -> bool:
        """Whether the current scene is the one this cache built for `key`, untouched but for additions (the
        phone's camera, a user's marker)."""
        import bpy

        from .bl.reset import BUILD_STAMP

        if key != self.key or self.built is None or bpy.context.scene.get(BUILD_STAMP) != self.stamp:
            return False
        now = _object_addresses()
        return all(now.get(name) == pointer for name, pointer in self.objects.items())

    def get(self, spec: FrameSpec, build: bool = True):
        """The built scene of `spec`; with build=False, a LookupError instead of a (re)build."""
        from .bl.aerial import add_aerial_perspective
        from .bl.reset import BUILD_STAMP, reset_scene
        from .bl.sky import dress_sky
        from .core.aerial import draw_haze

        key = (spec.environment, spec.set_seed, spec.stratum, spec.scene_index)
        self.build_s = 0.0
        if not self.holds(key):
            if not build:
                raise LookupError(f"the scene of {spec.frame_id} is not built; build it first")
            t = time.perf_counter()
            self.key = self.built = None  # a build that fails leaves no cache behind
            scene = reset_scene()
            env = registry.get(spec.environment)
            srng = scene_rng(spec.set_seed, f"{spec.environment}/{spec.stratum}", spec.scene_index)
            built = env.build(scene, spec.plan, stage_rng(srng, "build"))
            if env.outdoor:
                dress_sky(scene, stage_rng(srng, "sky"))
                add_aerial_perspective(scene, draw_haze(stage_rng(srng, "haze")))
            self.stamp = uuid.uuid4().hex
            scene[BUILD_STAMP] = self.stamp
            self.objects = _object_addresses()
            self.key, self.built = key, built
            self.build_s = time.perf_counter() - t
        return self.built


FRAME_ID_PROPERTY = "realitybench_frame_id"
DEFAULT_LONG_SIDE = 1600  # the export's default frame size (ExportConfig.long_side_px), the paper's
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


@dataclass
class RenderedImage:
    """One render of a frame's scene, post-processed and read: what `render_image` returns."""

    jpeg: bytes  # the final phone JPEG
    display: np.ndarray  # the decoded JPEG in [0, 1]
    mask: np.ndarray  # the target's pixels in the object-index pass
    measurements: dict  # the environment's image terms and target_mask_pixels, at the frame's size
    discard_reason: Optional[str]  # render sanity: black or blown frame
    timings: dict


def render_image(ctx: FrameContext, spec: FrameSpec, settings: RenderSettings, *, device: str = "cpu",
                 scale: float = 1.0, preset: Optional[Preset] = None) -> RenderedImage:
    """The one way a frame's image is made and read: Cycles with `settings` through `ctx.camera`, the phone's
    post-processing (`spec.post`) to the final JPEG, the environment's image terms read on it, the target's
    mask and the render sanity check. At `scale` < 1 (a quick check) the render is that fraction of the
    scene's size and the image terms are read at it (a term that projects geometry onto the image needs
    the size it rendered); the preset's pixel-count image terms and `target_mask_pixels` are then scaled
    back up to the frame's size (they grow with its area)."""
    from .bl.render import render_frame

    env: Environment = registry.get(spec.environment)
    scene = ctx.scene
    saved = scene.render.resolution_percentage
    if scale != 1.0:
        scene.render.resolution_percentage = max(1, int(round(saved * scale)))
    ratio = scene.render.resolution_percentage / saved
    timings = {}
    try:
        t = time.perf_counter()
        frame = render_frame(scene, ctx.camera, device=device, settings=settings)
        timings["render_s"] = time.perf_counter() - t
        t = time.perf_counter()
        jpeg, display = postprocess.process(frame.linear_rgb, spec.post)
        measured = env.measure_image(ctx, frame, display)
        mask = frame.mask(env.mask_targets(ctx))
        measured["target_mask_pixels"] = int(mask.sum())
        timings["image_terms_s"] = time.perf_counter() - t
    finally:
        scene.render.resolution_percentage = saved
    if ratio != 1.0:
        pixel_counts = {"target_mask_pixels"} | {t.measurement_key for t in (preset.terms if preset else ())
                                                  if t.kind == "image" and t.unit == "px"}
        for key in pixel_counts:
            if isinstance(measured.get(key), (int, float)) and not isinstance(measured.get(key), bool):
                measured[key] = float(measured[key]) / ratio ** 2
    return RenderedImage(jpeg, display, mask, measured, image_discard_reason(display), timings)


@dataclass
class ViewMeasurement:
    """What `measure_view` read of one view: every measurement, and the render it read them from (None without)."""

    measurements: dict
    image: Optional[RenderedImage] = None

    @property
    def discard_reason(self) -> Optional[str]:
        return self.image.discard_reason if self.image is not None else None


def measure_view(ctx: FrameContext, spec: FrameSpec, preset: Preset, settings: Optional[RenderSettings] = None, *,
                 device: str = "cpu", scale: float = 1.0) -> ViewMeasurement:
    """THE measuring of a view of a built scene: the environment's geometric terms through `ctx.camera`, and
    with `settings` a render's image terms (`render_image`, at `scale` of the scene's size). A frame
    (`run_frame`), any camera (`check_camera`) and Suggest a Pose's confirming render all measure here."""
    env: Environment = registry.get(spec.environment)
    measurements = env.measure(ctx)
    if settings is None:
        return ViewMeasurement(measurements)
    image = render_image(ctx, spec, settings, device=device, scale=scale, preset=preset)
    measurements.update(image.measurements)
    return ViewMeasurement(measurements, image)


def write_pictures(image: RenderedImage, folder, name: str) -> dict:
    """Write a render's phone JPEG (its bytes, as the export writes a frame's) and its target mask (the PNG of
    `export --extras`) into `folder` as `name`.jpg and `name`-mask.png; their paths, for the phone view."""
    from .core.debug_images import mask_png
    from .setio import atomic_write

    folder = Path(folder)
    paths = {"image_path": folder / f"{name}.jpg", "mask_path": folder / f"{name}-mask.png"}
    atomic_write(paths["image_path"], image.jpeg)
    atomic_write(paths["mask_path"], mask_png(image.mask))
    return {key: str(path) for key, path in paths.items()}


def quick_settings(samples: int) -> RenderSettings:
    """The settings of a quick render (the sidebar's Check, Suggest a Pose's confirming render): the export's
    defaults with fewer samples, denoised as a default export is wherever this Blender can denoise (a build
    without OpenImageDenoise can only export with --no-denoise, and is checked the same way)."""
    from .bl.render import denoise_problem

    return RenderSettings().with_(samples=samples, denoise=denoise_problem(True) is None)


def render_and_measure(spec: FrameSpec, settings: RenderSettings, *, long_side_px: int = DEFAULT_LONG_SIDE,
                       device: str = "cpu", preset: Optional[Preset] = None,
                       cache: Optional[SceneCache] = None) -> FrameResult:
    """THE render-and-measure path of a frame: build (or reuse) its scene, place its phone at `long_side_px`,
    measure every geometric term, render it with `settings` on `device`, read its image terms (`render_image`)
    and score it under `preset` (default: the shipped one). The export's frames (random and the positive
    funnel's renders), `frame` and `replay`'s settings all come through here, so one id with one set of
    settings gives one JPEG, one set of terms and one verdict."""
    return run_frame(spec, long_side_px=long_side_px, render=True, settings=settings, device=device, preset=preset,
                     cache=cache if cache is not None else SHARED_CACHE)


def run_frame(spec: FrameSpec, *, long_side_px: int = DEFAULT_LONG_SIDE, render: bool = True,
              samples: Optional[int] = None, denoise: Optional[bool] = None, device: str = "cpu",
              preset: Optional[Preset] = None, cache: SceneCache,
              settings: Optional[RenderSettings] = None) -> FrameResult:
    """Build (or reuse) the frame's scene, measure it and, with `render`, render it and measure its image.
    `settings` (Cycles' samples, denoising, bounces...) default to the export's, `RenderSettings()`, with
    `samples` and `denoise` replacing theirs where given (not both with `settings`). A render goes through
    `render_image`; `render_and_measure` is this with render=True."""
    import bpy

    from .bl.raycast import geometry_frozen, inside_geometry

    if settings is None:  # the tests' and benchmarks' shorthand for RenderSettings().with_(samples=..., denoise=...)
        settings = RenderSettings().with_(**{k: v for k, v in (("samples", samples), ("denoise", denoise))
                                             if v is not None})
    elif samples is not None or denoise is not None:
        raise ValueError("run_frame: give `settings` or `samples`/`denoise`, not both")
    env: Environment = registry.get(spec.environment)
    preset = preset or load_environment_preset(spec.environment)
    timings = {}
    built = cache.get(spec)
    timings["scene_build_s"] = cache.build_s
    t = time.perf_counter()
    camera, cam_settings = place_camera(spec, long_side_px)
    scene = bpy.context.scene
    ctx = FrameContext(scene, camera, built, spec.plan, spec.target, spec.pose)
    with geometry_frozen(scene):  # from here only the camera is new: one check that the BVH is current
        inside = inside_geometry(scene, np.asarray(spec.pose.position))
        view = measure_view(ctx, spec, preset, settings if render else None, device=device)
    image, measurements = view.image, view.measurements
    jpeg, display, mask = (image.jpeg, image.display, image.mask) if image is not None else (None, None, None)
    discard = "camera inside a mesh" if inside else view.discard_reason
    timings["geometric_s"] = time.perf_counter() - t - sum(image.timings.values() if image is not None else ())
    timings.update(image.timings if image is not None else {})
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


def check_camera(spec: FrameSpec, camera, *, settings: Optional[RenderSettings] = None,
                 resolution_scale: float = 1.0, preset: Optional[Preset] = None, cache: SceneCache,
                 build: bool = True, device: str = "cpu", keep_pictures: Optional[Path] = None) -> dict:
    """Every term, the verdict, the ground truth and the prompt of `spec`'s scene seen by `camera`,
    any camera, hand-placed included (the sidebar's readouts and "Check acceptability"), and which of the terms
    are the target's standard capture terms (`target_terms`: sharp, in frame, unoccluded).

    With `settings` (a RenderSettings: `quick_settings(samples)` for a quick check), a render at
    `resolution_scale` of the scene's resolution gives the image terms (`measure_view`), as a frame's do (pixel
    counts scaled back up to the scene's size); geometric terms are always read at the full resolution. At
    scale 1 with the export's settings, the frame's own camera gives the exported frame's terms. With
    `keep_pictures` (a folder), a render's JPEG and target mask are written there (`write_pictures`) and
    their paths returned as `image_path` and `mask_path` (the sidebar's phone view shows them).
    """
    import bpy

    env: Environment = registry.get(spec.environment)
    preset = preset or load_environment_preset(spec.environment)
    built = cache.get(spec, build=build)
    ctx = FrameContext(bpy.context.scene, camera, built, spec.plan, spec.target, spec.pose)
    view = measure_view(ctx, spec, preset, settings, device=device, scale=resolution_scale)
    measurements, discard, render = view.measurements, view.discard_reason, settings is not None
    scored = score(env, ctx, spec, preset, measurements)
    verdict = scored.verdict
    kept = write_pictures(view.image, keep_pictures, spec.frame_id) if keep_pictures and render else {}
    return {"frame_id": spec.frame_id, "camera": camera.name, "terms": [r.to_dict() for r in scored.terms],
            "measurements": measurements, "verdict": verdict.verdict.value, "failing_terms": list(verdict.failing),
            "gray_terms": list(verdict.gray), "pending_terms": list(verdict.pending),
            "unscored_reason": verdict.unscored_reason, "ground_truth": scored.ground_truth,
            "prompt": scored.prompt, "rendered": render, "discard_reason": discard, "targets": env.mask_targets(ctx),
            "target_terms": list(target_capture_terms(r.name for r in scored.terms)), **kept}
