"""Render quality per second: candidate Cycles settings against a converged reference of the same frames.

Run:  .venv/bin/python benchmarks/bench_render.py [--env all] [--resolution 800x600] [--reference-samples 128]
          [--settings before,default,...] [--device cpu|gpu|auto] [--cache ~/.cache/realitybench/bench_render]
          [--json results.json]

The frames: for every environment, frame 0 of the random stratum and the first positive-stratum candidate
whose geometry passes (what a positive slot renders), or random frame 1 where the environment has no positive
stratum. Each frame is rendered once as a reference at `--reference-samples` with denoising (cached on disk,
keyed by the frame, the size, the samples and a hash of the scene code, so a rerun only renders candidates),
then once per candidate setting, each frame in its own process with the candidates in a rotating order.

For each setting it prints the render seconds (summed over the frames, and the ratio to `before`, the settings
every render used before issue 21), the distance of its 8-bit display image from the reference's (SSIM and
PSNR over the whole frame and over the target's mask from the reference render), and how the measured
image terms and verdicts differ from the reference's: `verdict` counts frames whose verdict changed, `flip`
image terms that went from pass to fail or back (crossing their gray range), `moved` those whose outcome
changed at all. A second table gives the target-mask SSIM where the target is fine texture a reviewer reads:
shingle granules and tape ticks (tape_gap), label text (equipment_label, breaker_label), LCD segments
(slope_gauge).

Scale: at the same samples, Cycles' time grows with the pixel count, so an 800x600 frame costs about a
quarter of the 1600x1200 reference frame; the ratios between settings carry over (docs/export.md measures it).
On a machine with an NVIDIA GPU, `--device gpu` prints the same table for OptiX or CUDA.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))

from realitybench_addon.core.render_settings import RenderSettings  # noqa: E402

# What each candidate changes from the settings before issue 21 (see RenderSettings for the fields).
BASE = RenderSettings.before_issue_21()
DEFAULT = RenderSettings()  # today's export default (round 3's `lean`)
# Light paths these scenes need: sun and sky light bouncing off walls, roofs and asphalt (two diffuse
# bounces), mirror-like glass and car paint reflecting the sky and each other (two glossy), window glass and
# the cars' transparent shells (see-through: transparent bounces), no caustics a phone could see.
SHORT_PATHS = dict(max_bounces=4, diffuse_bounces=2, glossy_bounces=2, transmission_bounces=4, transparent_bounces=4,
                   caustics=False)
CANDIDATES = {
    "before": BASE,
    "default": DEFAULT,
    "s12": BASE.with_(samples=12),
    "s8": BASE.with_(samples=8),
    "paths": BASE.with_(**SHORT_PATHS),
    "s8_paths": BASE.with_(samples=8, **SHORT_PATHS),
    "s8_paths_raw": BASE.with_(samples=8, denoise_prefilter="NONE", **SHORT_PATHS),
    "adaptive_paths": BASE.with_(adaptive_threshold=0.03, adaptive_min_samples=6, **SHORT_PATHS),
    # the denoiser's own cost: its prefilter of the albedo and normal passes, and its quality mode
    "prefilter_fast": BASE.with_(denoise_prefilter="FAST"),
    "balanced": BASE.with_(denoise_prefilter="FAST", denoise_quality="BALANCED"),
    "s12_fast": BASE.with_(samples=12, denoise_prefilter="FAST"),
    "s10_fast": BASE.with_(samples=10, denoise_prefilter="FAST"),
    "s8_balanced": BASE.with_(samples=8, denoise_prefilter="FAST", denoise_quality="BALANCED"),
    # round 3: how lights are sampled. One sun and a smooth sky: the light tree has little to choose between,
    # and a sky sampled as a light takes light samples from the sun that cosine-weighted bounces do as well.
    "no_light_tree": BASE.with_(light_tree=False),
    "sky_bsdf": BASE.with_(sky_as_light=False),
    "lean": BASE.with_(light_tree=False, sky_as_light=False),
    "lean_s12": BASE.with_(light_tree=False, sky_as_light=False, samples=12),
    "lean_s14": BASE.with_(light_tree=False, sky_as_light=False, samples=14),
    "lean_s12_fast": BASE.with_(light_tree=False, sky_as_light=False, samples=12, denoise_prefilter="FAST"),
    "lean_s10_fast": BASE.with_(light_tree=False, sky_as_light=False, samples=10, denoise_prefilter="FAST"),
    # round 5: the denoiser's share of a frame (about 4.6 s of an 800x600 frame on 2 cores): OpenImageDenoise's fast
    # network, and the albedo pass alone as its guide (one prefilter pass fewer)
    "lean_fastq": DEFAULT.with_(denoise_quality="FAST"),
    "lean_albedo": DEFAULT.with_(denoise_passes="RGB_ALBEDO"),
    "lean_s12_fastq": DEFAULT.with_(samples=12, denoise_quality="FAST"),
    "lean_s12_albedo": DEFAULT.with_(samples=12, denoise_passes="RGB_ALBEDO"),
    # Round 6: OpenImageDenoise's balanced mode with the accurate prefilter (its guide passes cleaned by a
    # smaller network: 22 of a 1600x1200 frame's 78 s are the denoiser, 9 with balanced), and the guide passes
    # used as rendered, without a prefilter, at today's 16 samples.
    "lean_bal": DEFAULT.with_(denoise_quality="BALANCED"),
    "lean_prenone": DEFAULT.with_(denoise_prefilter="NONE"),
    # Round 7: where the time goes is neither shading (0.07) nor the grass but the light paths themselves, so
    # Cycles' fast GI: indirect light after one or two bounces replaced by ambient occlusion.
    "lean_gi1": DEFAULT.with_(fast_gi_bounces=1),
    "lean_gi2": DEFAULT.with_(fast_gi_bounces=2),
}
FINE_TEXTURE = {"tape_gap": "shingle granules and tape ticks", "equipment_label": "label text",
                "breaker_label": "label text", "slope_gauge": "LCD segments"}
# Sources that do not shape what a frame shows: how Cycles samples it, and the set's bookkeeping, the CLI, the
# evaluation and rating tools and the sidebar. A reference survives changes to them.
SCENE_CODE_EXCLUDE = ("bl/render.py", "core/render_settings.py", "export.py", "merge.py", "setio.py", "setlock.py",
                      "distributed.py", "cli/", "evaluation/", "rating/", "ui/")


def scene_code_hash() -> str:
    """A hash of every source file that shapes what a frame shows (not how Cycles samples it)."""
    h = hashlib.sha256()
    root = HERE / "realitybench_addon"
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if not rel.startswith(SCENE_CODE_EXCLUDE):
            h.update(rel.encode() + b"\0" + path.read_bytes())
    for path in sorted((HERE / "presets").glob("*.toml")):  # thresholds decide the verdicts compared
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def frames_for(env: str, seed: int) -> list[tuple[str, int]]:
    """(stratum, index) of the environment's benchmark frames."""
    from realitybench_addon import pipeline
    from realitybench_addon.core.presets import load_environment_preset
    from realitybench_addon.core.terms import Verdict
    from realitybench_addon.export import wants_positive

    chosen = [("random", 0)]
    if wants_positive(load_environment_preset(env)):
        cache = pipeline.SceneCache()
        for k in range(40):
            spec = pipeline.plan_frame(env, seed, "positive", k)
            result = pipeline.run_frame(spec, long_side_px=400, render=False, cache=cache)
            if result.frame.verdict in (Verdict.ACCEPT, Verdict.PENDING) and not result.discard_reason:
                return chosen + [("positive", k)]
    return chosen + [("random", 1)]


