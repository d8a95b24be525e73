"""Segment level: DARR tau and pairwise accuracy on hand-worked cases; grouped correlations and
their bootstrap resamples against scipy on explicitly resampled data."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from metrics.bootstrap import draw_indices
from metrics.segment import darr_pairs, darr_tau, kendall_block_matrices, pairwise_accuracy, segment_correlation


def test_darr_hand_example():
    # segment 1: A 80, B 50, C 60 -> only (A, B) differs by >= 25 (30); (A, C) 20 and (B, C) 10 do not.
    # segment 2: A 90, B 20, C 65 -> (A, B) 70, (A, C) 25 (exactly 25 counts), (B, C) 45.
    # metric:  s1 A .5 B .3            -> A > B concordant
    #          s2 A .9 B .1 C .9       -> (A, B) concordant; (A, C) metric tie -> discordant;
    #                                     (C, B) concordant.  C = 3, D = 1, tau = (3 - 1) / 4 = 0.5
    seg = np.array([1, 1, 1, 2, 2, 2])
    human = np.array([80, 50, 60, 90, 20, 65.0])
    metric = np.array([0.5, 0.3, 0.4, 0.9, 0.1, 0.9])
    res = darr_tau(seg, human, metric)
    assert res == {"tau": 0.5, "concordant": 3, "discordant": 1, "n_pairs": 4}
    better, worse = darr_pairs(seg, human)
    assert sorted(zip(better.tolist(), worse.tolist())) == [(0, 1), (3, 4), (3, 5), (5, 4)]
    # a stricter threshold drops the (A, C) pair of segment 2: C = 3, D = 0
    assert darr_tau(seg, human, metric, threshold=26)["tau"] == 1.0
    # reversing the metric reverses every untied pair; the tie stays discordant: C = 0, D = 4
    assert darr_tau(seg, human, -metric)["tau"] == -1.0


def test_darr_unsorted_input_and_several_metrics():
    rng = np.random.default_rng(0)
    seg = rng.integers(0, 30, size=300)
    human = rng.uniform(0, 100, size=300)
    metric = human + rng.normal(0, 20, size=300)
    perm = rng.permutation(300)
    a = darr_tau(seg, human, {"m": metric, "neg": -metric})
    b = darr_tau(seg[perm], human[perm], metric[perm])
    assert a["m"]["tau"] == b["tau"] and a["m"]["tau"] > 0.3
    assert a["neg"]["tau"] == -a["m"]["tau"]
    # brute force over all pairs
    c = d = 0
    for i in range(300):
        for j in range(300):
            if seg[i] == seg[j] and human[i] - human[j] >= 25:
                c += metric[i] > metric[j]
                d += metric[i] <= metric[j]
    assert (b["concordant"], b["discordant"]) == (c, d)


def test_darr_ci_equals_resampled_segments():
    rng = np.random.default_rng(1)
    seg = np.repeat(np.arange(20), 5)
    human = rng.uniform(0, 100, size=100)
    metric = human + rng.normal(0, 30, size=100)
    res = darr_tau(seg, human, metric, n_resamples=200, seed=3)
    idx = draw_indices(20, 200, seed=3)
    taus = []
    for row in idx:          # rebuild each resample explicitly (segment copies get new ids)
        rows = np.concatenate([np.nonzero(seg == s)[0] for s in row])
        new_seg = np.repeat(np.arange(len(row)), 5)
        taus.append(darr_tau(new_seg, human[rows], metric[rows])["tau"])
    lo, hi = np.percentile(taus, [2.5, 97.5])
    assert res["tau_ci"] == pytest.approx((lo, hi), abs=1e-12)
    assert lo <= res["tau"] <= hi


def test_pairwise_accuracy_hand_example():
    # human A > B > C > D; metric orders A > C > B > D: 5 of the 6 pairs agree (only B/C flips)
    human = np.array([4.0, 3, 2, 1])
    metric = np.array([0.9, 0.5, 0.6, 0.1])
    assert pairwise_accuracy(human, metric) == pytest.approx(5 / 6)
    assert pairwise_accuracy(human, human * 10) == 1.0
    assert pairwise_accuracy(human, -human) == 0.0


def _data(seed=0, s=5, n=30, missing=0.2):
    rng = np.random.default_rng(seed)
    human = rng.integers(0, 20, size=(s, n)).astype(float)       # ties on purpose
    metric = human + rng.integers(-6, 6, size=(s, n))
    human[rng.random((s, n)) < missing] = np.nan
    return human, metric


def _scipy_grouped(human, metric, stat, grouping):
    f = (lambda a, b: stats.pearsonr(a, b)[0]) if stat == "pearson" else (lambda a, b: stats.kendalltau(a, b)[0])
    ok = ~np.isnan(human) & ~np.isnan(metric)
    if grouping == "none":
        return f(human[ok], metric[ok])
    vals = []
    rows = human.T if grouping == "item" else human
    mrows = metric.T if grouping == "item" else metric
    oks = ok.T if grouping == "item" else ok
    for hr, mr, o in zip(rows, mrows, oks):
        if o.sum() >= 2 and np.ptp(hr[o]) > 0 and np.ptp(mr[o]) > 0:
            vals.append(f(hr[o], mr[o]))
    return np.mean(vals)


@pytest.mark.parametrize("stat", ["pearson", "kendall"])
@pytest.mark.parametrize("grouping", ["none", "item", "system"])
def test_grouped_correlation_equals_scipy(stat, grouping):
    human, metric = _data()
    got = segment_correlation(human, metric, stat=stat, grouping=grouping)
    assert got["value"] == pytest.approx(_scipy_grouped(human, metric, stat, grouping), abs=1e-10)


@pytest.mark.parametrize("stat", ["pearson", "kendall"])
@pytest.mark.parametrize("grouping", ["none", "item", "system"])
def test_grouped_correlation_ci_equals_explicit_resamples(stat, grouping):
    human, metric = _data(seed=1, n=25)
    res = segment_correlation(human, metric, stat=stat, grouping=grouping, n_resamples=40, seed=9)
    idx = draw_indices(25, 40, seed=9)
    # each resample rebuilt explicitly (duplicated segments are duplicated columns)
    vals = [_scipy_grouped(human[:, row], metric[:, row], stat, grouping) for row in idx]
    lo, hi = np.percentile(vals, [2.5, 97.5])
    assert res["ci"] == pytest.approx((lo, hi), abs=1e-9)


def test_kendall_blocks_with_weights_equal_duplicated_data():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 4, size=12).astype(float)
    y = rng.integers(0, 4, size=12).astype(float)
    unit = np.arange(12) // 3                      # 4 units of 3 items
    gs, ga, gb = kendall_block_matrices(x, y, unit, 4, chunk=5)
    w = np.array([2.0, 0.0, 1.0, 3.0])
    rows = np.concatenate([np.nonzero(unit == u)[0].repeat(1) for u in range(4) for _ in range(int(w[u]))])
    want = stats.kendalltau(x[rows], y[rows])[0]
    got = (w @ gs @ w) / np.sqrt((w @ ga @ w) * (w @ gb @ w))
    assert got == pytest.approx(want, abs=1e-12)
