"""Benchmark the rating tools at the paper's set size: the server under several raters at once, and
the `ratings` report.

Run:  .venv/bin/python benchmarks/bench_ratings.py [--frames 1378] [--raters 8] [--answers 60]

Builds a scored set look-alike of --frames frames over three environments (the real presets score
them; tests/rating_support.py), then prints:
  - the rating page's start-up time (reading the set and its images, the split);
  - answer latency (p50, p95, max, in ms) and answers per second, with --raters raters each
    answering --answers frames at once over HTTP; every answer is a committed SQLite transaction;
  - the time of the `ratings` report with 5 raters on every frame.
Targets (2-core dev machine): p95 answer latency under 100 ms with 8 raters; report under 10 s.
The report at a million ratings: benchmarks/bench_ratings_scale.py.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import requests  # noqa: E402
from rating_support import make_scored_set  # noqa: E402

from realitybench_addon.rating.server import RatingServer, RatingSession  # noqa: E402
from realitybench_addon.rating.summary import RatedSet, summarize  # noqa: E402

ENVIRONMENTS = ("rail_attachment", "car_view", "slope_gauge")


def build_set(directory: Path, n: int) -> Path:
    frames = []
    for i in range(n):
        env = ENVIRONMENTS[i % len(ENVIRONMENTS)]
        term = {"rail_attachment": "camera_distance", "car_view": "angle_off_face", "slope_gauge": "view_angle"}[env]
        frames.append((env, i, {term: float(0.3 + (i % 40) * 0.05 if env == "rail_attachment" else (i % 60))}))
    return make_scored_set(directory, frames)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=1378)
    parser.add_argument("--raters", type=int, default=8)
    parser.add_argument("--answers", type=int, default=60, help="answers per rater in the latency test")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        set_dir = build_set(Path(tmp) / "set", args.frames)
        t = time.perf_counter()
        session = RatingSession(set_dir)
        startup = time.perf_counter() - t
        server = RatingServer(session, port=0).start()
        latencies: list[float] = []
        lock = threading.Lock()

        def rater(name: str) -> None:
            http = requests.Session()
            for position in range(args.answers):
                frame = http.get(server.url + "api/frame", params={"rater": name, "position": position}).json()
                t0 = time.perf_counter()
                http.post(server.url + "api/answer", json={"rater": name, "token": frame["frame"]["token"],
                                                           "answer": "accept", "seconds": 3.0}).raise_for_status()
                with lock:
                    latencies.append((time.perf_counter() - t0) * 1000)

        threads = [threading.Thread(target=rater, args=(f"r{k}",)) for k in range(args.raters)]
        t = time.perf_counter()
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        wall = time.perf_counter() - t
        server.stop()
        lat = np.array(latencies)
        print(f"set: {args.frames} frames; rating page start-up {startup:.2f} s")
        print(f"answers: {len(lat)} by {args.raters} raters at once in {wall:.2f} s = {len(lat) / wall:.0f} answers/s; "
              f"latency p50 {np.percentile(lat, 50):.1f} ms, p95 {np.percentile(lat, 95):.1f} ms, "
              f"max {lat.max():.1f} ms (target p95 < 100 ms)")

        rng = np.random.default_rng(0)
        store = session.store
        with store.connect(write=True) as db:  # 5 raters on every frame, in one transaction
            db.executemany("INSERT OR REPLACE INTO ratings VALUES (?, ?, ?, NULL, 2.0, '2026-01-01T00:00:00Z', 'bench')",
                           [(f, f"p{k}", "accept" if rng.random() < 0.6 else "reject")
                            for f in session.store.frames for k in range(5)])
        t = time.perf_counter()
        report = summarize(RatedSet(set_dir))
        took = time.perf_counter() - t
        print(f"ratings report: {report['ratings']} ratings, {len(report['environments'])} environments, "
              f"{len(report['gray_suggestions'])} term suggestions in {took:.2f} s (target < 10 s)")


if __name__ == "__main__":
    main()
