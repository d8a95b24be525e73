"""PERM-BOTH significance among metrics for acc_eq and SPA, and the clusters that follow.

PERM-BOTH (WMT21+, METHOD.md §9) swaps two metrics' scores item by item with probability 1/2
and recomputes the difference of their statistics; the one-sided p that metric a beats metric b
is the share of draws with Δ* ≥ Δ. mt-metrics-eval resamples the same way for item-grouped
statistics: the unit that is swapped is a whole item (segment), i.e. all of one metric's scores
of that segment. Choices made here, and why:

- **acc_eq**: each metric keeps its own optimal ε (the tie threshold is a property of the
  metric's scale; re-optimising one ε over a mixture of two metrics' scores would compare
  numbers on different scales). Swapping a segment's scores then swaps that segment's item
  accuracies, so Δ* = mean_s σ_s (acc_a(s) − acc_b(s)) with random signs σ: one matrix product
  for every metric pair and draw. Segments that only one of the two metrics scores are left out.
- **SPA**: scores are z-normalised per metric (as PERM-BOTH does for correlations) and swapped
  per segment on the segments every metric and the human scores cover. Recomputing the 1000
  sign-flip p-values inside each of 1000 swaps (a million permutations per metric pair) is
  what makes the reference tool take hours; here each pair p-value uses the normal limit of the
  sign-flip distribution, P(Σ σ_s d_s ≥ T) ≈ Φ(−T / √Σ d_s²), whose sums are linear in the swap
  mask, so every draw of every metric pair again comes from matrix products. Observed and
  resampled Δ use that same formula, so the test is consistent; the SPA values reported in the
  table are the Monte-Carlo ones of :mod:`.spa`.

Clusters: :func:`metrics.clusters.metric_clusters` (walk metrics in score order; a new cluster
opens at a metric that any metric of the current cluster beats with p < alpha).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
from scipy.special import ndtr

from ..clusters import metric_clusters
from .spa import DEFAULT_DRAWS, DEFAULT_SEED, pair_differences


def _one_sided(observed: np.ndarray, permuted: np.ndarray, scale: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(share Δ* ≥ Δ, share Δ* ≤ Δ) per column, with a float tolerance relative to ``scale``."""
    tol = 1e-12 * np.maximum(scale, 1e-300)
    return (permuted >= observed - tol).mean(axis=0), (permuted <= observed + tol).mean(axis=0)


def _pvalue_frame(names: Sequence[str], a: np.ndarray, b: np.ndarray, p_ab: np.ndarray,
                  p_ba: np.ndarray) -> pd.DataFrame:
    values = np.full((len(names), len(names)), np.nan)
    values[a, b] = p_ab
    values[b, a] = p_ba
    return pd.DataFrame(values, index=list(names), columns=list(names))


def acc_eq_pvalues(item_accuracy: np.ndarray, names: Sequence[str], draws: int = DEFAULT_DRAWS,
                   seed: int = DEFAULT_SEED) -> pd.DataFrame:
    """One-sided PERM-BOTH p-values for acc_eq; ``item_accuracy`` is metrics × items (NaN = no pair).

    ``result.loc[a, b]`` = p that metric a has the higher acc_eq.
    """
    acc = np.asarray(item_accuracy, dtype=float)
    k, n = acc.shape
    a, b = np.triu_indices(k, k=1)
    both = ~(np.isnan(acc[a]) | np.isnan(acc[b]))
    diff = np.where(both, np.nan_to_num(acc[a]) - np.nan_to_num(acc[b]), 0.0)     # pairs × items
    count = np.maximum(both.sum(axis=1), 1)
    rng = np.random.default_rng(seed)
    signs = np.where(rng.random((draws, n)) < 0.5, -1.0, 1.0)
    permuted = (signs @ diff.T) / count                                           # draws × pairs
    observed = diff.sum(axis=1) / count
    p_ab, p_ba = _one_sided(observed, permuted, np.abs(diff).sum(axis=1) / count)
    return _pvalue_frame(names, a, b, p_ab, p_ba)


def _znorm(x: np.ndarray, ok: np.ndarray) -> np.ndarray:
    v = x[ok]
    sd = v.std() if v.size else 0.0
    return np.where(ok, (x - (v.mean() if v.size else 0.0)) / (sd if sd > 0 else 1.0), np.nan)


def _normal_p(total: np.ndarray, var: np.ndarray) -> np.ndarray:
    """P(Σ σ d ≥ T) in the normal limit; 1 when every difference is 0 (the sum is always T = 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        p = ndtr(-total / np.sqrt(var))
    return np.where(var > 0, p, 1.0)


def spa_pvalues(human: np.ndarray, metrics: np.ndarray, names: Sequence[str], draws: int = DEFAULT_DRAWS,
                seed: int = DEFAULT_SEED) -> tuple[pd.DataFrame, np.ndarray]:
    """One-sided PERM-BOTH p-values for SPA (module docstring); also the analytic SPA per metric.

    ``human``: systems × segments; ``metrics``: metrics × systems × segments (NaN = missing).
    """
    h = np.asarray(human, dtype=float)
    ms = np.asarray(metrics, dtype=float)
    ok = ~np.isnan(h) & ~np.isnan(ms).any(axis=0)
    hd = pair_differences(h, ok)                                  # segments × system pairs
    p_h = _normal_p(hd.sum(axis=0), (hd * hd).sum(axis=0))
    diffs = np.stack([pair_differences(_znorm(m, ok), ok) for m in ms])   # metrics × segments × pairs
    totals = diffs.sum(axis=1)                                    # metrics × pairs
    squares = (diffs * diffs).sum(axis=1)
    analytic = 1.0 - np.abs(p_h - _normal_p(totals, squares)).mean(axis=1)
    rng = np.random.default_rng(seed)
    take = (rng.random((draws, h.shape[1])) < 0.5).astype(float)  # 1: the segment is swapped
    g = np.einsum("ds,msp->mdp", take, diffs, optimize=True)      # swapped-in sums per metric
    q = np.einsum("ds,msp->mdp", take, diffs * diffs, optimize=True)
    k = len(ms)
    a, b = np.triu_indices(k, k=1)
    permuted = np.empty((draws, len(a)))
    for col, (i, j) in enumerate(zip(a, b)):
        t_a = totals[i] - g[i] + g[j]            # a keeps its unswapped segments, takes b's swapped ones
        v_a = squares[i] - q[i] + q[j]
        t_b = totals[i] + totals[j] - t_a
        v_b = squares[i] + squares[j] - v_a
        spa_a = 1.0 - np.abs(p_h - _normal_p(t_a, v_a)).mean(axis=1)
        spa_b = 1.0 - np.abs(p_h - _normal_p(t_b, v_b)).mean(axis=1)
        permuted[:, col] = spa_a - spa_b
    observed = analytic[a] - analytic[b]
    p_ab, p_ba = _one_sided(observed, permuted, np.ones_like(observed))
    return _pvalue_frame(names, a, b, p_ab, p_ba), analytic


def clusters(scores: dict[str, float], pvalues: pd.DataFrame, alpha: float = 0.05) -> list[dict]:
    """``[{"metric", "score", "cluster"}]`` in score order (see :func:`metrics.clusters.metric_clusters`)."""
    return metric_clusters(scores, pvalues, alpha)
