"""Benchmark: leaf-card placement in the surroundings' crowns (`core.vegetation.foliage_cards`), pure numpy.

Placing cards was about a fifth of a scene's build (a roof scene's, a lot's), and what kept them off the crowns
beyond 40 m of a house (blobs, not trees). This times it per distance band for the surroundings of a few drawn
roof plans, and with `--before DIR` (a checkout of an earlier commit, e.g. `git worktree add /tmp/before HEAD~1`)
the same calls with that checkout's module, in the same process, and prints the ratio and whether the cards agree.

Run:  .venv/bin/python benchmarks/bench_card_placement.py [--plans 3] [--before /tmp/before]
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from realitybench_addon.core import vegetation  # noqa: E402
from realitybench_addon.core.surroundings import clear_of_sun, draw_surroundings  # noqa: E402
from realitybench_addon.core.surroundings_meshes import surroundings_parts  # noqa: E402

SURROUNDINGS_STREAM = 0x5111  # bl/roof.py's stream for the roof scenes' surroundings


def load_module(checkout: Path):
    """`core/vegetation.py` of another checkout, imported under its own name beside this one's."""
    spec = importlib.util.spec_from_file_location("realitybench_addon.core._vegetation_before",
                                                  checkout / "realitybench_addon" / "core" / "vegetation.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def crowns(plans: int):
    """(label, kind, vertices, triangles, each piece's distance from the house) for every crown mesh."""
    out = []
    for seed in range(plans):
        plan = clear_of_sun(draw_surroundings(np.random.default_rng([seed, SURROUNDINGS_STREAM]), 34.0), 17.0,
                            180.0, 40.0)
        for part in surroundings_parts(plan):
            if part.kind != "crown":
                continue
            verts, tris = np.asarray(part.vertices, float), np.asarray(part.triangles, int)
            reach = np.array([np.hypot(*verts[tris[own]].reshape(-1, 3)[:, :2].mean(0))
                              for own in vegetation.piece_triangles(tris, len(verts))])
            kind = "needle" if "conifer" in part.name.lower() else "broadleaf"
            out.append((f"plan {seed} {part.name}", kind, verts, tris, reach))
    return out


def place(module, kind, verts, tris, reach, near, far, card_m, denser, seed):
    t = time.perf_counter()
    cards = module.foliage_cards(verts, tris, kind, seed, card_m=card_m, dress=(reach >= near) & (reach < far),
                                 density=denser * module.CARD_DENSITY[kind])
    return cards, time.perf_counter() - t


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--plans", type=int, default=3)
    parser.add_argument("--before", type=Path, help="a checkout whose core/vegetation.py to compare against")
    args = parser.parse_args()
    before = load_module(args.before) if args.before else None
    totals = {}
    for label, kind, verts, tris, reach in crowns(args.plans):
        for band, (near, far, card_m, denser) in enumerate(vegetation.SURROUNDINGS_CARDS):
            seed = vegetation.mesh_seed(verts) + band
            cards, now = place(vegetation, kind, verts, tris, reach, near, far, card_m, denser, seed)
            row = totals.setdefault((near, far), {"cards": 0, "now_s": 0.0, "before_s": 0.0, "same_centres": True})
            row["cards"] += len(cards["scales"])
            row["now_s"] += now
            if before is not None:
                old, then = place(before, kind, verts, tris, reach, near, far, card_m, denser, seed)
                row["before_s"] += then
                row["same_centres"] &= np.array_equal(old["centers"], cards["centers"])
    print(f"{'band (m)':>12} {'cards':>8} {'now s':>8} {'cards/s':>9}" + (f" {'before s':>9} {'ratio':>6} same centres"
                                                                           if before else ""))
    for (near, far), row in totals.items():
        rate = row["cards"] / max(row["now_s"], 1e-9)
        line = f"{f'{near:.0f}-{far:.0f}':>12} {row['cards']:>8} {row['now_s']:>8.2f} {rate:>9.0f}"
        if before is not None:
            line += f" {row['before_s']:>9.2f} {row['before_s'] / max(row['now_s'], 1e-9):>6.2f} {row['same_centres']}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
