"""The public headless API: what operators, the CLI and scripts all call.

Everything here works in the bpy wheel (`python -m realitybench_addon ...`), in
`blender -b --python-expr ...` and from the UI. Functions raise `RealityBenchError`
for user errors (a missing file, object, camera; a bad option); its message is one
line that names the problem.
"""
from __future__ import annotations

import json
import os
import platform
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from .version import __version__
from .core import image_terms as img
from .core import postprocess
from .core.errors import RealityBenchError
from .core.phone import camera_settings, draw_capture, draw_phone
from .core.rng import frame_id, frame_rng, stage_rng
from .setio import atomic_write, jsonable
from .phone_pictures import phone_view, picture_preview  # noqa: F401  (the sidebar's phone view)


def _bpy():
    import bpy

    return bpy


def version_info() -> dict:
    bpy = _bpy()
    return {"realitybench": __version__, "blender": bpy.app.version_string, "python": platform.python_version()}


def open_blend(path: str | os.PathLike) -> None:
    path = Path(path)
    if not path.is_file():
        raise RealityBenchError(f"no such .blend file: {path}")
    bpy = _bpy()
    try:
        bpy.ops.wm.open_mainfile(filepath=str(path), load_ui=False)
    except RuntimeError as exc:
        raise RealityBenchError(f"cannot open {path}: {str(exc).strip().splitlines()[-1]}") from None


def _scene_and_camera(camera: Optional[str]):
    from .bl.scene_data import scene_and_camera

    return scene_and_camera(camera)


def image_terms(frame, names: Sequence[str], display: Optional[np.ndarray] = None) -> dict:
    """Image terms of a target from a rendered frame (and the final phone image for saturation)."""
    mask = frame.mask(names)
    if display is None:
        display = postprocess.develop(frame.linear_rgb, postprocess.NEUTRAL)
    return {
        "target_pixels": img.pixel_count(mask),
        "target_pixel_share": img.pixel_share(mask),
        "weber_contrast": img.weber_contrast(frame.linear_rgb, mask),
        "paper_luminance": img.paper_luminance(frame.linear_rgb, mask),
        "saturated_fraction": img.saturated_fraction(display, mask),
        "edge_contrast": img.edge_contrast(frame.linear_rgb, mask),
        "laplacian_variance": img.laplacian_variance(frame.linear_rgb, mask),
    }


# Surface samples on a measured target: each costs ~350 bytes and a ray cast (measured: 10^6 samples add
# ~0.35 GB and ~2 s), so 10^8 was killed at ~23 GB; 10^6 already pins fractions to ~0.1%.
MIN_TARGET_SAMPLES, MAX_TARGET_SAMPLES = 10, 1_000_000


def measure(target: str | Sequence[str], camera: Optional[str] = None, *, blend: Optional[str] = None,
            unit_length_m: float = 0.01, axis: str = "y", render: bool = False, samples: int = 16,
            n_samples: int = 2000) -> dict:
    """Every primitive of `target` (one object name or several) for `camera` (default: the scene camera).
    `n_samples` (surface samples on the target) must lie in [MIN_TARGET_SAMPLES, MAX_TARGET_SAMPLES]."""
    from .bl.measure import measure_target
    from .bl.render import render_frame

    if isinstance(n_samples, bool) or not isinstance(n_samples, int) or not (
            MIN_TARGET_SAMPLES <= n_samples <= MAX_TARGET_SAMPLES):
        raise RealityBenchError(f"--samples-on-target must be a whole number from {MIN_TARGET_SAMPLES:,} to "
                                f"{MAX_TARGET_SAMPLES:,} (about 350 bytes of memory each), not {n_samples!r}")
    if blend is not None:
        open_blend(blend)
    if axis not in ("x", "y", "z"):
        raise RealityBenchError(f"--axis must be x, y or z, not {axis!r}")
    if not unit_length_m > 0:
        raise RealityBenchError(f"--unit-length must be a positive length in metres, not {unit_length_m}")
    names = [target] if isinstance(target, str) else list(target)
    scene, cam = _scene_and_camera(camera)
    _check_finite_geometry(cam, names)
    result = measure_target(scene, cam, names, unit_length_m=unit_length_m, axis=axis, n_samples=n_samples)
    if render:
        frame = render_frame(scene, cam, samples=samples)
        result.update(image_terms(frame, names))
    return result


def ensure_writable_dir(out: str | os.PathLike) -> Path:
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RealityBenchError(f"cannot create output folder {out}: {exc.strerror}") from None
    if not os.access(out, os.W_OK):
        raise RealityBenchError(f"output folder {out} is not writable")
    return out


