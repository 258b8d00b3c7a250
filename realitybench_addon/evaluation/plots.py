"""The report's figures, with matplotlib (the optional `plots` extra; skipped, and said so, without it):

    f1_vs_cost.png              F1 (95% CI) against the cost of the whole set, one point per priced run;
                                baselines (no model, no cost) as dashed horizontal reference lines;
                                ensembles (ensembles.py) as stars at their cost; a legend of the three
                                kinds; each name placed where it hides no marker, interval or other name
                                (a leader line when it had to move away); the cost axis logarithmic when
                                the costs span LOG_SPAN (10x) or more
    documentation_vs_cost.png   documentation score (95% CI) against cost, the same way
                                With cost_figure.py on both: the cost frontier (a dotted step line), the
                                runs without a price as hollow markers at the left edge, one human pass's
                                cost range as a shaded band, and (F1, with --ratings) the single
                                non-author rater as a hollow diamond across the band
    fields_heatmap.png          documentation score per field (rows, grouped by skill and sorted by
                                the mean over models: skills.py) and run (columns, best documentation
                                first), the mean over models in the first column; a field a run has
                                no score for is gray, marked n/a
    difficulty.png              the drivers of difficulty (difficulty.py): per score (rows) and driver
                                (columns) the pooled Spearman rho, coloured from -1 to 1, with the models
                                whose own rho is above 0; a driver an environment does not record: n/a
    sim_to_real_<env>_<key>.png with --real: per question, each model at (share right on rendered frames,
                                share right on real photos) with both 95% intervals, one colour each, the
                                names placed as on the cost plots, the diagonal dashed, Spearman's rho and
                                Pearson's r in the title (sim_to_real.py)

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


LOG_SPAN = 10.0  # the cost axis is logarithmic when the dearest point costs this many times the cheapest or more


def _currency(summaries: list[dict]) -> str:
    """The cost's currency: the first run that has one (a baseline or an unpriced run listed first has none)."""
    return next((c["currency"] for c in ((s.get("cost") or {}) for s in summaries) if c.get("currency")), "")


def _overlap(a, b) -> float:
    w = min(a.x1, b.x1) - max(a.x0, b.x0)
    h = min(a.y1, b.y1) - max(a.y0, b.y0)
    return w * h if w > 0 and h > 0 else 0.0


def _place_labels(fig, ax, labels, hard, soft) -> None:
    """Put each label where it covers the least. labels: (text, candidates, style, the index of the first
    candidate far enough from its anchor to need a leader line); a candidate: (anchor, xycoords, (dx, dy) in
    points, ha, va). Every candidate is tried; the one whose box overlaps the least of the markers, intervals and
    labels already placed (`hard`, display boxes) and sticks out of the axes the least wins, then the one
    crossing the least of the reference lines (`soft`); ties go to the first candidate."""
    from matplotlib.transforms import Bbox

    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    placed = list(hard)
    for text, candidates, style, leader_from in labels:
        best = None
        for n, (anchor, xycoords, offset, ha, va) in enumerate(candidates):
            t = ax.annotate(text, anchor, xycoords=xycoords, textcoords="offset points", xytext=offset, ha=ha,
                            va=va, annotation_clip=False, **style)
            box = t.get_window_extent(renderer)
            inside = Bbox.intersection(box, frame)
            outside = box.width * box.height - (inside.width * inside.height if inside is not None else 0.0)
            cost = (outside + sum(_overlap(box, o) for o in placed), sum(_overlap(box, o) for o in soft), n)
            if best is None or cost < best[0]:
                if best is not None:
                    best[1].remove()
                best = (cost, t, box, n)
            else:
                t.remove()
        cost, t, box, n = best
        if n >= leader_from:  # away from its marker: a thin line says whose name it is
            t.remove()
            anchor, xycoords, offset, ha, va = candidates[n]
            ax.annotate(text, anchor, xycoords=xycoords, textcoords="offset points", xytext=offset, ha=ha, va=va,
                        annotation_clip=False, arrowprops={"arrowstyle": "-", "color": "gray", "linewidth": 0.6,
                                                           "shrinkA": 0, "shrinkB": 4}, **style)
        placed.append(box.expanded(1.06, 1.15))


