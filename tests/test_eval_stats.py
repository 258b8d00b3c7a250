"""Evaluation statistics against reference libraries: scipy, statsmodels and the `krippendorff` package."""
from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest
import scipy.stats
from statsmodels.stats.contingency_tables import mcnemar

from realitybench_addon.evaluation import metrics as M
from realitybench_addon.answers import stats


@pytest.mark.parametrize("seed", range(6))
def test_krippendorff_alpha_nominal_matches_the_package(seed):
    rng = np.random.default_rng(seed)
    raters, units = rng.integers(2, 6), rng.integers(10, 60)
    truth = rng.integers(0, 3, size=units)
    data = np.where(rng.random((raters, units)) < 0.75, truth, rng.integers(0, 3, size=(raters, units))).astype(float)
    data[rng.random((raters, units)) < 0.2] = np.nan  # missing ratings
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    ours = stats.krippendorff_alpha_nominal([[None if math.isnan(v) else int(v) for v in row] for row in data])
    assert ours == pytest.approx(expected, abs=1e-12)


def test_krippendorff_on_labels_and_degenerate_data():
    data = [["accept", "reject", "accept", None], ["accept", "reject", "reject", "accept"],
            [None, "reject", "accept", "accept"]]
    coded = np.array([[{"accept": 1.0, "reject": 0.0}.get(v, np.nan) for v in row] for row in data])
    assert stats.krippendorff_alpha_nominal(data) == pytest.approx(
        krippendorff.alpha(reliability_data=coded, level_of_measurement="nominal"), abs=1e-12)
    assert math.isnan(stats.krippendorff_alpha_nominal([["a", "a"], ["a", "a"]]))  # no variation: undefined
    agree, pairs = stats.pairwise_agreement(data)
    assert pairs == 1 + 3 + 3 + 1 and agree == pytest.approx((1 + 3 + 1 + 1) / 8)


def test_mcnemar_exact_matches_statsmodels():
    cases = [(b, c) for b in range(0, 25) for c in range(0, 25)] + [(400, 380), (1000, 1100), (3, 250)]
    for b, c in cases:
        expected = mcnemar([[10, b], [c, 7]], exact=True).pvalue
        assert stats.mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-12, abs=1e-300), (b, c)


def test_spearman_matches_scipy():
    rng = np.random.default_rng(3)
    for n in (3, 5, 8, 20, 200):
        x = rng.integers(0, 6, size=n).astype(float)  # ties
        y = x + rng.normal(0, 2, size=n)
        expected = scipy.stats.spearmanr(x, y).statistic
        assert stats.spearman(x, y) == pytest.approx(expected, abs=1e-12)
    assert stats.rankdata([3, 1, 3, 2]).tolist() == scipy.stats.rankdata([3, 1, 3, 2]).tolist()


@pytest.mark.parametrize("n", [4, 5, 6, 7])
def test_spearman_permutation_p_matches_scipy_exact(n):
    rng = np.random.default_rng(n)
    x, y = rng.normal(size=n), rng.normal(size=n)
    y[0] = y[1]  # a tie
    # scipy's idiom for a correlation: permute one sample's pairing against the other, all n! pairings
    ref = scipy.stats.permutation_test((x,), lambda a: scipy.stats.spearmanr(a, y).statistic, vectorized=False,
                                       permutation_type="pairings", alternative="two-sided", n_resamples=np.inf)
    assert stats.spearman_p(x, y) == pytest.approx(ref.pvalue, abs=1e-12)


@pytest.mark.parametrize("ours, theirs, seed", [("spearman_p", "spearmanr", 9), ("pearson_p", "pearsonr", 11)])
def test_permutation_p_monte_carlo_beyond_the_exact_limit(ours, theirs, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=12)
    y = x + rng.normal(0, 1.5, size=12)
    p = getattr(stats, ours)
    ref = getattr(scipy.stats, theirs)(x, y).pvalue  # a t approximation: a different method, so a loose check
    assert p(x, y) == pytest.approx(ref, abs=0.03)
    assert p(x, y) == p(x, y)  # seeded


@pytest.mark.parametrize("n", [3, 4, 6, 8])
def test_pearson_and_its_permutation_p_match_scipy(n):
    """The sim-to-real correlations: Pearson's r, and its exact permutation p over all n! pairings."""
    rng = np.random.default_rng(20 + n)
    x = rng.normal(size=n)
    y = 0.7 * x + rng.normal(size=n)
    assert stats.pearson(x, y) == pytest.approx(scipy.stats.pearsonr(x, y).statistic, abs=1e-12)
    ref = scipy.stats.permutation_test((x,), lambda a: scipy.stats.pearsonr(a, y).statistic, vectorized=False,
                                       permutation_type="pairings", alternative="two-sided", n_resamples=np.inf)
    assert stats.pearson_p(x, y) == pytest.approx(ref.pvalue, abs=1e-12)



