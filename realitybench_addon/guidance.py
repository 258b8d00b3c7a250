"""Suggest a Pose on the built scene: where should the worker hold the phone so the frame passes?

The search itself is pure (core/pose_search.py) and so are its words (core/hints.py); this module gives it
a function that measures a pose (it moves the camera and runs the environment's geometric measurements),
the environment's own field poses as starting points, and what is feasible (the environment's
`pose_feasible`, and Blender's check that the phone is not inside geometry). Once the geometric terms pass,
a quick small render confirms the image terms (contrast, glare, pixel counts); when they fail, the search's
next passing poses are rendered in turn. The camera is left as it was unless `apply`.
`api.suggest_pose`, the `suggest` command and the sidebar's Suggest a Pose all call `suggest_pose`.
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, replace
from typing import Optional

import numpy as np

from .core.errors import RealityBenchError

DRAWS = 12  # the environment's own field poses tried as starting points
BUDGET = 60  # geometric measurements per search (15-45 ms each)
ALTERNATIVE_BUDGET = 30  # ... per search with another way of holding the phone (lens, zoom, orientation)
IMAGE_SAMPLES = 4  # the confirming render (pipeline.render_image, as every frame's): the export's settings with a
                   # few samples (pipeline.quick_settings), at the environment's quick_render_scale of the frame's
                   # size (pixel counts scaled back up)
IMAGE_TRIES = 4  # passing poses rendered before the image terms are reported as what no nearby pose fixes
FOCUS_FIX = "tap the target on the screen to focus on it"
STEADY_FIX = "hold the phone still (brace your elbows) while it takes the photo"


def roll_deg(matrix: np.ndarray) -> float:
    """The camera's roll about its view direction, as core.optics.look_at takes it (0: held level)."""
    from .core.optics import look_at

    matrix = np.asarray(matrix, float)
    position, forward = matrix[:3, 3], -matrix[:3, 2]
    up, level_up = matrix[:3, 1], look_at(position, position + forward)[:3, 1]
    return math.degrees(math.atan2(float(np.cross(level_up, up) @ forward), float(level_up @ up)))


def fixed_capture(capture, blur_failing: bool):
    """What a worker fixes on the spot when the photo is not sharp: the focus, a shaking hand. (capture, words)"""
    from .core.phone import FOCUS_ELSEWHERE, HAND_SHAKE, STEADY

    if capture is None or not blur_failing:
        return capture, []
    if capture.mode == FOCUS_ELSEWHERE:
        return replace(capture, mode=STEADY, focus_factor=1.0), [FOCUS_FIX]
    if capture.mode == HAND_SHAKE:
        return replace(capture, mode=STEADY, shake_rate_deg_s=0.0, shake_speed_m_s=0.0), [STEADY_FIX]
    return capture, []


def _terms_dict(results) -> dict:
    return {r.name: {"value": r.to_dict()["value"], "outcome": r.outcome.value} for r in results}