def _around(anchor) -> list:
    """Candidate spots around a marker (offsets in points): right, left, above right, below right, ..., then
    further out."""
    out = []
    for r in (1.0, 2.0, 3.2, 4.6):
        out += [(anchor, "data", offset, ha, va) for offset, ha, va in (
            ((8 * r, 0), "left", "center"), ((-8 * r, 0), "right", "center"),
            ((5 * r, 6 * r), "left", "bottom"), ((5 * r, -6 * r), "left", "top"),
            ((-5 * r, 6 * r), "right", "bottom"), ((-5 * r, -6 * r), "right", "top"),
            ((0, 10 * r), "center", "bottom"), ((0, -10 * r), "center", "top"))]
    return out


def _along(value) -> list:
    """Candidate spots for a reference line's name: just above or below it, at the left end, the right end or
    the middle of the axes."""
    return [((xf, value), ("axes fraction", "data"), (dx, dy), ha, va)
            for xf, dx, ha in ((0.0, 4, "left"), (1.0, -4, "right"), (0.5, 0, "center"), (0.25, 0, "center"),
                               (0.75, 0, "center"))
            for dy, va in ((2, "bottom"), (-2, "top"))]


def _interval(ax, x, value, lo, hi, marker, size, colour, zorder) -> None:
    """A marker at the value and its 95% interval as a capped vertical bar, drawn as given (a percentile
    interval need not contain its point estimate, which errorbar refuses)."""
    if _finite(lo) and _finite(hi):
        ax.plot([x, x], [lo, hi], color=colour, linewidth=1.5, zorder=zorder)
        ax.plot([x, x], [lo, hi], linestyle="none", marker="_", markersize=7, markeredgewidth=1.5, color=colour,
                zorder=zorder)
    ax.plot([x], [value], linestyle="none", marker=marker, markersize=size, color=colour, markeredgecolor="white",
            markeredgewidth=0.6, zorder=zorder)


RATER_COLOUR = "saddlebrown"  # the single human rater and its cost
HOLLOW_X = 0.03  # where the unpriced runs stand, as a fraction of the axes' width from the left edge


def _draw_points(ax, points: list, stars: list, colours: list) -> list:
    """Each priced run a coloured point with its interval (above a star at the same cost), each ensemble a
    black star; returns what was drawn: (cost, value, lo, hi, marker size in points)."""
    drawn = []
    for n, (label, c, v, lo, hi) in enumerate(points):
        _interval(ax, c, v, lo, hi, "o", 6, colours[n % len(colours)], 4)
        drawn.append((c, v, lo, hi, 6))
    for label, c, v, lo, hi in stars:
        _interval(ax, c, v, lo, hi, "*", 14, "black", 3)
        drawn.append((c, v, lo, hi, 14))
    return drawn


def _draw_frontier(ax, points: list, frontier) -> list:
    """The best score for a cost up to x: a step up at each frontier run; returns the frontier's points."""
    on_front = [p for p in points if p[0] in set(frontier or ())]
    on_front.sort(key=lambda p: p[1])
    if len(on_front) > 1:
        ax.step([p[1] for p in on_front], [p[2] for p in on_front], where="post", linestyle=":", linewidth=1.2,
                color="black", alpha=0.7, zorder=2)
    return on_front


