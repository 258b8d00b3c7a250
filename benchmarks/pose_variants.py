"""Calibration aid: what would another pose model do to an environment's geometric funnel?

Run:  .venv/bin/python benchmarks/pose_variants.py --env ro_board [--frames 300] [--seed 0]
          --variant "sd45=azimuth_sd_deg:45" --variant "sd45_near=azimuth_sd_deg:45;distance_m:0.35,15"

Each variant replaces fields of the environment module's `POSES` (a pose-model dataclass, e.g.
`envs/ro_board.POSES`) while the frames are planned; values are numbers, a comma makes a tuple. Every
frame is planned once per variant (and once as the code stands, "now"), on the same scenes (a scene is built
once and shared), and its geometric terms are measured at the reference size (1600 px). It prints, per
variant, the share of frames that no geometric term fails (the most the image terms can accept) and each
term's failure rate. No render: the image terms' share comes from `calibrate_envs.py`. Blender's output goes
to /dev/null.
"""
from __future__ import annotations

import argparse
import dataclasses
import importlib
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from realitybench_addon import pipeline  # noqa: E402
from realitybench_addon.__main__ import _claim_stdout  # noqa: E402
from realitybench_addon.core.presets import load_environment_preset  # noqa: E402
from realitybench_addon.core.terms import Outcome  # noqa: E402
from realitybench_addon.envs import registry  # noqa: E402


def parse_variant(text: str) -> tuple[str, dict]:
    """"name=field:value[,value];field:value" -> (name, {field: float or tuple of floats})."""
    name, _, body = text.partition("=")
    if not name or not body:
        raise SystemExit(f"--variant {text!r}: expected NAME=field:value[;field:value]")
    fields = {}
    for item in body.split(";"):
        field, _, value = item.partition(":")
        try:
            numbers = tuple(float(v) for v in value.split(","))
        except ValueError:
            raise SystemExit(f"--variant {text!r}: {value!r} is not a number or numbers") from None
        fields[field.strip()] = numbers if len(numbers) > 1 else numbers[0]
    return name, fields


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", required=True)
    parser.add_argument("--frames", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--variant", action="append", default=[], help="NAME=field:value[,value][;field:value]")
    args = parser.parse_args()
    if args.env not in registry.available():
        raise SystemExit(f"unknown environment {args.env!r}; expected one of {', '.join(registry.available())}")
    module = importlib.import_module(f"realitybench_addon.envs.{args.env}")
    base = getattr(module, "POSES", None)
    if base is None or not dataclasses.is_dataclass(base):
        raise SystemExit(f"{args.env} has no POSES pose model to vary")
    known = {f.name for f in dataclasses.fields(base)}
    variants = {"now": base}
    for text in args.variant:
        name, fields = parse_variant(text)
        unknown = set(fields) - known
        if unknown:
            raise SystemExit(f"{args.env}.POSES has no field {', '.join(sorted(unknown))} "
                             f"(fields: {', '.join(sorted(known))})")
        variants[name] = dataclasses.replace(base, **fields)
    sys.stdout = _claim_stdout(False)
    sys.stdout.reconfigure(line_buffering=True)
    preset = load_environment_preset(args.env)
    geometric = [t.name for t in preset.terms if t.kind == "geometric"]
    passed, failures = Counter(), {name: Counter() for name in variants}
    try:
        for index in range(args.frames):
            for name, poses in variants.items():
                module.POSES = poses  # read when the frame's pose is drawn (plan_frame)
                spec = pipeline.plan_frame(args.env, args.seed, "random", index)
                record = pipeline.run_frame(spec, long_side_px=1600, render=False, preset=preset,
                                            cache=pipeline.SHARED_CACHE).record
                fails = [t["name"] for t in record["terms"] if t["kind"] == "geometric"
                         and t["outcome"] in (Outcome.FAIL.value, Outcome.NOT_APPLICABLE.value)]
                passed[name] += not fails and record["verdict"] != "unscored"
                failures[name].update(fails)
    finally:
        module.POSES = base
    print(f"{args.env}: {args.frames} random frames (seed {args.seed}), geometric terms only")
    for name, poses in variants.items():
        changed = {f: getattr(poses, f) for f in known if getattr(poses, f) != getattr(base, f)}
        print(f"  {name} {changed or ''}: passes geometry {passed[name] / args.frames:.3f}; fails "
              + ", ".join(f"{t} {failures[name][t] / args.frames:.2f}" for t in geometric))


if __name__ == "__main__":
    main()
