"""Benchmark the `ratings DIR` report at a million ratings.

Run:  .venv/bin/python benchmarks/bench_ratings_scale.py [--frames 1378] [--ratings 1000000] [--cli]

Builds a scored set look-alike of --frames frames over three environments (the real presets score
them; tests/rating_support.py), writes --ratings ratings straight into its ratings database (every
rater rates every frame, so 1M ratings on the paper's 1,378 frames are 726 raters per frame; a
frame's raters lean one way, 5% can't tell, 10% fill in documentation fields), then prints the
time of the report: reading the set and the ratings, agreement, the scorer against the majority,
gray suggestions. With --cli it also times `python -m realitybench_addon ratings DIR` end to end.
Target: under 10 s at 1M ratings (2-core dev machine).
"""
from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests"))

from bench_ratings import build_set  # noqa: E402

from realitybench_addon.rating.summary import RatedSet, summarize  # noqa: E402

FIELDS = {"rail_attachment": '{"flashing_present": true, "lag_present": true}',
          "car_view": '{"body_style": "sedan", "side": "front"}',
          "slope_gauge": '{"on_module": true, "reading_deg": 22.0}'}


def fill_ratings(rated: RatedSet, n_ratings: int, seed: int = 0) -> int:
    """n_ratings ratings (rounded up to whole raters) written in one transaction; the count written."""
    frames = sorted(rated.rows)
    raters = math.ceil(n_ratings / len(frames))
    rng = np.random.default_rng(seed)
    lean = rng.uniform(0.1, 0.9, len(frames))  # each frame's share of accepting raters
    envs = [rated.environments[f] for f in frames]
    with rated.store.connect(write=True) as db:
        for k in range(raters):
            draw = rng.random(len(frames))
            answers = np.where(draw < 0.05, "cant_tell", np.where(rng.random(len(frames)) < lean, "accept", "reject"))
            with_fields = rng.random(len(frames)) < 0.1
            seconds = rng.uniform(1.0, 30.0, len(frames)).round(1)
            db.executemany("INSERT INTO ratings VALUES (?, ?, ?, ?, ?, '2026-01-01T00:00:00Z', 'bench')",
                           [(f, f"rater{k:04d}", str(a), FIELDS[e] if w else None, float(s))
                            for f, e, a, w, s in zip(frames, envs, answers, with_fields, seconds)])
    return raters * len(frames)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=1378)
    parser.add_argument("--ratings", type=int, default=1_000_000)
    parser.add_argument("--cli", action="store_true", help="also time the `ratings DIR` command end to end")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        set_dir = build_set(Path(tmp) / "set", args.frames)
        written = fill_ratings(RatedSet(set_dir), args.ratings)
        print(f"set: {args.frames} frames, {written} ratings written in {time.perf_counter() - t:.1f} s")
        t = time.perf_counter()
        rated = RatedSet(set_dir)
        loaded = time.perf_counter() - t
        t = time.perf_counter()
        report = summarize(rated)
        took = time.perf_counter() - t
        json.dumps(report)
        print(f"ratings report: {report['ratings']} ratings by {len(report['raters'])} raters, "
              f"{len(report['environments'])} environments: {loaded + took:.2f} s "
              f"(set and presets {loaded:.2f} s, report {took:.2f} s; target < 10 s)")
        if args.cli:
            t = time.perf_counter()
            done = subprocess.run([sys.executable, "-m", "realitybench_addon", "ratings", str(set_dir)], cwd=ROOT,
                                  capture_output=True, text=True)
            if done.returncode != 0:
                raise SystemExit(done.stderr)
            print(f"`ratings DIR` end to end (start-up, report, JSON out): {time.perf_counter() - t:.2f} s")


if __name__ == "__main__":
    main()
