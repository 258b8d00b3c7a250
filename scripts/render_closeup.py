"""A close look at one object of a built frame: the frame's scene, a camera a few decimetres from the object (no
depth of field, so its surface can be judged), rendered with denoising. For checking props and materials at a
size no frame shows them.

    .venv/bin/python scripts/render_closeup.py --env tape_gap --seed 41 --index 1 --object Tape_Case \\
        --distance 0.22 --out case.png
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--index", type=int, default=0)
    parser.add_argument("--object", required=True, help="the object's name in the built scene, e.g. Tape_Case")
    parser.add_argument("--distance", type=float, default=0.35, help="camera to the object's centre, m")
    parser.add_argument("--resolution", default="800x600")
    parser.add_argument("--samples", type=int, default=16)
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args()

    import bpy
    import numpy as np
    from mathutils import Vector
    from PIL import Image

    from realitybench_addon import pipeline
    from realitybench_addon.bl import render

    pipeline.run_frame(pipeline.plan_frame(args.env, args.seed, "random", args.index), render=False,
                       cache=pipeline.SceneCache())
    scene = bpy.context.scene
    if args.object not in bpy.data.objects:
        raise SystemExit(f"no object {args.object!r} in {args.env} seed {args.seed} frame {args.index}")
    obj = bpy.data.objects[args.object]
    corners = [obj.matrix_world @ Vector(c) for c in obj.bound_box]
    centre = sum(corners, Vector()) / 8
    camera = scene.camera
    camera.data.dof.use_dof = False
    direction = Vector((0.6, -0.8, 0.55)).normalized()  # from above, to one side
    camera.location = centre + direction * args.distance
    camera.rotation_euler = (-direction).to_track_quat("-Z", "Y").to_euler()
    scene.render.resolution_x, scene.render.resolution_y = (int(v) for v in args.resolution.lower().split("x"))
    frame = render.render_frame(scene, camera, samples=args.samples, denoise=True)
    srgb = np.clip(frame.linear_rgb, 0.0, 1.0) ** (1 / 2.2)  # a plain display gamma: no phone look
    args.out.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray((srgb * 255).astype(np.uint8)).save(args.out)
    print(args.out)


if __name__ == "__main__":
    main()
