"""PERM-BOTH permutation test: vectorised draws equal a per-draw loop on the same swap masks."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from metrics.permutation import draw_swaps, permutation_matrix, permutation_samples


def _loop_perm(human, a, b, swaps, stat):
    """The straightforward way: z-normalise, swap, average per system, correlate — one draw at a time."""
    corr = (lambda x, y: stats.pearsonr(x, y)[0]) if stat == "pearson" else (lambda x, y: stats.kendalltau(x, y)[0])
    human = np.atleast_2d(human.T).T if human.ndim == 1 else human
    a = a[:, None] if a.ndim == 1 else a
    b = b[:, None] if b.ndim == 1 else b
    za, zb = (a - a.mean()) / a.std(), (b - b.mean()) / b.std()
    h = np.nanmean(human, axis=1)
    deltas = []
    for w in swaps:
        w = w[:, None] if w.ndim == 1 else w
        sa = np.where(w, zb, za).mean(axis=1)
        sb = np.where(w, za, zb).mean(axis=1)
        deltas.append(corr(h, sa) - corr(h, sb))
    return np.array(deltas)


@pytest.mark.parametrize("stat", ["pearson", "kendall"])
def test_segment_level_equals_loop(stat):
    rng = np.random.default_rng(0)
    s, n = 7, 50
    human = rng.normal(size=(s, n)) + np.linspace(0, 1, s)[:, None]
    human[rng.random((s, n)) < 0.3] = np.nan
    a = np.nan_to_num(human, nan=0.0) + rng.normal(size=(s, n))
    b = rng.normal(size=(s, n)) + 0.5 * np.linspace(0, 1, s)[:, None]
    swaps = draw_swaps((s, n), 80, seed=1)
    d_obs, d_star, _ = permutation_samples(human, {"a": a, "b": b}, stat=stat, swaps=swaps)
    np.testing.assert_allclose(d_star[0], _loop_perm(human, a, b, swaps, stat), atol=1e-10)


def test_system_level_equals_loop_and_p_value():
    rng = np.random.default_rng(2)
    h = rng.normal(size=12)
    a = h + 0.3 * rng.normal(size=12)
    b = h + 1.5 * rng.normal(size=12)
    swaps = draw_swaps((12,), 500, seed=4)
    loop = _loop_perm(h, a, b, swaps, "pearson")
    d_obs, _, _ = permutation_samples(h, {"a": a, "b": b}, swaps=swaps)
    delta = stats.pearsonr(h, a)[0] - stats.pearsonr(h, b)[0]
    assert d_obs[0] == pytest.approx(delta)
    mat = permutation_matrix(h, {"a": a, "b": b, "a2": a.copy()}, swaps=swaps)
    assert mat.loc["a", "b"] == pytest.approx(np.mean(loop >= delta - 1e-12))
    assert mat.loc["a", "b"] < 0.05
    assert mat.loc["b", "a"] > 0.9
    assert np.isnan(mat.loc["a", "a2"]) and np.isnan(mat.loc["a", "a"])


def test_null_p_values_are_not_extreme_on_average():
    # two equally noisy metrics: one-sided p-values should spread over (0, 1), mean near 0.5
    rng = np.random.default_rng(3)
    ps = []
    for k in range(40):
        h = rng.normal(size=15)
        ps.append(permutation_matrix(h, {"a": h + rng.normal(size=15), "b": h + rng.normal(size=15)},
                                     n_resamples=300, seed=k).loc["a", "b"])
    assert 0.3 < np.mean(ps) < 0.7
    assert np.mean(np.array(ps) < 0.05) <= 0.15