def _check_finite_geometry(cam, names: Sequence[str]) -> None:
    """A one-line RealityBenchError when the camera's or a target's placement, or a vertex of a target mesh (or of
    its children), is not a finite number: a NaN would otherwise flow through every measurement."""
    bpy = _bpy()
    if not np.isfinite(np.array(cam.matrix_world, float)).all():
        raise RealityBenchError(f"camera {cam.name!r} has a placement (location, rotation or scale) that is not a "
                                f"finite number (NaN or infinite); fix it before measuring")
    for name in names:
        obj = bpy.data.objects.get(name)
        if obj is None:
            continue  # measure_target names a missing object
        for o in [obj, *obj.children_recursive]:
            if not np.isfinite(np.array(o.matrix_world, float)).all():
                raise RealityBenchError(f"object {o.name!r} has a placement (location, rotation or scale) that is not "
                                        f"a finite number (NaN or infinite); fix it before measuring")
            if o.type != "MESH" or not len(o.data.vertices):
                continue
            co = np.empty(3 * len(o.data.vertices), np.float64)
            o.data.vertices.foreach_get("co", co)
            bad = np.flatnonzero(~np.isfinite(co.reshape(-1, 3)).all(axis=1))
            if bad.size:
                raise RealityBenchError(f"object {o.name!r} has {bad.size:,} vertex(es) with a coordinate that is not "
                                        f"a finite number (NaN or infinite), the first vertex {int(bad[0])}; fix the "
                                        f"mesh before measuring")


def check_out_blend(out_blend: str | os.PathLike, flag: str = "--out") -> Path:
    """The .blend file a command will save, checked before any work: not a folder, not a pipe or device, in a
    folder that exists or can be made and is writable."""
    out_blend = Path(out_blend)
    if out_blend.is_dir():
        raise RealityBenchError(f"{flag} {out_blend} is a folder; give the .blend file to write, e.g. "
                                f"{out_blend / 'frame.blend'}")
    if out_blend.exists() and not out_blend.is_file():
        raise RealityBenchError(f"{flag} {out_blend} exists and is not a regular file (a pipe or device); refused")
    ensure_writable_dir(out_blend.parent)
    return out_blend


def demo(out: str | os.PathLike, *, seed: int = 0, long_side_px: int = 400, samples: int = 8) -> dict:
    """Build the demo scene, draw a phone and a capture, photograph the label, score it, write JPEG + JSON.

    Until the environments exist this is the main job's smoke run: every stage of a frame
    (phone model, camera placement, render, object mask, post-processing, measurement) runs.
    """
    from .bl.analytic import demo_scene
    from .bl.camera import apply_capture, ensure_camera, look_at
    from .bl.measure import measure_target
    from .bl.render import render_frame

    out = ensure_writable_dir(out)
    if seed < 0:
        raise RealityBenchError(f"seed must be non-negative, got {seed}")
    rng = frame_rng(seed, "demo", "demo", 0)
    phone = draw_phone(stage_rng(rng, "phone"))
    capture = draw_capture(stage_rng(rng, "capture"), phone)
    pose_rng = stage_rng(rng, "pose")
    target = np.array([0.0, 0.0, 1.5])
    distance = float(pose_rng.uniform(0.35, 1.2))
    azimuth = np.radians(pose_rng.normal(0.0, 20.0))
    elevation = np.radians(pose_rng.normal(0.0, 10.0))
    position = target + distance * np.array([np.sin(azimuth) * np.cos(elevation), -np.cos(azimuth) * np.cos(elevation),
                                             np.sin(elevation)])
    aim = target + pose_rng.normal(0.0, 0.02, 3)
    scene = demo_scene()
    cam = ensure_camera(scene)
    settings = camera_settings(phone, capture, distance, long_side_px)
    apply_capture(scene, cam, settings, capture, phone, look_at(position, aim, roll_deg=float(pose_rng.normal(0, 3))))
    names = ["Label"]
    terms = measure_target(scene, cam, names, unit_length_m=0.01, axis="y")
    frame = render_frame(scene, cam, samples=samples)
    post = postprocess.draw_post_params(stage_rng(rng, "post"))
    jpeg, display = postprocess.process(frame.linear_rgb, post)
    terms.update(image_terms(frame, names, display))
    fid = frame_id(seed, "demo", "demo", 0)
    record = {"frame_id": fid, "file_name": f"{fid}.jpg", "phone": phone.to_dict(), "capture": capture.to_dict(),
              "camera": settings.to_dict(), "postprocess": post.to_dict(), "terms": terms,
              "versions": version_info()}
    atomic_write(out / f"{fid}.jpg", jpeg)
    atomic_write(out / f"{fid}.json", (json.dumps(jsonable(record), indent=2) + "\n").encode())
    return record