class _MovingCamera:
    """The camera as the search moves it: pose, focus at the target's distance, the (fixed) capture; and back to
    exactly how it was (the one camera snapshot, `bl.camera.camera_state`, and its shake keyframes)."""

    def __init__(self, scene, cam, target_point):
        from .bl.camera import camera_state

        self.scene, self.cam, self.target = scene, cam, np.asarray(target_point, float)
        self.saved = camera_state(scene, cam)
        self.saved_animation = cam.animation_data.action if cam.animation_data else None
        # as the camera is focused now: at this multiple of the target's distance (an autofocus locked elsewhere)
        distance = float(np.linalg.norm(np.asarray(self.saved["matrix"], float)[:3, 3] - self.target))
        self.focus_factor = self.saved["lens"][4] / distance if distance > 1e-6 else 1.0

    def use_capture(self, capture, phone=None) -> None:
        """Take the photo with `capture`: its focus and steadiness, and (given the phone) its lens, zoom and
        orientation."""
        from .bl.measure import CAPTURE_PROPERTY
        from .core.phone import camera_settings

        if capture is None:
            return
        self.cam[CAPTURE_PROPERTY] = json.dumps(capture.to_dict())
        self.focus_factor = capture.focus_factor
        if phone is not None:
            settings = camera_settings(phone, capture, 1.0, max(self.saved["resolution"]))
            data = self.cam.data
            data.lens, data.sensor_width = settings.focal_mm, settings.sensor_width_mm
            data.sensor_height, data.dof.aperture_fstop = settings.sensor_width_mm * 3 / 4, settings.fstop
            self.scene.render.resolution_x, self.scene.render.resolution_y = settings.resolution

    def place(self, pose) -> None:
        import bpy
        from mathutils import Matrix

        from .core.optics import look_at

        if self.cam.animation_data is not None:
            self.cam.animation_data.action = None  # a shaking hand's keyframes would pull it back
        self.cam.matrix_world = Matrix(look_at(pose.position, pose.aim, roll_deg=pose.roll_deg).tolist())
        distance = float(np.linalg.norm(np.asarray(pose.position) - self.target))
        self.cam.data.dof.focus_distance = max(distance * self.focus_factor, 0.01)
        bpy.context.view_layer.update()

    def restore(self) -> None:
        from .bl.camera import restore_camera_state

        if self.saved_animation is not None:  # its own keyframes back, rewritten in place by the restore
            self.cam.animation_data.action = self.saved_animation
        restore_camera_state(self.scene, self.saved)


@dataclass
class _Frame:
    """The built frame a suggestion is searched in, the camera it starts from and the terms it must pass."""

    spec: object  # pipeline.FrameSpec
    env: object  # envs.base.Environment
    preset: object  # core.presets.Preset
    built: object
    scene: object
    cam: object
    space: object  # core.pose_search.OrbitSpace or AimSpace
    target_point: np.ndarray  # what the photo is of, and focused on
    start: object  # core.pose_search.Pose: the camera as held
    geometric: list  # the preset's geometric terms and the environment's search proxies
    image: list  # the preset's image terms

    def context(self, pose):
        from .envs.base import FieldPose, FrameContext

        field = FieldPose(pose.position, pose.aim, pose.roll_deg, "suggested")
        return FrameContext(self.scene, self.cam, self.built, self.spec.plan, self.spec.target, field)


def _frame(environment: str, seed: int, index: int, stratum: str, camera: Optional[str], preset,
           target_objects) -> _Frame:
    """The frame's built scene (a RealityBenchError where it is not built) and the search's start and space."""
    from .bl.scene_data import matrix_to_numpy, scene_and_camera
    from .core.pose_search import OrbitSpace, Pose
    from .core.presets import load_environment_preset
    from .envs import registry
    from .pipeline import SHARED_CACHE, checked_plan

    spec = checked_plan(environment, seed, stratum, index)
    env = registry.get(environment)
    preset = preset or load_environment_preset(environment)
    scene, cam = scene_and_camera(camera)
    try:
        built = SHARED_CACHE.get(spec, build=False)
    except LookupError as exc:
        raise RealityBenchError(str(exc)) from None
    space = env.pose_space(spec.plan, spec.target)
    if target_objects:
        from .bl.scene_data import objects_center
        from .core.phone import MIN_FOCUS_M

        space = OrbitSpace(objects_center(target_objects), MIN_FOCUS_M)
    target_point = np.asarray(space.target if isinstance(space, OrbitSpace) else
                              env.target_point(spec.plan, spec.target), float)
    matrix = matrix_to_numpy(cam.matrix_world)
    position = matrix[:3, 3]
    reach = max(float(np.linalg.norm(target_point - position)), 0.1)
    start = Pose.of(position, position - matrix[:3, 2] * reach, roll_deg(matrix))
    return _Frame(spec, env, preset, built, scene, cam, space, target_point, start,
                  [t for t in preset.terms if t.kind != "image"] + list(env.search_proxies),
                  [t for t in preset.terms if t.kind == "image"])


