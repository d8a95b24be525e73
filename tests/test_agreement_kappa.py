"""Kappa coefficients against textbook values and independent hand computations."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from leaderboard.human import agreement as ag

# Fleiss' kappa worked example (10 items, 14 raters, 5 categories), as in the Wikipedia article
# "Fleiss' kappa": Pbar = 0.378, Pbar_e = 0.213, kappa = 0.210.
FLEISS_EXAMPLE = np.array([
    [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
])


def test_fleiss_textbook_example():
    k = ag.fleiss_kappa(FLEISS_EXAMPLE)
    assert k.p_agree == pytest.approx(0.378, abs=5e-4)
    assert k.p_chance == pytest.approx(0.213, abs=5e-4)
    assert k.kappa == pytest.approx(0.210, abs=5e-4)


def test_cohen_textbook_example():
    # 50 items: both yes 20, A yes / B no 5, A no / B yes 10, both no 15 -> po 0.7, pe 0.5, kappa 0.4
    a = np.array([1] * 20 + [1] * 5 + [0] * 10 + [0] * 15)
    b = np.array([1] * 20 + [0] * 5 + [1] * 10 + [0] * 15)
    k = ag.cohen_kappa(a, b)
    assert (k.p_agree, k.p_chance) == (pytest.approx(0.7), pytest.approx(0.5))
    assert k.kappa == pytest.approx(0.4)


@pytest.mark.parametrize("p_agree,kappa", [(0.7751, 0.6627), (0.6335, 0.4502),
                                           (0.8463, 0.7695), (0.6878, 0.5317)])
def test_bentivogli2011_table2_with_chance_one_third(p_agree, kappa):
    assert ag.kappa_from_agreement(p_agree, 1 / 3) == pytest.approx(kappa, abs=1.1e-4)


@pytest.mark.parametrize("k,p_agree,kappa", [
    # Graham et al. 2013, Table 2 (intra) and Table 3 (inter): every row satisfies Pr(e) = 1/k
    (5, 0.604, 0.505), (5, 0.597, 0.496), (5, 0.718, 0.647), (4, 0.646, 0.528), (4, 0.721, 0.629),
    (2, 0.852, 0.704), (2, 0.900, 0.800), (5, 0.295, 0.119), (4, 0.385, 0.180), (2, 0.668, 0.335),
])
def test_graham2013_tables_use_uniform_chance(k, p_agree, kappa):
    assert ag.kappa_from_agreement(p_agree, 1 / k) == pytest.approx(kappa, abs=1.5e-3)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=60))
def test_cohen_equals_confusion_matrix_formula(pairs):
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    table = np.zeros((4, 4))
    for x, y in pairs:
        table[x, y] += 1
    n = table.sum()
    po = np.trace(table) / n
    pe = float((table.sum(1) / n) @ (table.sum(0) / n))
    k = ag.cohen_kappa(a, b, 4)
    assert k.p_agree == pytest.approx(po)
    assert k.p_chance == pytest.approx(pe)
    if pe < 1:
        assert k.kappa == pytest.approx((po - pe) / (1 - pe))
    # two raters' Fleiss kappa is Scott's pi (pooled chance)
    counts = np.zeros((len(a), 4))
    counts[np.arange(len(a)), a] += 1
    counts[np.arange(len(a)), b] += 1
    f = ag.fleiss_kappa(counts)
    s = ag.cohen_kappa(a, b, 4, chance="pooled")
    assert f.p_agree == pytest.approx(s.p_agree) and f.p_chance == pytest.approx(s.p_chance)


def test_categories():
    np.testing.assert_array_equal(ag.to_categories([0, 24.9, 25, 50, 74, 75, 100], 4), [0, 0, 1, 2, 2, 3, 3])
    np.testing.assert_array_equal(ag.to_categories([0, 49, 50, 100], 2), [0, 0, 1, 1])
    np.testing.assert_array_equal(ag.to_categories([19.9, 20, 99, 100], 5), [0, 1, 4, 4])
    z = np.arange(100.0)
    cats = ag.to_percentile_categories(z, 5)
    assert np.bincount(cats).tolist() == [20] * 5


def test_fleiss_rejects_unequal_raters():
    with pytest.raises(ValueError):
        ag.fleiss_kappa(np.array([[1, 1], [2, 1]]))