def parse_resolution(text: str) -> int:
    """'1600x1200' -> 1600, the long side (the capture's orientation decides landscape or portrait)."""
    try:
        w, h = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise RealityBenchError(f"--resolution must look like 1600x1200, not {text!r}") from None
    if min(w, h) < 16 or max(w, h) > 8192:
        raise RealityBenchError(f"--resolution {text} is out of range: each side must be 16-8192 px")
    if abs(max(w, h) / min(w, h) - 4 / 3) > 0.01:
        raise RealityBenchError(f"--resolution {text} is not 4:3, the phone sensor's aspect")
    return max(w, h)


def frame_settings(samples: int = 16, denoise: bool = True):
    """The Cycles settings `frame` and `replay` render with for `--samples` and denoising: exactly an export's
    for the same options (`ExportConfig.render_settings`), so `frame` with its defaults rebuilds a default
    export's frame."""
    from .export import ExportConfig

    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise RealityBenchError(f"--samples must be at least 1, got {samples}")
    return ExportConfig((), samples=samples, denoise=bool(denoise)).render_settings()


def _check_can_render(settings, device: str) -> None:
    """A one-line error, before any work, for settings this Blender cannot render (no denoiser, no GPU)."""
    from .bl.render import cycles_device, denoise_problem

    problem = denoise_problem(settings.denoise)
    if problem:
        raise RealityBenchError(problem)
    if device not in ("cpu", "gpu", "auto"):
        raise RealityBenchError(f"--device must be cpu, gpu or auto, not {device!r}")
    try:
        cycles_device(device)
    except RuntimeError as exc:
        raise RealityBenchError(str(exc)) from None


def _frame_preset(environment: str, preset_dirs: Sequence[str | os.PathLike] = ()):
    from .core.presets import PresetError, load_environment_preset

    for directory in preset_dirs:
        if not Path(directory).is_dir():
            raise RealityBenchError(f"presets folder {directory} is not here (the set's manifest names it); the "
                                    "frame's terms are scored under its presets")
    try:
        return load_environment_preset(environment, [Path(d) for d in preset_dirs])
    except PresetError as exc:
        raise RealityBenchError(f"bad preset: {exc}") from None


def frame(environment: str, seed: int, index: int, out: str | os.PathLike, *, stratum: str = "random",
          long_side_px: int = 1600, samples: int = 16, denoise: bool = True, device: str = "cpu",
          render: bool = True, settings=None, presets: Sequence[str | os.PathLike] = ()) -> dict:
    """Build, photograph, measure and score one frame through the export's own path
    (`pipeline.render_and_measure`); write `<frame id>.jpg` (when rendered) and `<frame id>.json` atomically
    into `out`. Returns the record. The defaults are a default export's (1600 px, `frame_settings()`: 16
    samples, denoised, the shipped presets), so the same id gives the exported JPEG, terms and verdict;
    `settings` (a RenderSettings) replaces `samples` and `denoise`; `frame_from_set` takes them all from a
    set's row."""
    from .core.rng import STRATA
    from .envs import registry
    from .pipeline import SHARED_CACHE, plan_frame, render_and_measure, run_frame

    try:
        registry.get(environment)
    except LookupError as exc:
        raise RealityBenchError(str(exc)) from None
    if seed < 0 or index < 0:
        raise RealityBenchError(f"seed and index must be non-negative (got seed {seed}, index {index})")
    if stratum not in STRATA:
        raise RealityBenchError(f"unknown stratum {stratum!r}; expected one of {', '.join(STRATA)}")
    settings = settings if settings is not None else frame_settings(samples, denoise)
    preset = _frame_preset(environment, presets)
    if render:
        _check_can_render(settings, device)
    out = ensure_writable_dir(out)
    spec = plan_frame(environment, seed, stratum, index)
    if render:
        result = render_and_measure(spec, settings, long_side_px=long_side_px, device=device, preset=preset,
                                    cache=SHARED_CACHE)
    else:
        result = run_frame(spec, long_side_px=long_side_px, render=False, preset=preset, cache=SHARED_CACHE)
    record = result.record
    if result.jpeg is not None:
        atomic_write(out / record["file_name"], result.jpeg)
    atomic_write(out / f"{record['frame_id']}.json", (json.dumps(jsonable(record), indent=2) + "\n").encode())
    return record


