"""How far raters agree with each other, and the scorer with their majority (the paper's Table 13).

Only accept / reject answers count; "can't tell" is a skipped frame (counted, never a category).

    frames              frames with >= 2 ratings (the frames agreement is measured on)
    ratings_per_frame   mean number of ratings on those frames
    raw_agreement       agreeing rater pairs over all rater pairs within a frame
    alpha               Krippendorff's alpha, nominal (raters may skip frames)
    rater_vs_others     each rater against the strict majority of the other raters, on frames where
                        the others gave >= 2 ratings and do not tie
    scorer_vs_majority  on frames of one split part with >= MIN_MAJORITY_RATINGS ratings: the share
                        where the scorer's accept/reject equals the raters' strict majority; ties and
                        frames the scorer leaves gray or unscored are left out (and counted); a 95%
                        percentile interval from a bootstrap over frames (stratified by environment)
"""
from __future__ import annotations

import math
from collections import Counter, defaultdict
from typing import Optional

import numpy as np

from ..evaluation import stats

MIN_MAJORITY_RATINGS = 3
BOOTSTRAP_SEED = stats.DEFAULT_SEED


def votes_by_frame(ratings) -> dict[str, dict[str, str]]:
    """frame_id -> {rater: 'accept' | 'reject'}; can't-tell answers are left out."""
    votes: dict[str, dict[str, str]] = defaultdict(dict)
    for r in ratings:
        if r.answer in ("accept", "reject"):
            votes[r.frame_id][r.rater] = r.answer
    return dict(votes)


def strict_majority(answers) -> Optional[str]:
    """The answer more than half of `answers` give; None for a tie or no answers."""
    counts = Counter(answers)
    if not counts:
        return None
    top, n = counts.most_common(1)[0]
    return top if 2 * n > len(answers) else None


def _none_if_nan(x: float) -> Optional[float]:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def _share(hits: int, n: int) -> Optional[float]:
    return hits / n if n else None


def rater_agreement(votes: dict[str, dict[str, str]]) -> dict:
    """Agreement among raters over the frames with >= 2 ratings in `votes`."""
    frames = sorted(f for f, v in votes.items() if len(v) >= 2)
    raters = sorted({r for f in frames for r in votes[f]})
    matrix = [[votes[f].get(r) for f in frames] for r in raters]
    raw, pairs = stats.pairwise_agreement(matrix) if frames else (math.nan, 0)
    per_rater = {}
    for rater in sorted({r for v in votes.values() for r in v}):
        hits = n = 0
        for f, v in votes.items():
            others = [a for r, a in v.items() if r != rater]
            if rater not in v or len(others) < 2:
                continue
            reference = strict_majority(others)
            if reference is not None:
                n += 1
                hits += v[rater] == reference
        per_rater[rater] = {"agreement": _share(hits, n), "frames": n}
    return {"frames": len(frames), "raters": len(raters), "ratings": sum(len(votes[f]) for f in frames),
            "ratings_per_frame": (sum(len(votes[f]) for f in frames) / len(frames)) if frames else None,
            "raw_agreement": _none_if_nan(raw), "rating_pairs": pairs,
            "alpha": _none_if_nan(stats.krippendorff_alpha_nominal(matrix)) if len(raters) > 1 else None,
            "rater_vs_others": per_rater}


def scorer_vs_majority(votes: dict[str, dict[str, str]], verdicts: dict[str, str], environments: dict[str, str],
                       frames, *, min_ratings: int = MIN_MAJORITY_RATINGS, resamples: int = stats.RESAMPLES,
                       seed: int = BOOTSTRAP_SEED) -> dict:
    """The scorer's verdict against the raters' strict majority on `frames` (one split part)."""
    compared, agree, strata = [], [], []
    ties = unscored = 0
    confusion = Counter()
    for f in sorted(frames):
        answers = list(votes.get(f, {}).values())
        if len(answers) < min_ratings:
            continue
        majority = strict_majority(answers)
        if majority is None:
            ties += 1
            continue
        verdict = verdicts[f]
        if verdict not in ("accept", "reject"):
            unscored += 1
            continue
        compared.append(f)
        agree.append(verdict == majority)
        strata.append(environments[f])
        confusion[(majority, verdict)] += 1
    out = {"frames": len(compared), "agreement": _share(sum(agree), len(compared)), "interval": None,
           "ties_excluded": ties, "scorer_unscored_excluded": unscored,
           "scorer_accepts_of_majority_rejects": [confusion[("reject", "accept")],
                                                  confusion[("reject", "accept")] + confusion[("reject", "reject")]],
           "scorer_rejects_of_majority_accepts": [confusion[("accept", "reject")],
                                                  confusion[("accept", "reject")] + confusion[("accept", "accept")]]}
    if compared:
        counts = stats.stratified_counts(strata, resamples, np.random.default_rng([seed, 3]))
        values = counts @ np.asarray(agree, dtype=float) / counts.sum(axis=1)
        lo, hi, _ = stats.percentile_interval(values)
        out["interval"] = [lo, hi]
    return out