def _cost_axis(ax, drawn: list, band, rater, hollow) -> tuple[list, bool]:
    """The cost axis's scale and limits, with room for the names either side; returns (the costs it spans,
    whether it is logarithmic)."""
    costs = [d[0] for d in drawn] + ([band["lo"], band["hi"]] if band else [])
    if rater is not None and rater.get("cost_at_rate") is not None:
        costs.append(rater["cost_at_rate"])
    log = min(costs) > 0 and max(costs) / min(costs) >= LOG_SPAN
    if log:
        ax.set_xscale("log")
        ax.set_xlim(min(costs) / (6.0 if hollow else 2.5), max(costs) * 2.5)
    else:
        span = (max(costs) - min(costs)) or abs(max(costs)) or 1.0
        right = max(costs) + 0.25 * span
        ax.set_xlim(max(min(costs) - (0.35 if hollow else 0.2) * span, -0.04 * right), right)  # no cost is negative
    return costs, log


def _draw_human(ax, band, rater, log: bool, drawn: list) -> None:
    """The cost of a human pass as a shaded band, the single rater as a diamond across it (and at its own
    cost where known); the rater's markers are added to `drawn`."""
    if band:
        ax.axvspan(band["lo"], band["hi"], color="wheat", alpha=0.45, zorder=0, linewidth=0)
    if rater is None:
        return
    if band:  # the rater's cost is a range: a bar across the band at the rater's F1
        ax.plot([band["lo"], band["hi"]], [rater["value"]] * 2, color=RATER_COLOUR, linewidth=1.2, zorder=3)
        mid = math.sqrt(band["lo"] * band["hi"]) if log else (band["lo"] + band["hi"]) / 2
        if _finite(rater.get("lo")) and _finite(rater.get("hi")):
            ax.plot([mid, mid], [rater["lo"], rater["hi"]], color=RATER_COLOUR, linewidth=1.5, zorder=3)
        ax.plot([mid], [rater["value"]], linestyle="none", marker="D", markersize=7, markerfacecolor="white",
                markeredgecolor=RATER_COLOUR, markeredgewidth=1.5, zorder=5)
        drawn.append((mid, rater["value"], rater.get("lo"), rater.get("hi"), 7))
    if rater.get("cost_at_rate") is not None:
        ax.plot([rater["cost_at_rate"]], [rater["value"]], linestyle="none", marker="D", markersize=7,
                color=RATER_COLOUR, zorder=5)
        drawn.append((rater["cost_at_rate"], rater["value"], None, None, 7))


def _draw_hollow(ax, hollow: list, colours: list, first: int):
    """The unpriced runs as hollow markers standing off the cost axis, at the left edge; returns the
    transform they are drawn in (x in axes fraction, y in data)."""
    edge = ax.get_yaxis_transform()
    for n, (label, v, lo, hi) in enumerate(hollow):
        colour = colours[(first + n) % len(colours)]
        if _finite(lo) and _finite(hi):
            ax.plot([HOLLOW_X, HOLLOW_X], [lo, hi], color=colour, linewidth=1.2, transform=edge, zorder=4)
        ax.plot([HOLLOW_X], [v], linestyle="none", marker="o", markersize=6, markerfacecolor="white",
                markeredgecolor=colour, markeredgewidth=1.5, transform=edge, zorder=5)
    return edge


def _cost_legend(ax, *, stars, reference_lines, hollow, frontier: bool, band, rater) -> None:
    """One legend entry per kind of mark drawn, above the axes."""
    from matplotlib.lines import Line2D

    kinds = [Line2D([], [], marker="o", linestyle="none", color="gray", label="model run (one colour each)")]
    if stars:
        kinds.append(Line2D([], [], marker="*", markersize=11, linestyle="none", color="black", label="ensemble"))
    if reference_lines:
        kinds.append(Line2D([], [], linestyle="--", linewidth=1, color="gray", label="baseline (costs nothing)"))
    if hollow:
        kinds.append(Line2D([], [], marker="o", linestyle="none", markerfacecolor="white", markeredgecolor="gray",
                            label="no price (left edge)"))
    if frontier:
        kinds.append(Line2D([], [], linestyle=":", color="black", label="cost frontier"))
    if band:
        kinds.append(Line2D([], [], linewidth=6, color="wheat", alpha=0.8, label="one human pass"))
    if rater is not None:
        kinds.append(Line2D([], [], marker="D", linestyle="none", markerfacecolor="white",
                            markeredgecolor=RATER_COLOUR, label="single rater"))
    ax.legend(handles=kinds, loc="lower left", bbox_to_anchor=(0, 1.01), ncol=min(len(kinds), 3), frameon=False,
              fontsize=8, borderaxespad=0)


