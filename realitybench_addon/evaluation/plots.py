"""The report's figures, with matplotlib (the optional `plots` extra; skipped, and said so, without it):

    f1_vs_cost.png              F1 (95% CI) against the cost of the whole set, one point per priced run;
                                baselines (no model, no cost) as dashed horizontal reference lines;
                                ensembles (ensembles.py) as stars at their cost
    documentation_vs_cost.png   documentation score (95% CI) against cost, the same way
    fields_heatmap.png          documentation score per field (rows, grouped by skill and sorted by
                                the mean over models: skills.py) and run (columns, best documentation
                                first), the mean over models in the first column

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


def ensemble_points(ensembles, metric: str) -> dict:
    """points: (label, cost, value, lo, hi) of the ensembles drawn on `metric`'s cost plot; left_out: with why."""
    name = dict(COST_METRICS)[metric]
    points, left_out = [], []
    for e in ensembles:
        if metric not in e.get("plots", ()):
            continue
        est, c = e["metrics"][metric], e["cost"]
        reason = (f"no cost ({c['reason']})" if not _finite(c.get("total"))
                  else None if _finite(est.get("value")) else f"its {name} is n/a")
        if reason:
            left_out.append({"label": e["label"], "reason": reason})
        else:
            points.append((e["label"], c["total"], est["value"], est.get("lo"), est.get("hi")))
    return {"points": points, "left_out": left_out}


def _heatmap_order(labels: list[str], summaries: list[dict], skills: dict | None):
    """(fields in row order with their group, runs answering documentation best first, the mean column)."""
    answering = [(label, s) for label, s in zip(labels, summaries) if s["metrics"]["fields"]]
    answering.sort(key=lambda a: -(a[1]["metrics"]["documentation"]["value"]
                                   if _finite(a[1]["metrics"]["documentation"]["value"]) else -1.0))
    if skills and skills.get("fields"):
        rows = [(f["field"], f["group"], f["mean"]) for f in skills["fields"]]
    else:
        rows = [(f, "", None) for f in sorted({f for s in summaries for f in s["metrics"]["fields"]})]
    return rows, answering


def write_plots(out: Path, labels: list[str], summaries: list[dict], ensembles=(), skills: dict | None = None) -> dict:
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
        for label, c, v, lo, hi in ensemble_points(ensembles, metric)["points"]:
            err = [[v - lo], [hi - v]] if _finite(lo) and _finite(hi) else None
            ax.errorbar([c], [v], yerr=err, fmt="*", markersize=12, color="black", capsize=3)
            ax.annotate(label, (c, v), textcoords="offset points", xytext=(5, -10), fontsize=7)
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
    rows, answering = _heatmap_order(labels, summaries, skills)
    if rows and answering:
        import numpy as np

        grid = np.full((len(rows), len(answering) + 1), np.nan)  # column 0: the mean over models
        for i, (f, _, mean) in enumerate(rows):
            grid[i, 0] = mean if _finite(mean) else np.nan
            for j, (_, s) in enumerate(answering, 1):
                v = s["metrics"]["fields"].get(f, {}).get("value")
                if _finite(v):
                    grid[i, j] = v
        fig, ax = plt.subplots(figsize=(5.8 + 1.0 * len(answering), 1.6 + 0.35 * len(rows)))
        image = ax.imshow(np.ma.masked_invalid(grid), vmin=0, vmax=1, cmap="viridis", aspect="auto")
        ax.set_xticks(range(len(answering) + 1), ["mean over models", *[label for label, _ in answering]],
                      rotation=30, ha="right", fontsize=8)
        ax.set_yticks(range(len(rows)), [f"{group}: {f}" if group else f for f, group, _ in rows], fontsize=8)
        ax.axvline(0.5, color="white", linewidth=2)
        for i in range(1, len(rows)):  # a line between skill groups
            if rows[i][1] != rows[i - 1][1]:
                ax.axhline(i - 0.5, color="white", linewidth=2)
        for i in range(len(rows)):
            for j in range(len(answering) + 1):
                if math.isfinite(grid[i, j]):
                    ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=7,
                            color="white" if grid[i, j] < 0.5 else "black")
        fig.colorbar(image, ax=ax, label="documentation score")
        fig.tight_layout()
        fig.savefig(out / "fields_heatmap.png", dpi=120)
        plt.close(fig)
        written.append("fields_heatmap.png")
    return {"written": written, "skipped": "; ".join(notes) or None}