def set_frame(directory: str | os.PathLike, frame_id_text: str) -> dict:
    """How an exported set made one of its frames, from its metadata.jsonl row (read through
    `setio.read_rows`, so a damaged or hostile set is refused with its line) and its manifest: the frame's
    environment, seed, stratum and index, its long side, its Cycles settings, the device and preset folders
    of the export, and the row itself. A one-line RealityBenchError for a missing set or an id not in it."""
    from .core.render_settings import RenderSettings, RenderSettingsError
    from .setio import METADATA, read_manifest, read_rows

    directory = Path(directory)
    if not directory.is_dir():
        raise RealityBenchError(f"no set at {directory} (no such folder)")
    if not (directory / METADATA).is_file():
        raise RealityBenchError(f"{directory} is not an exported set (no {METADATA})")
    seed, environment, stratum, index = parse_frame_id(frame_id_text)
    rows = read_rows(directory)
    row = next((r for r in rows if r["frame_id"] == frame_id_text), None)
    if row is None:
        raise RealityBenchError(f"frame {frame_id_text} is not in {directory / METADATA} ({len(rows)} frames)")
    manifest = read_manifest(directory) or {}
    config = manifest.get("config") if isinstance(manifest.get("config"), dict) else {}
    render = row.get("render") if isinstance(row.get("render"), dict) else {}
    try:
        if (row.get("environment"), row.get("set_seed"), row.get("stratum"), row.get("index")) != (
                environment, seed, stratum, index):
            raise ValueError("its environment, set_seed, stratum or index disagree with its frame id")
        resolution = render.get("resolution")
        if not (isinstance(resolution, list) and len(resolution) == 2
                and all(isinstance(v, int) and not isinstance(v, bool) and v >= 16 for v in resolution)):
            raise ValueError(f"its render resolution {resolution!r} is not two sizes in px")
        if isinstance(render.get("settings"), dict):
            settings = RenderSettings.from_dict(render["settings"])
        elif isinstance(manifest.get("render_settings"), dict):
            settings = RenderSettings.from_dict(manifest["render_settings"])
        else:  # a set from before sets recorded their settings (issue 21)
            settings = RenderSettings.before_issue_21(render.get("samples"), render.get("denoise"))
        if (render.get("samples"), render.get("denoise")) != (settings.samples, settings.denoise):
            raise ValueError("its render samples and denoise disagree with its render settings")
        device = config.get("device", "cpu")
        preset_dirs = config.get("preset_dirs", [])
        if not isinstance(device, str) or not isinstance(preset_dirs, list) or not all(
                isinstance(d, str) for d in preset_dirs):
            raise ValueError("the manifest's device or preset folders are not text")
    except (ValueError, TypeError, RenderSettingsError) as exc:
        raise RealityBenchError(f"{directory / METADATA}: frame {frame_id_text} cannot be rebuilt: {exc}") from None
    return {"frame_id": frame_id_text, "environment": environment, "seed": seed, "stratum": stratum, "index": index,
            "long_side_px": max(resolution), "settings": settings, "device": device,
            "presets": tuple(preset_dirs), "row": row}


def frame_from_set(directory: str | os.PathLike, frame_id_text: str, out: str | os.PathLike, *,
                   warn=None) -> dict:
    """Rebuild an exported frame exactly as its set made it (`set_frame`: size, Cycles settings, device,
    presets) and write it as `frame` does. The JPEG is byte for byte the set's, and the terms and verdict
    its row's, when this is the Blender and the preset the set was made with; where either differs, `warn`
    (default: a line on stderr) says so first."""
    import sys

    made = set_frame(directory, frame_id_text)
    row, bpy = made["row"], _bpy()
    versions = row.get("versions") if isinstance(row.get("versions"), dict) else {}
    preset = _frame_preset(made["environment"], made["presets"])
    notes = []
    if versions.get("blender") not in (None, bpy.app.version_string):
        notes.append(f"the set was rendered by Blender {versions['blender']}, this is {bpy.app.version_string}: "
                     "the image may differ")
    if versions.get("preset_hash") not in (None, preset.content_hash()):
        notes.append(f"{made['environment']}'s preset changed since the set was made (hash "
                     f"{versions['preset_hash']} there, {preset.content_hash()} here): the verdict is today's")
    for note in notes:
        (warn or (lambda line: print(f"warning: {line}", file=sys.stderr, flush=True)))(note)
    return frame(made["environment"], made["seed"], made["index"], out, stratum=made["stratum"],
                 long_side_px=made["long_side_px"], settings=made["settings"], device=made["device"],
                 presets=made["presets"])


