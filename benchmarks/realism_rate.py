"""An absolute blind realism rating of an exported set: each frame shown alone, full size, rated 1-5.

1. Export frames of a seed you have not tuned on, at the reference size, e.g.
     .venv/bin/python -m realitybench_addon export --env all --random 5 --positive 0 --seed 7 \
         --resolution 1600x1200 --samples 4 --out /tmp/rate/set
2. Make the viewers' folder (neutral names, PNG at full size, each viewer's own order, the scale) and the key:
     .venv/bin/python benchmarks/realism_rate.py images /tmp/rate/set --out /tmp/rate/view \
         --key /tmp/rate/key.json --per-env 5 --viewers 3
3. Each viewer sees only /tmp/rate/view (README.md there says how to answer: one image at a time, in the
   order of their own order_K.txt) and writes one JSON answers file (format: rating/blind_single.py).
4. Score:  .venv/bin/python benchmarks/realism_rate.py score /tmp/rate/key.json answers/*.json
   prints, per environment and overall, the mean rating (95% bootstrap interval over frames), the share of
   frames whose mean rating is 4 or more, and whether issue 41's targets are met.
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
from realitybench_addon.rating import blind_single as bs  # noqa: E402
from realitybench_addon.setio import image_path, read_rows  # noqa: E402

INSTRUCTIONS = """# Rate each image on its own

Each image_NNN.png here is one picture. Look at them ONE AT A TIME, at full size, in the order listed in your
own order file (order_K.txt, K given to you), and rate how much each looks like a real photo taken with a
phone, on this scale:

{scale}

Judge the picture alone: do not compare it with the others or go back to change earlier ratings. Write your
answers as JSON:

    {{"viewer": "your name", "answers": {{"image_000": {{"rating": 3, "note": "what gives it away"}}, ...}}}}

Every image gets one answer; the note is optional.
"""


def _chosen(set_dir: Path, per_env: int, stratum: str | None) -> list[tuple[str, str, Path]]:
    """The first `per_env` frames of each environment (in the set's order), not picked by hand."""
    chosen, per = [], {}
    for row in read_rows(set_dir):
        env = row["environment"]
        if stratum and row.get("stratum") != stratum:
            continue
        if per.get(env, 0) < per_env:
            per[env] = per.get(env, 0) + 1
            chosen.append((row["frame_id"], env, image_path(set_dir, row)))
    if not chosen:
        raise RealityBenchError(f"{set_dir}: no frame{' of stratum ' + stratum if stratum else ''} to rate")
    return chosen


def cmd_images(args) -> None:
    from PIL import Image

    set_dir, out, key = Path(args.set), Path(args.out), Path(args.key)
    if key.resolve().parent == out.resolve() or key.resolve().is_relative_to(out.resolve()):
        raise RealityBenchError("keep the key out of the viewers' folder: --key must not be inside --out")
    frames = _chosen(set_dir, args.per_env, args.stratum)
    rng = np.random.default_rng(args.seed)
    viewings = bs.make_viewings([(f, e) for f, e, _ in frames], rng)
    orders = bs.viewer_orders(viewings, args.viewers, rng)
    paths = {f: p for f, _, p in frames}
    out.mkdir(parents=True, exist_ok=True)
    for v in viewings:
        with Image.open(paths[v.frame_id]) as im:  # full size; PNG so any image viewer shows it
            im.convert("RGB").save(out / f"{v.image_id}.png")
    for k, order in enumerate(orders, 1):
        (out / f"order_{k}.txt").write_text("\n".join(f"{i}.png" for i in order) + "\n")
    scale = "\n".join(f"- {n}: {text}" for n, text in bs.SCALE.items())
    (out / "README.md").write_text(INSTRUCTIONS.format(scale=scale))
    key.parent.mkdir(parents=True, exist_ok=True)
    key.write_text(json.dumps(bs.viewings_to_key(viewings), indent=1))
    envs = sorted({v.environment for v in viewings})
    print(f"{len(viewings)} images from {len(envs)} environments in {out} ({args.viewers} orders); key in {key}")


def cmd_score(args) -> None:
    from realitybench_addon.core.safe_parse import InputError, loads_json
    from realitybench_addon.core.safefs import CAPS, read_path

    try:
        key = loads_json(read_path(Path(args.key), "json"), max_bytes=CAPS["json"])
    except (OSError, InputError) as err:
        raise RealityBenchError(f"{args.key}: not a rating key ({err})") from None
    viewings = bs.viewings_from_key(key)
    viewers = read_panel(args.answers, lambda path: bs.read_answers(path, viewings))
    table = bs.markdown_table(bs.summarize(viewings, list(viewers.values()), seed=args.seed), len(viewers))
    print(table)
    if args.markdown:
        Path(args.markdown).write_text(table + "\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("images", help="the viewers' folder (one PNG per frame, neutral names) and its key")
    p.add_argument("set", help="an exported set")
    p.add_argument("--out", required=True, help="folder for the viewers: images, orders, instructions")
    p.add_argument("--key", required=True, help="JSON key file (outside --out)")
    p.add_argument("--per-env", type=int, default=5)
    p.add_argument("--viewers", type=int, default=3)
    p.add_argument("--stratum", default=None, help="only frames of this stratum (default: any)")
    p.add_argument("--seed", type=int, default=0, help="the shuffle's seed")
    s = sub.add_parser("score", help="mean rating per environment and issue 41's targets")
    s.add_argument("key")
    s.add_argument("answers", nargs="+")
    s.add_argument("--seed", type=int, default=0, help="the bootstrap's seed")
    s.add_argument("--markdown", help="also write the table here")
    args = parser.parse_args(argv)
    try:
        {"images": cmd_images, "score": cmd_score}[args.command](args)
    except RealityBenchError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
