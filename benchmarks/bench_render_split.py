"""Where a frame's render time goes: the light paths, the materials, or the grass.

Run:  .venv/bin/python benchmarks/bench_render_split.py [--env all] [--resolution 800x600] [--seed 0]

For random frame 0 of each environment, in one process per environment, it renders the frame undenoised at
today's default samples (`RenderSettings()`, denoiser off so only path tracing is timed) three ways:
- `as_built`: the scene as an export renders it (twice; the faster counts, the other shows the noise);
- `plain`: every material replaced by one plain diffuse (the view layer's material override), so the
  difference is what evaluating the scenes' shader node trees costs;
- `no_grass`: the grass tufts hidden from the render, so the difference is what tracing them costs.

It prints the seconds of each and the shares `shading = 1 - plain / as_built` and
`grass = 1 - no_grass / as_built`, with the scene's triangles and instances. A plain white diffuse reflects
more light than the scenes' materials, so its paths run longer: a negative shading share (indoors) means
the materials are cheaper than the longer paths they spare. docs/export.md (round 7) reads it.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def measure(env: str, seed: int, long_side: int) -> dict:
    import bpy

    from realitybench_addon import pipeline
    from realitybench_addon.bl.grass import is_grass
    from realitybench_addon.core.render_settings import RenderSettings

    settings = RenderSettings().with_(denoise=False)
    spec = pipeline.plan_frame(env, seed, "random", 0)
    cache = pipeline.SceneCache()
    pipeline.run_frame(spec, long_side_px=64, render=True, settings=settings.with_(samples=1), cache=cache)
    scene, layer = bpy.context.scene, bpy.context.view_layer
    depsgraph = bpy.context.evaluated_depsgraph_get()
    triangles = sum(len(o.evaluated_get(depsgraph).data.loop_triangles) for o in scene.objects
                    if o.type == "MESH" and o.visible_get())
    instances = sum(1 for i in depsgraph.object_instances if i.is_instance)
    grass = [o for o in scene.objects if is_grass(o)]
    plain = bpy.data.materials.new("bench_plain_diffuse")  # made after the build, which clears the data
    seconds: dict[str, list[float]] = {}
    for way in ("as_built", "plain", "no_grass", "as_built"):
        layer.material_override = plain if way == "plain" else None
        for obj in grass:
            obj.hide_render = way == "no_grass"
        result = pipeline.run_frame(spec, long_side_px=long_side, render=True, settings=settings, cache=cache)
        seconds.setdefault(way, []).append(result.timings["render_s"])
    layer.material_override = None
    for obj in grass:
        obj.hide_render = False
    return {"env": env, "triangles": triangles, "instances": instances, "seconds": seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="all")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resolution", default="800x600")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    long_side = max(int(x) for x in args.resolution.lower().split("x"))
    if args.worker:
        print("RESULT " + json.dumps(measure(args.env, args.seed, long_side)), flush=True)
        return
    from realitybench_addon.envs import registry

    envs = registry.available() if args.env == "all" else args.env.split(",")
    print(f"{'environment':16s} {'as_built':>8s} {'again':>6s} {'plain':>6s} {'no_grass':>8s} {'shading':>7s} "
          f"{'grass':>6s} {'triangles':>9s} {'instances':>9s}")
    shares = []
    for env in envs:
        run = subprocess.run([sys.executable, __file__, "--worker", "--env", env, "--seed", str(args.seed),
                              "--resolution", args.resolution], capture_output=True, text=True)
        lines = [ln for ln in run.stdout.splitlines() if ln.startswith("RESULT ")]
        if run.returncode != 0 or not lines:
            raise SystemExit(f"{env} failed:\n{run.stderr[-3000:]}")
        r = json.loads(lines[-1][len("RESULT "):])
        s = r["seconds"]
        built = min(s["as_built"])
        shading, grass = 1 - s["plain"][0] / built, 1 - s["no_grass"][0] / built
        shares.append((shading, grass))
        print(f"{env:16s} {s['as_built'][0]:8.2f} {s['as_built'][1]:6.2f} {s['plain'][0]:6.2f} {s['no_grass'][0]:8.2f} "
              f"{shading:7.2f} {grass:6.2f} {r['triangles']:9d} {r['instances']:9d}", flush=True)
    print(f"mean shares over {len(shares)} frames: shading {sum(a for a, _ in shares) / len(shares):.2f}, "
          f"grass {sum(b for _, b in shares) / len(shares):.2f}")


if __name__ == "__main__":
    main()
