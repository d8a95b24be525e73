"""SPA, the hybrids of the significance tests, clusters and the global ranking, against loop references
and hand computations (the sample of the reference tool's own output is in test_meta_eval_mtme_parity.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.metaeval.acc_eq import item_pairs
from metrics.metaeval.correlations import grouped_pearson, pdp
from metrics.metaeval.global_rank import Task, global_ranking
from metrics.metaeval.hybrids import AccEqHybrids, PearsonHybrids, SpaHybrids, coin_flips
from metrics.metaeval.perm import Significance, assign_ranks, compare, score_order
from metrics.metaeval.spa import spa
from metrics.metaeval.sysacc import system_accuracy
from metrics.metaeval.tasks import STATISTICS


def naive_spa(human, metric):
    """The rule read literally: 1000 seed-4 sign vectors, every pair and permutation in Python."""
    n_sys, n_seg = human.shape
    draws = np.random.default_rng(4).random((1000, n_seg), dtype=np.float32)
    signs = [[1 if round(float(v)) == 1 else -1 for v in row] for row in draws]
    gaps = []
    for i in range(n_sys):
        for j in range(i + 1, n_sys):
            p = []
            for x in (human, metric):
                d = [float(x[i, s]) - float(x[j, s]) for s in range(n_seg)]
                observed = sum(d)
                p.append(sum(sum(sg * v for sg, v in zip(row, d)) >= observed for row in signs) / 1000)
            gaps.append(abs(p[0] - p[1]))
    return 1 - sum(gaps) / len(gaps)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 5), st.integers(2, 12))
def test_spa_equals_the_loop_reference_on_exact_sums(seed, n_sys, n_seg):
    # small integers: float32 and exact sums agree, so every "≥" is decided the same way
    rng = np.random.default_rng(seed)
    human = rng.integers(-3, 3, size=(n_sys, n_seg)).astype(float)
    metric = human + rng.integers(-2, 3, size=human.shape)
    assert spa(human, metric) == pytest.approx(naive_spa(human, metric), abs=1e-12)


def test_spa_is_deterministic_and_rewards_agreement():
    rng = np.random.default_rng(2)
    quality = np.linspace(0, 1, 8)[:, None]
    human = quality + rng.normal(scale=1.0, size=(8, 400))
    good = human + rng.normal(scale=0.3, size=human.shape)
    assert spa(human, good) == spa(human, good.copy())
    assert spa(human, 2 * human + 3) > 0.99
    assert spa(human, good) > 0.9 > 0.5 > spa(human, -good)


def test_system_accuracy():
    human = np.array([[3.0, 3.0], [2.0, 2.0], [1.0, np.nan]])
    assert system_accuracy(human, np.array([[9.0, 9.0], [5.0, 5.0], [1.0, 1.0]])) == 1.0
    assert system_accuracy(human, np.array([[1.0, 1.0], [5.0, 5.0], [9.0, 9.0]])) == 0.0


def test_pdp_reproduces_the_reference_unit_test():
    # gold 1..6 and metric [2, 1, 4, 3, 3, 7] for two systems of three items (system-major)
    gold = np.array([[1.0, 2, 3], [4, 5, 6]])
    metric = np.array([[2.0, 1, 4], [3, 3, 7]])
    assert pdp(gold, metric, "item") == pytest.approx(0.926, abs=5e-4)
    assert pdp(gold, metric, "none") == pytest.approx(0.776, abs=5e-4)
    assert pdp(gold, metric, "sys") == pytest.approx(0.766, abs=5e-4)


def test_pearson_of_a_constant_is_nan():
    assert np.isnan(grouped_pearson(np.array([[1.0, 2.0, 3.0]]), np.array([[5.0, 5.0, 5.0]])))


def test_acc_eq_hybrids_have_the_permutation_null():
    """One coin per (segment, system pair) comparison: Δ* has mean 0 and variance Σ w² over the
    comparisons where the two metrics' verdicts differ."""
    rng = np.random.default_rng(0)
    human = rng.integers(0, 3, size=(5, 60)).astype(float)
    a = human + rng.normal(scale=0.5, size=human.shape)
    b = human + rng.normal(scale=1.5, size=human.shape)
    b[:, :10] = np.round(b[:, :10])                             # some metric ties
    hyb = AccEqHybrids(human, np.stack([a, b]), np.array([0.0, 0.3]))
    draws = hyb.deltas(0, 1, 200_000, np.random.default_rng(1))
    differ = hyb.verdicts[0] != hyb.verdicts[1]
    w = 1.0 / (10 * 60)                                          # 10 pairs in each of 60 segments
    assert draws.mean() == pytest.approx(0.0, abs=4 * np.sqrt(differ.sum() * w * w / 200_000))
    assert draws.var() == pytest.approx(differ.sum() * w * w, rel=0.02)
    assert np.abs(draws).max() <= differ.sum() * w + 1e-12     # every differing comparison on one side


