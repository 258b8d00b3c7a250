"""The scorer against the raters' strict majority (the paper's Table 13, "Scorer (held-out)"), shared by
`ratings DIR --held-out` (rating/summary.py) and `eval report --ratings` (evaluation/ratings.py): one
definition, so the two print the same figure for the same ratings, verdicts and frames.

    votes_by_frame      frame_id -> {rater: accept | reject}; can't-tell answers left out
    strict_majority     the answer more than half give; None for a tie
    scorer_vs_majority  on the frames of one split part with >= MIN_MAJORITY_RATINGS ratings: the share
                        where the scorer's accept/reject equals the raters' strict majority; ties and
                        frames the scorer leaves gray or unscored are left out (and counted); a 95%
                        percentile interval from a bootstrap over frames (stratified by environment)
"""
from __future__ import annotations

from collections import Counter, defaultdict
from typing import Optional

import numpy as np

from . import stats

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


def _share(hits: int, n: int) -> Optional[float]:
    return hits / n if n else None


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
