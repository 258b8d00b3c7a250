"""Can grass hide a target? For frames 0..N-1 of each environment whose scene has grass, count the vertices
of the frame's masked targets that the camera sees through a grass volume (`bl.grass.target_points_behind_grass`).
Every count must be 0: that is why the measuring BVH may leave grass out (docs/realism.md).

Run:  .venv/bin/python benchmarks/audit_grass.py [--frames 40] [--seed 0] [--env all]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def audit(env: str, frames: int, seed: int = 0) -> tuple[int, int, int] | None:
    """(frames checked, frames with a target vertex behind grass, target vertices checked), or None for an
    environment whose scenes have no grass."""
    import bpy

    from realitybench_addon import pipeline
    from realitybench_addon.bl.grass import target_points_behind_grass
    from realitybench_addon.envs import registry
    from realitybench_addon.envs.base import FrameContext

    environment = registry.get(env)
    cache = pipeline.SceneCache()
    behind = points = 0
    for index in range(frames):
        spec = pipeline.plan_frame(env, seed, "random", index)
        built = cache.get(spec)
        if not getattr(built, "grass", None):
            return None
        camera, _ = pipeline.place_camera(spec, 400)
        ctx = FrameContext(bpy.context.scene, camera, built, spec.plan, spec.target, spec.pose)
        names = environment.mask_targets(ctx)
        hidden, checked = target_points_behind_grass(built, spec.pose.position, names)
        behind += hidden > 0
        points += checked
    return frames, behind, points


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--env", default="all", help="comma-separated, or all (every environment with grass)")
    args = parser.parse_args()
    from realitybench_addon.envs import registry

    envs = registry.available() if args.env == "all" else args.env.split(",")
    total = bad = 0
    print(f"{'environment':18s} {'frames':>6s} {'behind grass':>12s} {'target vertices':>15s}")
    for env in envs:
        counts = audit(env, args.frames, args.seed)
        if counts is None:
            print(f"{env:18s} no grass")
            continue
        n, behind, points = counts
        total += n
        bad += behind
        print(f"{env:18s} {n:6d} {behind:12d} {points:15d}", flush=True)
    print(f"{'all':18s} {total:6d} {bad:12d}")
    raise SystemExit(1 if bad else 0)


if __name__ == "__main__":
    main()
