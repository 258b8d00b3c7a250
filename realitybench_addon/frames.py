"""One frame outside an export, made the export's way: `frame` (build, photograph, measure, score, write),
`set_frame` (how a set made one of its frames, from its row), `frame_from_set` (that frame again, byte for
byte), `replay` (the frame's scene and camera saved as a .blend) and `redraw_camera` (the phone placed again
with a new numbered pose or capture draw). Every entry point checks the frame's address with
`pipeline.checked_plan`."""
from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Optional, Sequence

from .core.errors import RealityBenchError
from .outputs import check_out_blend, ensure_writable_dir, save_blend, write_record


def frame_settings(samples: int = 16, denoise: bool = True):
    """The Cycles settings `frame` and `replay` render with for `--samples` and denoising: exactly an export's
    for the same options (`ExportConfig.render_settings`), so `frame` with its defaults rebuilds a default
    export's frame."""
    from .export import ExportConfig

    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise RealityBenchError(f"--samples must be at least 1, got {samples}")
    return ExportConfig((), samples=samples, denoise=bool(denoise)).render_settings()


def check_can_render(settings, device: str) -> None:
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


def frame_preset(environment: str, preset_dirs: Sequence[str | os.PathLike] = ()):
    """The preset a frame is scored under: the first of `preset_dirs` that has one, else the shipped one."""
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
          render: bool = True, settings=None, presets: Sequence[str | os.PathLike] = (), extras: bool = False) -> dict:
    """Build, photograph, measure and score one frame through the export's own path
    (`pipeline.render_and_measure`); write `<frame id>.jpg` (when rendered) and `<frame id>.json` atomically
    into `out`, and with `extras` its target mask and debug overlay as `export --extras` writes them
    (`extras/masks/ENV/ID.png`, `extras/overlays/ENV/ID.jpg`). Returns the record. The defaults are a default
    export's (1600 px, `frame_settings()`: 16 samples, denoised, the shipped presets), so the same id gives the
    exported JPEG, terms and verdict; `settings` (a RenderSettings) replaces `samples` and `denoise`."""
    from .export import write_extras
    from .pipeline import SHARED_CACHE, checked_plan, render_and_measure, run_frame

    spec = checked_plan(environment, seed, stratum, index)
    settings = settings if settings is not None else frame_settings(samples, denoise)
    preset = frame_preset(environment, presets)
    if render:
        check_can_render(settings, device)
    elif extras:
        raise RealityBenchError("--extras draws on the rendered frame; leave out --no-render")
    out = ensure_writable_dir(out)
    if render:
        result = render_and_measure(spec, settings, long_side_px=long_side_px, device=device, preset=preset,
                                    cache=SHARED_CACHE)
    else:
        result = run_frame(spec, long_side_px=long_side_px, render=False, preset=preset, cache=SHARED_CACHE)
    record = result.record
    if extras:
        write_extras(out, result.jpeg, result.mask, record)
    write_record(out, record, result.jpeg)
    return record


def _row_settings(row: dict, manifest: dict):
    """(long side, RenderSettings, device, preset folders) a set's row and manifest record for its frame; a
    ValueError (or TypeError, RenderSettingsError) says what does not hold together."""
    from .core.render_settings import RenderSettings

    config = manifest.get("config") if isinstance(manifest.get("config"), dict) else {}
    render = row.get("render") if isinstance(row.get("render"), dict) else {}
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
    return max(resolution), settings, device, tuple(preset_dirs)


def set_frame(directory: str | os.PathLike, frame_id_text: str) -> dict:
    """How an exported set made one of its frames, from its metadata.jsonl row (read through
    `setio.read_rows`, so a damaged or hostile set is refused with its line) and its manifest: the frame's
    environment, seed, stratum and index, its long side, its Cycles settings, the device and preset folders
    of the export, and the row itself. A one-line RealityBenchError for a missing set or an id not in it."""
    from .core.render_settings import RenderSettingsError
    from .core.rng import parse_frame_id
    from .setio import METADATA, read_manifest, read_rows

    directory = Path(directory)
    if not directory.is_dir():
        raise RealityBenchError(f"no set at {directory} (no such folder)")
    if not (directory / METADATA).is_file():
        raise RealityBenchError(f"{directory} is not an exported set (no {METADATA})")
    try:
        seed, environment, stratum, index = parse_frame_id(frame_id_text)
    except ValueError as exc:
        raise RealityBenchError(str(exc)) from None
    rows = read_rows(directory)
    row = next((r for r in rows if r["frame_id"] == frame_id_text), None)
    if row is None:
        raise RealityBenchError(f"frame {frame_id_text} is not in {directory / METADATA} ({len(rows)} frames)")
    try:
        if (row.get("environment"), row.get("set_seed"), row.get("stratum"), row.get("index")) != (
                environment, seed, stratum, index):
            raise ValueError("its environment, set_seed, stratum or index disagree with its frame id")
        long_side_px, settings, device, presets = _row_settings(row, read_manifest(directory) or {})
    except (ValueError, TypeError, RenderSettingsError) as exc:
        raise RealityBenchError(f"{directory / METADATA}: frame {frame_id_text} cannot be rebuilt: {exc}") from None
    return {"frame_id": frame_id_text, "environment": environment, "seed": seed, "stratum": stratum, "index": index,
            "long_side_px": long_side_px, "settings": settings, "device": device, "presets": presets, "row": row}