def _keep_clear(fig, ax, drawn: list, hollow: list, edge, costs: list, reference_lines: list) -> tuple[list, list]:
    """What a name must not hide, in display space once the layout is final: markers and error bars (hard),
    the baseline levels (soft: a name may cross one when nothing else is free)."""
    from matplotlib.transforms import Bbox

    to_px, px = ax.transData.transform, fig.dpi / 72.0
    hard = []
    for x, v, lo, hi, size in drawn:
        cx, cy = to_px((x, v))
        r = size * px / 2 + 1
        hard.append(Bbox([[cx - r, cy - r], [cx + r, cy + r]]))
        if _finite(lo) and _finite(hi):
            hard.append(Bbox([[cx - 4 * px, to_px((x, lo))[1] - 1], [cx + 4 * px, to_px((x, hi))[1] + 1]]))
    for _, v, lo, hi in hollow:
        cx, cy = edge.transform((HOLLOW_X, v))
        r = 6 * px / 2 + 1
        hard.append(Bbox([[cx - r, cy - r], [cx + r, cy + r]]))
    frame = ax.get_window_extent(fig.canvas.get_renderer())
    soft = [Bbox([[frame.x0, to_px((costs[0], v))[1] - 2], [frame.x1, to_px((costs[0], v))[1] + 2]])
            for _, v in reference_lines]
    return hard, soft


def _cost_plot_names(points: list, stars: list, hollow: list, drawn: list, rater, reference_lines: list) -> list:
    """The names to place: (text, candidate spots, text style, how many spots need no leader line)."""
    box = {"boxstyle": "round,pad=0.12", "fc": "white", "ec": "none", "alpha": 0.75}
    near = len(_around((0, 0))) // 4  # the first ring of spots needs no leader line
    labels = [(label, _around((c, v)), {"fontsize": 8, "bbox": box, "zorder": 6}, near)
              for label, c, v, _, _ in points]
    labels += [(label, _around((c, v)), {"fontsize": 7.5, "fontstyle": "italic", "bbox": box, "zorder": 6}, near)
               for label, c, v, _, _ in stars]
    labels += [(label, [((HOLLOW_X, v), ("axes fraction", "data"), offset, ha, va)
                        for _, _, offset, ha, va in _around((0, 0))], {"fontsize": 8, "bbox": box, "zorder": 6}, near)
               for label, v, _, _ in hollow]
    first_human = len(points) + len(stars)  # the rater's first marker follows the points and the stars
    labels += [("single rater", _around((x, v)), {"fontsize": 8, "color": RATER_COLOUR, "bbox": box, "zorder": 6},
                near) for x, v, _, _, size in drawn[first_human:first_human + 1]
               if rater is not None]
    labels += [(label, _along(v), {"fontsize": 7.5, "color": "dimgray", "bbox": box, "zorder": 2}, 10 ** 6)
               for label, v in reference_lines]
    return labels