def export_config(environments, *, random: int = 100, positive: int = 50, seed: int = 0, long_side_px: int = 1600,
                  samples: int = 16, denoise: bool = True, device: str = "cpu", shard: str = "0/1",
                  extras: bool = False, presets: Sequence[str | os.PathLike] = ()):
    """A validated export configuration (a RealityBenchError names what is wrong)."""
    from .export import ExportConfig, parse_shard, resolve_environments, validate

    config = ExportConfig(resolve_environments(environments), random, positive, seed, long_side_px, samples,
                          denoise, device, parse_shard(shard), extras,
                          tuple(str(Path(p).resolve()) for p in presets))
    validate(config)
    return config


def background_export(config, out: str | os.PathLike) -> list[str]:
    """The command that runs the export `config` (see export_config) into `out` in a background process:
    the Blender binary this runs in, or this Python where Blender is the bpy module. The sidebar's
    Export starts it and follows the manifest."""
    from .export import export_argv, export_process

    return export_process(export_argv(config, Path(out), command="bpy.ops.realitybench.export"),
                          blender=_bpy().app.binary_path or None)


def export(environments, *, out, random: int = 100, positive: int = 50, seed: int = 0, long_side_px: int = 1600,
           samples: int = 16, denoise: bool = True, device: str = "cpu", shard: str = "0/1", command: str = "",
           progress=None, max_frames: Optional[int] = None, extras: bool = False,
           presets: Sequence[str | os.PathLike] = (), repair: bool = False) -> dict:
    """Export (or resume) a labeled set; the defaults reproduce the paper's set shape. Returns the manifest.
    With `repair`, damaged rows of the folder's metadata log are dropped (and listed in the manifest) and
    their frames rendered again; every good row stays as it was."""
    from .export import export as run_export

    config = export_config(environments, random=random, positive=positive, seed=seed, long_side_px=long_side_px,
                           samples=samples, denoise=denoise, device=device, shard=shard, extras=extras,
                           presets=presets)  # validated before anything touches the disk
    if device == "gpu":
        from .bl.render import cycles_device

        try:
            cycles_device("gpu")
        except RuntimeError as exc:
            raise RealityBenchError(str(exc)) from None
    out = ensure_writable_dir(out)
    return run_export(config, out, command=command, progress=progress, max_frames=max_frames, repair=repair)


def replay(frame_id_text: str, out_blend: str | os.PathLike, *, long_side_px: int = 1600, samples: int = 16,
           denoise: bool = True, device: str = "cpu", from_set: Optional[str | os.PathLike] = None) -> dict:
    """Rebuild the scene and camera of any frame from its id and save them as a .blend, with Cycles set up as
    `frame` renders it (`frame_settings`: a default export's), so rendering the .blend gives the frame's raw
    image. With `from_set`, the size and settings are those the set's row recorded (`set_frame`)."""
    from .bl.render import configure_cycles
    from .pipeline import SHARED_CACHE, place_camera, plan_frame

    seed, environment, stratum, index = parse_frame_id(frame_id_text)
    out_blend = check_out_blend(out_blend)  # before any work
    try:
        from .envs import registry

        registry.get(environment)
    except LookupError as exc:
        raise RealityBenchError(str(exc)) from None
    if from_set is not None:
        made = set_frame(from_set, frame_id_text)
        long_side_px, settings, device = made["long_side_px"], made["settings"], made["device"]
    else:
        settings = frame_settings(samples, denoise)
    _check_can_render(settings, device)
    out_blend = Path(out_blend)
    ensure_writable_dir(out_blend.parent)
    spec = plan_frame(environment, seed, stratum, index)
    SHARED_CACHE.get(spec)
    _, placed = place_camera(spec, long_side_px)
    bpy = _bpy()
    configure_cycles(bpy.context.scene, device=device, settings=settings)
    bpy.ops.file.pack_all()
    bpy.ops.wm.save_as_mainfile(filepath=str(out_blend), compress=True)
    return {"frame_id": frame_id_text, "blend": str(out_blend), "camera": "RB_Phone",
            "resolution": list(placed.resolution), "render_settings": settings.to_dict(), "device": device}


def rescore(directory: str | os.PathLike, presets: Sequence[str | os.PathLike] = ()) -> dict:
    """Re-apply (changed) presets to a set's stored measurements; no rendering. Reports verdict flips."""
    from .core.presets import PresetError
    from .core.rescoring import presets_for, rescore_rows
    from .setio import read_rows

    directory = Path(directory)
    rows = read_rows(directory)
    if not rows:
        raise RealityBenchError(f"{directory} holds no exported frames (no metadata.jsonl rows)")
    try:
        loaded = presets_for((row["environment"] for row in rows), presets)
    except PresetError as exc:
        raise RealityBenchError(f"bad preset: {exc}") from None
    return rescore_rows(rows, loaded)


