"""Benchmark the export: overhead over pure rendering, renders per accepted positive, memory growth.

Run:  .venv/bin/python benchmarks/bench_export.py [--frames 200] [--resolution 320x240] [--samples 4]

Prints (issue 4 targets in brackets):
  overhead ratio = (wall time - pure render time) / pure render time, random stratum   [<= 0.10]
    and where that time goes, per frame (scene building, geometric terms, image terms, the rest)
  renders per accepted positive frame (the funnel: geometric terms before any render)  [<= 1.3]
  resident memory growth from frame 20 to the last frame in one process, and within the
  100 frames one CLI worker process renders before it is recycled                        [<= 10 %]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from realitybench_addon import api  # noqa: E402


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--positive", type=int, default=20)
    parser.add_argument("--resolution", default="320x240")
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--env", default="rail_attachment,wire_adequacy,tape_gap")
    args = parser.parse_args()
    long_side = api.parse_resolution(args.resolution)
    envs = args.env.split(",")
    per_env = max(1, args.frames // len(envs))
    memory = []

    def progress(done, total, line):
        memory.append(rss_mb())

    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        manifest = api.export(envs, out=Path(tmp) / "random", random=per_env, positive=0, long_side_px=long_side,
                              samples=args.samples, denoise=False, progress=progress)
        wall = time.perf_counter() - t
        render = manifest["stats"]["timings"]["render_s"]
        frames = sum(sum(c.values()) for c in manifest["counts"].values())
        print(f"random stratum: {frames} frames at {args.resolution}, {args.samples} samples in {wall:.1f} s; "
              f"pure render {render:.1f} s")
        print(f"overhead ratio (wall - render) / render: {(wall - render) / render:.3f}  (target <= 0.10)")
        timings = manifest["stats"]["timings"]
        # geometric terms include placing the camera (a scene's first frame: its first depsgraph evaluation)
        parts = {"scene building": timings.get("scene_build_s", 0.0),
                 "geometric terms": timings.get("geometric_s", 0.0),
                 "image terms and post-processing": timings.get("image_terms_s", 0.0)}
        parts["the rest (planning, scoring, writing)"] = wall - render - sum(parts.values())
        print("  outside Cycles, per frame: "
              + ", ".join(f"{name} {1000 * seconds / frames:.0f} ms" for name, seconds in parts.items()))
        if len(memory) > 20:
            growth = (memory[-1] - memory[19]) / memory[19]
            print(f"resident memory in one process: {memory[19]:.0f} MB at frame 20, {memory[-1]:.0f} MB at frame "
                  f"{len(memory)}: growth {growth:.1%}  (target <= 10%)")
        if len(memory) >= 100:
            worker = (memory[99] - memory[19]) / memory[19]
            print(f"  within one CLI worker (--recycle-every 100, the default): growth to frame 100 {worker:.1%}; "
                  "each worker starts afresh")
        positive_envs = ["rail_attachment", "tape_gap"]
        manifest = api.export(positive_envs, out=Path(tmp) / "positive", random=0, positive=args.positive,
                              long_side_px=long_side, samples=args.samples, denoise=False)
        search = manifest["stats"]["positive_search"]
        renders = sum(s.get("renders", 0) for s in search.values())
        accepted = sum(s.get("accepted", 0) for s in search.values())
        candidates = sum(s.get("candidates", 0) for s in search.values())
        print(f"positive stratum: {accepted} accepted from {candidates} candidates with {renders} renders: "
              f"{renders / accepted:.2f} renders per accepted frame  (target <= 1.3)")


if __name__ == "__main__":
    main()
