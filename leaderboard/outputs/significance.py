"""Paired bootstrap resampling between every pair of systems at once, equal to sacrebleu's.

sacrebleu (``sacrebleu.significance``, ``--paired-bs``) compares each system with one baseline:
it draws ``n`` resamples of segment indices with ``numpy.random.default_rng(seed).choice`` (the
same draws for every system), scores each resample from the summed sufficient statistics, and
reports the two-sided p-value ``(#{|Δ*| - mean|Δ*| > |Δ|} + 1) / (n + 1)``, where Δ is the
difference of the corpus scores and Δ* the resampled one; the 95% interval of a system is the
2.5% / 97.5% order statistics of its resampled scores (``estimate_ci``).

Here all systems share one draw, so the resampled scores are computed once per system (a count
matrix of the draws times the statistics matrix gives every resample's sums in one product) and
every pair's p-value follows from them; the arithmetic follows sacrebleu's dtypes step by step
(:mod:`.sacrestats`), so each p-value equals the one sacrebleu prints for that pair with either
system as the baseline. Sums are exact integers as long as they stay below 2**24 (float32).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from .sacrestats import N_STATS, SCORERS

DEFAULT_SEED = 12345
DEFAULT_RESAMPLES = 1000
_EXACT_FLOAT32 = 2 ** 24


@dataclass
class PairedBootstrap:
    """Result of :func:`paired_bootstrap` for one metric.

    ``scores``: corpus scores (sacrebleu's, from integer statistics); ``samples``: systems ×
    resamples; ``mean`` and ``ci`` (lower, upper) of each system's resampled scores; ``pvalues``:
    symmetric systems × systems two-sided p-values (NaN on the diagonal).
    """

    metric: str
    systems: list[str]
    scores: np.ndarray
    samples: np.ndarray
    mean: np.ndarray
    ci: np.ndarray
    pvalues: np.ndarray
    seed: int
    n_samples: int


def resample_indices(n_segments: int, n_samples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> np.ndarray:
    """sacrebleu's draws: ``default_rng(seed).choice(n_segments, size=(n_samples, n_segments))``."""
    rng = np.random.default_rng(seed)
    return rng.choice(n_segments, size=(n_samples, n_segments), replace=True)


def resampled_sums(stats: np.ndarray, idxs: np.ndarray) -> np.ndarray:
    """Per resample, the column sums of ``stats`` (segments × columns) over the drawn segments.

    Computed as (draw counts) @ stats in float64 — exact for integer statistics — and returned as
    float32 like sacrebleu's sums. When a sum reaches 2**24 float32 sums are no longer exact and
    depend on the order of addition, so sacrebleu's own order (``stats[idx].sum(0)``) is used.
    """
    stats = np.asarray(stats)
    n_samples, n = idxs.shape
    if stats.size and float(np.abs(stats).max()) * n >= _EXACT_FLOAT32:
        s32 = stats.astype(np.float32)
        return np.stack([s32[row].sum(0) for row in idxs])  # rare: a corpus of millions of n-grams
    out = np.empty((n_samples, stats.shape[1]), dtype=np.float64)
    chunk = max(1, int(2e7 // max(n, 1)))
    flat_stats = stats.astype(np.float64)
    for start in range(0, n_samples, chunk):
        part = idxs[start:start + chunk]
        rows = part.shape[0]
        flat = (part + (np.arange(rows) * n)[:, None]).ravel()
        counts = np.bincount(flat, minlength=rows * n).reshape(rows, n).astype(np.float64)
        out[start:start + rows] = counts @ flat_stats
    return out.astype(np.float32)


def corpus_score(metric: str, stats: np.ndarray) -> float:
    """The corpus score sacrebleu reports for integer statistics (its own scalar code)."""
    from metrics.scoring import make_metric
    totals = [int(v) for v in np.asarray(stats, dtype=np.int64).sum(axis=0)]
    return float(make_metric(metric)._compute_score_from_stats(totals).score)


def estimate_interval(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and (lower, upper) 95% bounds per row, with sacrebleu's order statistics (n//40)."""
    ordered = np.sort(samples, axis=1)
    n = samples.shape[1]
    lower = n // 40
    upper = n - lower - 1
    return samples.mean(axis=1), np.stack([ordered[:, lower], ordered[:, upper]], axis=1).astype(np.float64)


def pairwise_pvalues(samples: Sequence[np.ndarray], scores: Sequence[float]) -> np.ndarray:
    """Two-sided paired-bootstrap p-values of every pair (sacrebleu's ``_compute_p_value``).

    ``samples``: per system, its resampled scores in sacrebleu's dtype (float32 chrF, float64
    BLEU), so differences, their mean and the comparison round exactly as in sacrebleu.
    """
    k = len(samples)
    p = np.full((k, k), np.nan)
    if k < 2:
        return p
    scores = [float(s) for s in scores]
    pairs = np.array([(i, j) for i in range(k) for j in range(i + 1, k)])
    kinds = np.array([np.result_type(samples[i].dtype, samples[j].dtype).str for i, j in pairs])
    for kind in np.unique(kinds):  # one dtype in practice; chrF rows scoring exactly 0 turn float64
        a, b = pairs[kinds == kind].T
        stacked = np.stack([np.asarray(x, dtype=np.dtype(kind)) for x in samples])
        diffs = np.abs(stacked[b] - stacked[a])            # |system* - baseline*| per pair and resample
        centred = diffs - diffs.mean(axis=1, keepdims=True)
        real = np.array([abs(scores[i] - scores[j]) for i, j in zip(a, b)])
        # sacrebleu compares with a Python float, which numpy casts to the array's dtype
        count = (centred > real.astype(centred.dtype)[:, None]).sum(axis=1)
        values = (count + 1) / (diffs.shape[1] + 1)
        p[a, b] = values
        p[b, a] = values
    return p


def paired_bootstrap(stats: Mapping[str, np.ndarray], metric: str, *, n_samples: int = DEFAULT_RESAMPLES,
                     seed: int = DEFAULT_SEED) -> PairedBootstrap:
    """Scores, 95% intervals and all pairwise p-values of ``metric`` (bleu or chrf).

    ``stats``: per system, its segment statistics (segments × columns, sacrebleu's
    ``_extract_corpus_statistics`` against the same references); all systems need the same
    number of segments.
    """
    if metric not in SCORERS:
        raise ValueError(f"paired bootstrap supports {', '.join(SCORERS)}, not {metric!r}")
    systems = list(stats)
    arrays = [np.asarray(stats[s], dtype=np.int64) for s in systems]
    if not arrays:
        empty = np.zeros((0,))
        return PairedBootstrap(metric, [], empty, np.zeros((0, n_samples)), empty, np.zeros((0, 2)),
                               np.zeros((0, 0)), seed, n_samples)
    n = arrays[0].shape[0]
    for s, arr in zip(systems, arrays):
        if arr.shape != (n, N_STATS[metric]):
            raise ValueError(f"statistics of {s!r} have shape {arr.shape}, expected ({n}, {N_STATS[metric]})")
    idxs = resample_indices(n, n_samples, seed)
    width = N_STATS[metric]
    sums = resampled_sums(np.concatenate(arrays, axis=1), idxs)
    scorer = SCORERS[metric]
    samples = [scorer(sums[:, i * width:(i + 1) * width]) for i in range(len(systems))]
    scores = np.array([corpus_score(metric, arr) for arr in arrays])
    stacked = np.stack([s.astype(np.float64) for s in samples])
    mean, ci = estimate_interval(stacked)
    return PairedBootstrap(metric, systems, scores, stacked, mean, ci, pairwise_pvalues(samples, scores),
                           seed, n_samples)
