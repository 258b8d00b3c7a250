"""What the cost figures (the paper's Figure 2, top) show besides the priced runs:

    frontier   the cost frontier: the priced model runs no other priced model run beats on both axes (costs
               no more and scores at least as much, one of them strictly); drawn as a step line through them
               and listed in report.md / report.json. Ensembles and baselines are not candidates (an ensemble
               is made of the runs; a baseline has no cost).
    hollow     model runs with a score but no price in the price file (the paper's self-served open models):
               hollow markers at the left edge of the plot, outside the cost axis, never at a guessed cost.
               Without any price file no run is priced and there is no plot (report.md says so).
    human      the cost of one human pass over the set's frames at HUMAN_SECONDS per frame and HUMAN_RATES
               per hour (the paper: 3-12 s per item at 10 USD/h, "a somewhat arbitrary lower bound", to
               35.91 USD/h, the U.S. Bureau of Labor Statistics figure: 11-165 USD for its 1,378 items),
               drawn as a shaded band on the cost axis when the prices are in USD; with --ratings, on the F1
               plot, the single non-author rater (the pooled non-author ratings, human_baseline.py) as a
               hollow diamond with its 95% interval, spanning the band; with --human-rate too, a filled
               diamond at the cost of a pass at the ratings' median seconds per frame and that rate.
"""
from __future__ import annotations

import math
from typing import Optional

from .plots import COST_METRICS, cost_plot_runs

HUMAN_SECONDS = (3.0, 12.0)  # per frame (the paper, Section 6.1)
HUMAN_RATES = (10.0, 35.91)  # USD per hour
HUMAN_CURRENCY = "USD"


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def frontier(points) -> list[str]:
    """Labels of the Pareto front of (label, cost, value, ...) points, cheapest first: a point is on it when no
    other point costs no more and scores at least as much, one of the two strictly."""
    pts = [(p[0], p[1], p[2]) for p in points if _finite(p[1]) and _finite(p[2])]
    on = [a for a in pts if not any(b[1] <= a[1] and b[2] >= a[2] and (b[1] < a[1] or b[2] > a[2]) for b in pts)]
    return [a[0] for a in sorted(on, key=lambda a: (a[1], -a[2], a[0]))]


def human_pass_range(frames: int, seconds=HUMAN_SECONDS, rates=HUMAN_RATES) -> dict:
    """The cost of one human pass over `frames` frames, cheapest (fastest, lowest rate) to dearest."""
    return {"frames": frames, "seconds_per_frame": list(seconds), "rates_per_hour": list(rates),
            "currency": HUMAN_CURRENCY, "lo": seconds[0] * frames / 3600 * rates[0],
            "hi": seconds[1] * frames / 3600 * rates[1]}


def unpriced(labels: list[str], summaries: list[dict], metric: str) -> list[tuple]:
    """(label, value, lo, hi) of model runs with a score but no price for their model in the price file."""
    out = []
    for label, s in zip(labels, summaries):
        c = s.get("cost")
        est = s["metrics"][metric]
        if s.get("kind") != "model" or c is None or c.get("price") is not None or not _finite(est.get("value")):
            continue
        out.append((label, est["value"], est.get("lo"), est.get("hi")))
    return out


def _rater(human: Optional[dict]) -> Optional[dict]:
    """The pooled non-author rater's F1 (value, lo, hi) and the cost at --human-rate, or None."""
    if not human or not human["pool"].get("ratings"):
        return None
    f1 = human["pool"]["f1"]
    if not _finite(f1.get("value")):
        return None
    h = human["human_pass"]
    return {"value": f1["value"], "lo": f1.get("lo"), "hi": f1.get("hi"), "raters": human["pool"]["raters"],
            "cost_at_rate": h.get("cost") if _finite(h.get("cost")) else None, "rate_per_hour": h["rate_per_hour"],
            "median_seconds": h["median_seconds"]}


def cost_figure(labels: list[str], summaries: list[dict], frames: int, human: Optional[dict] = None,
                currency: Optional[str] = None) -> dict:
    """Per cost metric: the frontier, the hollow (unpriced) runs, and the human pass (band and rater point)."""
    band = human_pass_range(frames)
    band_note = None
    if currency is not None and currency != HUMAN_CURRENCY:
        band, band_note = None, f"the prices are in {currency}, the human pass in {HUMAN_CURRENCY}: no band drawn"
    rater = _rater(human)
    out = {"human_pass": band, "human_pass_note": band_note}
    for metric, _ in COST_METRICS:
        runs = cost_plot_runs(labels, summaries, metric)
        hollow = unpriced(labels, summaries, metric)
        out[metric] = {"frontier": frontier(runs["points"]),
                       "hollow": [u[0] for u in hollow],
                       "hollow_points": [list(u) for u in hollow],  # what plots.py draws (it imports nothing here)
                       "rater": rater if metric == "f1" and band is not None else None}
    return out


def note(figure: dict) -> str:
    """report.md lines under the cost table."""
    from .tables import money

    lines = []
    for metric, _ in COST_METRICS:
        f = figure[metric]
        if f["frontier"]:
            lines.append(f"On the cost frontier of {metric}_vs_cost (no other priced run costs no more and scores "
                         f"at least as much): " + ", ".join(f"`{x}`" for x in f["frontier"]) + ".")
        if f["hollow"]:
            lines.append(f"Drawn hollow at the left edge of {metric}_vs_cost (a score, no price): "
                         + ", ".join(f"`{x}`" for x in f["hollow"]) + ".")
    band = figure["human_pass"]
    if band is not None:
        lines.append(f"One human pass over the {band['frames']} frames costs {money(band['lo'], 'USD')} to "
                     f"{money(band['hi'], 'USD')} ({band['seconds_per_frame'][0]:g}-{band['seconds_per_frame'][1]:g} "
                     f"s per frame at {band['rates_per_hour'][0]:g}-{band['rates_per_hour'][1]:g} USD/h, the paper's "
                     f"range): the shaded band of the cost plots.")
        r = figure["f1"]["rater"]
        if r is not None:
            lines.append(f"The single non-author rater (the pooled ratings of {', '.join(r['raters'])}): F1 "
                         f"{r['value']:.3f}" + (f" [{r['lo']:.3f}, {r['hi']:.3f}]" if _finite(r["lo"]) else "")
                         + ", a hollow diamond across the band" + (
                             f", filled at {money(r['cost_at_rate'], 'USD')} (--human-rate "
                             f"{r['rate_per_hour']:g} USD/h, {r['median_seconds']:.1f} s per frame)"
                             if r["cost_at_rate"] is not None else "") + ".")
    elif figure["human_pass_note"]:
        lines.append(f"Human pass: {figure['human_pass_note']}.")
    return ("\n" + "\n\n".join(lines) + "\n") if lines else ""
