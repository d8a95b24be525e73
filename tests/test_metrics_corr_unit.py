"""Vectorised correlations equal scipy's; name matching; MAD outliers; clusters on a hand example."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats

from metrics.clusters import metric_clusters
from leaderboard.naming import is_human, match_systems
from metrics.correlation import average_ranks, kendall, pearson, spearman
from metrics.validation import correlate_lp, system_correlations
from metrics.outliers import mad_outliers

# small integer grids produce many ties, which is where tau-b and average ranks can go wrong
values = st.lists(st.integers(-3, 3), min_size=3, max_size=12)


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_matches_scipy_with_ties(data):
    x = np.array(data.draw(values), dtype=float)
    y = np.array(data.draw(st.lists(st.integers(-3, 3), min_size=len(x), max_size=len(x))), dtype=float)
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        assert np.isnan(pearson(x, y)) and np.isnan(kendall(x, y))
        return
    assert pearson(x, y) == pytest.approx(stats.pearsonr(x, y)[0], abs=1e-12)
    assert spearman(x, y) == pytest.approx(stats.spearmanr(x, y)[0], abs=1e-12)
    assert kendall(x, y) == pytest.approx(stats.kendalltau(x, y, variant="b")[0], abs=1e-12)
    np.testing.assert_allclose(average_ranks(x), stats.rankdata(x))


def test_vectorised_rows_equal_row_by_row():
    rng = np.random.default_rng(1)
    x = rng.integers(0, 5, size=(7, 4, 15)).astype(float)
    y = x + rng.normal(size=x.shape)
    for fn, ref in [(pearson, lambda a, b: stats.pearsonr(a, b)[0]),
                    (spearman, lambda a, b: stats.spearmanr(a, b)[0]),
                    (kendall, lambda a, b: stats.kendalltau(a, b)[0])]:
        got = fn(x, y)
        assert got.shape == (7, 4)
        want = np.array([[ref(x[i, j], y[i, j]) for j in range(4)] for i in range(7)])
        np.testing.assert_allclose(got, want, atol=1e-12)


def test_system_correlations_frame():
    h = np.array([0.3, 0.1, -0.2, 0.0, 0.5])
    m = {"a": np.array([30.0, 20, 10, 15, 40]), "b": np.array([1.0, 3, 2, 5, 4])}
    frame = system_correlations(h, m, n_resamples=100, seed=3)
    assert list(frame["metric"]) == ["a", "b"]
    assert frame.loc[0, "kendall"] == pytest.approx(1.0)
    assert frame.loc[1, "pearson"] == pytest.approx(stats.pearsonr(h, m["b"])[0])
    assert (frame["pearson_lo"] <= frame["pearson_hi"]).all()
    assert (frame["n_systems"] == 5).all()


def test_match_systems_exact_first_then_suffix():
    human = ["Online-W.2", "Online-B.0", "A.1", "A.2", "X.7"]
    metric = ["Online-W", "Online-B.0", "Online-B", "A", "X.8"]
    got = match_systems(human, metric)
    # exact wins for Online-B.0; A.1/A.2 only differ by suffix so "A" stays ambiguous;
    # X.7 and X.8 both strip to X and are the only ones left, so they match
    assert got == {"Online-B.0": "Online-B.0", "Online-W.2": "Online-W", "X.7": "X.8"}


@pytest.mark.parametrize("name, human", [
    ("HUMAN-B.12", True), ("Human-A.0", True), ("HUMAN.0", True), ("ref-A", True), ("ref.A", True),
    ("ref", True), ("HUMAN-C", True), ("Refine-MT", False), ("Online-B.0", False), ("humanoid", False),
    ("JDExploreAcademy", False),
])
def test_is_human_follows_wmt_naming(name, human):
    assert is_human(name) is human


def test_mad_outliers_hand_example():
    # median 1, |dev| = [1, 0, 0, 1, 9] -> MAD = 1 -> scaled 1.4826; robust z of 10 is 9/1.4826 = 6.07
    x = np.array([0.0, 1, 1, 2, 10])
    assert mad_outliers(x).tolist() == [False, False, False, False, True]
    # 4.8 is 3.8/1.4826 = 2.56 robust sd away (outlier), 4.6 is 2.43 (kept)
    assert mad_outliers(np.array([0.0, 1, 1, 2, 4.8])).tolist()[-1]
    assert not mad_outliers(np.array([0.0, 1, 1, 2, 4.6])).tolist()[-1]


def test_correlate_lp_outliers_and_identical_metrics():
    human = pd.DataFrame({"system": list("ABCDEF"), "ave": [70, 71, 72, 73, 74, 20.0],
                          "ave_z": [0.0, 0.1, 0.2, 0.3, 0.4, -3.0]})
    rows = []
    for metric, scores in {"m1": [1, 2, 3, 4, 5, -9], "m2": [1, 2, 3, 4, 5, -9], "m3": [5, 1, 4, 2, 3, 0]}.items():
        rows += [{"metric": metric, "lp": "xx-yy", "system": s, "score": v} for s, v in zip("ABCDEF", scores)]
    metric_df = pd.DataFrame(rows)
    res = correlate_lp(human, metric_df, "xx-yy", exclude_outliers=True, n_resamples=0)
    assert res["excluded"] == [{"system": "F", "reason": "outlier"}]
    assert res["n_systems"] == 5
    by = {m["metric"]: m for m in res["metrics"]}
    assert by["m1"]["pearson"] == pytest.approx(1.0)
    assert res["williams"]["m1"]["m2"] is None and res["williams"]["m2"]["m1"] is None
    assert res["williams"]["m1"]["m3"] < 0.05
    # without outlier removal all six systems are kept
    assert correlate_lp(human, metric_df, "xx-yy", n_resamples=0)["n_systems"] == 6


def test_metric_clusters_hand_example():
    scores = {"a": 0.9, "b": 0.85, "c": 0.8, "d": 0.5}
    p = pd.DataFrame(1.0, index=list("abcd"), columns=list("abcd"))
    p.loc["a", "c"] = 0.01     # a beats c -> c opens cluster 2
    p.loc["b", "d"] = 0.01     # b beats d, but b is not in c's cluster -> d stays with c
    got = metric_clusters(scores, p)
    assert [(c["metric"], c["cluster"]) for c in got] == [("a", 1), ("b", 1), ("c", 2), ("d", 2)]
    p.loc["c", "d"] = 0.04
    assert [c["cluster"] for c in metric_clusters(scores, p)] == [1, 1, 2, 3]


def test_correlate_lp_segment_resampling_ci():
    from metrics.bootstrap import segment_bootstrap_ci

    rng = np.random.default_rng(8)
    systems = [f"S{i}.{i}" for i in range(6)]
    s, n = 6, 50
    human = np.linspace(-0.5, 0.5, s)[:, None] + rng.normal(size=(s, n))
    human[rng.random((s, n)) < 0.4] = np.nan
    metric = np.linspace(0, 1, s)[:, None] + rng.normal(size=(s, n))
    hseg = pd.DataFrame([{"system": systems[i], "segment": str(j), "z": human[i, j]}
                         for i in range(s) for j in range(n) if not np.isnan(human[i, j])])
    # metric files name systems without the ".N" suffix
    mseg = pd.DataFrame([{"metric": "m", "lp": "xx-yy", "system": systems[i].split(".")[0], "segment": str(j),
                          "score": metric[i, j]} for i in range(s) for j in range(n)])
    hsys = pd.DataFrame({"system": systems, "ave_z": np.nanmean(human, axis=1), "ave": 0.0})
    msys = mseg.groupby(["metric", "lp", "system"], as_index=False)["score"].mean()
    res = correlate_lp(hsys, msys, "xx-yy", human_segments=hseg, metric_segments=mseg, n_resamples=200, seed=4)
    m = res["metrics"][0]
    assert m["ci_resample"] == "segments" and res["bootstrap"]["resample"] == "segments"
    # the pivot sorts segment ids as text; resampling is invariant to the column order only in
    # distribution, so compare with the same (sorted) column order
    cols = sorted(range(n), key=str)
    direct = segment_bootstrap_ci(human[:, cols], {"m": metric[:, cols]}, n_resamples=200, seed=4)["m"]
    assert m["pearson_ci"] == pytest.approx(list(direct["pearson_ci"]))
    assert m["pearson"] == pytest.approx(direct["pearson"])
    plain = correlate_lp(hsys, msys, "xx-yy", n_resamples=200, seed=4)["metrics"][0]
    assert plain["ci_resample"] == "systems" and plain["pearson_ci"] != m["pearson_ci"]
