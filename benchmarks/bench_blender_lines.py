"""Compare Blender lines on the same frame ids: records, verdicts, ground truth, render time, image difference.

Run:  .venv/bin/python benchmarks/bench_blender_lines.py [--frames 8] [--renders 1] [--resolution 800x600]
                                                          [--samples 16]

For every environment, frames 0..N-1 of seed 0 are built and measured without rendering in each
line's own interpreter (the default line, 5.2 LTS: this venv; 4.5 LTS and 5.3: .venv-bpy4.5 and
.venv-bpy5.3, made by `bash scripts/setup.sh --tests`), and the first R of them are also rendered (with denoising). Prints
per line: frames whose record differs from 4.5's beyond the last float digits (every field but the
Blender version), verdict and ground-truth mismatches, mean render seconds per frame and its ratio to
4.5's, and the mean absolute difference of the rendered images from 4.5's (0-255 scale).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from blender_lines import LINES, line_python, line_records, record_differences  # noqa: E402

BASE_LINE = "4.5"  # the line every other is compared with
SEED = 0


def image_difference(a: Path, b: Path) -> float:
    import numpy as np
    from PIL import Image

    return float(np.abs(np.asarray(Image.open(a), float) - np.asarray(Image.open(b), float)).mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=8)
    parser.add_argument("--renders", type=int, default=1)
    parser.add_argument("--resolution", default="800x600")
    parser.add_argument("--samples", type=int, default=16)
    args = parser.parse_args()
    args.long_side = max(int(v) for v in args.resolution.lower().split("x"))
    with tempfile.TemporaryDirectory() as tmp:
        results = {}
        for line in LINES:
            python = line_python(line)
            if not python.exists():
                print(f"{line}: no interpreter at {python} (run bash scripts/setup.sh --tests)")
                continue
            results[line] = line_records(line, Path(tmp) / f"{line}.json", args.frames, SEED, args.renders,
                                         args.long_side, args.samples, timeout_s=24 * 3600)
        if BASE_LINE not in results:
            raise SystemExit(f"no Blender {BASE_LINE} to compare with")
        base = results[BASE_LINE]
        base_seconds = sum(base["render_seconds"].values()) / max(1, len(base["render_seconds"]))
        print(f"{len(base['records'])} frame ids ({args.frames} per environment), "
              f"{len(base['render_seconds'])} rendered at {args.resolution}, {args.samples} samples")
        for line, result in results.items():
            differing, fields, verdicts, truths = [], Counter(), 0, 0
            for fid, record in base["records"].items():
                other = result["records"][fid]
                found = record_differences(record, other)
                if found:
                    differing.append(fid)
                    fields.update(found)
                verdicts += record["verdict"] != other["verdict"]
                truths += record["ground_truth"] != other["ground_truth"]
            seconds = sum(result["render_seconds"].values()) / max(1, len(result["render_seconds"]))
            diffs = [image_difference(Path(tmp) / BASE_LINE / base["records"][f]["file_name"],
                                      Path(tmp) / line / result["records"][f]["file_name"])
                     for f in base["render_seconds"]]
            print(f"{line}: records differing {len(differing)}/{len(base['records'])} {differing[:5]}, "
                  f"verdicts differing {verdicts}, ground truth differing {truths}, "
                  f"render {seconds:.2f} s/frame (x{seconds / base_seconds:.2f} of {BASE_LINE}), "
                  f"image mean |diff| {sum(diffs) / max(1, len(diffs)):.2f}/255")
            rendered = set(base["render_seconds"])
            print(f"    of them rendered: {len(rendered & set(differing))}/{len(rendered)}; fields differing: "
                  + ", ".join(f"{k} {v}" for k, v in fields.most_common(8)))


if __name__ == "__main__":
    main()