def test_stratified_bootstrap_keeps_strata_and_is_seeded():
    strata = ["a/random"] * 30 + ["a/positive"] * 7 + ["b/random"] * 12
    counts = stats.stratified_counts(strata, 500, stats.model_rng())
    assert counts.shape == (500, 49)
    assert (counts[:, :30].sum(axis=1) == 30).all()
    assert (counts[:, 30:37].sum(axis=1) == 7).all()
    assert (counts[:, 37:].sum(axis=1) == 12).all()
    assert np.array_equal(counts, stats.stratified_counts(strata, 500, stats.model_rng()))
    assert not np.array_equal(counts, stats.stratified_counts(strata, 500, stats.model_rng(1)))
    # every item is drawn equally often on average
    assert np.allclose(counts.mean(axis=0), 1.0, atol=0.2)


def test_bootstrap_interval_matches_scipy_on_one_stratum():
    rng = np.random.default_rng(11)
    x = (rng.random(300) < 0.3).astype(float)
    counts = stats.stratified_counts(["s"] * len(x), 5000, stats.model_rng())
    lo, hi, undefined = stats.percentile_interval(counts @ x / len(x))
    ref = scipy.stats.bootstrap((x,), np.mean, n_resamples=5000, method="percentile",
                                rng=np.random.default_rng(0)).confidence_interval
    assert undefined == 0
    assert lo == pytest.approx(ref.low, abs=0.012) and hi == pytest.approx(ref.high, abs=0.012)


def test_stratified_bootstrap_variance_is_the_stratified_variance():
    """The resampled overall mean has the plug-in stratified variance sum_s (n_s/N)^2 var_s / n_s."""
    rng = np.random.default_rng(5)
    groups = [rng.normal(0, 1, 80), rng.normal(5, 3, 40)]
    x = np.concatenate(groups)
    strata = ["r"] * 80 + ["p"] * 40
    counts = stats.stratified_counts(strata, 8000, stats.model_rng())
    means = counts @ x / len(x)
    expected = sum((len(g) / len(x)) ** 2 * g.var() / len(g) for g in groups)
    assert means.var() == pytest.approx(expected, rel=0.06)
    assert means.var() < x.var() / len(x)  # less than an unstratified resample would give


def test_percentile_interval_drops_undefined_resamples():
    lo, hi, undefined = stats.percentile_interval(np.array([np.nan, 0.0, 1.0, np.nan] + [0.5] * 96))
    assert undefined == 2 and lo <= 0.5 <= hi
    assert stats.percentile_interval(np.array([np.nan]))[2] == 1


def _rows(accepts, verdicts, strata):
    return [{"frame_id": f"f{i}", "environment": "e", "stratum": s, "verdict": v,
             "acceptability_scored": v in ("accept", "reject"), "documentation_scored": v == "accept",
             "status": "ok", "in_grammar": True, "problems": [], "model_accepts": a, "fields": {"k": float(a)},
             "documentation": float(a) if v == "accept" else None, "lenient_accepts": a,
             "lenient_fields": {"k": float(a)}, "lenient_documentation": None}
            for i, (a, v, s) in enumerate(zip(accepts, verdicts, strata))]


def test_acceptability_matches_a_direct_count_under_weights():
    """Weighted metrics equal the metrics of the explicitly duplicated items (what a resample is)."""
    rng = np.random.default_rng(2)
    n = 40
    verdicts = rng.choice(["accept", "reject", "gray"], size=n, p=[0.4, 0.5, 0.1]).tolist()
    strata = rng.choice(["random", "positive"], size=n, p=[0.8, 0.2]).tolist()
    accepts = (rng.random(n) < 0.5).tolist()
    table = M.ScoreTable(_rows(accepts, verdicts, strata))
    weights = rng.integers(0, 3, size=n)
    dup = [i for i in range(n) for _ in range(weights[i])]
    explicit = M.ScoreTable(_rows([accepts[i] for i in dup], [verdicts[i] for i in dup], [strata[i] for i in dup]))
    got, want = M.all_metrics(table, weights[None, :]), M.all_metrics(explicit)
    for name in ("precision", "recall", "f1", "false_accept", "miss", "documentation", "grammar"):
        assert got[name][0] == pytest.approx(want[name][0], nan_ok=True), name


def test_f1_conventions():
    t = M.ScoreTable(_rows([False] * 4, ["accept", "reject", "accept", "reject"], ["random"] * 4))
    a = M.acceptability(t)
    assert math.isnan(a["precision"][0]) and a["recall"][0] == 0 and a["f1"][0] == 0  # always reject: F1 0
    t = M.ScoreTable(_rows([True, False], ["accept", "reject"], ["positive", "positive"]))
    a = M.acceptability(t)
    assert math.isnan(a["precision"][0]) and a["recall"][0] == 1 and math.isnan(a["f1"][0])  # no random frames
