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
                        percentile interval from a bootstrap over frames (stratified by environment);
                        it lives in answers/majority.py, shared with `eval report --ratings`
"""
from __future__ import annotations

from collections import Counter, defaultdict
from typing import Optional

import numpy as np

from ..answers import stats
from ..answers.majority import (BOOTSTRAP_SEED, MIN_MAJORITY_RATINGS, scorer_vs_majority, strict_majority,
                                votes_by_frame)

__all__ = ["BOOTSTRAP_SEED", "MIN_MAJORITY_RATINGS", "rater_agreement", "scorer_vs_majority", "strict_majority",
           "votes_by_frame"]

def _share(hits: int, n: int) -> Optional[float]:
    return hits / n if n else None


def rater_agreement(votes: dict[str, dict[str, str]]) -> dict:
    """Agreement among raters over the frames with >= 2 ratings in `votes`.

    Everything is counted frame by frame from each frame's answer counts, in time linear in the
    ratings: neither rater pairs nor a raters x frames table are ever built (a million ratings from
    hundreds of raters on each frame would make either take hours). The formulas are those of
    answers/stats.py's pairwise_agreement and krippendorff_alpha_nominal."""
    frames = sorted(f for f, v in votes.items() if len(v) >= 2)
    categories = sorted({a for f in frames for a in votes[f].values()}, key=repr)
    index = {c: i for i, c in enumerate(categories)}
    counts_by_frame = np.zeros((len(frames), len(categories)))
    raters, pairs, agreeing = set(), 0, 0
    hits, compared = Counter(), Counter()
    for row, f in enumerate(frames):
        v = votes[f]
        counts = Counter(v.values())
        m = len(v)
        raters.update(v)
        pairs += m * (m - 1) // 2
        agreeing += sum(n * (n - 1) // 2 for n in counts.values())
        for answer, n in counts.items():
            counts_by_frame[row, index[answer]] = n
        if m < 3:
            continue  # each rater's others gave fewer than two ratings
        # each rater against the strict majority of the others: it depends only on the rater's own answer
        others_majority = {}
        for mine in counts:
            counts[mine] -= 1
            top, n = max(counts.items(), key=lambda kv: kv[1])
            others_majority[mine] = top if 2 * n > m - 1 else None
            counts[mine] += 1
        for rater, mine in v.items():
            top = others_majority[mine]
            if top is not None:
                compared[rater] += 1
                hits[rater] += mine == top
    # Krippendorff's coincidences: o_ck = sum over frames of (n_c n_k - [c = k] n_c) / (m - 1)
    weighted = counts_by_frame / np.maximum(counts_by_frame.sum(axis=1, keepdims=True) - 1, 1)
    coincidences = counts_by_frame.T @ weighted - np.diag(weighted.sum(axis=0))
    per_rater = {r: {"agreement": _share(hits[r], compared[r]), "frames": compared[r]}
                 for r in sorted({r for v in votes.values() for r in v})}
    n_ratings = sum(len(votes[f]) for f in frames)
    return {"frames": len(frames), "raters": len(raters), "ratings": n_ratings,
            "ratings_per_frame": n_ratings / len(frames) if frames else None,
            "raw_agreement": _share(agreeing, pairs), "rating_pairs": pairs,
            "alpha": _alpha_from_coincidences(coincidences) if len(raters) > 1 else None,
            "rater_vs_others": per_rater}


def _alpha_from_coincidences(o: np.ndarray) -> Optional[float]:
    """Krippendorff's alpha (nominal) from the coincidence matrix; None when every pairable value
    is the same category (stats.krippendorff_alpha_nominal's NaN)."""
    n_c = o.sum(axis=1)
    n = n_c.sum()
    disagree_observed = o.sum() - np.trace(o)
    disagree_expected = n_c.sum() ** 2 - (n_c ** 2).sum()
    if n <= 1 or disagree_expected == 0:
        return None
    return float(1.0 - (n - 1) * disagree_observed / disagree_expected)
