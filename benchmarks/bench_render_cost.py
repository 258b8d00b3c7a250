"""What a change costs in render time: the same frames rendered by two checkouts of the code, interleaved.

Run:  .venv/bin/python benchmarks/bench_render_cost.py --before /tmp/before [--frames 1] [--seed 0]
          [--resolution 1600x1200] [--samples 16] [--env all]
(`git worktree add /tmp/before <old-commit>` gives the old checkout; this checkout is "after".)

For every environment, frames 0..frames-1 of the random stratum are built and rendered once by each
checkout, at the export's reference size and samples with denoising, each in a fresh process; the order
alternates (before first, then after first) so a machine that slows down during the run charges both
alike. Prints per frame the render and scene-build seconds of each, then per environment and overall the
ratio after / before of the render time. Issue 20's budget: overall render ratio <= 1.25.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def worker(tree: str, env: str, seed: int, index: int, long_side: int, samples: int) -> None:
    sys.path.insert(0, tree)
    from realitybench_addon import pipeline

    spec = pipeline.plan_frame(env, seed, "random", index)
    result = pipeline.run_frame(spec, long_side_px=long_side, render=True, samples=samples, denoise=True,
                                cache=pipeline.SceneCache())
    t = result.timings
    print("RESULT " + json.dumps({"render_s": t.get("render_s"), "build_s": t.get("scene_build_s"),
                                  "frame_id": spec.frame_id}))


def run_one(tree: Path, env: str, seed: int, index: int, long_side: int, samples: int) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", str(tree), "--env", env, "--seed", str(seed),
           "--index", str(index), "--long-side", str(long_side), "--samples", str(samples)]
    run = subprocess.run(cmd, cwd=tree, capture_output=True, text=True)
    lines = [ln for ln in run.stdout.splitlines() if ln.startswith("RESULT ")]
    if run.returncode != 0 or not lines:
        raise SystemExit(f"{tree}: {env} #{index} failed:\n{run.stderr[-2000:]}")
    return json.loads(lines[-1][len("RESULT "):])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="checkout of the old code")
    parser.add_argument("--frames", type=int, default=1, help="frames per environment")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resolution", default="1600x1200")
    parser.add_argument("--samples", type=int, default=16)
    parser.add_argument("--env", default="all")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--index", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--long-side", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.env, args.seed, args.index, args.long_side, args.samples)
        return
    if not args.before or not (Path(args.before) / "realitybench_addon").is_dir():
        raise SystemExit("--before must be a checkout of the old code (git worktree add /tmp/before <commit>)")
    sys.path.insert(0, str(HERE))
    from realitybench_addon.envs import registry

    envs = registry.available() if args.env == "all" else args.env.split(",")
    long_side = max(int(x) for x in args.resolution.lower().split("x"))
    trees = {"before": Path(args.before).resolve(), "after": HERE}
    totals: dict[str, dict[str, float]] = {}
    k = 0
    print(f"{'frame':40s} {'before s':>9s} {'after s':>9s} {'ratio':>6s}   build before/after s")
    for env in envs:
        for index in range(args.frames):
            order = ("before", "after") if k % 2 == 0 else ("after", "before")
            k += 1
            got = {which: run_one(trees[which], env, args.seed, index, long_side, args.samples) for which in order}
            b, a = got["before"], got["after"]
            for which in ("before", "after"):
                totals.setdefault(env, {}).setdefault(which, 0.0)
                totals[env][which] += got[which]["render_s"]
            print(f"{a['frame_id']:40s} {b['render_s']:9.1f} {a['render_s']:9.1f} "
                  f"{a['render_s'] / b['render_s']:6.2f}   {b['build_s']:.1f}/{a['build_s']:.1f}", flush=True)
    print()
    print(f"{'environment':20s} {'before s':>9s} {'after s':>9s} {'ratio':>6s}")
    for env, t in totals.items():
        print(f"{env:20s} {t['before']:9.1f} {t['after']:9.1f} {t['after'] / t['before']:6.2f}")
    before = sum(t["before"] for t in totals.values())
    after = sum(t["after"] for t in totals.values())
    print(f"{'all':20s} {before:9.1f} {after:9.1f} {after / before:6.2f}   (budget: <= 1.25)")


if __name__ == "__main__":
    main()
