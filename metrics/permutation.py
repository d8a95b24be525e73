"""Paired permutation test on the difference of two metrics' correlations (PERM-BOTH, WMT21+).

Both metrics' scores are z-normalised (over all their items) so that they live on one scale; then,
in each draw, the two metrics' scores are swapped item by item with probability 0.5 and the
difference of their correlations with the human scores is recomputed. The one-sided p-value for
"a correlates better than b" is the share of draws with Δ* ≥ Δ (Δ = r(a) − r(b) on the real data).

Items are systems when only system scores are given (1-D arrays), or (system, segment) cells when
segment scores are given (``(S, N)`` arrays): then the swapped segment scores are averaged into
system scores before correlating, as for system-level correlations computed from segments.

Vectorised over draws and over all metric pairs: with one swap mask ``W`` shared by every pair,
the swapped system sums of every metric pair come from one batched matrix product
``T[s, b, k] = Σ_n W[b, s, n] · z_k[s, n]``.
"""

from __future__ import annotations

import warnings
from typing import Mapping

import numpy as np
import pandas as pd

from .correlation import correlation

DEFAULT_SEED = 12345


def draw_swaps(shape: tuple[int, ...], n_resamples: int = 1000,
               seed: int | None | np.random.Generator = DEFAULT_SEED) -> np.ndarray:
    """Boolean swap masks ``(n_resamples, *shape)``, each entry True with probability 0.5."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    return rng.random((n_resamples,) + tuple(shape)) < 0.5


def znorm(scores: np.ndarray) -> np.ndarray:
    """(x − mean) / sd over all entries (population sd); a constant input becomes all zeros."""
    x = np.asarray(scores, dtype=float)
    sd = x.std()
    return (x - x.mean()) / sd if sd > 0 else x - x.mean()


def _prepare(human: np.ndarray, metrics: Mapping[str, np.ndarray]) -> tuple[list[str], np.ndarray, np.ndarray]:
    names = list(metrics)
    human = np.asarray(human, dtype=float)
    stack = np.stack([np.asarray(metrics[k], dtype=float) for k in names])
    if human.ndim == 1:
        human = human[:, None]
        stack = stack[:, :, None]
    if stack.shape[1:] != human.shape:
        raise ValueError(f"metric scores have shape {stack.shape[1:]}, the human scores {human.shape}")
    if np.isnan(stack).any():
        raise ValueError("metric scores contain NaN; the permutation test needs every metric score")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)      # a system without human scores -> NaN
        h_sys = np.nanmean(human, axis=-1)
    z = np.stack([znorm(m) for m in stack])             # (K, S, N)
    return names, h_sys, z


def permutation_samples(
    human: np.ndarray,
    metrics: Mapping[str, np.ndarray],
    *,
    stat: str = "pearson",
    n_resamples: int = 1000,
    seed: int | None = DEFAULT_SEED,
    swaps: np.ndarray | None = None,
    pairs: list[tuple[int, int]] | None = None,
) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int]]]:
    """Observed Δ ``(P,)`` and permuted Δ* ``(P, B)`` for metric index pairs ``(i, j)`` (Δ = r_i − r_j).

    ``swaps``: optional ``(B, S)`` (system-level) or ``(B, S, N)`` boolean masks to reuse draws.
    ``pairs`` defaults to every ``i < j``.
    """
    names, h, z = _prepare(human, metrics)
    k, s, n = z.shape
    if pairs is None:
        pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    w = draw_swaps((s, n), n_resamples, seed) if swaps is None else np.asarray(swaps)
    if w.ndim == 2:
        w = w[:, :, None]
    totals = z.sum(axis=-1)                                           # (K, S)
    # T[s, b, k] = sum_n W[b, s, n] * z[k, s, n]
    # one matrix product per system (a short loop) keeps the float copy of the masks small
    t = np.stack([w[:, q, :].astype(float) @ z[:, q, :].T for q in range(s)])   # (S, B, K)
    ii = np.array([p[0] for p in pairs], dtype=int)
    jj = np.array([p[1] for p in pairs], dtype=int)
    # swapped sums: a* = a − W·a + W·b, b* = b − W·b + W·a
    t_i = t[:, :, ii]                                                  # (S, B, P)
    t_j = t[:, :, jj]
    a_star = (totals[ii].T[:, None, :] - t_i + t_j) / n                 # (S, B, P)
    b_star = (totals[jj].T[:, None, :] - t_j + t_i) / n
    a_star = np.moveaxis(a_star, 0, -1)                                # (B, P, S)
    b_star = np.moveaxis(b_star, 0, -1)
    d_star = np.asarray(correlation(stat, h, a_star)) - np.asarray(correlation(stat, h, b_star))
    means = z.mean(axis=-1)                                            # (K, S)
    d_obs = np.asarray(correlation(stat, h, means[ii])) - np.asarray(correlation(stat, h, means[jj]))
    return np.atleast_1d(d_obs), d_star.T, pairs


def permutation_matrix(
    human: np.ndarray,
    metrics: Mapping[str, np.ndarray],
    *,
    stat: str = "pearson",
    n_resamples: int = 1000,
    seed: int | None = DEFAULT_SEED,
    swaps: np.ndarray | None = None,
) -> pd.DataFrame:
    """One-sided PERM-BOTH p-values ``[a, b]`` (a correlates better than b) for every ordered pair.

    NaN on the diagonal and for metrics with identical scores.
    """
    names = list(metrics)
    k = len(names)
    p = np.full((k, k), np.nan)
    if k < 2:
        return pd.DataFrame(p, index=names, columns=names)
    d_obs, d_star, pairs = permutation_samples(human, metrics, stat=stat, n_resamples=n_resamples,
                                               seed=seed, swaps=swaps)
    tol = 1e-12
    upper = (d_star >= d_obs[:, None] - tol).mean(axis=1)     # i better than j
    lower = (d_star <= d_obs[:, None] + tol).mean(axis=1)     # j better than i
    for q, (i, j) in enumerate(pairs):
        same = np.array_equal(np.asarray(metrics[names[i]]), np.asarray(metrics[names[j]]))
        if not same:
            p[i, j] = upper[q]
            p[j, i] = lower[q]
    return pd.DataFrame(p, index=names, columns=names)