def test_acc_eq_hybrids_with_one_differing_comparison_flip_a_fair_coin():
    human = np.array([[1.0, 1.0], [2.0, 0.0]])
    a = np.array([[0.0, 0.0], [1.0, -1.0]])                      # both segments right
    b = np.array([[0.0, 0.0], [1.0, 1.0]])                       # segment 2 wrong
    hyb = AccEqHybrids(human, np.stack([a, b]), np.array([0.0, 0.0]))
    draws = hyb.deltas(0, 1, 20_000, np.random.default_rng(3))
    assert set(np.round(draws, 12)) == {0.5, -0.5}
    assert (draws > 0).mean() == pytest.approx(0.5, abs=0.02)


def test_pearson_hybrids_equal_a_loop_over_draws():
    rng = np.random.default_rng(5)
    gold = rng.normal(size=40)
    a, b = gold + rng.normal(size=40), rng.normal(size=40)
    hyb = PearsonHybrids(gold, np.stack([a, b]))
    got = hyb.deltas(0, 1, 50, np.random.default_rng(7))
    swaps = coin_flips(np.random.default_rng(7), (50, 40))      # the same coins as the draws
    za, zb = (a - a.mean()) / a.std(), (b - b.mean()) / b.std()
    want = [np.corrcoef(gold, np.where(s, zb, za))[0, 1] - np.corrcoef(gold, np.where(s, za, zb))[0, 1] for s in swaps]
    assert got == pytest.approx(want, abs=1e-10)


def test_spa_hybrids_equal_spa_recomputed_on_each_hybrid():
    rng = np.random.default_rng(6)
    human = rng.normal(size=(5, 30))
    a, b = human + rng.normal(size=human.shape), rng.normal(size=human.shape)
    got = SpaHybrids(human, np.stack([a, b])).deltas(0, 1, 20, np.random.default_rng(8))
    swaps = coin_flips(np.random.default_rng(8), (20, 5, 30))
    za, zb = (a - a.mean()) / a.std(), (b - b.mean()) / b.std()
    want = [spa(human, np.where(s, zb, za)) - spa(human, np.where(s, za, zb)) for s in swaps]
    # float32 rounding may move one inner permutation of one pair: 1/1000 of one pair's p-value
    assert np.abs(np.array(got) - want).max() <= 1 / (1000 * 10) + 1e-12


def test_coin_flips_are_fair_and_independent():
    coins = coin_flips(np.random.default_rng(0), (1000, 37))
    assert coins.dtype == bool and coins.shape == (1000, 37)
    assert coins.mean() == pytest.approx(0.5, abs=0.01)
    assert abs(np.corrcoef(coins[:, :-1].ravel(), coins[:, 1:].ravel())[0, 1]) < 0.02


def test_order_and_clusters_follow_the_rules():
    scores = {"b": 0.5, "a": 0.5, "c": 0.4, "d": 0.3, "e": np.nan}
    assert score_order(scores) == ["a", "b", "c", "d"]           # (−score, name); NaN left out
    p = {"a": {"b": 0.3, "c": 0.05, "d": 0.0}, "b": {"c": 0.4, "d": 0.2}, "c": {"d": 0.06}, "d": {}}
    # c: a beats it with p = 0.05 ≤ alpha → new cluster; d: only c (the new cluster) counts: 0.06 > alpha
    assert assign_ranks(["a", "b", "c", "d"], p, 0.05) == {"a": 1, "b": 1, "c": 2, "d": 2}


class FixedDraws:
    def __init__(self, table):
        self.table = table

    def deltas(self, a, b, n, rng):
        return np.resize(np.asarray(self.table[(a, b)], dtype=float), n)


def test_compare_counts_draws_at_least_the_observed_difference():
    draws = {(0, 1): [0.2, 0.1, 0.0, -0.1], (0, 2): [0.3, 0.3, 0.3, 0.29], (1, 2): [0.0, 0.0, 0.0, 0.0]}
    res = compare(["x", "y", "z"], {"x": 0.6, "y": 0.5, "z": 0.3}, FixedDraws(draws), k=4,
                  rng=np.random.default_rng(0))
    assert res.pvalues == {"x": {"y": 0.5, "z": 0.75}, "y": {"z": 0.0}, "z": {}}
    assert res.ranks == {"x": 1, "y": 1, "z": 2}


