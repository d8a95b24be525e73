"""Bootstrap confidence intervals for metric–human correlations, fully vectorised.

Two resampling schemes:

* **systems** (:func:`system_bootstrap_ci`): only system-level scores are known, so systems are
  drawn with replacement and the correlation recomputed (the same draws for every metric).
* **segments** (:func:`segment_bootstrap_ci`): segment-level human and metric scores are known,
  so source segments are drawn with replacement (the same draw for every system), both sides'
  system means are recomputed from the drawn segments and then correlated. This is the honest CI:
  it reflects the sampling noise of the test set and of the human judgments, which system
  resampling ignores. Optionally systems are resampled as well.

No Python loop runs over resamples: a draw of segment indices becomes a count matrix ``C``
(resamples × segments) and the resampled system sums are one matrix product ``X @ C.T``.
Intervals are percentile intervals; resamples where a correlation is undefined (NaN, e.g. a
constant resample) are left out of the percentiles.
"""

from __future__ import annotations

import warnings
from typing import Mapping, Sequence

import numpy as np

from .correlation import STATS, correlation

DEFAULT_SEED = 12345


def draw_indices(n: int, n_resamples: int = 1000, seed: int | None | np.random.Generator = DEFAULT_SEED) -> np.ndarray:
    """``(n_resamples, n)`` indices drawn uniformly with replacement from ``range(n)``."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    return rng.integers(0, n, size=(n_resamples, n))


def index_counts(indices: np.ndarray, n: int) -> np.ndarray:
    """How often each of ``n`` items occurs in each resample: ``(B, n)`` counts from ``(B, k)`` indices."""
    indices = np.asarray(indices)
    b = indices.shape[0]
    flat = (indices + (np.arange(b) * n)[:, None]).ravel()
    return np.bincount(flat, minlength=b * n).reshape(b, n).astype(float)


def percentile_interval(samples: np.ndarray, alpha: float = 0.05) -> np.ndarray:
    """Percentile interval along axis 0 (NaN samples ignored); returns ``[lo, hi]`` stacked on axis 0."""
    samples = np.asarray(samples, dtype=float)
    if samples.shape[0] == 0 or np.all(np.isnan(samples)):
        return np.full((2,) + samples.shape[1:], np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanpercentile(samples, [100 * alpha / 2, 100 * (1 - alpha / 2)], axis=0)


def _as_stack(metrics: Mapping[str, np.ndarray] | np.ndarray) -> tuple[list[str], np.ndarray]:
    if isinstance(metrics, Mapping):
        names = list(metrics)
        stack = np.stack([np.asarray(metrics[k], dtype=float) for k in names]) if names else np.empty((0,))
    else:
        stack = np.asarray(metrics, dtype=float)
        names = [str(i) for i in range(stack.shape[0])]
    return names, stack


# --------------------------------------------------------------------------------------------
# Resampling systems
# --------------------------------------------------------------------------------------------

def system_bootstrap_samples(
    human: np.ndarray,
    metrics: Mapping[str, np.ndarray] | np.ndarray,
    *,
    n_resamples: int = 1000,
    seed: int | None = DEFAULT_SEED,
    stats: Sequence[str] = STATS,
    indices: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Bootstrap distribution ``{stat: (n_metrics, B)}`` of the correlations, resampling systems."""
    human = np.asarray(human, dtype=float)
    _, stack = _as_stack(metrics)
    n = human.shape[0]
    idx = draw_indices(n, n_resamples, seed) if indices is None else np.asarray(indices)
    h = human[idx]                       # (B, n)
    m = stack[:, idx]                    # (K, B, n)
    return {stat: np.asarray(correlation(stat, h[None, :, :], m)) for stat in stats}


def system_bootstrap_ci(
    human: np.ndarray,
    metrics: Mapping[str, np.ndarray],
    *,
    n_resamples: int = 1000,
    seed: int | None = DEFAULT_SEED,
    alpha: float = 0.05,
    stats: Sequence[str] = STATS,
    indices: np.ndarray | None = None,
) -> dict[str, dict[str, tuple[float, float]]]:
    """Percentile CI ``{metric: {stat: (lo, hi)}}`` of each correlation, resampling systems."""
    names, _ = _as_stack(metrics)
    samples = system_bootstrap_samples(human, metrics, n_resamples=n_resamples, seed=seed, stats=stats,
                                       indices=indices)
    out: dict[str, dict[str, tuple[float, float]]] = {name: {} for name in names}
    for stat, values in samples.items():
        lo, hi = percentile_interval(values.T, alpha)
        for k, name in enumerate(names):
            out[name][stat] = (float(lo[k]), float(hi[k]))
    return out


# --------------------------------------------------------------------------------------------
# Resampling segments (and optionally systems)
# --------------------------------------------------------------------------------------------