def _cost_plot(plt, out: Path, metric: str, name: str, runs: dict, stars: list, currency: str,
               extra: dict | None = None) -> str:
    """One cost plot: each priced run a coloured point with its interval, each ensemble a black star, each
    baseline a dashed level; with `extra` (cost_figure.py): the cost frontier as a dotted step line, the unpriced
    runs as hollow markers at the left edge, the cost of a human pass as a shaded band and the single rater as a
    diamond across it; every name placed where it hides the least; a log cost axis when costs span LOG_SPAN or
    more."""
    extra = extra or {}
    points, reference_lines = runs["points"], runs["reference_lines"]
    fig, ax = plt.subplots(figsize=(7, 5.2))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    drawn = _draw_points(ax, points, stars, colours)
    for _, v in reference_lines:  # a baseline costs nothing: a level to beat, not a point at 0
        ax.axhline(v, linestyle="--", linewidth=1, color="gray", zorder=1)
    on_front = _draw_frontier(ax, points, extra.get("frontier"))
    band, rater = extra.get("band"), extra.get("rater")
    hollow = extra.get("hollow") or []
    costs, log = _cost_axis(ax, drawn, band, rater, hollow)
    _draw_human(ax, band, rater, log, drawn)
    edge = _draw_hollow(ax, hollow, colours, len(points))
    ax.set_ylim(-0.04, 1.04)
    ax.set_xlabel(f"cost of the whole set ({currency + ', ' if currency else ''}{'log scale' if log else 'linear'})")
    ax.set_ylabel(f"{name} (95% CI)")
    ax.grid(alpha=0.3)
    _cost_legend(ax, stars=stars, reference_lines=reference_lines, hollow=hollow, frontier=len(on_front) > 1,
                 band=band, rater=rater)
    fig.tight_layout()
    hard, soft = _keep_clear(fig, ax, drawn, hollow, edge, costs, reference_lines)
    _place_labels(fig, ax, _cost_plot_names(points, stars, hollow, drawn, rater, reference_lines), hard, soft)
    _save(fig, out / f"{metric}_vs_cost.png")
    plt.close(fig)
    return f"{metric}_vs_cost.png"


def sim_to_real_file(question: str) -> str:
    return "sim_to_real_" + question.replace(".", "_") + ".png"


def _sim_to_real_plot(plt, out: Path, q: dict) -> str | None:
    """One question's scatter: each model with a value on both sides, its intervals as a cross of capped bars."""
    from matplotlib.transforms import Bbox

    points = [(m["label"], m["rendered"], m["real"]) for m in q["models"]
              if _finite(m["rendered"]["value"]) and _finite(m["real"]["value"])]
    if not points:
        return None
    fig, ax = plt.subplots(figsize=(6, 5.6))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    ax.plot([0, 1], [0, 1], linestyle="--", linewidth=1, color="gray", zorder=1)
    for n, (_, r, s) in enumerate(points):
        colour = colours[n % len(colours)]
        if _finite(r["lo"]) and _finite(r["hi"]):
            ax.plot([r["lo"], r["hi"]], [s["value"]] * 2, color=colour, linewidth=1.2, alpha=0.8, zorder=3)
        if _finite(s["lo"]) and _finite(s["hi"]):
            ax.plot([r["value"]] * 2, [s["lo"], s["hi"]], color=colour, linewidth=1.2, alpha=0.8, zorder=3)
        ax.plot([r["value"]], [s["value"]], linestyle="none", marker="o", markersize=6, color=colour,
                markeredgecolor="white", markeredgewidth=0.6, zorder=4)
    ax.set_xlim(-0.04, 1.04)
    ax.set_ylim(-0.04, 1.04)
    which = "readable-damage frames" if q["rendered_frames_rule"].startswith("readable") else "scorer-acceptable frames"
    ax.set_xlabel(f"rendered {which}: share right (95% CI)", fontsize=9)
    ax.set_ylabel(f"real photos: share right (95% CI over {q['measured_items']} items)", fontsize=9)
    ax.grid(alpha=0.3)
    rho, r = q.get("spearman_rho"), q.get("pearson_r")
    stat = ""
    if _finite(rho):
        stat += f"\nSpearman rho {rho:.2f} (p {q['spearman_p']:.3f})"
    if _finite(r):
        stat += f", Pearson r {r:.2f} (p {q['pearson_p']:.3f})"
    ax.set_title(f"{q['question']}: {len(points)} models{stat}", fontsize=9)
    fig.tight_layout()
    to_px, px = ax.transData.transform, fig.dpi / 72.0
    hard = []
    for _, rr, s in points:
        cx, cy = to_px((rr["value"], s["value"]))
        rad = 3 * px + 1
        hard.append(Bbox([[cx - rad, cy - rad], [cx + rad, cy + rad]]))
    box = {"boxstyle": "round,pad=0.12", "fc": "white", "ec": "none", "alpha": 0.75}
    near = len(_around((0, 0))) // 4
    _place_labels(fig, ax, [(label, _around((rr["value"], s["value"])), {"fontsize": 8, "bbox": box, "zorder": 6},
                             near) for label, rr, s in points], hard, [])
    name = sim_to_real_file(q["question"])
    _save(fig, out / name)
    plt.close(fig)
    return name


