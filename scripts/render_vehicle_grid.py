"""Render the ten body styles of the procedural vehicle generator as a labelled grid: docs/img/vehicles.jpg.

Run:  .venv/bin/python scripts/render_vehicle_grid.py [--size 480x300] [--samples 24] [--view front|rear|side]
                                                      [--out docs/img/vehicles.jpg]
Each tile: one vehicle of the style (seed 0 of `draw_vehicle`) on asphalt under a sky, seen from a
three-quarter view at eye height from the driver's front corner (`--view rear`: the passenger's rear corner).
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from PIL import Image, ImageDraw  # noqa: E402


def render_tile(style: str, color: str, size: tuple[int, int], samples: int, view: str) -> np.ndarray:
    import bpy
    from mathutils import Matrix

    from realitybench_addon.bl import materials as mats
    from realitybench_addon.bl.analytic import reset_scene
    from realitybench_addon.bl.meshes import boxes, mesh_object
    from realitybench_addon.bl.render import render_frame
    from realitybench_addon.bl.vehicle import build_vehicle
    from realitybench_addon.core import postprocess
    from realitybench_addon.core.optics import look_at
    from realitybench_addon.core.vehicle import draw_vehicle

    scene = reset_scene()
    plan = draw_vehicle(np.random.default_rng(0), style=style, color=color)
    build_vehicle(scene, plan, "Car0", np.eye(4))
    sun_dir = np.array([0.45, 0.55, 0.7])
    sun_dir /= np.linalg.norm(sun_dir)
    scene.world = mats.sky_world("RB_Sky", sun_dir, strength=1.0)
    sun = bpy.data.objects.new("RB_Sun", bpy.data.lights.new("RB_Sun", "SUN"))
    sun.data.energy = 3.5
    z = sun_dir
    x = np.cross([0, 0, 1.0], z)
    x /= np.linalg.norm(x)
    m = np.eye(4)
    m[:3, 0], m[:3, 1], m[:3, 2] = x, np.cross(z, x), z
    sun.matrix_world = Matrix(m.tolist())
    scene.collection.objects.link(sun)
    v, q = boxes([-50, -50, -0.05], [50, 50, 0.0])
    mesh_object("Ground", v, q, scene.collection, materials=[mats.principled("RB_Asphalt", (0.05, 0.05, 0.05),
                                                                             roughness=0.9)])
    cam = bpy.data.objects.new("Cam", bpy.data.cameras.new("Cam"))
    scene.collection.objects.link(cam)
    cam.data.lens = 50.0
    cam.data.sensor_width = 36.0
    L = plan.length
    dist = 1.75 * max(L, 4.6)
    az = {"front": 35.0, "rear": 215.0, "side": 90.0}[view]
    pos = np.array([dist * math.cos(math.radians(az)), dist * math.sin(math.radians(az)), 1.6])
    cam.matrix_world = Matrix(look_at(pos, [0.0, 0.0, plan.height * 0.42]).tolist())
    scene.render.resolution_x, scene.render.resolution_y = size
    scene.render.resolution_percentage = 100
    frame = render_frame(scene, cam, samples=samples, denoise=samples >= 8)
    _, display = postprocess.process(frame.linear_rgb, postprocess.PostParams(exposure_key=0.18, jpeg_quality=95))
    return (display * 255).round().astype(np.uint8)


def main() -> None:
    from realitybench_addon.__main__ import _claim_stdout
    from realitybench_addon.core.vehicle import BODY_STYLES

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="480x300")
    parser.add_argument("--samples", type=int, default=24)
    parser.add_argument("--view", default="front", choices=("front", "rear", "side"))
    parser.add_argument("--styles", default=",".join(BODY_STYLES))
    parser.add_argument("--out", default=str(ROOT / "docs" / "img" / "vehicles.jpg"))
    args = parser.parse_args()
    sys.stdout = _claim_stdout(False)
    w, h = (int(v) for v in args.size.split("x"))
    colors = ["silver", "red", "blue", "white", "green", "orange", "gray", "beige", "white", "red"]
    styles = args.styles.split(",")
    cols = 5 if len(styles) > 4 else len(styles)
    rows = math.ceil(len(styles) / cols)
    grid = Image.new("RGB", (cols * w, rows * h), (255, 255, 255))
    for i, style in enumerate(styles):
        tile = Image.fromarray(render_tile(style, colors[i % len(colors)], (w, h), args.samples, args.view))
        ImageDraw.Draw(tile).text((8, 6), style, fill=(255, 255, 255))
        grid.paste(tile, ((i % cols) * w, (i // cols) * h))
        print(style, "done", flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    grid.save(args.out, quality=90)
    print("wrote", args.out)


if __name__ == "__main__":
    main()