@dataclass(frozen=True)
class ImageCheck:
    """The confirming quick render: its samples, denoising (None: as `pipeline.quick_settings` decides), device."""

    samples: int = IMAGE_SAMPLES
    denoise: Optional[bool] = None
    device: str = "cpu"

    def render_settings(self):
        from .pipeline import quick_settings

        settings = quick_settings(self.samples)
        return settings if self.denoise is None else settings.with_(denoise=bool(self.denoise))


class _Probe:
    """What the search asks of the scene: a pose's measurements (the camera moved there), whether a worker can
    hold the phone there, the environment's own field poses, and a confirming render's image terms."""

    def __init__(self, frame: _Frame, moving: _MovingCamera):
        self.frame, self.moving, self._draws = frame, moving, None
        self.renders: list = []  # (pose, pipeline.RenderedImage) of each confirming render

    def measure(self, pose) -> dict:
        self.moving.place(pose)
        return self.frame.env.measure(self.frame.context(pose))

    def feasible(self, pose) -> Optional[str]:
        from .bl.raycast import inside_geometry

        reason = self.frame.env.pose_feasible(self.frame.spec.plan, self.frame.spec.target, pose.position)
        if reason is None and inside_geometry(self.frame.scene, np.asarray(pose.position)):
            reason = "inside geometry"
        return reason

    def draws(self) -> list:
        """The environment's own field poses, drawn once and only when the search needs them."""
        from .core.pose_search import Pose
        from .core.rng import frame_rng, stage_rng

        if self._draws is None:
            spec, env = self.frame.spec, self.frame.env
            rng = frame_rng(spec.set_seed, spec.environment, spec.stratum, spec.index)
            drawn = (env.draw_pose(spec.plan, spec.target, stage_rng(rng, f"suggest-{k}")) for k in range(DRAWS))
            self._draws = [Pose.of(d.position, d.aim) for d in drawn]
        return self._draws

    def search(self, budget: int, first: dict):
        from .core.pose_search import search_pose

        frame = self.frame
        return search_pose(self.measure, frame.geometric, frame.start, frame.space, self.draws, self.feasible,
                           scene_state=frame.env.scene_state(frame.spec.plan, frame.spec.target), budget=budget,
                           start_measurements=first)

    def neighbours(self, suggested) -> list:
        """One step from the suggestion along each axis, where the geometry still passes."""
        from .core.pose_search import neighbour_poses, score_pose

        poses = [p for p in neighbour_poses(self.frame.space, suggested.pose) if self.feasible(p) is None]
        return [e for e in (score_pose(self.frame.geometric, p, self.measure(p)) for p in poses) if e.passes]

    def image_terms(self, pose, check: ImageCheck) -> dict:
        """A quick render's measurements at `pose` (`pipeline.measure_view`, as every frame's), at the
        environment's quick_render_scale of the frame's size, pixel counts scaled back up to the frame's."""
        from .pipeline import measure_view

        self.moving.place(pose)
        frame = self.frame
        view = measure_view(frame.context(pose), frame.spec, frame.preset, check.render_settings(),
                            device=check.device, scale=frame.env.quick_render_scale)
        self.renders.append((pose, view.image))
        return view.measurements

    def pictures(self, pose, folder) -> dict:
        """The confirming render's JPEG and target mask at `pose` written into `folder` (`pipeline.write_pictures`);
        {} where it was not rendered."""
        from .pipeline import write_pictures

        image = next((image for rendered, image in self.renders if rendered is pose), None)
        if image is None or not folder:
            return {}
        return write_pictures(image, folder, f"{self.frame.spec.frame_id}-suggested")


@dataclass
class _Found:
    """What the search found: its result, the capture it settled on (and the fixes in words), the pose finally
    suggested and its image check (None when not rendered)."""

    result: object  # core.pose_search.SearchResult
    capture: object
    capture_fixes: list
    after: object = None  # core.pose_search.Evaluation
    image_check: Optional[dict] = None
    geometric_s: float = 0.0


