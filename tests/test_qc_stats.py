"""The vectorised per-worker tests of leaderboard.human.qc equal scipy's tests run group by group."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats

from leaderboard.human import qc

small_samples = st.lists(st.integers(0, 12), min_size=1, max_size=14)


@settings(max_examples=60, deadline=None)
@given(x=small_samples, y=small_samples, alt=st.sampled_from(["greater", "less", "two-sided"]))
def test_grouped_mwu_equals_scipy(x, y, alt):
    x = np.array(x, float)
    y = np.array(y, float)
    # two groups: the sample itself and a shifted copy, to exercise the grouping
    xc = np.r_[np.zeros(len(x), int), np.ones(len(x), int)]
    yc = np.r_[np.zeros(len(y), int), np.ones(len(y), int)]
    u, p = qc.grouped_mwu(xc, np.r_[x, x + 0.5], yc, np.r_[y, y], 2, alt)
    for g, xs in enumerate((x, x + 0.5)):
        ref = stats.mannwhitneyu(xs, y, alternative=alt)
        assert u[g] == pytest.approx(ref.statistic)
        assert p[g] == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("m,n", [(1, 1), (2, 7), (5, 5), (8, 3), (8, 8), (3, 20)])
def test_exact_u_distribution(m, n):
    rng = np.random.default_rng(m * 100 + n)
    x = rng.permutation(np.arange(m + n))[:m].astype(float)
    y = np.setdiff1d(np.arange(m + n), x).astype(float)
    _, p = qc.grouped_mwu(np.zeros(m, int), x, np.zeros(n, int), y, 1, "greater", method="exact")
    assert p[0] == pytest.approx(stats.mannwhitneyu(x, y, alternative="greater", method="exact").pvalue,
                                 rel=1e-12)
    counts = qc._u_null_counts(m, n)
    assert sum(counts) == math.comb(m + n, m)
    assert counts == counts[::-1]  # symmetric null distribution


@settings(max_examples=40, deadline=None)
@given(d=st.lists(st.integers(-30, 30), min_size=2, max_size=25),
       alt=st.sampled_from(["greater", "less", "two-sided"]))
def test_grouped_paired_t_equals_scipy(d, alt):
    d = np.array(d, float)
    t, p, n = qc.grouped_paired_t(np.zeros(len(d), int), d, 1, alt)
    if np.all(d == d[0]):
        assert np.isnan(p[0]) if d[0] == 0 else p[0] in (0.0, 1.0)
        return
    ref = stats.ttest_1samp(d, 0.0, alternative=alt)
    assert t[0] == pytest.approx(ref.statistic, rel=1e-9)
    assert p[0] == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-15)
    assert n[0] == len(d)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # scipy's precision note on near-constant data
@settings(max_examples=40, deadline=None)
@given(x=st.lists(st.integers(0, 100), min_size=2, max_size=20),
       y=st.lists(st.integers(0, 100), min_size=2, max_size=20))
def test_grouped_welch_equals_scipy(x, y):
    x = np.array(x, float)
    y = np.array(y, float)
    t, p = qc.grouped_welch(np.zeros(len(x), int), x, np.zeros(len(y), int), y, 1, "greater")
    if np.var(x) == 0 and np.var(y) == 0:
        return
    ref = stats.ttest_ind(x, y, equal_var=False, alternative="greater")
    assert t[0] == pytest.approx(ref.statistic, rel=1e-9)
    assert p[0] == pytest.approx(ref.pvalue, rel=1e-8, abs=1e-15)


def test_report_methods_match_scipy_per_worker():
    frame = qc.simulate_judgments(12, hits_per_worker=2, random_share=0.5, seed=3)
    pairs = qc.qc_pairs(frame)
    bad = pairs[pairs["kind"] == "BAD_REF"]
    rep = pairs[pairs["kind"] == "REPEAT"]
    for method in qc.METHODS:
        report = qc.worker_report(frame, method).set_index("worker")
        for worker, g in bad.groupby("worker"):
            r = rep[rep["worker"] == worker]
            if method == "paired-t":
                p = stats.ttest_rel(g["first"], g["second"], alternative="greater").pvalue
            elif method == "welch":
                p = stats.ttest_ind(g["first"], g["second"], equal_var=False, alternative="greater").pvalue
            elif method == "mwu":
                p = stats.mannwhitneyu(g["first"], g["second"], alternative="greater").pvalue
            else:
                p = stats.mannwhitneyu(g["first"] - g["second"], r["first"] - r["second"],
                                       alternative="greater").pvalue
            assert report.loc[worker, "p_value"] == pytest.approx(p, rel=1e-9), (method, worker)
            b = stats.ttest_rel(r["first"], r["second"]).pvalue
            assert report.loc[worker, "p_repeat"] == pytest.approx(b, rel=1e-9)
        assert report.loc[:, "n_pairs"].eq(20).all()  # 10 bad-reference pairs per HIT, 2 HITs


def test_pairing_order_and_kinds():
    frame = qc.simulate_judgments(2, seed=5)
    pairs = qc.qc_pairs(frame)
    assert pairs["kind"].value_counts().to_dict() == {"REF": 20, "BAD_REF": 20, "REPEAT": 20}
    pos = frame["position"].to_numpy()
    rep = pairs[pairs["kind"] == "REPEAT"]
    assert (pos[rep["row_first"]] < pos[rep["row_second"]]).all()  # first showing first
    bad = pairs[pairs["kind"] == "BAD_REF"]
    assert (frame["item_type"].to_numpy()[bad["row_first"]] == "SYSTEM").all()
    assert (frame["item_type"].to_numpy()[bad["row_second"]] == "BAD_REF").all()


def test_too_few_pairs_fail_with_reason():
    frame = qc.simulate_judgments(3, seed=2)
    # keep a single bad reference for worker W0
    drop = (frame["worker"] == "W0") & (frame["item_type"] == "BAD_REF")
    drop &= drop.cumsum() > 1
    report = qc.worker_report(frame[~drop]).set_index("worker")
    assert not report.loc["W0", "passed"]
    assert report.loc["W0", "reason"] == "too few bad-reference pairs (1 < 2)"
    assert report.loc[["W1", "W2"], "passed"].all()
    with pytest.raises(ValueError):
        qc.worker_report(frame, "nonsense")


def test_per_lp_option_and_z_fallback():
    a = qc.simulate_judgments(4, seed=1, lp="aa-en")
    b = qc.simulate_judgments(4, seed=2, lp="bb-en")
    frame = pd.concat([a, b], ignore_index=True)
    pooled = qc.worker_report(frame)
    split = qc.worker_report(frame, pool_lps=False)
    assert len(pooled) == 4 and len(split) == 8
    assert (pooled["lp"] == "aa-en,bb-en").all()
    assert (pooled["n_pairs"] == 20).all() and (split["n_pairs"] == 10).all()
    # without raw scores the z column is used; a paired t-test is invariant to a worker's
    # linear rescaling, so the p-values stay the same within one language pair
    z = a.copy()
    z["z"] = (z["raw"] - 50.0) / 20.0
    z["raw"] = np.nan
    rz = qc.worker_report(z)
    ra = qc.worker_report(a)
    assert (rz["score"] == "z").all() and (ra["score"] == "raw").all()
    np.testing.assert_allclose(rz["p_value"], ra["p_value"], rtol=1e-9)
