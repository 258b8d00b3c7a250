"""The public headless API: what operators, the CLI and scripts all call, and the only module ui/ imports.

A facade: each function says what it does and hands the work to the module that owns it (frames.py, a frame
outside an export; export.py, a set; guidance.py, Suggest a Pose; measuring.py, `measure`; demo.py; pipeline.py,
the one render-and-measure path). Everything works in the bpy wheel (`python -m realitybench_addon ...`), in
`blender -b --python-expr ...` and from the UI. User errors raise `RealityBenchError`, one line naming the problem.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Optional, Sequence

from .core.errors import RealityBenchError  # noqa: F401  (the one error type callers catch)
from .demo import build_demo_scene, demo  # noqa: F401
from .frames import (build_frame, frame, frame_from_set, frame_settings, redraw_camera, replay,  # noqa: F401
                     set_frame)
from .measuring import MAX_TARGET_SAMPLES, MIN_TARGET_SAMPLES, image_terms, measure  # noqa: F401
from .outputs import check_out_blend, ensure_writable_dir, open_blend  # noqa: F401
from .phone_pictures import phone_view, picture_preview  # noqa: F401  (the sidebar's phone view)
from .setio import jsonable  # noqa: F401
from .version import version_info  # noqa: F401

# Frames: frame, frame_from_set, set_frame, replay, build_frame, redraw_camera (frames.py); measure (measuring.py);
# demo, build_demo_scene (demo.py): imported above, their docstrings where they live.


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


def parse_frame_id(text: str) -> tuple[int, str, str, int]:
    """(set seed, environment, stratum, index) of a frame id such as tape_gap-random-s0-000002."""
    from .core.rng import parse_frame_id as parse

    try:
        return parse(text)
    except ValueError as exc:
        raise RealityBenchError(str(exc)) from None


# Sets: export_config, export, background_export, rescore, merge.

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


def export(environments, *, out, command: str = "", progress=None, max_frames: Optional[int] = None,
           repair: bool = False, **options) -> dict:
    """Export (or resume) a labeled set into `out`; returns the manifest. `environments` is an ExportConfig
    (`export_config`'s), or the environments with `export_config`'s options as keywords; the defaults reproduce
    the paper's set shape. With `repair`, damaged rows of the folder's metadata log are dropped (and listed in
    the manifest) and their frames rendered again; every good row stays as it was."""
    from .export import ExportConfig, export as run_export, validate

    if isinstance(environments, ExportConfig):
        if options:
            raise RealityBenchError(f"export: the config already says {', '.join(sorted(options))}")
        config = environments
        validate(config)
    else:
        config = export_config(environments, **options)  # validated (GPU included) before the disk is touched
    out = ensure_writable_dir(out)
    return run_export(config, out, command=command, progress=progress, max_frames=max_frames, repair=repair)


def background_export(config, out: str | os.PathLike) -> list[str]:
    """The command that runs the export `config` (see export_config) into `out` in a background process:
    the Blender binary this runs in, or this Python where Blender is the bpy module. The sidebar's
    Export starts it and follows the manifest."""
    import bpy

    from .export import export_argv, export_process

    return export_process(export_argv(config, Path(out), command="bpy.ops.realitybench.export"),
                          blender=bpy.app.binary_path or None)


def rescore(directory: str | os.PathLike, presets: Sequence[str | os.PathLike] = ()) -> dict:
    """Re-apply (changed) presets to a set's stored measurements; no rendering. Reports verdict flips."""
    from .core.presets import PresetError
    from .core.rescoring import presets_for, rescore_rows
    from .setio import read_rows

    rows = read_rows(Path(directory))
    if not rows:
        raise RealityBenchError(f"{directory} holds no exported frames (no metadata.jsonl rows)")
    try:
        return rescore_rows(rows, presets_for((row["environment"] for row in rows), presets))
    except PresetError as exc:
        raise RealityBenchError(f"bad preset: {exc}") from None


def merge(shard_dirs: Sequence[str | os.PathLike], out: str | os.PathLike) -> dict:
    """Join shard folders (same settings, shards K/N for every K) into one complete set, all or nothing."""
    from .merge import merge as run_merge

    try:
        return run_merge(shard_dirs, out)
    except OSError as exc:
        raise RealityBenchError(f"merge into {out} failed: {exc}") from None


# The sidebar's checks and Suggest a Pose (pipeline.py, guidance.py).

def check_active(environment: str, seed: int = 0, index: int = 0, *, camera: Optional[str] = None,
                 stratum: str = "random", render: bool = True, samples: int = 8, resolution_scale: float = 0.5,
                 preset=None, build: bool = True, settings=None, denoise: Optional[bool] = None,
                 device: str = "cpu", keep_pictures: Optional[str | os.PathLike] = None) -> dict:
    """Score the built scene of (environment, seed, index) from `camera` (default: the scene camera, which
    may have been moved or made by hand). A quick render (default 50% resolution, `samples` samples, denoised
    where this Blender can unless `denoise` says: `pipeline.quick_settings`) gives the image terms, made and read
    as a frame's (`pipeline.measure_view`); `settings` (a RenderSettings) and resolution_scale=1 check at the
    export's. `keep_pictures` (a folder) keeps the render's JPEG and target mask (`image_path`, `mask_path`)."""
    from .bl.scene_data import scene_and_camera
    from .frames import check_can_render
    from .pipeline import SHARED_CACHE, check_camera, checked_plan, quick_settings

    spec = checked_plan(environment, seed, stratum, index)
    _, cam = scene_and_camera(camera)
    if render and settings is None:
        settings = quick_settings(samples) if denoise is None else quick_settings(samples).with_(denoise=bool(denoise))
    if render:
        check_can_render(settings, device)
    try:
        return check_camera(spec, cam, settings=settings if render else None, resolution_scale=resolution_scale,
                            preset=preset, cache=SHARED_CACHE, build=build, device=device, keep_pictures=keep_pictures)
    except LookupError as exc:
        raise RealityBenchError(str(exc)) from None


def suggest_pose(environment: str, seed: int = 0, index: int = 0, *, camera: Optional[str] = None,
                 stratum: str = "random", render_check: bool = True, apply: bool = False, preset=None,
                 target_objects: Optional[Sequence[str]] = None, samples: Optional[int] = None,
                 denoise: Optional[bool] = None, device: str = "cpu",
                 keep_pictures: Optional[str | os.PathLike] = None) -> dict:
    """Suggest a Pose for the built frame's camera (guidance.py): the nearest pose whose terms pass, the move
    in a worker's words, a hint per failing term, and what no move fixes. The camera moves only with `apply`
    (or later, `apply_suggestion`); `target_objects` photographs those objects instead of the frame's target;
    `samples`, `denoise` and `device` are the confirming quick render's, whose JPEG and mask at the suggested
    pose `keep_pictures` (a folder) keeps as check_active's."""
    from .guidance import IMAGE_SAMPLES, suggest_pose as search

    return search(environment, seed, index, camera=camera, stratum=stratum, render_check=render_check,
                  apply=apply, preset=preset, target_objects=target_objects, keep_pictures=keep_pictures,
                  samples=IMAGE_SAMPLES if samples is None else samples, denoise=denoise, device=device)


def suggest(environment: Optional[str] = None, seed: int = 0, index: int = 0, *, stratum: str = "random",
            blend: Optional[str] = None, camera: Optional[str] = None, long_side_px: int = 1600,
            render_check: bool = True, out_blend: Optional[str] = None,
            target: Optional[Sequence[str]] = None) -> dict:
    """Suggest a Pose headless (`guidance.suggest_headless`): for a frame named by (environment, seed, index),
    or for the camera of a .blend `replay` wrote (its scene knows its frame id; the scene is rebuilt, the camera
    held as in the .blend). `target` (object names) makes those objects the photo's subject; with `out_blend`
    the camera is moved to the suggestion and the scene saved there."""
    from .guidance import suggest_headless

    return suggest_headless(environment, seed, index, stratum=stratum, blend=blend, camera=camera,
                            long_side_px=long_side_px, render_check=render_check, out_blend=out_blend, target=target)


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


# What the sidebar needs besides frames: environments, presets, sets, ratings, handlers. ui/ reaches the rest
# of the package only through this module (tests/test_import_contract.py).

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
    """(frames written, frames expected) of an export in progress; (0, 0) while its manifest is unreadable."""
    from .export import set_progress as progress

    return progress(Path(directory))


def rated_set(directory: str | os.PathLike, presets: Sequence[str | os.PathLike] = ()) -> dict:
    """A rated set's agreement figures and gray-range suggestions under `presets` (rating.summary), and the
    environments frozen since their held-out frames were reported."""
    from .rating.store import DB_NAME
    from .rating.summary import RatedSet, summarize

    if not (Path(directory) / DB_NAME).is_file():
        raise RealityBenchError(f"no ratings in {directory} yet: rate it first with "
                                f"python -m realitybench_addon rate {directory}")
    rated = RatedSet(Path(directory), list(presets))
    return {"summary": summarize(rated), "frozen": sorted(rated.store.freezes())}


def raycast_cache_handler():
    """The depsgraph_update_post handler that keeps the ray-cast cache in step with scene edits (persistent)."""
    from .bl.raycast import on_depsgraph_update

    return on_depsgraph_update


def forget_raycast_cache() -> None:
    from .bl.raycast import invalidate

    invalidate()


def pack_on_save_handler():
    """The save_pre handler that packs the scene's drawn textures into the .blend being saved (persistent;
    `bl.materials.pack_on_save` installs it too, for scripts that never register the add-on)."""
    from .bl.materials import pack_before_save

    return pack_before_save


def pack_drawn_images() -> list[str]:
    """Pack the scene's drawn textures now (a save does it anyway); the names of any that could not be packed."""
    from .bl.materials import pack_marked_images

    return pack_marked_images()