def suggest_pose(environment: str, seed: int = 0, index: int = 0, *, camera: Optional[str] = None,
                 stratum: str = "random", budget: int = BUDGET, render_check: bool = True, apply: bool = False,
                 preset=None, target_objects=None, samples: int = IMAGE_SAMPLES, denoise: Optional[bool] = None,
                 device: str = "cpu", keep_pictures=None) -> dict:
    """Search for the pose nearest the camera's whose terms pass, for the frame's built scene.

    Returns the move in a worker's words (`hints`), a hint per failing term (`term_hints`), the terms before
    and after, the capture fixes, what no move fixes (`unfixable`, with why), and the suggested pose. The
    camera moves there only with `apply`; otherwise it is left exactly as it was. `target_objects` (names) puts the
    photo's subject at their bounding box's centre instead of the environment's target (`suggest --target`).
    The confirming render uses `samples`, `denoise` (default: as `pipeline.quick_settings`) and `device`; with
    `keep_pictures` (a folder) its JPEG and target mask at the suggested pose are written there (`image_path`,
    `mask_path`)."""
    from .bl.raycast import geometry_frozen

    t0 = time.perf_counter()
    frame = _frame(environment, seed, index, stratum, camera, preset, target_objects)
    moving = _MovingCamera(frame.scene, frame.cam, frame.target_point)
    probe = _Probe(frame, moving)
    with geometry_frozen(frame.scene):  # only the camera moves while searching
        try:
            found = _search(probe, budget)
            found.geometric_s = time.perf_counter() - t0
            found.after = found.result.after
            if render_check and frame.image and found.result.after.passes:
                found.image_check, found.after = _confirm(probe, found.result, ImageCheck(samples, denoise, device))
        finally:
            moving.restore()
    suggestion = {**_suggestion(frame, found, t0), **probe.pictures(found.after.pose, keep_pictures)}
    if apply:
        apply_suggestion(suggestion, camera=frame.cam.name)
    return suggestion


def _search(probe: _Probe, budget: int) -> _Found:
    """The geometric search from the camera as held: the capture's focus and steadiness fixed first where the
    photo is not sharp, then every other way of holding the phone where moving alone does not do it."""
    from .bl.measure import camera_capture
    from .core.presets import SHARP_TERM
    from .core.terms import evaluate, failing_terms

    frame = probe.frame
    first = probe.measure(frame.start)
    blur_failing = SHARP_TERM in failing_terms(evaluate(frame.geometric, first)[0])
    capture, fixes = fixed_capture(camera_capture(frame.cam), blur_failing)
    result, capture, fixes = _search_with_captures(lambda budget_now: probe.search(budget_now, first), probe.moving,
                                                   capture, _phone(frame.cam), fixes, budget)
    return _Found(result, capture, fixes)


def _confirm(probe: _Probe, result, check: ImageCheck):
    """The image terms confirmed by quick renders of the passing poses, the suggested one first."""
    passing = [e for e in result.tried if e.passes]
    candidates = _image_candidates(passing, result.after, probe.frame.target_point,
                                   lambda: probe.neighbours(result.after))
    return _confirm_image_terms(candidates, probe.frame.image, lambda pose: probe.image_terms(pose, check))


def _to_fix(evaluation) -> list[str]:
    """The terms a worker would still have to fix at a pose: the failing ones, then the gray ones."""
    from .core.terms import failing_terms

    failing = list(failing_terms(evaluation.results))
    return failing + [name for name in failing_terms(evaluation.results, gray=True) if name not in failing]


