"""Acceptability and documentation metrics over items, optionally reweighted by bootstrap multiplicities.

Definitions (spec, "Benchmark set and metrics"); the model "accepts" only with an in-grammar reply
whose `adequate` is true. Acceptability uses the frames the scorer accepts or rejects; gray and
unscored frames are left out:
  precision     over random-stratum frames: scorer accepts among those the model accepts
  recall        over random + positive strata: model accepts among those the scorer accepts
  F1            2 P R / (P + R); 0 when recall is 0 (whatever the precision); undefined (NaN)
                when recall > 0 and precision is undefined
  false accept  random frames the scorer rejects that the model accepts, over random frames the
                scorer rejects
  miss          scorer-accepted frames the model rejects, over scorer-accepted frames (1 - recall)
  documentation mean over documentation-scored frames of each frame's mean field score
  per field     mean field score over the frames the field is scored on
  grammar       share of items whose reply is in grammar (failed requests count as out of grammar)
Pooled over environments ("micro"): every scored frame of the set counts once.

Every metric is a ratio of weighted sums, so a (resamples x items) multiplicity matrix gives all
bootstrap resamples in a few matrix products.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from ..answers import stats

ACCEPTABILITY = ("false_accept", "miss", "precision", "recall", "f1")


class ScoreTable:
    """Per-item score rows (scoring.score_item) as arrays."""

    def __init__(self, rows: list[dict]):
        self.rows = rows
        self.n = len(rows)
        self.frame_ids = [r["frame_id"] for r in rows]
        self.environments = np.array([r["environment"] for r in rows], dtype=object)
        self.strata = [f"{r['environment']}/{r['stratum']}" for r in rows]
        self.acc = np.array([r["acceptability_scored"] for r in rows], dtype=bool)
        self.scorer_accepts = np.array([r["verdict"] == "accept" for r in rows], dtype=bool)
        self.random = np.array([r["stratum"] == "random" for r in rows], dtype=bool)
        self.answers_documentation = any(r["fields"] is not None for r in rows)
        self.answers_acceptability = not rows or any(r["model_accepts"] is not None for r in rows)
        self.answers_grammar = any(r["in_grammar"] is not None for r in rows)
        self.doc_eligible = np.array([r["documentation_scored"] and r["documentation"] is not None for r in rows],
                                     dtype=bool)
        self.in_grammar = np.array([bool(r["in_grammar"]) for r in rows], dtype=float)
        self.set_views(lenient=False)

    def set_views(self, lenient: bool) -> "ScoreTable":
        """Point the decision and field arrays at the strict scores (default) or the lenient diagnostics."""
        prefix = "lenient_" if lenient else ""
        rows = self.rows
        self.model_accepts = np.array([bool(r[f"{prefix}accepts" if lenient else "model_accepts"]) for r in rows],
                                      dtype=bool)
        self.documentation = np.array([r[f"{prefix}documentation"] or 0.0 for r in rows], dtype=float)
        self.fields: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = {}
        for i, r in enumerate(rows):
            for key, score in (r[f"{prefix}fields"] or {}).items():
                col = (r["environment"], key)
                if col not in self.fields:
                    self.fields[col] = (np.zeros(self.n, dtype=bool), np.zeros(self.n))
                if score is not None:
                    self.fields[col][0][i] = True
                    self.fields[col][1][i] = score
        return self

    def lenient(self) -> "ScoreTable":
        return ScoreTable(self.rows).set_views(lenient=True)

    def subset(self, mask: np.ndarray) -> "ScoreTable":
        return ScoreTable([r for r, keep in zip(self.rows, mask) if keep])


def _sums(weights: Optional[np.ndarray], n: int):
    w = np.ones((1, n)) if weights is None else np.atleast_2d(np.asarray(weights, dtype=float))

    def s(mask) -> np.ndarray:
        return w @ np.asarray(mask, dtype=float)
    return s


def _ratio(num, den):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def acceptability(t: ScoreTable, weights: Optional[np.ndarray] = None) -> dict[str, np.ndarray]:
    if not t.answers_acceptability:  # a run asked for no verdict (prompt variant no-verdict): all n/a
        nan = np.full(1 if weights is None else np.atleast_2d(weights).shape[0], np.nan)
        return {name: nan for name in ACCEPTABILITY}
    s = _sums(weights, t.n)
    scored_random = t.acc & t.random
    tp_random = s(scored_random & t.scorer_accepts & t.model_accepts)
    fp_random = s(scored_random & ~t.scorer_accepts & t.model_accepts)
    negatives_random = s(scored_random & ~t.scorer_accepts)
    positives = s(t.acc & t.scorer_accepts)
    hits = s(t.acc & t.scorer_accepts & t.model_accepts)
    precision = _ratio(tp_random, tp_random + fp_random)
    recall = _ratio(hits, positives)
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(recall == 0, 0.0, 2 * precision * recall / (precision + recall))
    return {"false_accept": _ratio(fp_random, negatives_random), "miss": _ratio(positives - hits, positives),
            "precision": precision, "recall": recall, "f1": f1}


def documentation(t: ScoreTable, weights: Optional[np.ndarray] = None) -> np.ndarray:
    if not t.answers_documentation:
        return np.full(1 if weights is None else np.atleast_2d(weights).shape[0], np.nan)
    s = _sums(weights, t.n)
    return _ratio(s(t.documentation * t.doc_eligible), s(t.doc_eligible))


def field_scores(t: ScoreTable, weights: Optional[np.ndarray] = None) -> dict[tuple[str, str], np.ndarray]:
    s = _sums(weights, t.n)
    return {col: _ratio(s(score * eligible), s(eligible)) for col, (eligible, score) in t.fields.items()}


def grammar_share(t: ScoreTable, weights: Optional[np.ndarray] = None) -> np.ndarray:
    if not t.answers_grammar:
        return np.full(1 if weights is None else np.atleast_2d(weights).shape[0], np.nan)
    s = _sums(weights, t.n)
    return _ratio(s(t.in_grammar), s(np.ones(t.n)))


def all_metrics(t: ScoreTable, weights: Optional[np.ndarray] = None) -> dict[str, np.ndarray]:
    out = acceptability(t, weights)
    out["documentation"] = documentation(t, weights)
    out["grammar"] = grammar_share(t, weights)
    return out


def _number(x) -> Optional[float]:
    x = float(x)
    return x if math.isfinite(x) else None


def estimate(point: np.ndarray, resampled: Optional[np.ndarray]) -> dict:
    out = {"value": _number(np.ravel(point)[0])}
    if resampled is not None:
        lo, hi, undefined = stats.percentile_interval(resampled)
        out.update(lo=_number(lo), hi=_number(hi), undefined_resamples=undefined)
    return out


def counts(t: ScoreTable) -> dict:
    return {"items": t.n, "acceptability_scored": int(t.acc.sum()),
            "random_scored": int((t.acc & t.random).sum()),
            "scorer_accepts": int((t.acc & t.scorer_accepts).sum()),
            "random_scorer_rejects": int((t.acc & t.random & ~t.scorer_accepts).sum()),
            "model_accepts": int((t.acc & t.model_accepts).sum()),
            "documentation_scored": int(t.doc_eligible.sum()) if t.answers_documentation else 0}


def summarize(t: ScoreTable, resamples: Optional[np.ndarray]) -> dict:
    """Every metric with its percentile interval from `resamples` (a multiplicity matrix over t's items)."""
    point = all_metrics(t)
    boot = all_metrics(t, resamples) if resamples is not None else {}
    out = {name: estimate(point[name], boot.get(name)) for name in point}
    fpoint = field_scores(t)
    fboot = field_scores(t, resamples) if resamples is not None else {}
    out["fields"] = {f"{env}.{key}": {**estimate(fpoint[(env, key)], fboot.get((env, key))),
                                      "frames": int(t.fields[(env, key)][0].sum())}
                     for env, key in sorted(fpoint)}
    out["counts"] = counts(t)
    return out


def by_environment(t: ScoreTable, resamples: Optional[np.ndarray]) -> dict[str, dict]:
    """The same metrics per environment (the stratified resample restricted to the environment's items is
    itself a stratified resample of that environment)."""
    out = {}
    for env in sorted(set(t.environments.tolist())):
        mask = t.environments == env
        sub = t.subset(mask)
        out[env] = summarize(sub, None if resamples is None else resamples[:, mask])
    return out
