"""acc_eq (tie-calibrated pairwise accuracy grouped by item) against a deliberately naive reference."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.metaeval.acc_eq import acc_eq


def naive_acc_eq(human: np.ndarray, metric: np.ndarray) -> tuple[Fraction | None, float]:
    """The rule read literally: plain loops over candidate thresholds, items and system pairs."""
    n_sys, n_items = human.shape
    candidates = {0.0}
    for s in range(n_items):
        for i in range(n_sys):
            for j in range(i + 1, n_sys):
                if not np.isnan(human[i, s] + human[j, s] + metric[i, s] + metric[j, s]):
                    candidates.add(abs(float(metric[i, s]) - float(metric[j, s])))
    best, best_eps = None, 0.0
    for eps in sorted(candidates):
        accuracies = []
        for s in range(n_items):
            agree = total = 0
            for i in range(n_sys):
                for j in range(i + 1, n_sys):
                    hi, hj, mi, mj = (float(v) for v in (human[i, s], human[j, s], metric[i, s], metric[j, s]))
                    if np.isnan(hi + hj + mi + mj):
                        continue
                    total += 1
                    human_tie = hi == hj
                    metric_tie = abs(mi - mj) <= eps
                    if human_tie and metric_tie:
                        agree += 1
                    elif not human_tie and not metric_tie and ((hi > hj) == (mi > mj)):
                        agree += 1
            if total:
                accuracies.append(Fraction(agree, total))
        if not accuracies:
            return None, 0.0
        average = sum(accuracies) / len(accuracies)
        if best is None or average > best:
            best, best_eps = average, eps
    return best, best_eps


def test_hand_computed_example():
    nan = np.nan
    human = np.array([[1.0, 3.0], [2.0, 1.0], [2.0, nan]])
    metric = np.array([[0.1, 0.2], [0.5, 0.9], [0.45, 0.3]])
    # item 1: pairs (0,1) and (0,2) ordered right, (1,2) a human tie with |Δm| = 0.05; item 2: one wrong pair.
    # ε = 0: (2/3 + 0)/2; ε = 0.05: (3/3 + 0)/2 = 1/2 (best); ε = 0.35: (2/3 + 0)/2; ...
    result = acc_eq(human, metric)
    assert result.acc_eq == pytest.approx(0.5, abs=1e-15)
    assert result.epsilon == abs(0.5 - 0.45)
    assert result.n_items == 2 and result.n_pairs == 4
    assert result.item_accuracy.tolist() == [1.0, 0.0]


def test_all_human_ties_choose_the_largest_gap():
    human = np.array([[1.0], [1.0], [1.0]])
    metric = np.array([[0.0], [1.0], [3.0]])
    result = acc_eq(human, metric)
    assert (result.acc_eq, result.epsilon) == (1.0, 3.0)


def test_smallest_epsilon_wins_a_tie_and_items_without_pairs_are_left_out():
    human = np.array([[1.0, 5.0, np.nan], [2.0, np.nan, 1.0]])
    metric = np.array([[0.0, 1.0, 2.0], [0.0, 2.0, 3.0]])
    # the only pair (item 1) is never right: a metric tie at every ε; items 2 and 3 have no pair
    result = acc_eq(human, metric)
    assert (result.acc_eq, result.epsilon, result.n_items) == (0.0, 0.0, 1)
    assert np.isnan(result.item_accuracy[1:]).all()


def test_no_pairs_at_all():
    result = acc_eq(np.array([[1.0], [np.nan]]), np.array([[1.0], [2.0]]))
    assert np.isnan(result.acc_eq) and result.n_items == 0


values = st.sampled_from([0.0, 0.1, 0.2, 0.3, 0.5, 1.0, 1.3, 2.0, np.nan])


@st.composite
def cases(draw):
    n_sys = draw(st.integers(2, 5))
    n_items = draw(st.integers(1, 6))
    human = np.array(draw(st.lists(st.sampled_from([0.0, 1.0, 2.0, 5.0, 0.1, np.nan]), min_size=n_sys * n_items,
                                   max_size=n_sys * n_items))).reshape(n_sys, n_items)
    metric = np.array(draw(st.lists(values, min_size=n_sys * n_items, max_size=n_sys * n_items))
                      ).reshape(n_sys, n_items)
    return human, metric


@settings(max_examples=300, deadline=None)
@given(cases())
def test_equals_the_naive_reference(case):
    human, metric = case
    expected, eps = naive_acc_eq(human, metric)
    result = acc_eq(human, metric)
    if expected is None:
        assert np.isnan(result.acc_eq)
        return
    assert result.acc_eq == float(expected)
    assert result.epsilon == eps


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 6), st.integers(1, 8))
def test_continuous_scores_equal_the_naive_reference(seed, n_sys, n_items):
    rng = np.random.default_rng(seed)
    human = rng.integers(0, 4, size=(n_sys, n_items)).astype(float) / 3.0   # MQM-like: many exact ties
    metric = rng.normal(size=(n_sys, n_items))
    metric[rng.random(metric.shape) < 0.15] = np.nan
    expected, eps = naive_acc_eq(human, metric)
    result = acc_eq(human, metric)
    if expected is None:
        assert np.isnan(result.acc_eq)
    else:
        assert (result.acc_eq, result.epsilon) == (float(expected), eps)