def _suggestion(frame: _Frame, found: _Found, t0: float) -> dict:
    """The suggestion as the API returns it: the move in words, the terms before and after, what no move fixes."""
    from .core.hints import move_steps, term_hints
    from .core.pose_search import AimSpace

    result, after, image_check = found.result, found.after, found.image_check
    unfixable = dict(result.unfixable)
    if image_check is not None and not image_check["passed"]:
        unfixable.update(_unmoved_image_terms(image_check))
    steps = move_steps(frame.start, after.pose, frame.target_point, turning_in_place=isinstance(frame.space, AimSpace),
                       walk_words=getattr(frame.space, "walk_words", ""), subject=frame.env.subject)
    before_failing = _to_fix(result.before)
    fixed = after.passes and not unfixable and (image_check is None or image_check["passed"])
    still_failing = image_check["failing"] if image_check and not image_check["passed"] else []
    return {
        "frame_id": frame.spec.frame_id, "environment": frame.spec.environment, "camera": frame.cam.name,
        "fixed": bool(fixed), "geometric_pass": bool(after.passes),
        "image_check": image_check, "unfixable": unfixable,
        "hints": list(steps.values()) + found.capture_fixes, "move": steps, "capture_fixes": found.capture_fixes,
        "term_hints": term_hints(before_failing, steps, found.capture_fixes, unfixable),
        "moved_m": _moved(after, frame.start), "pose_before": frame.start.to_dict(),
        "pose_after": after.pose.to_dict(), "focus_point_m": [float(v) for v in frame.target_point],
        "failing_before": before_failing, "failing_after": after.failing() + still_failing,
        "terms_before": _terms_dict(result.before.results), "terms_after": _terms_dict(after.results),
        "evaluations": result.evaluations, "geometric_seconds": round(found.geometric_s, 3),
        "seconds": round(time.perf_counter() - t0, 3), "applied": False,
        "capture_after": found.capture.to_dict() if found.capture is not None else None,
    }


def _search_with_captures(search, moving, capture, phone, words: list, budget: int):
    """The search with the capture as held (its focus and steadiness fixed); when moving alone does not do it,
    again with each other way of taking the photo with this phone (core/phone.capture_alternatives), keeping
    the first that passes or else the closest. Returns (result, capture, the capture fixes in words)."""
    from .core.phone import capture_alternatives

    moving.use_capture(capture)
    result = search(budget)
    if result.fixed or result.unfixable or capture is None or phone is None:
        return result, capture, words
    for other, said in capture_alternatives(phone, capture):
        moving.use_capture(other, phone)
        tried = search(ALTERNATIVE_BUDGET)
        if tried.fixed or tried.after.deficit < result.after.deficit - 1e-9:
            result, capture, words = tried, other, words + [said]
        if result.fixed:
            break
    moving.use_capture(capture, phone)
    return result, capture, words


def _phone(cam):
    from .bl.camera import PHONE_PROPERTY
    from .core.phone import Phone

    raw = cam.get(PHONE_PROPERTY)
    return Phone.from_dict(json.loads(raw)) if raw else None


def _image_candidates(passing: list, suggested, target_point, neighbours):
    """The passing poses to render, in turn, when the image terms fail at the suggested one: the nearest the
    target (more pixels on a thin wire, larger writing), the farthest (more of what surrounds it: a module's
    frame), the one seen from the most different direction (another angle to a glare), then one step from the
    suggestion along each axis (`neighbours()`, measured only if it comes to that), then the rest by how far
    they are from the suggestion."""
    def distance(e):
        return float(np.linalg.norm(np.asarray(e.pose.position) - target_point))

    def direction(e):
        d = np.asarray(e.pose.position) - target_point
        return d / max(np.linalg.norm(d), 1e-9)

    first = direction(suggested)
    rest = [e for e in passing if e is not suggested]
    yield suggested
    picked = [suggested]
    for e in (min(rest, key=distance, default=None), max(rest, key=distance, default=None),
              min(rest, key=lambda e: float(direction(e) @ first), default=None)):
        if e is not None and all(e is not o for o in picked):
            picked.append(e)
            yield e
    yield from neighbours()
    here = np.asarray(suggested.pose.position)
    yield from sorted((e for e in rest if all(e is not o for o in picked)),
                      key=lambda e: float(np.linalg.norm(np.asarray(e.pose.position) - here)))


UNMOVED_IMAGE_SPREAD = 0.1  # an image term within 10% across the poses rendered: the light decides it, not the pose


