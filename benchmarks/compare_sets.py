"""Are two exported sets the same set? For a change that must not change what an export writes.

Run:  .venv/bin/python benchmarks/compare_sets.py BEFORE_DIR AFTER_DIR

Compares, and prints what differs:
  - metadata.jsonl: the same frame ids, and every row equal field by field (Blender's version string
    aside, so that two Blender lines can be compared too);
  - manifest.json: config, config hash, completeness, expected frames, counts, discards, the positive
    search's statistics per slot and environment, preset hashes (timings and the command line aside);
  - every image: the same bytes (SHA-256).
Exit status 0 when the sets are the same, 1 when anything differs, 2 when a folder is not a set.

Typical use (the sets of issue 16's restructuring):
  git worktree add /tmp/before HEAD~N && (cd /tmp/before && ../main/.venv/bin/python -m realitybench_addon \
      export --env all --random 2 --positive 1 --resolution 640x480 --samples 2 --out /tmp/set-before)
  .venv/bin/python -m realitybench_addon export ... --out /tmp/set-after
  .venv/bin/python benchmarks/compare_sets.py /tmp/set-before /tmp/set-after
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from realitybench_addon.setio import MANIFEST, SetError, image_path, read_rows  # noqa: E402

MANIFEST_IGNORED = ("command",)  # the command line names the output folder
STATS_IGNORED = ("timings",)


def differences(a, b, path: str = "") -> list[str]:
    """The paths at which two JSON values differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = [f"{path}.{k}: only in one" for k in sorted(a.keys() ^ b.keys())]
        return out + [d for k in sorted(a.keys() & b.keys()) for d in differences(a[k], b[k], f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {json.dumps(a)[:80]} != {json.dumps(b)[:80]}"]


def comparable_row(row: dict) -> dict:
    row = dict(row)
    row["versions"] = {k: v for k, v in row.get("versions", {}).items() if k != "blender"}
    return row


def comparable_manifest(manifest: dict) -> dict:
    out = {k: v for k, v in manifest.items() if k not in MANIFEST_IGNORED}
    out["stats"] = {k: v for k, v in manifest.get("stats", {}).items() if k not in STATS_IGNORED}
    return out


def compare(before: Path, after: Path) -> list[str]:
    rows_a = {r["frame_id"]: r for r in read_rows(before)}
    rows_b = {r["frame_id"]: r for r in read_rows(after)}
    found = [f"frame {f}: only in {before}" for f in sorted(rows_a.keys() - rows_b.keys())]
    found += [f"frame {f}: only in {after}" for f in sorted(rows_b.keys() - rows_a.keys())]
    for fid in sorted(rows_a.keys() & rows_b.keys()):
        found += [f"frame {fid} row{d}" for d in differences(comparable_row(rows_a[fid]), comparable_row(rows_b[fid]))]
        if rows_a[fid].get("file_name"):
            digests = {hashlib.sha256(image_path(d, r[fid]).read_bytes()).hexdigest()
                       for d, r in ((before, rows_a), (after, rows_b))}
            if len(digests) > 1:
                found.append(f"frame {fid}: image bytes differ")
    manifests = [json.loads((d / MANIFEST).read_text(encoding="utf-8")) for d in (before, after)]
    found += [f"manifest{d}" for d in differences(*map(comparable_manifest, manifests))]
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args()
    try:
        found = compare(args.before, args.after)
        frames = len(read_rows(args.before))
    except (SetError, OSError, json.JSONDecodeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    images = sum(1 for r in read_rows(args.before) if r.get("file_name"))
    if found:
        print(f"{len(found)} differences over {frames} frames:")
        print("\n".join(f"  {line}" for line in found[:60]))
        return 1
    print(f"identical: {frames} frames (every metadata field but Blender's version), {images} images byte for byte, "
          "the manifest but timings and the command line")
    return 0


if __name__ == "__main__":
    sys.exit(main())