def merge(shard_dirs: Sequence[str | os.PathLike], out: str | os.PathLike) -> dict:
    """Join shard folders (same settings, shards K/N for every K) into one complete set, all or nothing."""
    from .merge import merge as run_merge

    try:
        return run_merge(shard_dirs, out)
    except OSError as exc:
        raise RealityBenchError(f"merge into {out} failed: {exc}") from None


def build_frame(environment: str, seed: int = 0, index: int = 0, *, stratum: str = "random",
                long_side_px: int = 1600) -> dict:
    """Build a frame's scene and place its phone camera (no render); returns the geometric record."""
    from .envs import registry
    from .pipeline import SHARED_CACHE, plan_frame, run_frame

    try:
        registry.get(environment)
    except LookupError as exc:
        raise RealityBenchError(str(exc)) from None
    if seed < 0 or index < 0:
        raise RealityBenchError(f"seed and index must be non-negative (got seed {seed}, index {index})")
    return run_frame(plan_frame(environment, seed, stratum, index), long_side_px=long_side_px, render=False,
                     cache=SHARED_CACHE).record


def check_active(environment: str, seed: int = 0, index: int = 0, *, camera: Optional[str] = None,
                 stratum: str = "random", render: bool = True, samples: int = 8, resolution_scale: float = 0.5,
                 preset=None, build: bool = True, settings=None, denoise: Optional[bool] = None,
                 device: str = "cpu") -> dict:
    """Score the built scene of (environment, seed, index) from `camera` (default: the scene camera, which
    may have been moved or made by hand). A quick render (default 50% resolution, `samples` samples, denoised
    where this Blender can unless `denoise` says, otherwise the export's settings: `pipeline.quick_settings`)
    gives the image terms, made and read as a frame's (`pipeline.measure_view`); `settings` (a RenderSettings)
    and resolution_scale=1 check at the export's."""
    from .pipeline import SHARED_CACHE, check_camera, checked_plan, quick_settings

    spec = checked_plan(environment, seed, stratum, index)
    scene, cam = _scene_and_camera(camera)
    if render and settings is None:
        settings = quick_settings(samples) if denoise is None else quick_settings(samples).with_(denoise=bool(denoise))
    if render:
        _check_can_render(settings, device)
    try:
        return check_camera(spec, cam, settings=settings if render else None, resolution_scale=resolution_scale,
                            preset=preset, cache=SHARED_CACHE, build=build, device=device)
    except LookupError as exc:
        raise RealityBenchError(str(exc)) from None


def redraw_camera(environment: str, seed: int, index: int, *, pose_draw: Optional[int] = None,
                  capture_draw: Optional[int] = None, stratum: str = "random", long_side_px: int = 1600) -> dict:
    """Place the phone again in the built scene of (environment, seed, index) with a new pose and/or a new
    capture, drawn from the environment's own distributions (numbered draws: repeatable)."""
    from dataclasses import replace

    from .core.rng import frame_rng
    from .envs import registry
    from .pipeline import SHARED_CACHE, place_camera, plan_frame

    spec = plan_frame(environment, seed, stratum, index)
    env = registry.get(environment)
    if pose_draw is not None:
        spec = replace(spec, pose=env.draw_pose(spec.plan, spec.target,
                                                stage_rng(frame_rng(seed, environment, "demo", pose_draw), "pose")))
    if capture_draw is not None:
        spec = replace(spec, capture=draw_capture(stage_rng(frame_rng(seed, environment, "demo", capture_draw),
                                                            "capture"), spec.phone))
    SHARED_CACHE.get(spec)
    _, settings = place_camera(spec, long_side_px)
    return {"pose": spec.pose.to_dict(), "capture": spec.capture.to_dict(), "camera": settings.to_dict()}


def suggest_pose(environment: str, seed: int = 0, index: int = 0, *, camera: Optional[str] = None,
                 stratum: str = "random", render_check: bool = True, apply: bool = False, preset=None,
                 target_objects: Optional[Sequence[str]] = None, samples: Optional[int] = None,
                 denoise: Optional[bool] = None, device: str = "cpu") -> dict:
    """Suggest a Pose for the built frame's camera (guidance.py): the nearest pose whose terms pass, the move
    in a worker's words, a hint per failing term, and what no move fixes. The camera moves only with `apply`
    (or later, `apply_suggestion`); `target_objects` photographs those objects instead of the frame's target;
    `samples`, `denoise` and `device` are the confirming quick render's."""
    from .guidance import IMAGE_SAMPLES, suggest_pose as search

    return search(environment, seed, index, camera=camera, stratum=stratum, render_check=render_check,
                  apply=apply, preset=preset, target_objects=target_objects,
                  samples=IMAGE_SAMPLES if samples is None else samples, denoise=denoise, device=device)