def _unmoved_image_terms(check: dict) -> dict:
    """Image terms that failed at every pose rendered (three or more) with values within UNMOVED_IMAGE_SPREAD of
    each other: a label in shade, whose paper no pose lightens."""
    out = {}
    for name in check["failing"]:
        values = [v for v in check["values"].get(name, []) if isinstance(v, (int, float))]
        if len(values) < 3 or max(abs(v) for v in values) == 0:
            continue
        if (max(values) - min(values)) <= UNMOVED_IMAGE_SPREAD * max(abs(v) for v in values):
            out[name] = (f"it stayed at {min(values):.3g}-{max(values):.3g} in the quick renders of "
                         f"{len(values)} poses around the suggestion: the light on the scene, not where the phone "
                         "is, decides it")
    return out


def _confirm_image_terms(candidates, image_terms, render) -> tuple[dict, object]:
    """Render candidates in turn (IMAGE_TRIES at most, each a distinct place) until one passes its image terms.
    Returns the check's record and the pose to suggest: the passing one, or else the first rendered."""
    from .core.terms import evaluate, failing_terms

    check = {"rendered": 0, "passed": False, "failing": [], "terms": {}, "values": {}}
    rendered: list = []
    for candidate in candidates:
        if check["rendered"] >= IMAGE_TRIES:
            break
        if any(_same_place(candidate.pose, c.pose) for c in rendered):
            continue
        rendered.append(candidate)
        results, _ = evaluate(image_terms, render(candidate.pose))
        check["rendered"] += 1
        check["failing"] = list(failing_terms(results, gray=True))
        check["terms"] = _terms_dict(results)
        for r in results:
            check["values"].setdefault(r.name, []).append(r.to_dict()["value"])
        if not check["failing"]:
            check["passed"] = True
            return check, candidate
    return check, rendered[0]


def _moved(evaluation, start) -> float:
    return float(np.linalg.norm(np.asarray(evaluation.pose.position) - np.asarray(start.position)))


def _same_place(a, b) -> bool:
    da = np.asarray(a.aim) - np.asarray(a.position)
    db = np.asarray(b.aim) - np.asarray(b.position)
    cos = float(da @ db / max(np.linalg.norm(da) * np.linalg.norm(db), 1e-12))
    return np.linalg.norm(np.asarray(a.position) - np.asarray(b.position)) < 0.05 and cos > math.cos(math.radians(3))


def _suggested_settings(suggestion: dict, cam):
    """(camera-to-world matrix, capture, phone, CameraSettings or None) of a suggestion, for this camera."""
    from .core.optics import look_at
    from .core.phone import Capture, camera_settings

    pose = suggestion["pose_after"]
    matrix = look_at(pose["position_m"], pose["aim_m"], roll_deg=pose["roll_deg"])
    capture, phone = suggestion.get("capture_after"), _phone(cam)
    if capture is None or phone is None:
        return matrix, None, None, None
    distance = float(np.linalg.norm(np.asarray(pose["position_m"]) - np.asarray(suggestion["focus_point_m"])))
    capture = Capture.from_dict(capture)
    scene = cam.users_scene[0] if cam.users_scene else None
    long_side = max(scene.render.resolution_x, scene.render.resolution_y) if scene is not None else 1600
    return matrix, capture, phone, camera_settings(phone, capture, max(distance, 0.05), long_side)


def preview_suggestion(suggestion: dict, *, camera: Optional[str] = None) -> str:
    """Show where a suggestion would put the phone: a second camera's frustum in the viewport (bl/camera.py's
    ghost), with the suggested lens. Returns its name."""
    from .bl.camera import show_ghost_camera
    from .bl.scene_data import scene_and_camera

    scene, cam = scene_and_camera(camera or suggestion.get("camera"))
    matrix, _, _, settings = _suggested_settings(suggestion, cam)
    focal, sensor = (settings.focal_mm, settings.sensor_width_mm) if settings else (cam.data.lens,
                                                                                   cam.data.sensor_width)
    return show_ghost_camera(scene, matrix, focal, sensor).name


