"""Statistics, in numpy and the standard library (tests check them against scipy, statsmodels and
the `krippendorff` package).

  stratified_counts      a stratified bootstrap as a (resamples x items) matrix of multiplicities:
                         each stratum's items are drawn with replacement, as many as it holds
  percentile_interval    the 95% percentile interval of bootstrap values (undefined resamples dropped
                         and counted)
  spearman, spearman_p   Spearman's rho (average ranks for ties) and its two-sided permutation p
                         (exact for n <= 8, else 20,000 seeded permutations)
  pearson, pearson_p     Pearson's r and its two-sided permutation p, by the same rule
  mcnemar_exact          the exact (binomial) McNemar test on the discordant counts
  krippendorff_alpha_nominal, pairwise_agreement   agreement between raters

Determinism: every random draw comes from an explicit np.random.Generator; DEFAULT_SEED is the
paper's arXiv number (2610.14397). Per-model intervals use default_rng([seed, 1]) with 1,000
resamples; paired differences use default_rng([seed, 2]) with 2,000 resamples, one shared
resample for both models (spec, "Benchmark set and metrics").
"""
from __future__ import annotations

import itertools
import math
from typing import Hashable, Optional, Sequence

import numpy as np

DEFAULT_SEED = 261014397
RESAMPLES = 1000
PAIRED_RESAMPLES = 2000
LEVEL = 0.95


def model_rng(seed: int = DEFAULT_SEED) -> np.random.Generator:
    return np.random.default_rng([seed, 1])


def paired_rng(seed: int = DEFAULT_SEED) -> np.random.Generator:
    return np.random.default_rng([seed, 2])


