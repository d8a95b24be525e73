"""Bootstrap CIs: equality with a per-resample loop on the same draws, and coverage by simulation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from metrics.bootstrap import (draw_indices, index_counts, paired_pvalues, resampled_means, segment_bootstrap_ci,
                               segment_bootstrap_samples, system_bootstrap_ci, system_bootstrap_samples)
from metrics.correlation import pearson


def _loop_segment_bootstrap(human, metric, indices):
    """The straightforward way: one resample at a time, nanmean per system, scipy correlations."""
    out = {"pearson": [], "spearman": [], "kendall": []}
    for idx in indices:
        h = np.nanmean(human[:, idx], axis=1)
        m = np.nanmean(metric[:, idx], axis=1)
        out["pearson"].append(stats.pearsonr(h, m)[0])
        out["spearman"].append(stats.spearmanr(h, m)[0])
        out["kendall"].append(stats.kendalltau(h, m)[0])
    return {k: np.array(v) for k, v in out.items()}


def test_index_counts():
    counts = index_counts(np.array([[0, 0, 2], [1, 2, 2]]), 4)
    np.testing.assert_array_equal(counts, [[2, 0, 1, 0], [0, 1, 2, 0]])


def test_segment_bootstrap_equals_loop_on_same_draws():
    rng = np.random.default_rng(5)
    s, n = 6, 40
    human = rng.normal(size=(s, n)) + np.arange(s)[:, None] * 0.2
    human[rng.random((s, n)) < 0.3] = np.nan          # sparse human judgments
    metrics = {"a": human + rng.normal(size=(s, n)), "b": rng.normal(size=(s, n))}
    metrics["a"] = np.where(np.isnan(metrics["a"]), rng.normal(size=(s, n)), metrics["a"])
    indices = draw_indices(n, 60, seed=11)
    fast = segment_bootstrap_samples(human, metrics, indices=indices)
    for k, name in enumerate(metrics):
        slow = _loop_segment_bootstrap(human, metrics[name], indices)
        for stat in slow:
            np.testing.assert_allclose(fast[stat][k], slow[stat], rtol=0, atol=1e-10)


def test_system_bootstrap_equals_loop_on_same_draws():
    rng = np.random.default_rng(2)
    h = rng.normal(size=9)
    m = h + rng.normal(size=9)
    idx = draw_indices(9, 40, seed=4)
    fast = system_bootstrap_samples(h, {"m": m}, indices=idx)
    for b, row in enumerate(idx):
        if np.ptp(h[row]) == 0 or np.ptp(m[row]) == 0:
            assert np.isnan(fast["pearson"][0, b])
            continue
        assert fast["pearson"][0, b] == pytest.approx(stats.pearsonr(h[row], m[row])[0], abs=1e-12)
        assert fast["kendall"][0, b] == pytest.approx(stats.kendalltau(h[row], m[row])[0], abs=1e-12)
        assert fast["spearman"][0, b] == pytest.approx(stats.spearmanr(h[row], m[row])[0], abs=1e-12)


def test_resampled_means_nan_when_no_judgment():
    scores = np.array([[1.0, np.nan], [np.nan, 4.0]])
    counts = np.array([[2.0, 0.0], [1.0, 1.0]])
    means = resampled_means(scores, counts)
    assert np.isnan(means[0, 1]) and means[0, 0] == 1.0
    np.testing.assert_allclose(means[1], [1.0, 4.0])


def test_ci_is_seeded_and_brackets_estimate():
    rng = np.random.default_rng(3)
    human = rng.normal(size=(8, 100)) + np.linspace(0, 1, 8)[:, None]
    metric = human + rng.normal(size=(8, 100))
    a = segment_bootstrap_ci(human, {"m": metric}, n_resamples=300, seed=1)["m"]
    b = segment_bootstrap_ci(human, {"m": metric}, n_resamples=300, seed=1)["m"]
    assert a == b
    for stat in ("pearson", "spearman", "kendall"):
        lo, hi = a[f"{stat}_ci"]
        assert lo < a[stat] <= hi + 1e-12
    both = segment_bootstrap_ci(human, {"m": metric}, n_resamples=300, seed=1, resample_systems=True)["m"]
    # resampling systems as well widens the interval
    assert both["pearson_ci"][1] - both["pearson_ci"][0] > a["pearson_ci"][1] - a["pearson_ci"][0]


def test_segment_bootstrap_coverage():
    """About 95% of the CIs contain the correlation of the population system means."""
    rng = np.random.default_rng(0)
    s, n = 10, 800
    quality = np.linspace(-0.5, 0.5, s)
    bias = rng.normal(0, 0.3, s)              # the metric's systematic error per system
    rho = pearson(quality, quality + bias)
    hits = 0
    for k in range(200):
        noise = rng.normal(size=(s, n))
        difficulty = rng.normal(size=n)       # shared by all systems of a segment
        human = quality[:, None] + difficulty[None, :] + 0.6 * noise
        human[rng.random((s, n)) < 0.3] = np.nan
        metric = (quality + bias)[:, None] + 0.5 * difficulty[None, :] + 0.3 * noise + 0.5 * rng.normal(size=(s, n))
        lo, hi = segment_bootstrap_ci(human, {"m": metric}, n_resamples=500, seed=k,
                                      stats=("pearson",))["m"]["pearson_ci"]
        hits += lo <= rho <= hi
    assert 0.90 <= hits / 200 <= 0.985


def test_system_bootstrap_coverage():
    rng = np.random.default_rng(1)
    hits = 0
    for k in range(200):
        x = rng.normal(size=60)
        y = 0.6 * x + 0.8 * rng.normal(size=60)          # population r = 0.6
        lo, hi = system_bootstrap_ci(x, {"m": y}, n_resamples=500, seed=k, stats=("pearson",))["m"]["pearson"]
        hits += lo <= 0.6 <= hi
    assert 0.90 <= hits / 200 <= 0.985


def test_paired_pvalues_equal_loop():
    rng = np.random.default_rng(6)
    s, n = 8, 60
    human = np.linspace(0, 1, s)[:, None] + rng.normal(size=(s, n))
    metrics = {"good": human + 0.3 * rng.normal(size=(s, n)), "bad": rng.normal(size=(s, n)) + 0.2 *
               np.linspace(0, 1, s)[:, None]}
    p = paired_pvalues(segment_bootstrap_samples(human, metrics, n_resamples=200, seed=5, stats=("pearson",))["pearson"])
    # the same draws that segment_bootstrap_samples makes with this seed
    idx = draw_indices(n, 200, seed=np.random.default_rng(5))
    deltas = []
    for row in idx:
        h = human[:, row].mean(1)
        deltas.append(stats.pearsonr(h, metrics["good"][:, row].mean(1))[0]
                      - stats.pearsonr(h, metrics["bad"][:, row].mean(1))[0])
    deltas = np.array(deltas)
    assert p[0, 1] == pytest.approx(np.mean(deltas <= 0))
    assert p[1, 0] == pytest.approx(np.mean(deltas >= 0))
    assert p[0, 1] < 0.05
    assert np.isnan(p[0, 0]) and np.isnan(p[1, 1])
