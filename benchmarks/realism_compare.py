"""A blind before/after comparison of two exports of the same frames: which looks more like a real phone photo.

1. Export the same frames with the code before and after a change (frame ids are drawn by seed, so the same
   command gives the same ids), e.g. with a worktree of the old commit:
     git worktree add /tmp/before <old-commit>
     (cd /tmp/before && "$OLDPWD"/.venv/bin/python -m realitybench_addon export --env all --random 5 \
         --positive 0 --seed 0 --resolution 800x600 --samples 16 --out /tmp/cmp/before)
     .venv/bin/python -m realitybench_addon export ...same options... --out /tmp/cmp/after
2. Make the pairs: each frame's two images side by side, the sides drawn at random; the key stays out of the
   viewers' folder:
     .venv/bin/python benchmarks/realism_compare.py pairs /tmp/cmp/before /tmp/cmp/after \
         --out /tmp/cmp/pairs --key /tmp/cmp/key.json
3. Viewers who see only /tmp/cmp/pairs write one JSON answers file each (format: rating/blind_pairs.py).
4. Score:  .venv/bin/python benchmarks/realism_compare.py score /tmp/cmp/key.json answers/*.json
   prints, per environment and overall, the share of judgements preferring "after" (Wilson 95% interval)
   and the mean 1-5 rating of each side.
Also: `contact BEFORE_SET AFTER_SET --out docs/img` writes one contact sheet per environment of the same frames
(before | after, a row each); `sheets BEFORE AFTER --out docs/img` puts the docs' example frames (two runs of
scripts/render_doc_examples.py, the second with --picks-from) side by side, before left.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from realitybench_addon.core.errors import RealityBenchError  # noqa: E402
from realitybench_addon.rating.answers_json import read_panel  # noqa: E402
from realitybench_addon.rating import blind_pairs as bp  # noqa: E402
from realitybench_addon.setio import image_path, read_rows  # noqa: E402

LONG_SIDE = 800  # each side of a pair, in px
LABEL_PX = 36


def _frames(before: Path, after: Path, per_env: int) -> list[tuple[str, str, Path, Path]]:
    rows_b = {r["frame_id"]: r for r in read_rows(before)}
    rows_a = {r["frame_id"]: r for r in read_rows(after)}
    common = sorted(set(rows_b) & set(rows_a))
    if not common:
        raise RealityBenchError(f"{before} and {after} share no frame id: export the same frames into both")
    chosen, per = [], {}
    for fid in common:
        env = rows_a[fid]["environment"]
        if per.get(env, 0) < per_env:
            per[env] = per.get(env, 0) + 1
            chosen.append((fid, env, image_path(before, rows_b[fid]), image_path(after, rows_a[fid])))
    return chosen


def _side_by_side(left: Path, right: Path, labels=bp.SIDES):
    from PIL import Image, ImageDraw

    ims = []
    for p in (left, right):
        with Image.open(p) as im:
            im = im.convert("RGB")
            im.thumbnail((LONG_SIDE, LONG_SIDE))
            ims.append(im)
    gap = 24
    w = ims[0].width + ims[1].width + gap
    h = max(im.height for im in ims) + LABEL_PX
    sheet = Image.new("RGB", (w, h), (255, 255, 255))
    draw = ImageDraw.Draw(sheet)
    x = 0
    for label, im in zip(labels, ims):
        sheet.paste(im, (x, LABEL_PX))
        draw.text((x + im.width // 2 - 6 * len(label), 8), label, fill=(0, 0, 0), font_size=24)
        x += im.width + gap
    return sheet


def cmd_pairs(args) -> None:
    frames = _frames(Path(args.before), Path(args.after), args.per_env)
    pairs = bp.make_pairs([(f, e) for f, e, _, _ in frames], np.random.default_rng(args.seed))
    paths = {f: (b, a) for f, _, b, a in frames}
    out = Path(args.out)
    key = Path(args.key)
    if key.resolve().parent == out.resolve():
        raise RealityBenchError("keep the key out of the viewers' folder: --key must not be inside --out")
    out.mkdir(parents=True, exist_ok=True)
    for p in pairs:
        before, after = paths[p.frame_id]
        left, right = (after, before) if p.after_side == "A" else (before, after)
        _side_by_side(left, right).save(out / f"{p.pair_id}.png")
    key.parent.mkdir(parents=True, exist_ok=True)
    key.write_text(json.dumps(bp.pairs_to_key(pairs), indent=1))
    envs = sorted({p.environment for p in pairs})
    print(f"{len(pairs)} pairs from {len(envs)} environments in {out}; key in {key}")


def cmd_sheets(args) -> None:
    """docs/img/realism_<env>.jpg: each example frame before (left) and after (right), from two runs of
    scripts/render_doc_examples.py (the second with --picks-from the first's picks.json)."""
    before, after, out = Path(args.before), Path(args.after), Path(args.out)
    names = sorted(p.name for p in after.glob("*.jpg") if (before / p.name).is_file())
    if not names:
        raise RealityBenchError(f"{before} and {after} share no example frame (ENV.jpg)")
    out.mkdir(parents=True, exist_ok=True)
    for name in names:
        _side_by_side(before / name, after / name, ("before", "after")).save(out / f"realism_{name}", quality=88)
    print(f"{len(names)} before/after sheets in {out}")


def cmd_contact(args) -> None:
    """OUT/realism_<env>.jpg: each environment's frames of the two sets, one row per frame, before | after."""
    from PIL import Image

    frames = _frames(Path(args.before), Path(args.after), args.per_env)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for env in sorted({e for _, e, _, _ in frames}):
        rows = [_side_by_side(b, a, ("before", "after")) for _, e, b, a in frames if e == env]
        width = max(r.width for r in rows)
        sheet = Image.new("RGB", (width, sum(r.height for r in rows)), (255, 255, 255))
        y = 0
        for r in rows:
            sheet.paste(r, (0, y))
            y += r.height
        sheet.thumbnail((args.width, 100 * args.width))
        sheet.save(out / f"realism_{env}.jpg", quality=78)
    print(f"contact sheets of {len(frames)} frame pairs in {out}")


def cmd_score(args) -> None:
    pairs = bp.pairs_from_key(json.loads(Path(args.key).read_text()))
    viewers = read_panel(args.answers, lambda path: bp.read_answers(path, pairs))
    table = bp.markdown_table(bp.summarize(pairs, list(viewers.values())), len(viewers))
    print(table)
    if args.markdown:
        Path(args.markdown).write_text(table + "\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("pairs", help="side-by-side pairs in random order, and their key")
    p.add_argument("before")
    p.add_argument("after")
    p.add_argument("--out", required=True, help="folder for the viewers: pair images only")
    p.add_argument("--key", required=True, help="JSON key file (outside --out)")
    p.add_argument("--per-env", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    sh = sub.add_parser("sheets", help="before/after sheets of the docs' example frames")
    sh.add_argument("before")
    sh.add_argument("after")
    sh.add_argument("--out", required=True)
    c = sub.add_parser("contact", help="per-environment contact sheets of two sets' frames, before | after")
    c.add_argument("before")
    c.add_argument("after")
    c.add_argument("--out", required=True)
    c.add_argument("--per-env", type=int, default=5)
    c.add_argument("--width", type=int, default=900, help="sheet width in px")
    s = sub.add_parser("score", help="preference share and mean ratings per environment")
    s.add_argument("key")
    s.add_argument("answers", nargs="+")
    s.add_argument("--markdown", help="also write the table here")
    args = parser.parse_args(argv)
    try:
        {"pairs": cmd_pairs, "sheets": cmd_sheets, "contact": cmd_contact, "score": cmd_score}[args.command](args)
    except RealityBenchError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