def suggest(environment: Optional[str] = None, seed: int = 0, index: int = 0, *, stratum: str = "random",
            blend: Optional[str] = None, camera: Optional[str] = None, long_side_px: int = 1600,
            render_check: bool = True, out_blend: Optional[str] = None,
            target: Optional[Sequence[str]] = None) -> dict:
    """Suggest a Pose headless: for a frame named by (environment, seed, index), or for the camera of a .blend
    that `replay` (or an export's frame) wrote, whose scene knows its frame id. The scene is rebuilt from the
    id; the camera's pose, lens and capture are the .blend's. `target` (object names, as `measure` takes them)
    makes those objects the photo's subject instead of the environment's target. With `out_blend`, the camera
    is moved to the suggestion and the scene saved there."""
    from .bl.camera import PHONE_PROPERTY
    from .bl.measure import CAPTURE_PROPERTY
    from .bl.scene_data import matrix_to_numpy
    from .core.rng import STRATA, parse_frame_id
    from .envs import registry
    from .pipeline import FRAME_ID_PROPERTY, SHARED_CACHE, place_camera, plan_frame

    if out_blend is not None:
        check_out_blend(out_blend)  # before any work
    held = None
    if blend is not None:
        open_blend(blend)
        bpy = _bpy()
        frame_id = bpy.context.scene.get(FRAME_ID_PROPERTY)
        if not frame_id:
            raise RealityBenchError(f"{blend} does not say which RealityBench frame it is (no {FRAME_ID_PROPERTY!r} "
                                    "on its scene; `replay` writes one); give --env, --seed and --index instead")
        _, cam = _scene_and_camera(camera)
        data = cam.data
        held = (matrix_to_numpy(cam.matrix_world), cam.get(CAPTURE_PROPERTY), cam.get(PHONE_PROPERTY),
                (data.lens, data.sensor_width, data.sensor_height, data.dof.aperture_fstop, data.dof.focus_distance))
        seed, environment, stratum, index = parse_frame_id(str(frame_id))
    if environment is None:
        raise RealityBenchError("name the frame: --env, --seed and --index, or --blend")
    registry.get(environment)
    if seed < 0 or index < 0:
        raise RealityBenchError(f"seed and index must be non-negative (got seed {seed}, index {index})")
    if stratum not in STRATA:
        raise RealityBenchError(f"unknown stratum {stratum!r}; expected one of {', '.join(STRATA)}")
    if out_blend is not None:
        ensure_writable_dir(Path(out_blend).parent)
    spec = plan_frame(environment, seed, stratum, index)
    SHARED_CACHE.get(spec)
    cam, _ = place_camera(spec, long_side_px)
    if held is not None:  # the .blend's camera as it was held, in the rebuilt scene
        from mathutils import Matrix

        matrix, capture, phone, lens = held
        cam.animation_data_clear()
        cam.matrix_world = Matrix(matrix.tolist())
        for key, value in ((CAPTURE_PROPERTY, capture), (PHONE_PROPERTY, phone)):
            if value is not None:
                cam[key] = value
        data = cam.data
        data.lens, data.sensor_width, data.sensor_height, data.dof.aperture_fstop, data.dof.focus_distance = lens
        _bpy().context.view_layer.update()
    result = suggest_pose(environment, seed, index, camera=cam.name, stratum=stratum, render_check=render_check,
                          apply=out_blend is not None, target_objects=list(target) if target else None)
    if out_blend is not None:
        bpy = _bpy()
        bpy.ops.wm.save_as_mainfile(filepath=str(out_blend), compress=True)
        result["blend"] = str(out_blend)
    return result


def apply_suggestion(suggestion: dict, camera: Optional[str] = None) -> dict:
    """Move the camera to a suggestion's pose, with its capture fixes (focus on the target, a steady hand, another
    lens); returns the camera's state before, which `restore_camera` puts back."""
    from .guidance import apply_suggestion as move

    return move(suggestion, camera=camera)


def preview_suggestion(suggestion: dict, camera: Optional[str] = None) -> str:
    """Show a suggestion's camera as a frustum in the viewport (a ghost camera, never rendered); its name."""
    from .guidance import preview_suggestion as preview

    return preview(suggestion, camera=camera)


