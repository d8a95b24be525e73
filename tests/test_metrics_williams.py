"""Williams test: an independent implementation via the determinant of the 3×3 correlation matrix,
R psych's documented r.test example, and the matrix form."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats

from metrics.williams import williams_matrix, williams_test


def _independent(r12: float, r13: float, r23: float, n: int) -> tuple[float, float]:
    """Williams (1959) written from the correlation matrix: |R| is its determinant."""
    R = np.array([[1.0, r12, r13], [r12, 1.0, r23], [r13, r23, 1.0]])
    det_r = np.linalg.det(R)
    mean_r = 0.5 * (r12 + r13)
    numerator = (r12 - r13) * np.sqrt((n - 1) * (1 + r23))
    denominator = np.sqrt(2 * det_r * (n - 1) / (n - 3) + mean_r * mean_r * (1 - r23) ** 3)
    t = numerator / denominator
    return t, 1.0 - stats.t.cdf(t, df=n - 3)


def test_psych_r_test_documented_example():
    # psych::r.test(103, .4, .5, .1): "t value -0.89 with 100 df, probability 0.37" (two-sided)
    t, p = williams_test(0.4, 0.5, 0.1, 103)
    assert round(t, 2) == -0.89
    assert round(2 * min(p, 1 - p), 2) == 0.37


@settings(max_examples=60, deadline=None)
@given(st.integers(5, 60), st.floats(-0.95, 0.95), st.floats(-0.95, 0.95), st.floats(-0.9, 0.95))
def test_equals_determinant_form(n, r12, r13, r23):
    R = np.array([[1.0, r12, r13], [r12, 1.0, r23], [r13, r23, 1.0]])
    if np.linalg.eigvalsh(R).min() <= 1e-6:
        return      # not a valid correlation matrix
    t, p = williams_test(r12, r13, r23, n)
    t2, p2 = _independent(r12, r13, r23, n)
    assert t == pytest.approx(t2, rel=1e-9, abs=1e-9)
    assert p == pytest.approx(p2, rel=1e-7, abs=1e-12)


def test_vectorised_and_symmetric():
    t, p = williams_test(np.array([0.9, 0.8]), np.array([0.8, 0.9]), np.array([0.7, 0.7]), 12)
    assert t[0] == pytest.approx(-t[1])
    assert p[0] + p[1] == pytest.approx(1.0)
    assert p[0] < 0.5 < p[1]


def test_matrix_cells_are_the_pairwise_tests():
    rng = np.random.default_rng(7)
    h = rng.normal(size=12)
    metrics = {"a": h + 0.2 * rng.normal(size=12), "b": h + 0.8 * rng.normal(size=12),
               "c": rng.normal(size=12)}
    metrics["a_copy"] = metrics["a"].copy()
    mat = williams_matrix(h, metrics)
    assert np.isnan(mat.loc["a", "a_copy"]) and np.isnan(mat.loc["b", "b"])
    for x in "abc":
        for y in "abc":
            if x == y:
                continue
            r12 = stats.pearsonr(h, metrics[x])[0]
            r13 = stats.pearsonr(h, metrics[y])[0]
            r23 = stats.pearsonr(metrics[x], metrics[y])[0]
            assert mat.loc[x, y] == pytest.approx(_independent(r12, r13, r23, 12)[1], rel=1e-7)
    assert mat.loc["a", "c"] < 0.05 < 0.95 < mat.loc["c", "a"]