def apply_suggestion(suggestion: dict, *, camera: Optional[str] = None) -> dict:
    """Move the camera to a suggestion's pose, focused on its target, with the fixed capture (a steady hand,
    the focus on the target, another lens): as if the worker had taken the photo there. Returns the camera's
    state before (for `restore_camera`); the preview's ghost camera goes."""
    import bpy
    from mathutils import Matrix

    from .bl.camera import apply_capture, camera_state, remove_ghost_camera
    from .bl.scene_data import scene_and_camera

    scene, cam = scene_and_camera(camera or suggestion.get("camera"))
    before = camera_state(scene, cam)
    matrix, capture, phone, settings = _suggested_settings(suggestion, cam)
    if settings is not None:
        apply_capture(scene, cam, settings, capture, phone, matrix)
    else:
        cam.matrix_world = Matrix(matrix.tolist())
    remove_ghost_camera()
    bpy.context.view_layer.update()
    suggestion["applied"] = True
    return before


def restore_camera(state: dict) -> None:
    """Undo an Apply: the camera as `apply_suggestion` found it."""
    import bpy

    from .bl.camera import restore_camera_state

    try:
        restore_camera_state(bpy.context.scene, state)
    except LookupError as exc:
        raise RealityBenchError(str(exc)) from None


def suggest_headless(environment: Optional[str] = None, seed: int = 0, index: int = 0, *, stratum: str = "random",
                     blend: Optional[str] = None, camera: Optional[str] = None, long_side_px: int = 1600,
                     render_check: bool = True, out_blend: Optional[str] = None, target=None) -> dict:
    """`suggest`: for a frame named by (environment, seed, index), or for the camera of a .blend that `replay`
    (or an export's frame) wrote, whose scene knows its frame id. The scene is rebuilt from the id; the camera's
    pose, lens and capture are the .blend's (`bl.camera.camera_state`), its frame's long side `long_side_px`.
    With `out_blend`, the camera is moved to the suggestion and the scene saved there."""
    from .outputs import check_out_blend, save_blend
    from .pipeline import SHARED_CACHE, checked_plan, place_camera

    if out_blend is not None:
        check_out_blend(out_blend)  # before any work
    held = None
    if blend is not None:
        environment, seed, stratum, index, held = _blend_camera(blend, camera)
    if environment is None:
        raise RealityBenchError("name the frame: --env, --seed and --index, or --blend")
    spec = checked_plan(environment, seed, stratum, index)
    SHARED_CACHE.get(spec)
    cam, _ = place_camera(spec, long_side_px)
    if held is not None:  # the .blend's camera as it was held, in the rebuilt scene, at this frame size
        from .bl.camera import hold_camera

        scale = long_side_px / max(held["resolution"])
        hold_camera(cam.users_scene[0], cam, {**held, "resolution": [round(v * scale) for v in held["resolution"]]})
    result = suggest_pose(environment, seed, index, camera=cam.name, stratum=stratum, render_check=render_check,
                          apply=out_blend is not None, target_objects=list(target) if target else None)
    if out_blend is not None:
        save_blend(out_blend)
        result["blend"] = str(out_blend)
    return result


def _blend_camera(blend, camera: Optional[str]):
    """(environment, seed, stratum, index, camera_state) of a .blend `replay` wrote: its frame id and how its
    camera is held."""
    import bpy

    from .bl.camera import camera_state
    from .bl.scene_data import scene_and_camera
    from .core.rng import parse_frame_id
    from .outputs import open_blend
    from .pipeline import FRAME_ID_PROPERTY

    open_blend(blend)
    frame_id = bpy.context.scene.get(FRAME_ID_PROPERTY)
    if not frame_id:
        raise RealityBenchError(f"{blend} does not say which RealityBench frame it is (no {FRAME_ID_PROPERTY!r} "
                                "on its scene; `replay` writes one); give --env, --seed and --index instead")
    scene, cam = scene_and_camera(camera)
    try:
        seed, environment, stratum, index = parse_frame_id(str(frame_id))
    except ValueError as exc:
        raise RealityBenchError(f"{blend}: {exc}") from None
    return environment, seed, stratum, index, camera_state(scene, cam)