def image_terms(record: dict) -> dict:
    return {t["name"]: t["outcome"] for t in record["terms"] if t["kind"] == "image"}


def worker(args) -> None:
    """Render one frame's reference (when asked) and candidates; print one RESULT line per render."""
    from realitybench_addon import pipeline

    spec = pipeline.plan_frame(args.env, args.seed, args.stratum, args.index)
    cache = pipeline.SceneCache()
    jobs = json.loads(args.jobs)
    out = Path(args.out)
    for name, settings in jobs:
        settings = RenderSettings.from_dict(settings)
        result = pipeline.run_frame(spec, long_side_px=args.long_side, render=True, settings=settings,
                                    device=args.device, cache=cache)
        (out / f"{name}.jpg").write_bytes(result.jpeg)  # the frame file an export writes
        if name == "reference":
            np.save(out / "mask.npy", result.mask)
        record = result.record
        print("RESULT " + json.dumps({"name": name, "render_s": result.timings["render_s"],
                                      "verdict": record["verdict"], "image_terms": image_terms(record)}),
              flush=True)


def run_frame_jobs(env, seed, stratum, index, long_side, device, jobs, out: Path) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", "--env", env, "--seed", str(seed),
           "--stratum", stratum, "--index", str(index), "--long-side", str(long_side), "--device", device,
           "--jobs", json.dumps([(n, s.to_dict()) for n, s in jobs]), "--out", str(out)]
    run = subprocess.run(cmd, cwd=HERE, capture_output=True, text=True)
    results = [json.loads(ln[len("RESULT "):]) for ln in run.stdout.splitlines() if ln.startswith("RESULT ")]
    if run.returncode != 0 or len(results) != len(jobs):
        raise SystemExit(f"{env} {stratum} #{index} failed:\n{run.stderr[-3000:]}")
    return {r["name"]: r for r in results}


