"""The report's figures, with matplotlib (the optional `plots` extra; skipped, and said so, without it):

    f1_vs_cost.png              F1 (95% CI) against the cost of the whole set, one point per run
    documentation_vs_cost.png   documentation score (95% CI) against cost
    fields_heatmap.png          documentation score per field (rows) and run (columns)
"""
from __future__ import annotations

import math
from pathlib import Path


def _finite(x) -> bool:
    return x is not None and isinstance(x, (int, float)) and math.isfinite(x)


def write_plots(out: Path, labels: list[str], summaries: list[dict]) -> dict:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return {"written": [], "skipped": "matplotlib is not installed (pip install 'realitybench[plots]')"}
    written, notes = [], []
    for metric, name in (("f1", "F1"), ("documentation", "documentation score")):
        points = []
        for label, s in zip(labels, summaries):
            est, c = s["metrics"][metric], (s.get("cost") or {}).get("total")
            if _finite(est.get("value")) and _finite(c):
                points.append((label, c, est["value"], est.get("lo"), est.get("hi")))
        if not points:
            notes.append(f"{metric}_vs_cost.png: no run has both a cost (--prices) and a {name}")
            continue
        fig, ax = plt.subplots(figsize=(6, 4.5))
        for label, c, v, lo, hi in points:
            err = [[v - lo], [hi - v]] if _finite(lo) and _finite(hi) else None
            ax.errorbar([c], [v], yerr=err, fmt="o", capsize=3)
            ax.annotate(label, (c, v), textcoords="offset points", xytext=(5, 5), fontsize=8)
        ax.set_xlabel(f"cost of the whole set ({(summaries[0].get('cost') or {}).get('currency', '')})")
        ax.set_ylabel(f"{name} (95% CI)")
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(out / f"{metric}_vs_cost.png", dpi=120)
        plt.close(fig)
        written.append(f"{metric}_vs_cost.png")
    fields = sorted({f for s in summaries for f in s["metrics"]["fields"]})
    answering = [(label, s) for label, s in zip(labels, summaries) if s["metrics"]["fields"]]
    if fields and answering:
        import numpy as np

        grid = np.full((len(fields), len(answering)), np.nan)
        for j, (_, s) in enumerate(answering):
            for i, f in enumerate(fields):
                v = s["metrics"]["fields"].get(f, {}).get("value")
                if _finite(v):
                    grid[i, j] = v
        fig, ax = plt.subplots(figsize=(4.8 + 1.0 * len(answering), 1.6 + 0.35 * len(fields)))
        image = ax.imshow(np.ma.masked_invalid(grid), vmin=0, vmax=1, cmap="viridis", aspect="auto")
        ax.set_xticks(range(len(answering)), [label for label, _ in answering], rotation=30, ha="right", fontsize=8)
        ax.set_yticks(range(len(fields)), fields, fontsize=8)
        for i in range(len(fields)):
            for j in range(len(answering)):
                if math.isfinite(grid[i, j]):
                    ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=7,
                            color="white" if grid[i, j] < 0.5 else "black")
        fig.colorbar(image, ax=ax, label="documentation score")
        fig.tight_layout()
        fig.savefig(out / "fields_heatmap.png", dpi=120)
        plt.close(fig)
        written.append("fields_heatmap.png")
    return {"written": written, "skipped": "; ".join(notes) or None}
