"""The report's figures, with matplotlib (the optional `plots` extra; skipped, and said so, without it):

    f1_vs_cost.png              F1 (95% CI) against the cost of the whole set, one point per priced run;
                                baselines (no model, no cost) as dashed horizontal reference lines
    documentation_vs_cost.png   documentation score (95% CI) against cost, the same way
    fields_heatmap.png          documentation score per field (rows) and run (columns)

`cost_plot_runs` says which runs a cost plot shows and why each other run is left out; the report
prints it whether or not matplotlib is there.
"""
from __future__ import annotations

import math
from pathlib import Path

COST_METRICS = (("f1", "F1"), ("documentation", "documentation score"))


def _finite(x) -> bool:
    return x is not None and isinstance(x, (int, float)) and math.isfinite(x)


def no_cost_reason(summary: dict) -> str | None:
    """Why a model run has no cost (None when it has one)."""
    c = summary.get("cost")
    if c is None:
        return "no price file (--prices)"
    if c.get("price") is None:
        return f"no price for model `{summary.get('model')}` ({summary.get('provider')}) in `{c.get('prices_file')}`"
    if not _finite(c.get("total")):
        return "its cost is n/a"
    return None


def cost_plot_runs(labels: list[str], summaries: list[dict], metric: str) -> dict:
    """points: (label, cost, value, lo, hi) of priced model runs; reference_lines: (label, value) of baselines;
    left_out: {label, reason} for every other run."""
    name = dict(COST_METRICS)[metric]
    points, lines, left_out = [], [], []
    for label, s in zip(labels, summaries):
        est = s["metrics"][metric]
        if s.get("kind") == "baseline":
            if _finite(est.get("value")):
                lines.append((label, est["value"]))
            else:
                left_out.append({"label": label, "reason": f"a baseline without a {name}"})
            continue
        reason = no_cost_reason(s) or (None if _finite(est.get("value")) else f"its {name} is n/a")
        if reason:
            left_out.append({"label": label, "reason": reason})
        else:
            points.append((label, s["cost"]["total"], est["value"], est.get("lo"), est.get("hi")))
    return {"points": points, "reference_lines": lines, "left_out": left_out}


def write_plots(out: Path, labels: list[str], summaries: list[dict]) -> dict:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return {"written": [], "skipped": "matplotlib is not installed (pip install 'realitybench[plots]')"}
    written, notes = [], []
    for metric, name in COST_METRICS:
        runs = cost_plot_runs(labels, summaries, metric)
        points = runs["points"]
        if not points:
            notes.append(f"{metric}_vs_cost.png: no model run has both a cost (--prices) and a {name}")
            continue
        fig, ax = plt.subplots(figsize=(6, 4.5))
        for label, c, v, lo, hi in points:
            err = [[v - lo], [hi - v]] if _finite(lo) and _finite(hi) else None
            ax.errorbar([c], [v], yerr=err, fmt="o", capsize=3)
            ax.annotate(label, (c, v), textcoords="offset points", xytext=(5, 5), fontsize=8)
        for label, v in runs["reference_lines"]:  # a baseline costs nothing: a level to beat, not a point at 0
            ax.axhline(v, linestyle="--", linewidth=1, color="gray")
            ax.annotate(label, (0, v), xycoords=("axes fraction", "data"), textcoords="offset points",
                        xytext=(3, 3), fontsize=7, color="gray")
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
