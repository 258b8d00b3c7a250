"""Calibration: do the field-pose distributions give the paper's share of acceptable frames?

Run:  .venv/bin/python benchmarks/calibrate_envs.py [--env slope_gauge,equipment_label] (default: all built)
                                                    [--frames 300] [--seed 0] [--image-long-side 800]
                                                    [--geometric-only] [--denoise] [--dump FILE.jsonl]

For each environment it draws N random frames, measures the geometric terms at the
reference frame size (1600 px long side), renders only the frames whose geometric terms
all pass and that have image terms (the funnel: a frame that fails geometry is rejected
whatever the image says), and prints the accept / reject / gray / unscored shares, each
term's failure rate, and the paper's accept share with the +-40% band the issue asks for.
Image terms come from renders at --image-long-side px (pixel shares are per frame area; pixel counts are scaled by
the area to the 1600 px frame's).
It also prints each term's sole-failure rate (frames that this term alone turns away among the geometric
terms: what adding or loosening it changes) and the scene build and per-frame geometric check times.
--denoise renders as the export does (Cycles' denoiser on); without it the 2-sample images are noisy, which
inflates percentile contrasts (field_contrast_min most: a washed-out field's noise alone passes it).
--geometric-only renders nothing: frames that pass every geometric term stay "pending", and the sole-failure
line shows what a new geometric term does to the accepted share without an hour of renders. Blender's own output goes to
/dev/null (--verbose: to stderr), so stdout is the report alone.
--dump writes one JSON line per frame (its id, verdict and every measurement), so a gray zone or a threshold can
be tried on the same frames afterwards without rendering them again.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from realitybench_addon import pipeline  # noqa: E402
from realitybench_addon.__main__ import _claim_stdout  # noqa: E402
from realitybench_addon.core.presets import load_environment_preset  # noqa: E402
from realitybench_addon.core.terms import Outcome, evaluate  # noqa: E402
from realitybench_addon.envs import registry  # noqa: E402

REFERENCE_LONG_SIDE = 1600  # the paper's frame: geometric terms are measured at it, pixel counts refer to it


def calibrate(env_name: str, frames: int, seed: int, image_long_side: int, geometric_only: bool = False,
              denoise: bool = False, dump=None) -> None:
    preset = load_environment_preset(env_name)
    has_image_terms = any(t.kind == "image" for t in preset.terms) and not geometric_only
    verdicts, failures, sole = Counter(), Counter(), Counter()
    builds, geometric, renders = [], [], 0
    for index in range(frames):
        spec = pipeline.plan_frame(env_name, seed, "random", index)
        result = pipeline.run_frame(spec, long_side_px=1600, render=False, preset=preset, cache=pipeline.SHARED_CACHE)
        if result.timings["scene_build_s"] and index % spec_poses(env_name) == 0:
            builds.append(result.timings["scene_build_s"])
        geometric.append(result.timings["geometric_s"])
        record = result.record
        geometric_fails = [t["name"] for t in record["terms"] if t["kind"] == "geometric"
                           and t["outcome"] in (Outcome.FAIL.value, Outcome.NOT_APPLICABLE.value)]
        if len(geometric_fails) == 1:
            sole[geometric_fails[0]] += 1
        if record["verdict"] == "pending" and has_image_terms:
            rendered = pipeline.run_frame(spec, long_side_px=image_long_side, render=True, samples=2, denoise=denoise,
                                          preset=preset, cache=pipeline.SHARED_CACHE)
            renders += 1
            image = {k: v for k, v in rendered.record["measurements"].items() if k not in record["measurements"]}
            measurements = {**record["measurements"], **scale_pixel_counts(image, preset, image_long_side)}
            results, verdict = evaluate(preset.terms, measurements, record["unscored_reason"])
            record = {"verdict": verdict.verdict.value, "terms": [r.to_dict() for r in results],
                      "measurements": measurements}
        if dump is not None:
            dump.write(json.dumps({"env": env_name, "seed": seed, "index": index, "verdict": record["verdict"],
                                   "measurements": record["measurements"]}, default=_plain) + "\n")
            dump.flush()
        verdicts[record["verdict"]] += 1
        for term in record["terms"]:
            if term["outcome"] in (Outcome.FAIL.value, Outcome.NOT_APPLICABLE.value):
                failures[term["name"]] += 1
    share = {k: verdicts[k] / frames for k in ("accept", "reject", "gray", "unscored", "pending")}
    paper = preset.paper_accept_share
    print(f"\n{env_name}: {frames} random frames (seed {seed}), {renders} rendered at {image_long_side} px"
          + (", denoised" if denoise else "")
          + (" (geometric terms only: 'pending' frames pass every one)" if geometric_only else ""))
    px_terms = [t.name for t in preset.terms if t.kind == "image" and t.unit == "px"]
    if px_terms and image_long_side != REFERENCE_LONG_SIDE and not geometric_only:
        print(f"  note: {', '.join(px_terms)} count pixels; read at {image_long_side} px and scaled by the area to "
              f"the {REFERENCE_LONG_SIDE} px frame's, as the sidebar's quick check does (exact: --image-long-side "
              f"{REFERENCE_LONG_SIDE})")
    print("  verdicts: " + ", ".join(f"{k} {v:.3f}" for k, v in share.items() if v or k != "pending"))
    if paper is not None and not geometric_only:
        lo, hi = paper * 0.6, paper * 1.4
        ok = "inside" if lo <= share["accept"] <= hi else "OUTSIDE"
        print(f"  paper accept share {paper:.2f}; band [{lo:.3f}, {hi:.3f}]: measured {share['accept']:.3f} is {ok}")
    print("  term failure rates: " + ", ".join(f"{t.name} {failures[t.name] / frames:.2f}" for t in preset.terms))
    geometric_terms = [t.name for t in preset.terms if t.kind == "geometric"]
    print("  sole geometric failure rates: " + ", ".join(f"{name} {sole[name] / frames:.3f}" for name in geometric_terms))
    if builds:
        print(f"  scene build: median {np.median(builds) * 1000:.0f} ms; geometric check per frame: median "
              f"{np.median(geometric) * 1000:.1f} ms")


def _plain(value):
    """numpy scalars and arrays as JSON numbers and lists."""
    return value.tolist() if hasattr(value, "tolist") else str(value)


def scale_pixel_counts(image_measurements: dict, preset, long_side: int) -> dict:
    """Pixel-count image terms read at `long_side` scaled to the reference frame's area (the sidebar's quick
    check does the same, `pipeline.render_image`): thresholds count pixels of a 1600 px frame."""
    factor = (REFERENCE_LONG_SIDE / long_side) ** 2
    keys = {t.measurement_key for t in preset.terms if t.kind == "image" and t.unit == "px"}
    return {k: (float(v) * factor if k in keys and isinstance(v, (int, float)) and not isinstance(v, bool) else v)
            for k, v in image_measurements.items()}


def spec_poses(env_name: str) -> int:
    return registry.get(env_name).poses_per_scene


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default=",".join(registry.available()))
    parser.add_argument("--frames", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--image-long-side", type=int, default=800)
    parser.add_argument("--geometric-only", action="store_true",
                        help="render nothing; report the geometric funnel and each term's sole-failure rate")
    parser.add_argument("--denoise", action="store_true", help="render with the denoiser, as the export does")
    parser.add_argument("--dump", type=Path, help="write each frame's verdict and measurements as JSON lines")
    parser.add_argument("--verbose", action="store_true", help="show Blender's output on stderr")
    args = parser.parse_args()
    envs = args.env.split(",")
    unknown = [name for name in envs if name not in registry.available()]
    if unknown:
        parser.error(f"unknown environment {', '.join(unknown)} (known: {', '.join(registry.available())})")
    if args.frames < 1:
        parser.error(f"--frames must be at least 1 (got {args.frames})")
    try:
        dump = open(args.dump, "w") if args.dump else None  # one whole line per frame, flushed as it is written
    except OSError as err:
        parser.error(f"cannot write --dump {args.dump}: {err.strerror}")
    sys.stdout = _claim_stdout(args.verbose)
    sys.stdout.reconfigure(line_buffering=True)
    t = time.time()
    for env_name in envs:
        calibrate(env_name, args.frames, args.seed, args.image_long_side, args.geometric_only, args.denoise, dump)
    if dump is not None:
        dump.close()
    print(f"\ntotal {time.time() - t:.0f} s")


if __name__ == "__main__":
    main()
