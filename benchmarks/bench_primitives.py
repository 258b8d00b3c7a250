"""Benchmark: every geometric primitive for one target in a ~50k-face scene, BVH cached.

Run:  .venv/bin/python benchmarks/bench_primitives.py [--faces 50000] [--samples 2000] [--repeats 30]
Prints the scene size, the one-off BVH build time, and the median / p90 time of a full
geometric measurement (surface sampling, projection, ray casts, bbox, view angle,
distance, px per unit, blur). Target (issue 2): median <= 20 ms on the 2-core dev machine.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bpy  # noqa: E402

from realitybench_addon.bl import analytic, raycast  # noqa: E402
from realitybench_addon.bl.measure import measure_target  # noqa: E402


def build_scene(faces: int):
    scene = analytic.reset_scene()
    # clutter: a grid of subdivided panels, ~`faces` quads in all, some in front of the target
    per_panel = 2500  # 50 x 50 quads
    side = int(math.sqrt(per_panel))
    panels = max(1, faces // (side * side))
    cols = int(math.ceil(math.sqrt(panels)))
    for i in range(panels):
        x, z = (i % cols - cols / 2) * 1.2, (i // cols) * 1.2 - 1.0
        analytic.add_rectangle(scene, f"Clutter{i:03d}", 1.0, 1.0,
                               analytic.frame_matrix((x, 3.0 + 0.3 * (i % 3), z), (0, -1, 0), (1, 0, 0)),
                               divisions=side)
    analytic.add_rectangle(scene, "Target", 0.3, 0.2, analytic.frame_matrix((0, 1.5, 0.2), (0.2, -1, 0), (1, 0, 0)),
                           divisions=8)
    analytic.add_box(scene, "Occluder", (0.1, 0.05, 0.5), (0.05, 1.0, 0.2))
    analytic.add_camera(scene, "Cam", (0.1, 0.0, 0.3), (0, 1.5, 0.2))
    bpy.context.view_layer.update()
    return scene


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--faces", type=int, default=50000)
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    scene = build_scene(args.faces)
    cam = bpy.data.objects["Cam"]
    depsgraph = bpy.context.evaluated_depsgraph_get()
    t0 = time.perf_counter()
    bvh = raycast.scene_bvh(scene, depsgraph)
    build_ms = (time.perf_counter() - t0) * 1000
    times = []
    result = None
    for _ in range(args.repeats):
        t = time.perf_counter()
        result = measure_target(scene, cam, ["Target"], n_samples=args.samples, depsgraph=depsgraph)
        times.append((time.perf_counter() - t) * 1000)
    assert raycast.scene_bvh(scene, depsgraph) is bvh, "the BVH was rebuilt between measurements"
    times = np.array(times)
    polygons = sum(len(o.data.polygons) for o in scene.objects if o.type == "MESH")
    print(f"scene: {polygons} faces ({bvh.face_count} triangles) in {len(bvh.names)} objects; "
          f"target samples: {result['n_samples']}")
    print(f"BVH build (once per scene state): {build_ms:.1f} ms")
    print(f"all geometric primitives, BVH cached: median {np.median(times):.2f} ms, p90 {np.percentile(times, 90):.2f} ms "
          f"over {args.repeats} runs (target <= 20 ms)")
    print(f"  unoccluded {result['unoccluded_fraction']:.3f}, in frame {result['in_frame_fraction']:.3f}, "
          f"view angle {result['view_angle_deg']:.1f} deg")


if __name__ == "__main__":
    main()