def test_early_stopping_stops_on_block_boundaries():
    draws = {(0, 1): [1.0] * 10}                                 # every draw ≥ Δ: p = 1 > 0.5 after one block
    res = compare(["x", "y"], {"x": 0.6, "y": 0.5}, FixedDraws(draws), k=100, rng=np.random.default_rng(0),
                  early_stop=10)
    assert res.draws_done == {"x": {"y": 10}, "y": {}}
    never = {(0, 1): [-1.0] * 10}                                # no draw ≥ Δ: the acc_eq test never checks
    res = compare(["x", "y"], {"x": 0.6, "y": 0.5}, FixedDraws(never), k=100, rng=np.random.default_rng(0),
                  early_stop=10, stop_only_after_a_hit=True)
    assert res.draws_done["x"]["y"] == 100 and res.pvalues["x"]["y"] == 0.0


def _task(name, stat, scores, draws, weight=1.0):
    order = score_order(scores)
    sig = Significance(order, scores, {}, {k: np.asarray(v, dtype=float) for k, v in draws.items()})
    sig.ranks = {m: i + 1 for i, m in enumerate(order)}
    return Task(name, STATISTICS[stat], weight, sig)


def test_global_ranking_normalises_sums_draws_and_lists_incomplete_metrics_apart():
    t1 = _task("p1/acc_eq", "acc_eq", {"A": 0.6, "B": 0.5, "C": 0.9}, {("C", "A"): [0] * 4, ("C", "B"): [0] * 4,
                                                                        ("A", "B"): [0.2, -0.1, 0.0, 0.05]})
    t2 = _task("p1/seg_pearson", "seg_pearson", {"B": 0.4, "A": 0.2},
               {("B", "A"): [0.1, 0.3, -0.2, 0.0, 0.4, 0.0, 0.0, 0.0]})          # 8 draws: t1 is tiled
    out = global_ranking([t1, t2])
    rows = {r["metric"]: r for r in out["ranking"]}
    # A: (0.6 + (0.2 + 1) / 2) / 2 = 0.6; B: (0.5 + 0.7) / 2 = 0.6 → order by name
    assert rows["A"]["avg_score"] == pytest.approx(0.6) and rows["B"]["avg_score"] == pytest.approx(0.6)
    assert [r["metric"] for r in out["ranking"]] == ["A", "B", "C"]
    assert rows["C"]["complete"] is False and rows["C"]["global_cluster"] is None
    assert rows["C"]["missing"] == ["p1/seg_pearson"] and "C" not in out["pvalues"]
    # null for A over B: 0.5 × Δ*_acc(A, B) + 0.5 × 0.5 × (−Δ*_r(B, A)), draw by draw, acc draws repeated
    acc = np.resize([0.2, -0.1, 0.0, 0.05], 8)
    r = -np.array([0.1, 0.3, -0.2, 0.0, 0.4, 0.0, 0.0, 0.0])
    null = 0.5 * acc + 0.25 * r
    assert out["pvalues"]["A"]["B"] == pytest.approx(float((null >= -1e-12).mean()))
    assert out["weights"] == {"p1/acc_eq": 0.5, "p1/seg_pearson": 0.5}


def test_acc_eq_draws_have_the_distribution_of_one_coin_per_comparison():
    """The binomial counts give exactly the law of swapping each (segment, system pair) comparison
    with probability 1/2: checked against the full enumeration of the coins of a small case."""
    # segments of 3, 3 and 1 pairs (an unrated cell): comparisons of two weights
    human = np.array([[0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0, 2.0], [2.0, 2.0, 5.0, np.nan]])
    a = np.array([[0.0, 0.0, 0.0, 0.0], [1.0, 1.0, -1.0, 1.0], [2.0, 0.5, 3.0, 0.0]])
    b = np.array([[0.0, 1.5, 0.0, 1.0], [1.0, 1.0, 1.0, 0.0], [-2.0, 2.0, 3.0, 0.0]])
    hyb = AccEqHybrids(human, np.stack([a, b]), np.array([0.0, 0.0]))
    d = (hyb.verdicts[0] - hyb.verdicts[1]).astype(float)
    pairs_of = {0: 3, 1: 3, 2: 3, 3: 1}
    items = item_pairs(human, a).item                                      # the segment of each comparison
    w = np.array([1.0 / (pairs_of[int(s)] * 4) for s in items])
    exact: dict[float, float] = {}
    for coins in itertools.product((0, 1), repeat=len(d)):              # literal: one coin per comparison
        value = round(float(np.sum(w * d * (1 - 2 * np.array(coins)))), 12)
        exact[value] = exact.get(value, 0.0) + 0.5 ** len(d)
    draws = np.round(hyb.deltas(0, 1, 400_000, np.random.default_rng(2)), 12)
    values, counts = np.unique(draws, return_counts=True)
    assert set(values.tolist()) <= set(exact)
    for v, c in zip(values, counts):
        assert c / len(draws) == pytest.approx(exact[v], abs=0.004)
    assert (d != 0).sum() >= 3