def frame_from_set(directory: str | os.PathLike, frame_id_text: str, out: str | os.PathLike, *,
                   warn=None, extras: bool = False) -> dict:
    """Rebuild an exported frame exactly as its set made it (`set_frame`: size, Cycles settings, device,
    presets) and write it as `frame` does. The JPEG is byte for byte the set's, and the terms and verdict
    its row's, when this is the Blender and the preset the set was made with; where either differs, `warn`
    (default: a line on stderr) says so first. `extras` as `frame`'s."""
    import sys

    import bpy

    made = set_frame(directory, frame_id_text)
    versions = made["row"].get("versions") if isinstance(made["row"].get("versions"), dict) else {}
    preset = frame_preset(made["environment"], made["presets"])
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
                 presets=made["presets"], extras=extras)


def replay(frame_id_text: str, out_blend: str | os.PathLike, *, long_side_px: int = 1600, samples: int = 16,
           denoise: bool = True, device: str = "cpu", from_set: Optional[str | os.PathLike] = None) -> dict:
    """Rebuild the scene and camera of any frame from its id and save them as a .blend, with Cycles set up as
    `frame` renders it (`frame_settings`: a default export's), so rendering the .blend gives the frame's raw
    image. With `from_set`, the size and settings are those the set's row recorded (`set_frame`)."""
    import bpy

    from .bl.render import configure_cycles
    from .core.rng import parse_frame_id
    from .pipeline import SHARED_CACHE, checked_plan, place_camera

    try:
        seed, environment, stratum, index = parse_frame_id(frame_id_text)
    except ValueError as exc:
        raise RealityBenchError(str(exc)) from None
    out_blend = check_out_blend(out_blend)  # before any work
    spec = checked_plan(environment, seed, stratum, index)
    if from_set is not None:
        made = set_frame(from_set, frame_id_text)
        long_side_px, settings, device = made["long_side_px"], made["settings"], made["device"]
    else:
        settings = frame_settings(samples, denoise)
    check_can_render(settings, device)
    ensure_writable_dir(out_blend.parent)
    SHARED_CACHE.get(spec)
    _, placed = place_camera(spec, long_side_px)
    configure_cycles(bpy.context.scene, device=device, settings=settings)
    save_blend(out_blend, pack=True)
    return {"frame_id": frame_id_text, "blend": str(out_blend), "camera": "RB_Phone",
            "resolution": list(placed.resolution), "render_settings": settings.to_dict(), "device": device}


def build_frame(environment: str, seed: int = 0, index: int = 0, *, stratum: str = "random",
                long_side_px: int = 1600) -> dict:
    """Build a frame's scene and place its phone camera (no render); returns the geometric record."""
    from .pipeline import SHARED_CACHE, checked_plan, run_frame

    return run_frame(checked_plan(environment, seed, stratum, index), long_side_px=long_side_px, render=False,
                     cache=SHARED_CACHE).record


def redraw_camera(environment: str, seed: int, index: int, *, pose_draw: Optional[int] = None,
                  capture_draw: Optional[int] = None, stratum: str = "random", long_side_px: int = 1600) -> dict:
    """Place the phone again in the built scene of the frame (environment, seed, stratum, index) with a new pose
    and/or capture, drawn from the environment's own distributions: draw k comes from the frame's own random
    stream (`redraw-pose-k`, `redraw-capture-k`), so it is repeatable and differs from frame to frame."""
    from .core.phone import draw_capture
    from .core.rng import frame_rng, stage_rng
    from .envs import registry
    from .pipeline import SHARED_CACHE, checked_plan, place_camera

    spec = checked_plan(environment, seed, stratum, index)
    env = registry.get(environment)
    rng = frame_rng(seed, environment, stratum, index)
    if pose_draw is not None:
        spec = replace(spec, pose=env.draw_pose(spec.plan, spec.target, stage_rng(rng, f"redraw-pose-{pose_draw}")))
    if capture_draw is not None:
        spec = replace(spec, capture=draw_capture(stage_rng(rng, f"redraw-capture-{capture_draw}"), spec.phone))
    SHARED_CACHE.get(spec)
    _, settings = place_camera(spec, long_side_px)
    return {"pose": spec.pose.to_dict(), "capture": spec.capture.to_dict(), "camera": settings.to_dict()}
