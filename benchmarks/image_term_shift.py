"""How far a look-only change moves the image terms: render the frames whose geometry passes, twice (two checkouts),
and compare their image terms and verdicts frame by frame.

Run (a clone of the old commit at /tmp/before; the .venv's install points at this checkout, PYTHONPATH wins):
  PYTHONPATH=/tmp/before .venv/bin/python benchmarks/image_term_shift.py measure /tmp/it_before.json \\
      --env damage_view --seed 77 --frames 40 --long-side 800
  .venv/bin/python benchmarks/image_term_shift.py measure /tmp/it_after.json --env damage_view --seed 77 ...
  .venv/bin/python benchmarks/image_term_shift.py compare /tmp/it_before.json /tmp/it_after.json

`measure` reads the first --frames random frames of the seed, measures their geometry without rendering, and
renders those whose verdict is still pending (the image terms decide them) at --long-side px, 4 samples.
`compare` prints each frame's verdicts and image terms side by side, the verdict changes and, per term, the
largest relative change.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path


def measure(args) -> None:
    from realitybench_addon import pipeline
    from realitybench_addon.core.presets import load_environment_preset

    terms = [t.name for t in load_environment_preset(args.env).terms if t.kind == "image"]
    cache = pipeline.SceneCache()
    rows = {}
    for index in range(args.frames):
        spec = pipeline.plan_frame(args.env, args.seed, "random", index)
        if pipeline.run_frame(spec, render=False, cache=cache).record["verdict"] != "pending":
            continue
        record = pipeline.run_frame(spec, render=True, long_side_px=args.long_side, samples=4, cache=cache).record
        rows[record["frame_id"]] = {"verdict": record["verdict"],
                                    **{t: record["measurements"].get(t) for t in terms}}
        print(record["frame_id"], rows[record["frame_id"]], flush=True)
    from realitybench_addon.setio import atomic_write

    atomic_write(Path(args.out), json.dumps(rows, indent=1).encode())  # whole or absent after a kill
    print(f"{len(rows)} frames rendered of {args.frames}")


def read_measurements(path) -> dict:
    """A `measure` output: frame id -> {"verdict": str, term: number or null, ...}, read through the guarded
    layer (size cap, no links, strict JSON); RealityBenchError naming the file and what is wrong otherwise."""
    from realitybench_addon.core.errors import RealityBenchError
    from realitybench_addon.core.safefs import read_json_object

    rows = read_json_object(Path(path), "a measure output")
    for fid, row in rows.items():
        if not isinstance(row, dict) or not isinstance(row.get("verdict"), str):
            raise RealityBenchError(f"{path}: frame {fid[:80]!r} has no verdict")
        bad = [k for k, v in row.items() if k != "verdict" and v is not None and (
            isinstance(v, bool) or not isinstance(v, (int, float)))]
        if bad:
            raise RealityBenchError(f"{path}: frame {fid[:80]!r}: {bad[0][:80]!r} is not a number")
    return rows


def compare(args) -> int:
    before, after = read_measurements(args.before), read_measurements(args.after)
    common = sorted(set(before) & set(after))
    if set(before) != set(after):
        print(f"frames in one file only: {sorted(set(before) ^ set(after))}")
    changes, worst = 0, {}
    for fid in common:
        a, b = before[fid], after[fid]
        changed = a["verdict"] != b["verdict"]
        changes += changed
        values = []
        for term in (k for k in a if k != "verdict"):
            x, y = a[term], b.get(term)
            values.append(f"{term} {x:.4g} -> {y:.4g}" if isinstance(x, float) and isinstance(y, float)
                          else f"{term} {x} -> {y}")
            if isinstance(x, (int, float)) and isinstance(y, (int, float)) and abs(x) > 1e-9 \
                    and math.isfinite(x) and math.isfinite(y):
                worst[term] = max(worst.get(term, 0.0), abs(y - x) / abs(x))
        print(f"{fid}  {a['verdict']} -> {b['verdict']}{'  (changed)' if changed else ''}  " + "; ".join(values))
    print(f"{len(common)} frames; {changes} verdict changes; largest relative change per term: "
          + ", ".join(f"{t} {v:.1%}" for t, v in sorted(worst.items())))
    return 0


def main(argv=None) -> int:
    # the checkout measured is the one importable (PYTHONPATH first); this one only when none is
    import importlib.util

    if importlib.util.find_spec("realitybench_addon") is None:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("measure", help="render and record the image terms of one checkout")
    m.add_argument("out")
    m.add_argument("--env", required=True)
    m.add_argument("--seed", type=int, default=77)
    m.add_argument("--frames", type=int, default=40)
    m.add_argument("--long-side", type=int, default=800)
    c = sub.add_parser("compare", help="compare two measure outputs")
    c.add_argument("before")
    c.add_argument("after")
    args = parser.parse_args(argv)
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
