"""How far a geometry change moves the records: measure the same frames without rendering on two checkouts, and
compare their verdicts, term outcomes and measurements frame by frame.

Run (a clone of the old commit at /tmp/before; the .venv's install points at this checkout, PYTHONPATH wins):
  PYTHONPATH=/tmp/before .venv/bin/python benchmarks/record_shift.py measure /tmp/rec_before.json \\
      --env car_view,car_plate,damage_view,ro_board --seed 0 --frames 60
  .venv/bin/python benchmarks/record_shift.py measure /tmp/rec_after.json --env car_view,... --seed 0 --frames 60
  .venv/bin/python benchmarks/record_shift.py compare /tmp/rec_before.json /tmp/rec_after.json

`measure` reads the first --frames random frames of each environment (`pipeline.run_frame(render=False)`) and
keeps each one's verdict, terms, measurements and ground truth. `compare` prints every value that moved by more
than --tolerance (relative), then the verdict changes, how many values moved per environment, and per measurement
how many frames it moved in, by how much on average and at most.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from collections import defaultdict
from pathlib import Path


def measure(args) -> None:
    from realitybench_addon import pipeline
    from realitybench_addon.setio import atomic_write

    rows = {}
    for env in args.env.split(","):
        cache = pipeline.SceneCache()
        for index in range(args.frames):
            record = pipeline.run_frame(pipeline.plan_frame(env, args.seed, "random", index), render=False,
                                        cache=cache).record
            rows[record["frame_id"]] = {k: record.get(k) for k in ("verdict", "terms", "measurements",
                                                                    "ground_truth")}
    atomic_write(Path(args.out), json.dumps(rows, indent=1, sort_keys=True, default=str).encode())
    print(f"{len(rows)} frames -> {args.out}")


def read_records(path) -> dict:
    """A `measure` output: frame id -> {"verdict": str, "terms": ..., "measurements": {...}, ...}, read through the
    guarded layer (size cap, no links, no pipes, strict JSON); RealityBenchError naming the file otherwise."""
    from realitybench_addon.core.errors import RealityBenchError
    from realitybench_addon.core.safefs import read_json_object

    rows = read_json_object(Path(path), "a measure output")
    for fid, row in rows.items():
        if not isinstance(row, dict) or not isinstance(row.get("verdict"), str) \
                or not isinstance(row.get("measurements"), dict):
            raise RealityBenchError(f"{path}: frame {fid[:80]!r} has no verdict or no measurements")
    return rows


def _leaves(value, path=""):
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _leaves(item, f"{path}[{i}]")
    else:
        yield path, value


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def compare(args) -> int:
    from realitybench_addon.core.errors import RealityBenchError

    before, after = read_records(args.before), read_records(args.after)
    missing = sorted(set(before) ^ set(after))
    if missing:
        raise RealityBenchError(f"the two files hold different frames (e.g. {missing[0][:80]!r})")
    verdicts, per_env, moves = [], defaultdict(int), defaultdict(list)
    for frame in sorted(before):
        a, b = dict(_leaves(before[frame])), dict(_leaves(after[frame]))
        if before[frame]["verdict"] != after[frame]["verdict"]:
            verdicts.append((frame, before[frame]["verdict"], after[frame]["verdict"]))
        for key in sorted(set(a) | set(b)):
            va, vb = a.get(key), b.get(key)
            if _number(va) and _number(vb):
                if va == vb or math.isnan(va) and math.isnan(vb) or abs(va - vb) <= args.tolerance * max(abs(va), 1e-9):
                    continue
                if key.startswith(".measurements.") and math.isfinite(vb - va):
                    moves[key[len(".measurements."):]].append(abs(vb - va))
            elif va == vb:
                continue
            per_env[frame.split("-random-")[0]] += 1
            print(f"{frame} {key}: {va} -> {vb}")
    print(f"\n{len(before)} frames; {len(verdicts)} verdict changes")
    for frame, va, vb in verdicts:
        print(f"  {frame}: {va} -> {vb}")
    print("values moved per environment: " + (", ".join(f"{e} {n}" for e, n in sorted(per_env.items())) or "none"))
    for name, shifts in sorted(moves.items(), key=lambda kv: -len(kv[1])):
        print(f"  {name}: {len(shifts)} frames, mean {sum(shifts) / len(shifts):.4g}, largest {max(shifts):.4g}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("measure", help="records of the first frames of each environment, no render")
    m.add_argument("out")
    m.add_argument("--env", required=True, help="environments, comma-separated")
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--frames", type=int, default=60)
    c = sub.add_parser("compare", help="what moved between two measure outputs")
    c.add_argument("before")
    c.add_argument("after")
    c.add_argument("--tolerance", type=float, default=1e-6, help="relative change below which a value is the same")
    args = parser.parse_args(argv)
    # the checkout measured is the one importable (PYTHONPATH first); this one only when none is
    import importlib.util

    if importlib.util.find_spec("realitybench_addon") is None:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from realitybench_addon.core.errors import RealityBenchError

    try:
        if args.command == "measure":
            measure(args)
            return 0
        return compare(args)
    except RealityBenchError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