def compare(candidate: dict, reference: dict, frame_dir: Path, name: str) -> dict:
    from PIL import Image

    from realitybench_addon.core.image_quality import psnr, ssim

    ref = np.asarray(Image.open(frame_dir / "reference.jpg").convert("RGB"))
    img = np.asarray(Image.open(frame_dir / f"{name}.jpg").convert("RGB"))
    mask = np.load(frame_dir / "mask.npy")
    terms_ref, terms = reference["image_terms"], candidate["image_terms"]
    moved = [t for t in terms_ref if terms.get(t) != terms_ref[t]]
    flips = [t for t in moved if {terms.get(t), terms_ref[t]} == {"pass", "fail"}]
    return {"render_s": candidate["render_s"], "ssim": ssim(img, ref), "psnr": psnr(img, ref),
            "ssim_target": ssim(img, ref, mask), "psnr_target": psnr(img, ref, mask),
            "verdict_changed": candidate["verdict"] != reference["verdict"], "flips": flips, "moved": moved}


def _mean(values) -> float:
    values = [v for v in values if v is not None and math.isfinite(v)]
    return float(np.mean(values)) if values else math.nan


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="all")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resolution", default="800x600")
    parser.add_argument("--reference-samples", type=int, default=128)
    parser.add_argument("--settings", default=",".join(CANDIDATES),
                        help=f"candidates, comma-separated: {', '.join(CANDIDATES)}")
    parser.add_argument("--device", default="cpu", choices=("cpu", "gpu", "auto"))
    parser.add_argument("--cache", default=os.path.expanduser("~/.cache/realitybench/bench_render"))
    parser.add_argument("--json", help="write every frame's figures here")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--stratum", help=argparse.SUPPRESS)
    parser.add_argument("--index", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--long-side", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--jobs", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args)
        return
    from realitybench_addon.envs import registry

    envs = registry.available() if args.env == "all" else args.env.split(",")
    names = args.settings.split(",")
    unknown = [n for n in names if n not in CANDIDATES]
    if unknown:
        raise SystemExit(f"unknown setting(s) {', '.join(unknown)}; known: {', '.join(CANDIDATES)}")
    long_side = max(int(x) for x in args.resolution.lower().split("x"))
    reference_settings = BASE.with_(samples=args.reference_samples)
    code = scene_code_hash()
    run_dir = Path(args.cache) / f"run-{time.strftime('%Y%m%d-%H%M%S')}"
    rows: dict[str, list[dict]] = {n: [] for n in names}
    per_frame = []
    k = 0
    print(f"scene code {code}; reference {args.reference_samples} samples at {long_side} px; device {args.device}")
    for env in envs:
        for stratum, index in frames_for(env, args.seed):
            frame_id = f"{env}-{stratum}-s{args.seed}-{index:06d}"
            ref_dir = Path(args.cache) / f"ref-{code}-{long_side}-{args.reference_samples}" / frame_id
            frame_dir = run_dir / frame_id
            frame_dir.mkdir(parents=True, exist_ok=True)
            order = names[k % len(names):] + names[:k % len(names)]
            k += 1
            jobs = [(n, CANDIDATES[n]) for n in order]
            cached = (ref_dir / "reference.json").is_file()
            if not cached:
                jobs = [("reference", reference_settings)] + jobs
            got = run_frame_jobs(env, args.seed, stratum, index, long_side, args.device, jobs, frame_dir)
            if cached:
                got["reference"] = json.loads((ref_dir / "reference.json").read_text())
            else:
                ref_dir.mkdir(parents=True, exist_ok=True)
                (ref_dir / "reference.json").write_text(json.dumps(got["reference"]))
                for f in ("reference.jpg", "mask.npy"):
                    (ref_dir / f).write_bytes((frame_dir / f).read_bytes())
            for f in ("reference.jpg", "mask.npy"):
                if not (frame_dir / f).exists():
                    (frame_dir / f).write_bytes((ref_dir / f).read_bytes())
            line = [f"{frame_id:42s}"]
            for n in names:
                c = compare(got[n], got["reference"], frame_dir, n)
                c.update(frame_id=frame_id, environment=env, setting=n)
                rows[n].append(c)
                per_frame.append(c)
                line.append(f"{n} {c['render_s']:.1f}s {c['ssim']:.3f}/{c['ssim_target']:.3f}")
            print("  ".join(line), flush=True)
    print()
    base = sum(r["render_s"] for r in rows[names[0]])
    print(f"{'setting':14s} {'seconds':>8s} {'ratio':>6s} {'SSIM':>6s} {'min':>6s} {'SSIM tgt':>8s} {'min':>6s} "
          f"{'PSNR':>6s} {'PSNR tgt':>8s} {'verdict':>7s} {'flip':>5s} {'moved':>5s}")
    for n in names:
        r = rows[n]
        secs = sum(x["render_s"] for x in r)
        print(f"{n:14s} {secs:8.1f} {secs / base:6.2f} {_mean(x['ssim'] for x in r):6.3f} "
              f"{min(x['ssim'] for x in r):6.3f} {_mean(x['ssim_target'] for x in r):8.3f} "
              f"{min((x['ssim_target'] for x in r if math.isfinite(x['ssim_target'])), default=math.nan):6.3f} "
              f"{_mean(x['psnr'] for x in r):6.2f} {_mean(x['psnr_target'] for x in r):8.2f} "
              f"{sum(x['verdict_changed'] for x in r):7d} {sum(len(x['flips']) for x in r):5d} "
              f"{sum(len(x['moved']) for x in r):5d}")
    print(f"(ratio: to {names[0]}; {len(rows[names[0]])} frames)")
    fine = [e for e in envs if e in FINE_TEXTURE]
    if fine:
        print()
        print("target-mask SSIM where the target is fine texture:")
        print(f"{'setting':14s} " + " ".join(f"{e:>16s}" for e in fine))
        for n in names:
            print(f"{n:14s} " + " ".join(f"{_mean(x['ssim_target'] for x in rows[n] if x['environment'] == e):16.3f}"
                                         for e in fine))
    if args.json:
        Path(args.json).write_text(json.dumps({"reference_samples": args.reference_samples, "long_side": long_side,
                                               "device": args.device, "scene_code": code,
                                               "settings": {n: CANDIDATES[n].to_dict() for n in names},
                                               "frames": per_frame}, indent=1))


if __name__ == "__main__":
    main()
