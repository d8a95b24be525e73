"""The signed-rank p over all 2^n sign flips (n ≤ 13, zeros or ties), computed at once with numpy, against
scipy's own permutation test (``scipy.stats.wilcoxon`` with ``PermutationMethod``) and a hand-worked case."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from leaderboard.human.significance import wilcoxon_pvalue


def _scipy_permutation(d: np.ndarray, alternative: str) -> float:
    return float(stats.wilcoxon(d, method=stats.PermutationMethod(), correction=False, zero_method="wilcox",
                                alternative=alternative).pvalue)


def _esa_like(rng: np.random.Generator, n: int) -> np.ndarray:
    """Differences of integer ESA-like scores (many zeros and ties), some as differences of segment means
    (thirds, halves) so that the comparison tolerance meets non-integer values; at least one zero or tie."""
    while True:
        scale = rng.choice([1.0, 1 / 3, 0.5, 5.0])
        d = (rng.integers(0, 101, n) - rng.integers(0, 101, n)) // rng.choice([1, 10, 25]) * scale
        nonzero = np.abs(d[d != 0])
        if len(nonzero) and (len(nonzero) < n or len(np.unique(nonzero)) < len(nonzero)):
            return d


def test_hand_worked_case():
    # d = [0, 1, -1, 2]: |d| ranks without the zero 1.5, 1.5, 3; observed R+ = 1.5 + 3 = 4.5.
    # Sign flips of the three non-zero values (the zero doubles every count): R+ in
    # {0, 1.5, 1.5, 3, 3, 4.5, 4.5, 6}; P(R+ ≥ 4.5) = 3/8, P(R+ ≤ 4.5) = 7/8, two-sided 2 · 3/8.
    d = np.array([0.0, 1.0, -1.0, 2.0])
    assert wilcoxon_pvalue(d, "greater") == pytest.approx(3 / 8, rel=1e-15)
    assert wilcoxon_pvalue(d, "less") == pytest.approx(7 / 8, rel=1e-15)
    assert wilcoxon_pvalue(d) == pytest.approx(3 / 4, rel=1e-15)
    assert wilcoxon_pvalue(-d, "greater") == pytest.approx(7 / 8, rel=1e-15)


def test_matches_scipy_permutation_on_many_small_samples():
    rng = np.random.default_rng(20240611)
    checked = 0
    for k in range(120):
        d = _esa_like(rng, int(rng.integers(2, 9)))
        for alternative in ("two-sided", "greater") + (("less",) if k % 3 == 0 else ()):
            expected = _scipy_permutation(d, alternative)
            assert wilcoxon_pvalue(d, alternative) == pytest.approx(expected, rel=1e-12, abs=0), (d, alternative)
            checked += 1
    assert checked == 280


@pytest.mark.parametrize("n", [9, 11, 13])  # scipy needs seconds per call at 13
def test_matches_scipy_permutation_up_to_thirteen(n):
    d = _esa_like(np.random.default_rng(n), n)
    for alternative in ("two-sided", "greater"):
        expected = _scipy_permutation(d, alternative)
        assert wilcoxon_pvalue(d, alternative) == pytest.approx(expected, rel=1e-12, abs=0), (d, alternative)


def test_extreme_and_degenerate_samples():
    # All differences one way with a zero and ties: the observed R+ is the largest of all patterns.
    d = np.array([0.0, 3.0, 3.0, 5.0, 5.0, 5.0, 7.0])
    for alternative in ("two-sided", "greater", "less"):
        assert wilcoxon_pvalue(d, alternative) == pytest.approx(_scipy_permutation(d, alternative), rel=1e-12)
    assert wilcoxon_pvalue(d, "greater") == pytest.approx(1 / 2 ** 6, rel=1e-15)
    # One non-zero difference among zeros: every pattern is as extreme as the observed one in one tail.
    d = np.array([0.0, 0.0, 0.0, -4.0])
    for alternative in ("two-sided", "greater", "less"):
        assert wilcoxon_pvalue(d, alternative) == pytest.approx(_scipy_permutation(d, alternative), rel=1e-12)
    # n = 1 never reaches the sign flips (scipy's permutation test refuses it): a zero gives 1, a
    # non-zero value the exact test.
    assert wilcoxon_pvalue(np.array([0.0])) == 1.0
    assert wilcoxon_pvalue(np.array([2.0]), "greater") == pytest.approx(
        stats.wilcoxon(np.array([2.0]), alternative="greater", method="exact").pvalue, rel=1e-12)
