"""Benchmark the sidebar's live readouts on the roof scene.

Run:  .venv/bin/python benchmarks/bench_live.py [--env rail_attachment] [--moves 50]

Prints the time from a camera move to fresh geometric readouts (target: 30 ms or less on
the 2-core dev machine), and what the readout handler adds to a depsgraph update when
nothing relevant changed (another object moved).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bpy  # noqa: E402

import realitybench_addon  # noqa: E402
from realitybench_addon.ui import live  # noqa: E402


def timed_updates(move, n: int) -> np.ndarray:
    out = []
    for i in range(n):
        move(i)
        t = time.perf_counter()
        bpy.context.view_layer.update()
        out.append((time.perf_counter() - t) * 1000)
    return np.array(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="rail_attachment")
    parser.add_argument("--moves", type=int, default=50)
    args = parser.parse_args()
    realitybench_addon.register()
    try:
        wm = bpy.context.window_manager.realitybench
        wm.environment, wm.seed, wm.index = args.env, 0, 0
        bpy.ops.realitybench.build_scene()
        camera = bpy.context.scene.camera
        ground = bpy.data.objects["Ground"]

        def move_camera(i):
            live.STATE.computed_at = 0.0  # every move past the debounce window: each one recomputes
            camera.location.x += 0.01 if i % 2 else -0.01

        def move_other(i):
            ground.location.z += 0.001 if i % 2 else -0.001

        readout = timed_updates(move_camera, args.moves)
        assert not live.STATE.stale
        with_handler = timed_updates(move_other, args.moves)
        bpy.app.handlers.depsgraph_update_post.remove(live.on_depsgraph_update)
        without = timed_updates(move_other, args.moves)
        bpy.app.handlers.depsgraph_update_post.append(live.on_depsgraph_update)
        terms = len(live.STATE.result["terms"])
        print(f"{args.env}: camera move -> fresh readouts ({terms} terms): median {np.median(readout):.1f} ms, "
              f"p90 {np.percentile(readout, 90):.1f} ms  (target <= 30 ms)")
        print(f"depsgraph update, another object moved: {np.median(with_handler):.2f} ms with the handler, "
              f"{np.median(without):.2f} ms without: the handler adds {np.median(with_handler) - np.median(without):.2f} ms")
    finally:
        realitybench_addon.unregister()  # the bpy wheel hangs at exit with operators registered


if __name__ == "__main__":
    main()
