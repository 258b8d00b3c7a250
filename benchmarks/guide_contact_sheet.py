"""A contact sheet of one guided episode's turns: each photo the model was shown, its verdict and failing terms,
and the reply's actions (what the worker then did, with what was not possible).

    .venv/bin/python benchmarks/guide_contact_sheet.py RUNDIR EPISODE_ID --out sheet.jpg [--width 320]
"""
from __future__ import annotations

import argparse
import json
import textwrap
from pathlib import Path

from PIL import Image, ImageDraw


def caption(line: dict) -> str:
    said = "done" if line["done"] else ("out of grammar: " + str(line["grammar_problem"])) if not line["in_grammar"] \
        else ", ".join(f"{r['action']['do']} " + " ".join(f"{v:g}" if isinstance(v, float) else str(v)
                                                          for k, v in r["action"].items() if k != "do")
                       + ("" if r["done_share"] >= 1 else f" ({r['done_share']:.0%})") for r in line["applied"])
    failing = ", ".join(line["failing_terms"]) or "none"
    return (f"photo {line['turn']}: {line['verdict']}" + (f" (failing: {failing})" if not line["accepted"] else "")
            + f"\nreply: {said}" + (f"\nended: {line['end']}" if line["end"] else ""))


def sheet(run: Path, episode: str, width: int = 320) -> Image.Image:
    lines = [json.loads(x) for x in (run / "turns.jsonl").read_text().splitlines()]
    lines = sorted((x for x in lines if x["episode"] == episode), key=lambda x: x["turn"])
    if not lines:
        raise SystemExit(f"{run} has no turns of {episode}")
    tiles = []
    for line in lines:
        photo = Image.open(run / line["photo"]).convert("RGB")
        photo = photo.resize((width, round(photo.height * width / photo.width)))
        text = "\n".join(textwrap.fill(p, width // 6) for p in caption(line).split("\n"))
        tile = Image.new("RGB", (width, photo.height + 14 * (text.count("\n") + 2)), "white")
        tile.paste(photo, (0, 0))
        ImageDraw.Draw(tile).multiline_text((4, photo.height + 4), text, fill="black", spacing=2)
        tiles.append(tile)
    out = Image.new("RGB", (sum(t.width for t in tiles) + 8 * (len(tiles) - 1), max(t.height for t in tiles)), "white")
    x = 0
    for t in tiles:
        out.paste(t, (x, 0))
        x += t.width + 8
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run")
    parser.add_argument("episode")
    parser.add_argument("--out", required=True)
    parser.add_argument("--width", type=int, default=320)
    args = parser.parse_args()
    sheet(Path(args.run), args.episode, args.width).save(args.out, quality=85)
    print(args.out)
