"""Soft pairwise accuracy (SPA, WMT24; mt-metrics-eval's ``PairwiseConfidenceError``).

For systems i and j, p(i, j) is the p-value of a paired sign-flip permutation test over
segments: each of ``draws`` permutations gives every segment one random sign (the same signs for
every pair, for the human and for the metric scores), and p(i, j) is the share of permutations
whose summed signed difference Σ_s σ_s (x_is − x_js) is at least the observed Σ_s (x_is − x_js).
SPA = 1 − mean over pairs i < j of |p_human(i, j) − p_metric(i, j)|.

A pair uses the segments on which both systems have a human and a metric score, so the human and
the metric p-values of a pair always come from the same segments. All pairs and permutations are
one matrix product: signs (draws × segments) @ differences (segments × pairs).
"""

from __future__ import annotations

import numpy as np

DEFAULT_DRAWS = 1000
DEFAULT_SEED = 12345


def sign_flips(n_segments: int, draws: int = DEFAULT_DRAWS, seed: int | np.random.Generator = DEFAULT_SEED
               ) -> np.ndarray:
    """``draws x n_segments`` random signs (±1.0), shared by every pair and both score sources."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    return np.where(rng.random((draws, n_segments)) < 0.5, -1.0, 1.0)


def pair_differences(scores: np.ndarray, usable: np.ndarray) -> np.ndarray:
    """segments × pairs (i < j) differences x_i − x_j, zero where the pair's segment is not usable."""
    i, j = np.triu_indices(scores.shape[0], k=1)
    both = usable[i] & usable[j]
    d = np.where(both, np.nan_to_num(scores[i]) - np.nan_to_num(scores[j]), 0.0)
    return d.T


def pair_pvalues(diffs: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """p per pair: share of sign-flip draws whose signed sum is ≥ the observed sum (segments × pairs in)."""
    observed = diffs.sum(axis=0)
    permuted = signs @ diffs                               # draws × pairs
    tol = 1e-9 * np.abs(diffs).sum(axis=0)                 # summation order must not decide "≥"
    return (permuted >= observed - tol).mean(axis=0)


def usable_cells(human: np.ndarray, metric: np.ndarray) -> np.ndarray:
    return ~(np.isnan(np.asarray(human, dtype=float)) | np.isnan(np.asarray(metric, dtype=float)))


def spa(human: np.ndarray, metric: np.ndarray, signs: np.ndarray | None = None, *,
        human_p: np.ndarray | None = None) -> float:
    """SPA of one metric (systems × segments arrays, NaN = missing; higher = better on both sides).

    ``signs``: :func:`sign_flips` (default: 1000 draws, seed 12345). ``human_p``: the human
    pair p-values when already computed for the same usable cells.
    """
    h = np.asarray(human, dtype=float)
    m = np.asarray(metric, dtype=float)
    if signs is None:
        signs = sign_flips(h.shape[1])
    ok = usable_cells(h, m)
    if human_p is None:
        human_p = pair_pvalues(pair_differences(h, ok), signs)
    metric_p = pair_pvalues(pair_differences(m, ok), signs)
    if metric_p.size == 0:
        return float("nan")
    return float(1.0 - np.abs(human_p - metric_p).mean())


def pvalue_matrix(scores: np.ndarray, signs: np.ndarray, usable: np.ndarray | None = None) -> np.ndarray:
    """k × k matrix of p(i, j) (row i better than column j), for display; diagonal NaN."""
    x = np.asarray(scores, dtype=float)
    ok = ~np.isnan(x) if usable is None else usable
    k = x.shape[0]
    i, j = np.triu_indices(k, k=1)
    d = pair_differences(x, ok)
    p = np.full((k, k), np.nan)
    p[i, j] = pair_pvalues(d, signs)
    p[j, i] = pair_pvalues(-d, signs)
    return p