def _difficulty_plot(plt, out: Path, rows: list[dict]) -> str:
    """difficulty.png: the pooled Spearman rho per score (rows, environment.score) and driver (columns), each cell
    with the models rising of the models with a rho; no measurement: gray, n/a."""
    import numpy as np

    from .difficulty import DRIVERS

    scores = sorted({(r["environment"], r["score"]) for r in rows})
    drivers = [d for d, _ in DRIVERS if any(r["driver"] == d for r in rows)]
    cell = {(r["environment"], r["score"], r["driver"]): r for r in rows}
    grid = np.full((len(scores), len(drivers)), np.nan)
    for i, (env, score) in enumerate(scores):
        for j, d in enumerate(drivers):
            r = cell.get((env, score, d))
            if r is not None and _finite(r["pooled_rho"]):
                grid[i, j] = r["pooled_rho"]
    fig, ax = plt.subplots(figsize=(2.6 + 1.15 * len(drivers), 1.4 + 0.34 * len(scores)))
    image = ax.imshow(np.ma.masked_invalid(grid), vmin=-1, vmax=1, cmap="coolwarm", aspect="auto")
    ax.set_facecolor("#d9d9d9")
    ax.set_xticks(range(len(drivers)), [d.replace("_", " ") for d in drivers], rotation=30, ha="right", fontsize=8)
    ax.set_yticks(range(len(scores)), [f"{e}: {s}" for e, s in scores], fontsize=8)
    for i, (env, score) in enumerate(scores):
        for j, d in enumerate(drivers):
            r = cell.get((env, score, d))
            text = "n/a" if r is None else (f"{r['pooled_rho']:+.2f}" if _finite(r["pooled_rho"]) else "–") + \
                f"\n{r['rising']}/{r['models']} up"
            ax.text(j, i, text, ha="center", va="center", fontsize=6.5,
                    color="dimgray" if r is None else "black")
    ax.set_xlabel("driver (from the set's metadata)", fontsize=9)
    ax.set_title("Spearman rho, driver against the mean score over models; models whose own rho is above 0",
                 fontsize=8)
    fig.colorbar(image, ax=ax, label="pooled Spearman rho")
    fig.tight_layout()
    _save(fig, out / "difficulty.png")
    plt.close(fig)
    return "difficulty.png"


def _cost_plots(plt, out: Path, labels: list[str], summaries: list[dict], ensembles, cost_figure: dict | None,
                written: list, notes: list) -> None:
    """A cost plot per metric with a priced run to show (appended to `written`; why not, to `notes`)."""
    for metric, name in COST_METRICS:
        runs = cost_plot_runs(labels, summaries, metric)
        points = runs["points"]
        if not points:
            notes.append(f"{metric}_vs_cost.png: no model run has both a cost (--prices) and a {name}")
            continue
        extra = None
        if cost_figure is not None:
            extra = {"frontier": cost_figure[metric]["frontier"],
                     "hollow": [tuple(p) for p in cost_figure[metric]["hollow_points"]],
                     "band": cost_figure["human_pass"], "rater": cost_figure[metric]["rater"]}
        written.append(_cost_plot(plt, out, metric, name, runs, ensemble_points(ensembles, metric)["points"],
                                  _currency(summaries), extra))


