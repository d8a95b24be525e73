"""SPA, system accuracy and the PERM-BOTH metric clusters, against plain-loop references."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.metaeval.acc_eq import acc_eq
from metrics.metaeval.evaluate import meta_evaluate
from metrics.metaeval.global_rank import global_ranking
from metrics.metaeval.perm import acc_eq_pvalues, spa_pvalues
from metrics.metaeval.spa import pvalue_matrix, sign_flips, spa
from metrics.metaeval.sysacc import system_accuracy


def naive_spa(human, metric, signs):
    """1 − mean |p_h − p_m| with every p-value counted draw by draw in Python."""
    n_sys, n_seg = human.shape
    gaps = []
    for i in range(n_sys):
        for j in range(i + 1, n_sys):
            segs = [s for s in range(n_seg) if not np.isnan(human[i, s] + human[j, s] + metric[i, s] + metric[j, s])]
            p = []
            for scores in (human, metric):
                observed = sum(scores[i, s] - scores[j, s] for s in segs)
                hits = 0
                for row in signs:
                    permuted = sum(row[s] * (scores[i, s] - scores[j, s]) for s in segs)
                    hits += permuted >= observed - 1e-9
                p.append(hits / len(signs))
            gaps.append(abs(p[0] - p[1]))
    return 1 - sum(gaps) / len(gaps)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 5), st.integers(2, 12))
def test_spa_equals_the_loop_reference(seed, n_sys, n_seg):
    rng = np.random.default_rng(seed)
    human = rng.integers(0, 3, size=(n_sys, n_seg)).astype(float)
    metric = human + rng.normal(scale=1.0, size=human.shape)
    metric[rng.random(metric.shape) < 0.1] = np.nan
    signs = sign_flips(n_seg, 200, seed)
    assert spa(human, metric, signs) == pytest.approx(naive_spa(human, metric, signs), abs=1e-12)


def test_spa_is_one_for_any_increasing_transform_and_sign_flips_are_shared():
    rng = np.random.default_rng(1)
    human = rng.normal(size=(6, 300))
    assert spa(human, 3 * human + 7) == 1.0
    signs = sign_flips(300, 1000, 5)
    assert signs.shape == (1000, 300) and set(np.unique(signs)) == {-1.0, 1.0}
    p = pvalue_matrix(human, signs)
    # p(i, j) + p(j, i) = 1 + share of draws with an exactly equal sum (none with continuous scores)
    off = ~np.eye(6, dtype=bool)
    assert np.allclose((p + p.T)[off], 1.0)


def test_spa_punishes_a_reversed_metric():
    rng = np.random.default_rng(2)
    quality = np.linspace(0, 1, 8)[:, None]
    human = quality + rng.normal(scale=1.0, size=(8, 400))
    good = human + rng.normal(scale=0.3, size=human.shape)
    assert spa(human, good) > 0.9 > 0.5 > spa(human, -good)


def test_system_accuracy():
    human = np.array([[3.0, 3.0], [2.0, 2.0], [1.0, np.nan]])
    assert system_accuracy(human, np.array([[9.0, 9.0], [5.0, 5.0], [1.0, 1.0]])) == 1.0
    assert system_accuracy(human, np.array([[1.0, 1.0], [5.0, 5.0], [9.0, 9.0]])) == 0.0
    # means over shared cells only: system 3's second metric score has no human partner
    assert system_accuracy(human, np.array([[9.0, 9.0], [5.0, 5.0], [6.0, -100.0]])) == pytest.approx(2 / 3)


def naive_acc_eq_pvalues(item_acc, draws, seed):
    rng = np.random.default_rng(seed)
    signs = np.where(rng.random((draws, item_acc.shape[1])) < 0.5, -1.0, 1.0)
    k = len(item_acc)
    p = np.full((k, k), np.nan)
    for a in range(k):
        for b in range(k):
            if a == b:
                continue
            items = [s for s in range(item_acc.shape[1]) if not np.isnan(item_acc[a, s] + item_acc[b, s])]
            observed = sum(item_acc[a, s] - item_acc[b, s] for s in items) / len(items)
            hits = 0
            for row in signs:
                swapped = sum(row[s] * (item_acc[a, s] - item_acc[b, s]) for s in items) / len(items)
                hits += swapped >= observed - 1e-12
            p[a, b] = hits / draws
    return p


def test_acc_eq_pvalues_equal_the_loop_reference():
    rng = np.random.default_rng(3)
    item_acc = rng.random((3, 40))
    item_acc[1, 5] = np.nan
    got = acc_eq_pvalues(item_acc, ["a", "b", "c"], draws=300, seed=9).to_numpy()
    assert np.allclose(got, naive_acc_eq_pvalues(item_acc, 300, 9), equal_nan=True)


def simulated(seed=4, n_sys=10, n_seg=500):
    rng = np.random.default_rng(seed)
    quality = rng.normal(scale=0.5, size=(n_sys, 1))
    human = np.round(quality + rng.normal(size=(n_sys, n_seg)), 1)
    metrics = {"oracle": human + rng.normal(scale=0.05, size=human.shape),
               "good": human + rng.normal(scale=0.8, size=human.shape),
               "good-twin": human + rng.normal(scale=0.8, size=human.shape),
               "noise": rng.normal(size=human.shape)}
    return human, metrics


def test_clusters_separate_an_oracle_from_noise():
    human, metrics = simulated()
    result = meta_evaluate(human, metrics, lp="xx-yy", draws=1000)
    rows = {r["metric"]: r for r in result["metrics"]}
    assert result["n_systems"] == 10 and result["n_segments"] == 500
    assert rows["oracle"]["acc_eq"] > rows["good"]["acc_eq"] > rows["noise"]["acc_eq"]
    assert rows["oracle"]["acc_eq_cluster"] == 1 and rows["noise"]["acc_eq_cluster"] == 3
    assert rows["good"]["acc_eq_cluster"] == rows["good-twin"]["acc_eq_cluster"] == 2
    assert rows["noise"]["spa_cluster"] > rows["good"]["spa_cluster"]
    p = result["pvalues"]["acc_eq"]
    assert p["oracle"]["noise"] < 0.01 and p["noise"]["oracle"] > 0.99 and 0.02 < p["good"]["good-twin"] < 0.98
    for r in result["metrics"]:
        direct = acc_eq(human, metrics[r["metric"]])
        assert (r["acc_eq"], r["epsilon"]) == (direct.acc_eq, direct.epsilon)


def test_normal_limit_spa_is_close_to_the_monte_carlo_spa():
    human, metrics = simulated(5, 8, 800)
    names = list(metrics)
    _, analytic = spa_pvalues(human, np.stack([metrics[n] for n in names]), names, draws=200)
    for name, value in zip(names, analytic):
        assert value == pytest.approx(spa(human, metrics[name]), abs=0.03)


def test_global_ranking_averages_over_tasks():
    tasks = {"en-de/acc_eq": [{"metric": "A", "score": 0.6, "cluster": 1}, {"metric": "B", "score": 0.5, "cluster": 2}],
             "zh-en/acc_eq": [{"metric": "B", "score": 0.7, "cluster": 1}, {"metric": "A", "score": 0.4, "cluster": 2},
                              {"metric": "C", "score": 0.9, "cluster": 1}]}
    table = global_ranking(tasks).set_index("metric")
    assert table.loc["B", "avg_score"] == pytest.approx(0.6) and table.loc["A", "avg_score"] == pytest.approx(0.5)
    assert table.loc["A", "avg_rank"] == 1.5 and table.loc["B", "avg_rank"] == 1.5
    assert table["global_rank"].to_dict() == {"B": 1, "A": 2, "C": 3}   # C is missing a task: listed last
