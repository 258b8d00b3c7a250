"""A single human rater as a baseline, scored like a model on the frames they rated (the paper's Figure 2
and its "single non-author rater"), and what one human pass over the set costs.

Ratings arrive loaded (the CLI joins rating/ and the runs: cli/evaluate.py), as HumanRating records.
A can't-tell answer is no decision: it is left out of F1 (and still counts its seconds).

  per rater      the rater's acceptability F1 against the scorer on the frames they rated, with a 95%
                 interval (the stratified bootstrap over those frames), and each run's F1 on the very
                 same frames, on the same resamples, with the paired difference rater - run
  non-author pool  every rating by a rater not named an author (`--authors`: raters who helped design
                 the scorer agree with it by construction), pooled as one "single rater": each rating
                 is an item; the bootstrap resamples frames (stratified), each bringing all its pooled
                 ratings. Each run is scored on the same items: its decision on a frame counts once per
                 pooled rating of that frame
  human pass     median seconds per rated frame (every rating that records its seconds, can't-tells
                 included: they took time too) x the frames of the set / 3600 x the hourly rate
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Optional

import numpy as np

from . import metrics as M
from ..answers import stats
from .errors import EvalError
from .ratings import rows_for

DECISIONS = ("accept", "reject")
POOL = "non-author pool"


@dataclass(frozen=True)
class HumanRating:
    frame_id: str
    rater: str
    answer: str  # accept | reject | cant_tell
    seconds: Optional[float] = None


def as_human_ratings(loaded) -> list[HumanRating]:
    """HumanRating records from what a ratings loader gave: records, or (frame, rater, answer) triples."""
    return [r if isinstance(r, HumanRating) else HumanRating(*r) for r in loaded]


def _estimate(point: np.ndarray, boot: np.ndarray) -> dict:
    return M.estimate(point, boot)


def _finite(x: float) -> Optional[float]:
    return float(x) if math.isfinite(x) else None


def _f1(table: M.ScoreTable, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return M.acceptability(table)["f1"], M.acceptability(table, counts)["f1"]


def _versus(rater_rows: list[dict], frame_index: list[int], frame_counts: np.ndarray, labels, runs, summaries,
            frames: list[str]) -> list[dict]:
    """Each run's F1 on the rater's items (frame_index: the frame of each item), on the same resamples."""
    table = M.ScoreTable(rater_rows)
    counts = frame_counts[:, frame_index]
    rater_point, rater_boot = _f1(table, counts)
    out = [{"run": None, **_estimate(rater_point, rater_boot)}]
    for label, run, s in zip(labels, runs, summaries):
        by_id = {r["frame_id"]: r for r in run.rows}
        if not run.table.answers_acceptability:
            continue  # asked for no verdict
        if any(f not in by_id for f in frames):
            out.append({"run": label, "value": None, "why": "the run lacks some of these frames"})
            continue
        model = M.ScoreTable([by_id[frames[i]] for i in frame_index])
        point, boot = _f1(model, counts)
        lo, hi, undefined = stats.percentile_interval(rater_boot - boot)
        out.append({"run": label, **_estimate(point, boot),
                    "difference": _finite(float(rater_point[0] - point[0])),
                    "difference_lo": _finite(lo), "difference_hi": _finite(hi),
                    "difference_undefined_resamples": undefined})
    return out


def _group(items_by_id: dict, ratings: list[HumanRating], labels, runs, summaries, seed: int) -> dict:
    """A rater (or the pool): their items, F1 with interval, and every run on the same items."""
    frames = sorted({r.frame_id for r in ratings})
    index = {f: n for n, f in enumerate(frames)}
    rows, frame_index = [], []
    for r in sorted(ratings, key=lambda r: (r.frame_id, r.rater)):
        rows += rows_for(items_by_id, {r.frame_id: r.answer == "accept"})
        frame_index.append(index[r.frame_id])
    strata = [items_by_id[f].stratum_key for f in frames]
    frame_counts = stats.stratified_counts(strata, stats.RESAMPLES, stats.model_rng(seed))
    versus = _versus(rows, frame_index, frame_counts, labels, runs, summaries, frames)
    scored = sum(items_by_id[f].acceptability_scored for f in frames)
    return {"ratings": len(ratings), "frames": len(frames), "acceptability_scored_frames": scored,
            "f1": {k: v for k, v in versus[0].items() if k != "run"}, "runs": versus[1:]}


def human_pass_cost(ratings: list[HumanRating], frames: int, rate: Optional[float]) -> dict:
    seconds = [r.seconds for r in ratings if r.seconds is not None]
    median = statistics.median(seconds) if seconds else None
    cost = None if rate is None or median is None else median * frames / 3600 * rate
    return {"median_seconds": median, "ratings_with_seconds": len(seconds), "frames": frames,
            "rate_per_hour": rate, "currency": "USD", "cost": cost,
            "why": None if cost is not None or rate is None else "the ratings record no seconds"}


def human_baseline(ratings: list[HumanRating], items: list, labels: list[str], runs: list, summaries: list[dict], *,
                   authors=(), rate: Optional[float] = None, seed: int = stats.DEFAULT_SEED) -> dict:
    """Per rater, the non-author pool, and the cost of one human pass (see the module docstring)."""
    items_by_id = {i.frame_id: i for i in items}
    raters = sorted({r.rater for r in ratings})
    unknown = [a for a in authors if a not in raters]
    if unknown:
        raise EvalError(f"--authors names {', '.join(repr(a) for a in unknown)}, who rated none of these frames "
                        f"(raters: {', '.join(raters) or 'none'})")
    if rate is not None and not (math.isfinite(rate) and rate >= 0):
        raise EvalError(f"--human-rate must be a non-negative number of USD per hour, got {rate}")
    decided = [r for r in ratings if r.answer in DECISIONS and r.frame_id in items_by_id]
    per_rater = {}
    for rater in raters:
        mine = [r for r in decided if r.rater == rater]
        per_rater[rater] = {"author": rater in authors, **(_group(items_by_id, mine, labels, runs, summaries, seed)
                                                           if mine else {"ratings": 0, "frames": 0})}
    pooled = [r for r in decided if r.rater not in authors]
    pool = {"raters": sorted({r.rater for r in pooled}), "authors_left_out": sorted(authors),
            **(_group(items_by_id, pooled, labels, runs, summaries, seed) if pooled else {"ratings": 0, "frames": 0})}
    costs = [{"label": label, "cost": (s.get("cost") or {}).get("total"), "currency": (s.get("cost") or {}).get(
        "currency")} for label, s in zip(labels, summaries) if s.get("kind") == "model"]
    return {"per_rater": per_rater, "pool": pool, "human_pass": human_pass_cost(ratings, len(items), rate),
            "run_costs": costs}


def write_section(out, result: dict) -> tuple[str, list[str]]:
    """(report.md text, files written): human_baseline.csv and its tables."""
    from .tables import ci, fmt, md_table, money, write_csv

    head = ["rater", "author", "run", "ratings", "frames", "f1", "lo", "hi", "difference_rater_minus_run",
            "difference_lo", "difference_hi"]
    rows = []
    groups = [*((name, g) for name, g in result["per_rater"].items()), (POOL, result["pool"])]
    for name, g in groups:
        if not g.get("ratings"):
            continue
        author = g.get("author") if name != POOL else None
        rows.append([name, author, None, g["ratings"], g["frames"], g["f1"]["value"], g["f1"].get("lo"),
                     g["f1"].get("hi"), None, None, None])
        for v in g["runs"]:
            rows.append([name, author, v["run"], g["ratings"], g["frames"], v.get("value"), v.get("lo"), v.get("hi"),
                         v.get("difference"), v.get("difference_lo"), v.get("difference_hi")])
    write_csv(out / "human_baseline.csv", head, rows)
    md = ["\n## Human baseline: a single rater scored like a model\n"]
    md.append(md_table(["rater", "author", "ratings (frames)", "F1 vs scorer [95% CI]"],
                       [[name, "n/a" if name == POOL else ("yes" if g.get("author") else "no"),
                         f"{g['ratings']} ({g['frames']})", ci(g["f1"]) if g.get("ratings") else "n/a"]
                        for name, g in groups]))
    pool = result["pool"]
    if pool.get("ratings"):
        md.append(f"\nThe non-author pool ({', '.join(pool['raters'])}; authors left out: "
                  f"{', '.join(pool['authors_left_out']) or 'none'}) against each run on the same items:\n\n")
        md.append(md_table(["run", "F1 on the pool's items [95% CI]", "pool - run [95% CI]"],
                           [[v["run"], ci(v) if v.get("value") is not None else f"n/a ({v.get('why', 'undefined')})",
                             "n/a" if v.get("difference") is None else
                             f"{fmt(v['difference'])} [{fmt(v['difference_lo'])}, {fmt(v['difference_hi'])}]"]
                            for v in pool["runs"]]))
    h = result["human_pass"]
    if h["rate_per_hour"] is not None:
        md.append(f"\nOne human pass over the set's {h['frames']} frames: {fmt(h['median_seconds'], 1)} s per frame "
                  f"(the median of {h['ratings_with_seconds']} timed ratings) at {h['rate_per_hour']:g} USD/h = "
                  f"{money(h['cost'], 'USD')}" + (f" ({h['why']})" if h["why"] else "") + ". Runs: " +
                  (", ".join(f"`{c['label']}` {money(c['cost'], c['currency'])}" for c in result["run_costs"])
                   or "none") + ".\n")
    md.append("\nEach rater's F1 is over the frames they rated (can't tell left out), with the runs scored on the same "
              "frames and the same bootstrap resamples (per rater: human_baseline.csv). The pool counts every "
              "non-author rating as one item; its bootstrap resamples frames, each with all its ratings.\n")
    return "\n".join(md), ["human_baseline.csv"]