def _heatmap_grid(rows: list, answering: list):
    """Field x (mean over models, each answering run): the documentation scores, NaN where there is none."""
    import numpy as np

    grid = np.full((len(rows), len(answering) + 1), np.nan)  # column 0: the mean over models
    for i, (f, _, mean) in enumerate(rows):
        grid[i, 0] = mean if _finite(mean) else np.nan
        for j, (_, s) in enumerate(answering, 1):
            v = s["metrics"]["fields"].get(f, {}).get("value")
            if _finite(v):
                grid[i, j] = v
    return grid


def _fields_heatmap(plt, out: Path, rows: list, answering: list) -> str:
    """The per-field heat map, fields grouped by skill, runs by documentation score."""
    import numpy as np

    grid = _heatmap_grid(rows, answering)
    fig, ax = plt.subplots(figsize=(5.8 + 1.0 * len(answering), 1.6 + 0.35 * len(rows)))
    image = ax.imshow(np.ma.masked_invalid(grid), vmin=0, vmax=1, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(answering) + 1), ["mean over models", *[label for label, _ in answering]],
                  rotation=30, ha="right", fontsize=8)
    ax.set_yticks(range(len(rows)), [f"{group}: {f}" if group else f for f, group, _ in rows], fontsize=8)
    ax.set_xlabel("model runs, best documentation score first", fontsize=9)
    ax.set_ylabel("skill: field", fontsize=9)
    ax.axvline(0.5, color="white", linewidth=2)
    for i in range(1, len(rows)):  # a line between skill groups
        if rows[i][1] != rows[i - 1][1]:
            ax.axhline(i - 0.5, color="white", linewidth=2)
    ax.set_facecolor("#d9d9d9")  # a field a run has no score for: gray, marked n/a
    for i in range(len(rows)):
        for j in range(len(answering) + 1):
            if math.isfinite(grid[i, j]):
                ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=7,
                        color="white" if grid[i, j] < 0.5 else "black")
            else:
                ax.text(j, i, "n/a", ha="center", va="center", fontsize=7, color="dimgray")
    fig.colorbar(image, ax=ax, label="documentation score")
    fig.tight_layout()
    _save(fig, out / "fields_heatmap.png")
    plt.close(fig)
    return "fields_heatmap.png"


def write_plots(out: Path, labels: list[str], summaries: list[dict], ensembles=(), skills: dict | None = None,
                sim_to_real: dict | None = None, cost_figure: dict | None = None,
                difficulty: dict | None = None) -> dict:
    """`cost_figure` (cost_figure.py): the frontier, the unpriced runs, the human pass on the cost plots;
    `difficulty` (difficulty.py): the drivers' heat map."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return {"written": [], "skipped": "matplotlib is not installed (pip install 'realitybench[plots]')"}
    written, notes = [], []
    _cost_plots(plt, out, labels, summaries, ensembles, cost_figure, written, notes)
    rows, answering = _heatmap_order(labels, summaries, skills)
    if rows and answering:
        written.append(_fields_heatmap(plt, out, rows, answering))
    if difficulty and difficulty.get("rows"):
        written.append(_difficulty_plot(plt, out, difficulty["rows"]))
    for q in (sim_to_real or {}).get("questions", []):
        name = _sim_to_real_plot(plt, out, q)
        if name:
            written.append(name)
        else:
            notes.append(f"{sim_to_real_file(q['question'])}: no model has a value on both sides")
    return {"written": written, "skipped": "; ".join(notes) or None}


def _save(fig, path: Path) -> None:
    """A figure written whole through the file layer (rendered in memory, then created new and renamed over the
    old file): a link planted in the report folder is replaced, never written through."""
    import io

    from ..setio import atomic_write

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120)
    atomic_write(Path(path), buf.getvalue())