def clear_suggestion_preview() -> bool:
    from .bl.camera import remove_ghost_camera

    return remove_ghost_camera()


def restore_camera(state: dict) -> None:
    """Undo an `apply_suggestion`: the camera as it was."""
    from .guidance import restore_camera as restore

    restore(state)


# What the sidebar needs besides frames: environments, presets, sets, ratings, the demo scene. ui/
# reaches the rest of the package only through this module (tests/test_import_contract.py).

def environments() -> tuple[str, ...]:
    """The environments that can be built, in the spec's order."""
    from .envs import registry

    return registry.available()


def shipped_preset(environment: str):
    """The preset RealityBench ships for `environment` (core.presets.Preset)."""
    from .core.presets import load_environment_preset

    return load_environment_preset(environment)


def saved_preset(environment: str, directory: str | os.PathLike):
    """The user's preset of `environment` in `directory`, or None where there is none."""
    from .core.presets import load_environment_preset

    path = Path(directory) / f"{environment}.toml"
    return load_environment_preset(environment, [Path(directory)]) if path.exists() else None


def save_preset(preset, path: str | os.PathLike) -> Path:
    """Write `preset` as TOML, atomically; a PresetError (a RealityBenchError) names what is wrong."""
    from .core.presets import save_preset as write

    return write(preset, path)


def set_rows(directory: str | os.PathLike) -> list[dict]:
    """Every frame row of an exported set, each checked (setio.read_rows); [] for a set with none yet."""
    from .setio import read_rows

    try:
        return read_rows(Path(directory))
    except OSError as exc:
        raise RealityBenchError(f"cannot read the set in {directory}: {exc}") from None


def set_progress(directory: str | os.PathLike) -> tuple[int, int]:
    """(frames written, frames expected) of an export in progress; (0, 0) while its manifest is unreadable
    (the export may be rewriting it; a damaged one is the export's error to report)."""
    from .setio import SetError, read_manifest

    try:
        manifest = read_manifest(Path(directory)) or {}
    except (SetError, OSError):
        return 0, 0
    counts = manifest.get("counts") or {}
    done = sum(counts.get(env, {}).get(stratum, 0) for env in counts for stratum in ("random", "positive"))
    return done, manifest.get("expected_frames", 0)


def rated_set(directory: str | os.PathLike, presets: Sequence[str | os.PathLike] = ()) -> dict:
    """A rated set's agreement figures and gray-range suggestions under `presets` (rating.summary), and the
    environments frozen since their held-out frames were reported."""
    from .rating.store import DB_NAME
    from .rating.summary import RatedSet, summarize

    directory = Path(directory)
    if not (directory / DB_NAME).is_file():
        raise RealityBenchError(f"no ratings in {directory} yet: rate it first with "
                                f"python -m realitybench_addon rate {directory}")
    rated = RatedSet(directory, list(presets))
    return {"summary": summarize(rated), "frozen": sorted(rated.store.freezes())}


def build_demo_scene() -> str:
    """Replace the current scene with the demo scene (a label on a wall, an occluder and a cable) seen by a
    26 mm camera; returns the target's name."""
    from mathutils import Matrix

    from .bl.analytic import demo_scene
    from .bl.camera import ensure_camera, look_at

    scene = demo_scene()
    cam = ensure_camera(scene)
    cam.matrix_world = Matrix(look_at((0.2, -0.8, 1.6), (0.0, 0.0, 1.5)).tolist())
    cam.data.lens = 26.0
    return "Label"


def raycast_cache_handler():
    """The depsgraph_update_post handler that keeps the ray-cast cache in step with scene edits (persistent)."""
    from .bl.raycast import on_depsgraph_update

    return on_depsgraph_update


def pack_on_save_handler():
    """The save_pre handler that packs the scene's drawn textures into the .blend being saved (persistent;
    `bl.materials.pack_on_save` installs it too, for scripts that never register the add-on)."""
    from .bl.materials import pack_before_save

    return pack_before_save


def pack_drawn_images() -> list[str]:
    """Pack the scene's drawn textures now (a save does it anyway: `pack_on_save_handler`); returns the names
    of any that could not be packed."""
    from .bl.materials import pack_marked_images

    return pack_marked_images()


def forget_raycast_cache() -> None:
    from .bl.raycast import invalidate

    invalidate()


def parse_frame_id(text: str) -> tuple[int, str, str, int]:
    """(set seed, environment, stratum, index) of a frame id such as tape_gap-random-s0-000002."""
    from .core.rng import parse_frame_id as parse

    try:
        return parse(text)
    except ValueError as exc:
        raise RealityBenchError(str(exc)) from None