def resampled_means(scores: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """System means after resampling segments.

    ``scores``: ``(..., S, N)`` segment scores (NaN = not judged); ``counts``: ``(B, N)``.
    Returns ``(B, ..., S)``; NaN where a system has no judged segment in a resample.
    """
    scores = np.asarray(scores, dtype=float)
    mask = ~np.isnan(scores)
    lead = scores.shape[:-1]
    flat = np.where(mask, scores, 0.0).reshape(-1, scores.shape[-1])
    sums = flat @ counts.T                                    # (prod(lead), B)
    if mask.all():
        n = counts.sum(axis=1)[None, :]
    else:
        n = mask.reshape(-1, scores.shape[-1]).astype(float) @ counts.T
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(n > 0, sums / np.where(n > 0, n, 1.0), np.nan)
    return np.moveaxis(means.reshape(lead + (counts.shape[0],)), -1, 0)


def segment_bootstrap_samples(
    human: np.ndarray,
    metrics: Mapping[str, np.ndarray] | np.ndarray,
    *,
    n_resamples: int = 1000,
    seed: int | None = DEFAULT_SEED,
    stats: Sequence[str] = STATS,
    resample_systems: bool = False,
    indices: np.ndarray | None = None,
    system_indices: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Bootstrap distribution ``{stat: (n_metrics, B)}`` of the system-level correlations.

    ``human``: ``(S, N)`` segment-level human scores (NaN where a system's segment was not
    judged); each metric: ``(S, N)`` segment-level metric scores. ``indices`` (``(B, N)``) and
    ``system_indices`` (``(B, S)``) let callers supply the draws (to compare implementations).
    """
    human = np.asarray(human, dtype=float)
    _, stack = _as_stack(metrics)
    s, n = human.shape
    rng = np.random.default_rng(seed)
    idx = draw_indices(n, n_resamples, rng) if indices is None else np.asarray(indices)
    counts = index_counts(idx, n)
    h = resampled_means(human, counts)           # (B, S)
    m = resampled_means(stack, counts)           # (B, K, S)
    if resample_systems or system_indices is not None:
        sidx = draw_indices(s, idx.shape[0], rng) if system_indices is None else np.asarray(system_indices)
        h = np.take_along_axis(h, sidx, axis=-1)
        m = np.take_along_axis(m, sidx[:, None, :], axis=-1)
    ok = ~np.isnan(h).any(axis=-1)                # resamples where every system has a human mean
    out = {}
    for stat in stats:
        vals = np.asarray(correlation(stat, h[:, None, :], m))      # (B, K)
        vals = np.where(ok[:, None], vals, np.nan)
        out[stat] = vals.T
    return out


def segment_bootstrap_ci(
    human: np.ndarray,
    metrics: Mapping[str, np.ndarray],
    *,
    n_resamples: int = 1000,
    seed: int | None = DEFAULT_SEED,
    alpha: float = 0.05,
    stats: Sequence[str] = STATS,
    resample_systems: bool = False,
    indices: np.ndarray | None = None,
) -> dict[str, dict[str, object]]:
    """System-level correlations with segment-resampling percentile CIs.

    Returns ``{metric: {"pearson": r, "pearson_ci": (lo, hi), ..., "n_systems": S}}``, where the
    point estimate correlates the full-data system means (NaN-aware).
    """
    human = np.asarray(human, dtype=float)
    names, stack = _as_stack(metrics)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        h_mean = np.nanmean(human, axis=-1)
        m_mean = np.nanmean(stack, axis=-1)
    samples = segment_bootstrap_samples(human, metrics, n_resamples=n_resamples, seed=seed, stats=stats,
                                        resample_systems=resample_systems, indices=indices)
    out: dict[str, dict[str, object]] = {}
    for k, name in enumerate(names):
        row: dict[str, object] = {}
        for stat in stats:
            lo, hi = percentile_interval(samples[stat][k], alpha)
            row[stat] = float(correlation(stat, h_mean, m_mean[k]))
            row[f"{stat}_ci"] = (float(lo), float(hi))
        row["n_systems"] = int(human.shape[0])
        out[name] = row
    return out


# --------------------------------------------------------------------------------------------
# Paired bootstrap test on the difference of two metrics' correlations
# --------------------------------------------------------------------------------------------

def paired_pvalues(samples: np.ndarray) -> np.ndarray:
    """One-sided paired bootstrap p-values from ``(K, B)`` resampled statistics (the same draws for
    every row): ``p[a, b]`` = share of the draws, among those where both are defined, in which a is
    not better than b (Δ* = s*_a − s*_b ≤ 0); small when a is better. NaN on the diagonal."""
    samples = np.asarray(samples, dtype=float)
    diff = samples[:, None, :] - samples[None, :, :]           # (K, K, B)
    valid = ~np.isnan(diff)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(valid, diff <= 0, False).sum(-1) / valid.sum(-1)
    np.fill_diagonal(p, np.nan)
    return p
