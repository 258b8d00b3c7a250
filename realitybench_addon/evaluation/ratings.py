"""Human ratings as a baseline in the evaluation report: agreement, and each rater as a "model".

Ratings arrive loaded, as (frame id, rater, 'accept' | 'reject') triples: `rating.store.load_ratings`
reads them from a ratings file (CSV or JSONL; rating/files.py describes it) or straight from a set's
ratings database (`eval report --ratings SET_DIR`, what `rate` writes); "can't tell" is a skipped frame.

Reported:
  - Krippendorff's alpha (nominal) over all raters and frames;
  - raw agreement: the share of agreeing rater pairs over all pairs of ratings of one frame;
  - the scorer's agreement with the raters' majority (frames with a strict majority that the
    scorer accepts or rejects; ties and gray/unscored frames left out);
  - the paper's Table 13 "Scorer (held-out)": with the stored 60/40 split of a rated set folder, the
    scorer against the raters' strict majority on the held-out frames with at least three ratings,
    ties excluded, per environment and over all, by answers/majority.py, the same function
    `python -m realitybench_addon ratings DIR --held-out` uses (a ratings file has no split: n/a);
  - each rater as a "model": the acceptability metrics against the scorer on the frames they rated
    (the spec's single-human-rater baseline).
"""
from __future__ import annotations

from collections import Counter, defaultdict

from types import SimpleNamespace
from typing import Optional

from . import metrics as M
from ..answers import stats
from ..answers.items import Item
from ..answers.majority import MIN_MAJORITY_RATINGS, scorer_vs_majority, votes_by_frame

RATINGS = ("accept", "reject")


def rows_for(items_by_id: dict, decisions: dict) -> list[dict]:
    rows = []
    for frame_id, accepts in decisions.items():
        item = items_by_id[frame_id]
        rows.append({"frame_id": frame_id, "environment": item.environment, "stratum": item.stratum,
                     "verdict": item.verdict, "acceptability_scored": item.acceptability_scored,
                     "documentation_scored": item.documentation_scored, "status": "ok", "in_grammar": None,
                     "problems": [], "model_accepts": accepts, "fields": None, "documentation": None,
                     "lenient_accepts": accepts, "lenient_fields": None, "lenient_documentation": None})
    return rows


def held_out_scorer(ratings: list[tuple[str, str, str]], items: list[Item], split: dict) -> dict:
    """The scorer (each item's exported verdict) against the raters' strict majority on the held-out frames."""
    votes = votes_by_frame(SimpleNamespace(frame_id=f, rater=r, answer=v) for f, r, v in ratings)
    verdicts = {i.frame_id: i.verdict for i in items}
    environments = {i.frame_id: i.environment for i in items}
    held = [f for f in verdicts if split.get(f) == "held_out"]
    return {"min_ratings": MIN_MAJORITY_RATINGS, "all": scorer_vs_majority(votes, verdicts, environments, held),
            "environments": {e: scorer_vs_majority(votes, verdicts, environments,
                                                   [f for f in held if environments[f] == e])
                             for e in sorted({environments[f] for f in held})}}


def agreement(ratings: list[tuple[str, str, str]], items: list[Item], split: Optional[dict] = None) -> dict:
    by_id = {i.frame_id: i for i in items}
    frames = sorted({f for f, _, _ in ratings})
    raters = sorted({r for _, r, _ in ratings})
    table = {(f, r): v for f, r, v in ratings}
    matrix = [[table.get((f, r)) for f in frames] for r in raters]
    raw, pairs = stats.pairwise_agreement(matrix)
    by_frame = defaultdict(list)
    for f, _, v in ratings:
        by_frame[f].append(v)
    agree = n_majority = 0
    for f, values in by_frame.items():
        top, count = Counter(values).most_common(1)[0]
        if count * 2 <= len(values) or not by_id[f].acceptability_scored:  # no strict majority, or not scored
            continue
        n_majority += 1
        agree += (top == "accept") == (by_id[f].verdict == "accept")
    per_rater = {}
    for r in raters:
        decisions = {f: table[(f, r)] == "accept" for f in frames if (f, r) in table}
        t = M.ScoreTable(rows_for(by_id, decisions))
        values = M.acceptability(t)
        scored = [f for f in decisions if by_id[f].acceptability_scored]
        per_rater[r] = {"frames": len(decisions), "scored_frames": len(scored),
                        "agreement_with_scorer": (sum(decisions[f] == (by_id[f].verdict == "accept") for f in scored)
                                                  / len(scored)) if scored else None,
                        **{k: M.estimate(v, None)["value"] for k, v in values.items()}}
    return {"raters": len(raters), "frames": len(frames), "ratings": len(ratings),
            "krippendorff_alpha_nominal": stats.krippendorff_alpha_nominal(matrix) if len(raters) > 1 else None,
            "raw_agreement": raw if pairs else None, "rating_pairs": pairs,
            "scorer_vs_majority": {"agreement": agree / n_majority if n_majority else None, "frames": n_majority},
            "scorer_vs_majority_held_out": None if split is None else held_out_scorer(ratings, items, split),
            "per_rater": per_rater}
