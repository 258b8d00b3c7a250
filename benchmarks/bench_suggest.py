"""Does Suggest a Pose fix failing frames? For every scored environment, the first N random frames of a seed
that the scorer rejects, each asked for a suggestion as a worker would ask it.

Run:  .venv/bin/python benchmarks/bench_suggest.py [--frames 10] [--seed 0] [--env rail_attachment,...]
          [--no-render] [--verbose]

Per environment it prints how many failing frames were tried; how many the suggestion fixed (every
geometric term passes at the suggested pose, and, unless --no-render, the image terms pass in the quick
render); how many it reported honestly as not fixable by a move (the scene's state: a tape leaning, a gauge
on bare roof; or a term no pose changed), and how many it neither fixed nor explained; the share fixed of the
fixable (the target: at least 0.9 everywhere); the median and 90th percentile time of the geometric search and
of the whole suggestion; and the median distance moved. Frames are drawn by seed, not picked. Blender's own
output goes to /dev/null (--verbose: to stderr), so stdout is the report alone.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from realitybench_addon import api, pipeline  # noqa: E402
from realitybench_addon.__main__ import _claim_stdout  # noqa: E402
from realitybench_addon.core.presets import load_environment_preset  # noqa: E402
from realitybench_addon.envs import registry  # noqa: E402

CANDIDATES = 200  # random frames looked at per environment for N that the scorer rejects


def failing_frames(env_name: str, seed: int, count: int):
    """Indices of the first `count` random frames whose verdict is reject (not unscored, not discarded)."""
    found = []
    for index in range(CANDIDATES):
        result = pipeline.run_frame(pipeline.plan_frame(env_name, seed, "random", index), render=False,
                                    cache=pipeline.SHARED_CACHE)
        if result.record["verdict"] == "reject" and not result.discard_reason:
            found.append(index)
            if len(found) == count:
                break
    return found


def bench(env_name: str, seed: int, count: int, render: bool, verbose: bool) -> dict:
    rows = []
    for index in failing_frames(env_name, seed, count):
        pipeline.run_frame(pipeline.plan_frame(env_name, seed, "random", index), render=False,
                           cache=pipeline.SHARED_CACHE)  # the frame's scene and its camera, as the sidebar has them
        t = time.perf_counter()
        s = api.suggest_pose(env_name, seed, index, render_check=render)
        s["wall_s"] = time.perf_counter() - t
        rows.append(s)
        if verbose:
            print(f"  {s['frame_id']}: fixed {s['fixed']}, failing {s['failing_before']} -> {s['failing_after']}, "
                  f"unfixable {list(s['unfixable'])}, moved {s['moved_m']:.2f} m, {s['wall_s']:.2f} s; "
                  f"{'; '.join(s['hints'])}", flush=True)
    fixed = [r for r in rows if r["fixed"]]
    explained = [r for r in rows if not r["fixed"] and r["unfixable"]]
    missed = [r for r in rows if not r["fixed"] and not r["unfixable"]]
    fixable = len(rows) - len(explained)
    return {"tried": len(rows), "fixed": len(fixed), "explained": len(explained), "missed": len(missed),
            "share": len(fixed) / fixable if fixable else float("nan"),
            "geometric_s": [r["geometric_seconds"] for r in rows], "wall_s": [r["wall_s"] for r in rows],
            "moved": [r["moved_m"] for r in fixed], "missed_ids": [r["frame_id"] for r in missed],
            "reasons": sorted({f"{k}: {v}" for r in explained for k, v in r["unfixable"].items()})}


def main() -> int:
    scored = [e for e in registry.available() if load_environment_preset(e).acceptability_scored]
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", default=",".join(scored))
    parser.add_argument("--frames", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-render", action="store_true", help="geometric terms only: no confirming render")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    sys.stdout = _claim_stdout(args.verbose)
    sys.stdout.reconfigure(line_buffering=True)
    print(f"Suggest a Pose on the first {args.frames} rejected random frames per environment, seed {args.seed}"
          f"{', geometric terms only' if args.no_render else ', image terms confirmed by a quick render'}")
    print(f"{'environment':16} {'tried':>5} {'fixed':>5} {'not fixable':>11} {'missed':>6} {'fixed/fixable':>13} "
          f"{'search s med/p90':>17} {'total s med/p90':>16} {'moved m med':>11}")
    totals = [0, 0, 0, 0]
    for env_name in args.env.split(","):
        r = bench(env_name, args.seed, args.frames, not args.no_render, args.verbose)
        g, w = np.array(r["geometric_s"] or [np.nan]), np.array(r["wall_s"] or [np.nan])
        moved = f"{np.median(r['moved']):.2f}" if r["moved"] else "-"
        print(f"{env_name:16} {r['tried']:5d} {r['fixed']:5d} {r['explained']:11d} {r['missed']:6d} "
              f"{r['share']:13.2f} {np.median(g):8.2f}/{np.percentile(g, 90):<8.2f} "
              f"{np.median(w):7.2f}/{np.percentile(w, 90):<8.2f} {moved:>11}")
        for reason in r["reasons"]:
            print(f"    not fixable: {reason}")
        if r["missed_ids"]:
            print(f"    missed: {', '.join(r['missed_ids'])}")
        for k, key in enumerate(("tried", "fixed", "explained", "missed")):
            totals[k] += r[key]
    fixable = totals[0] - totals[2]
    print(f"{'all':16} {totals[0]:5d} {totals[1]:5d} {totals[2]:11d} {totals[3]:6d} "
          f"{totals[1] / fixable if fixable else float('nan'):13.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