def stratified_counts(strata: Sequence[Hashable], n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """(n_resamples, n_items) int32: how often each item is drawn in each resample.

    Strata are visited in sorted order, so the draws depend only on the strata and the generator.
    """
    labels = np.asarray([str(s) for s in strata])
    counts = np.zeros((n_resamples, len(labels)), dtype=np.int32)
    for label in sorted(set(labels.tolist())):
        members = np.flatnonzero(labels == label)
        n = len(members)
        draws = rng.integers(0, n, size=(n_resamples, n))
        flat = (draws + (np.arange(n_resamples)[:, None] * n)).ravel()
        counts[:, members] = np.bincount(flat, minlength=n_resamples * n).reshape(n_resamples, n)
    return counts


def percentile_interval(values: np.ndarray, level: float = LEVEL) -> tuple[float, float, int]:
    """(low, high, undefined): the percentile interval over the finite values; NaN when none is finite."""
    values = np.asarray(values, dtype=float)
    finite = values[np.isfinite(values)]
    undefined = int(values.size - finite.size)
    if finite.size == 0:
        return math.nan, math.nan, undefined
    alpha = (1.0 - level) / 2.0
    lo, hi = np.percentile(finite, [100 * alpha, 100 * (1 - alpha)])
    return float(lo), float(hi), undefined


def rankdata(x: Sequence[float]) -> np.ndarray:
    """Ranks from 1, ties given their average rank."""
    x = np.asarray(x, dtype=float)
    order = np.argsort(x, kind="mergesort")
    ranks = np.empty(len(x), dtype=float)
    sx = x[order]
    i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and sx[j + 1] == sx[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return ranks


def _pearson(a: np.ndarray, b: np.ndarray) -> float:
    a = a - a.mean()
    b = b - b.mean()
    denom = math.sqrt(float((a * a).sum()) * float((b * b).sum()))
    return float((a * b).sum() / denom) if denom > 0 else math.nan


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    if len(x) != len(y):
        raise ValueError("x and y differ in length")
    if len(x) < 2:
        return math.nan
    return _pearson(rankdata(x), rankdata(y))


def permutation_p(x: Sequence[float], y: Sequence[float], *, rng: Optional[np.random.Generator] = None,
                  exact_limit: int = 8, n_permutations: int = 20000) -> float:
    """Two-sided permutation p of Pearson's r between x and y: 2 * min(P(null <= r), P(null >= r)), capped
    at 1 (the definition scipy.stats.permutation_test uses), exact over all n! pairings when n <= exact_limit."""
    rx, ry = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = len(rx)
    observed = _pearson(rx, ry)
    if n < 3 or not math.isfinite(observed):
        return math.nan
    if n <= exact_limit:
        orders = np.array(list(itertools.permutations(range(n))))
        extra = 0
    else:
        rng = rng if rng is not None else np.random.default_rng([DEFAULT_SEED, 3])
        orders = np.argsort(rng.random((n_permutations, n)), axis=1)
        extra = 1  # the observed pairing counts once (a valid Monte Carlo p)
    a = rx - rx.mean()
    b = ry[orders] - ry.mean()
    null = (b @ a) / math.sqrt(float((a * a).sum()) * float((ry - ry.mean()) @ (ry - ry.mean())))
    gamma = 1e-14 * max(1.0, abs(observed))  # pairings tied with the observed r up to rounding
    less = (np.count_nonzero(null <= observed + gamma) + extra) / (null.size + extra)
    greater = (np.count_nonzero(null >= observed - gamma) + extra) / (null.size + extra)
    return float(min(1.0, 2.0 * min(less, greater)))


def spearman_p(x: Sequence[float], y: Sequence[float], **kwargs) -> float:
    """Two-sided permutation p of Spearman's rho: Pearson's on the ranks (see permutation_p)."""
    return permutation_p(rankdata(x), rankdata(y), **kwargs)


def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    if len(x) != len(y):
        raise ValueError("x and y differ in length")
    if len(x) < 2:
        return math.nan
    return _pearson(np.asarray(x, dtype=float), np.asarray(y, dtype=float))


def pearson_p(x: Sequence[float], y: Sequence[float], **kwargs) -> float:
    return permutation_p(x, y, **kwargs)


def binomial_cdf_half(k: int, n: int) -> float:
    """P(X <= k) for X ~ Binomial(n, 1/2), exactly (integer arithmetic)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return sum(math.comb(n, i) for i in range(k + 1)) / (1 << n)  # int / int: correctly rounded


def mcnemar_exact(b: int, c: int) -> float:
    """Exact McNemar p (two-sided): min(1, 2 * P(Binomial(b + c, 1/2) <= min(b, c)))."""
    return float(min(1.0, 2.0 * binomial_cdf_half(min(b, c), b + c)))


def _units(data) -> list[list[Hashable]]:
    """Raters x units (None or NaN = no rating) -> each unit's values."""
    data = [list(row) for row in data]
    if not data:
        return []
    n_units = len(data[0])
    if any(len(row) != n_units for row in data):
        raise ValueError("every rater needs one entry per unit")

    def present(v):
        return v is not None and not (isinstance(v, float) and math.isnan(v))

    return [[row[u] for row in data if present(row[u])] for u in range(n_units)]


def krippendorff_alpha_nominal(data) -> float:
    """Krippendorff's alpha for nominal data; `data` is raters x units, None/NaN where a rater gave nothing.

    From the coincidence matrix: alpha = 1 - (n - 1) * D_o / sum_{c != k} n_c n_k, over units with
    at least two ratings. NaN when every pairable value is the same category.
    """
    units = [u for u in _units(data) if len(u) >= 2]
    categories = sorted({v for u in units for v in u}, key=repr)
    index = {c: i for i, c in enumerate(categories)}
    o = np.zeros((len(categories), len(categories)))
    for u in units:
        m = len(u)
        counts = np.zeros(len(categories))
        for v in u:
            counts[index[v]] += 1
        o += (np.outer(counts, counts) - np.diag(counts)) / (m - 1)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    disagree_observed = o.sum() - np.trace(o)
    disagree_expected = (n_c.sum() ** 2 - (n_c ** 2).sum())
    if n <= 1 or disagree_expected == 0:
        return math.nan
    return float(1.0 - (n - 1) * disagree_observed / disagree_expected)


def pairwise_agreement(data) -> tuple[float, int]:
    """(share of agreeing rater pairs over all pairs within units, number of pairs)."""
    agree = pairs = 0
    for u in _units(data):
        for a, b in itertools.combinations(u, 2):
            pairs += 1
            agree += a == b
    return (agree / pairs if pairs else math.nan), pairs
