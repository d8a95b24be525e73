"""Pairwise tests against scipy / straightforward reference computations; cluster rules."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from leaderboard.human.clusters import cluster_ends, cluster_numbers, cluster_spans, rank_ranges, wins_losses
from leaderboard.human.significance import (approximate_randomisation_matrix, mwu_greater_matrix,
                                      randomisation_draws, signed_rank_greater_matrix)


def scipy_mwu(samples):
    k = len(samples)
    out = np.full((k, k), np.nan)
    for i in range(k):
        for j in range(k):
            if i != j:
                out[i, j] = stats.mannwhitneyu(samples[i], samples[j], alternative="greater",
                                               method="asymptotic").pvalue
    return out


def test_mwu_matches_scipy_on_realistic_samples():
    rng = np.random.default_rng(7)
    # per-segment averages of z: many ties from averaging few judgments, unequal sizes
    samples = [np.round(rng.normal(0.05 * i, 1, rng.integers(40, 1500)), 2) for i in range(12)]
    ours = mwu_greater_matrix(samples)
    ref = scipy_mwu(samples)
    assert np.isnan(np.diag(ours)).all()
    off = ~np.eye(12, dtype=bool)
    np.testing.assert_allclose(ours[off], ref[off], rtol=1e-9, atol=1e-300)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(0, 6), min_size=1, max_size=25), min_size=2, max_size=5))
def test_mwu_matches_scipy_with_heavy_ties(lists):
    samples = [np.array(v, dtype=float) for v in lists]
    ours = mwu_greater_matrix(samples)
    ref = scipy_mwu(samples)
    off = ~np.eye(len(samples), dtype=bool)
    np.testing.assert_allclose(ours[off], ref[off], rtol=1e-9, atol=1e-12)


def test_mwu_degenerate_inputs():
    p = mwu_greater_matrix([np.array([1.0, 2.0]), np.array([]), np.array([np.nan, 3.0])])
    assert np.isnan(p[0, 1]) and np.isnan(p[1, 0])
    # NaN values are dropped: [1, 2] vs [3]
    assert p[0, 2] == pytest.approx(stats.mannwhitneyu([1, 2], [3], alternative="greater",
                                                        method="asymptotic").pvalue)
    # all values tied: no evidence either way
    q = mwu_greater_matrix([np.ones(5), np.ones(4)])
    assert q[0, 1] == pytest.approx(1.0) and q[1, 0] == pytest.approx(1.0)
    assert mwu_greater_matrix([np.ones(3)]).shape == (1, 1)


def paired_matrix(rng, k=5, m=120, missing=0.25):
    scores = np.round(rng.normal(0, 1, (k, m)) + 0.1 * np.arange(k)[:, None], 1)
    scores[rng.random((k, m)) < missing] = np.nan
    return scores


@pytest.mark.parametrize("correction", [False, True])
def test_signed_rank_matches_scipy_on_shared_segments(correction):
    rng = np.random.default_rng(3)
    scores = paired_matrix(rng)
    ours = signed_rank_greater_matrix(scores, correction=correction)
    k = scores.shape[0]
    for i in range(k):
        for j in range(k):
            if i == j:
                assert np.isnan(ours[i, j])
                continue
            shared = ~np.isnan(scores[i]) & ~np.isnan(scores[j])
            # differences of 1-decimal scores: rounded so that float noise does not split ties
            d = np.round(scores[i, shared] - scores[j, shared], 9)
            ref = stats.wilcoxon(d, alternative="greater", method="asymptotic", correction=correction).pvalue
            assert ours[i, j] == pytest.approx(ref, rel=1e-9)


def test_approximate_randomisation_matches_reference_loop():
    rng = np.random.default_rng(11)
    scores = paired_matrix(rng, k=4, m=60)
    trials, seed = 200, 99
    ours = approximate_randomisation_matrix(scores, trials=trials, seed=seed)
    k = scores.shape[0]
    for i in range(k):
        for j in range(i + 1, k):
            shared = ~np.isnan(scores[i]) & ~np.isnan(scores[j])
            a, b = scores[i, shared], scores[j, shared]
            observed = a.mean() - b.mean()
            swaps = randomisation_draws(seed, i, j, trials, len(a))
            at_least, at_most = 0, 0
            for t in range(trials):  # one trial at a time: swap the two systems' scores
                x = np.where(swaps[t], b, a)
                y = np.where(swaps[t], a, b)
                d = x.mean() - y.mean()
                at_least += d >= observed - 1e-12
                at_most += d <= observed + 1e-12
            assert ours[i, j] == pytest.approx((at_least + 1) / (trials + 1))
            assert ours[j, i] == pytest.approx((at_most + 1) / (trials + 1))


def test_approximate_randomisation_is_seeded():
    scores = paired_matrix(np.random.default_rng(5), k=3, m=40)
    a = approximate_randomisation_matrix(scores, trials=100, seed=1)
    assert np.array_equal(a, approximate_randomisation_matrix(scores, trials=100, seed=1), equal_nan=True)
    assert not np.array_equal(a, approximate_randomisation_matrix(scores, trials=100, seed=2), equal_nan=True)


def test_strong_difference_detected_by_every_test():
    rng = np.random.default_rng(0)
    base = rng.normal(0, 1, 300)
    scores = np.vstack([base + 1.0, base + rng.normal(0, 0.3, 300)])
    for p in (mwu_greater_matrix(list(scores)), signed_rank_greater_matrix(scores),
              approximate_randomisation_matrix(scores, trials=200)):
        assert p[0, 1] < 0.01 and p[1, 0] > 0.5


# cluster rules on a hand-made significance pattern (positions in Ave z order)
def beats_to_p(beats):
    p = np.where(np.array(beats, dtype=bool), 0.001, 0.5)
    np.fill_diagonal(p, np.nan)
    return p


def test_organisers_rule_wins_and_rank_ranges():
    # A beats C, D; B beats D; C beats nobody; D beats B (lower system beating a higher one)
    p = beats_to_p([[0, 0, 1, 1],
                    [0, 0, 0, 1],
                    [0, 0, 0, 0],
                    [0, 1, 0, 0]])
    wins, losses = wins_losses(p, 0.05)
    assert wins.tolist() == [2, 1, 0, 1] and losses.tolist() == [0, 1, 1, 2]
    lo, hi = rank_ranges(p, 0.05)
    assert lo.tolist() == [1, 2, 2, 3] and hi.tolist() == [2, 3, 4, 3]
    # organisers: a cluster ends after i iff wins(i) = N - i: 2 != 3, 1 != 2, 0 != 1 -> one cluster
    assert cluster_ends(p, 0.05, "organisers").tolist() == [False, False, False, True]


def test_organisers_and_strict_rules_can_differ():
    # B (position 2) beats A above it and D below it, but not C: wins(B) = 2 = N - 2, so the
    # organisers' rule ends a cluster after B although B does not beat C
    p = beats_to_p([[0, 0, 1, 1],
                    [1, 0, 0, 1],
                    [0, 0, 0, 1],
                    [0, 0, 0, 0]])
    assert cluster_ends(p, 0.05, "organisers").tolist() == [False, True, True, True]
    # strict: after 2 needs A, B > C, D (B > C fails); after 3 needs A, B, C > D (holds)
    assert cluster_ends(p, 0.05, "strict").tolist() == [False, False, True, True]
    numbers = cluster_numbers(cluster_ends(p, 0.05, "strict"))
    assert numbers.tolist() == [1, 1, 1, 2]
    start, end = cluster_spans(numbers)
    assert start.tolist() == [1, 1, 1, 4] and end.tolist() == [3, 3, 3, 4]
    # both rules agree when every system above beats every system below
    q = beats_to_p([[0, 0, 1, 1],
                    [0, 0, 1, 1],
                    [0, 0, 0, 0],
                    [0, 0, 0, 0]])
    assert cluster_ends(q, 0.05, "organisers").tolist() == cluster_ends(q, 0.05, "strict").tolist() \
        == [False, True, False, True]


def test_unknown_cluster_rule():
    with pytest.raises(ValueError):
        cluster_ends(beats_to_p([[0, 1], [0, 0]]), 0.05, "loose")


def test_mwu_low_memory_path_matches_scipy(monkeypatch):
    """Above a size limit the k x V count matrix is replaced by a per-sample pass; same values."""
    import leaderboard.human.significance as sig
    rng = np.random.default_rng(2)
    samples = [np.round(rng.normal(0.1 * i, 1, rng.integers(1, 300)), 1) for i in range(6)]
    monkeypatch.setattr(sig, "_DENSE_LIMIT", 0)
    ours = sig.mwu_greater_matrix(samples)
    ref = scipy_mwu(samples)
    off = ~np.eye(6, dtype=bool)
    np.testing.assert_allclose(ours[off], ref[off], rtol=1e-9, atol=1e-300)
