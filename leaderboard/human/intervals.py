"""Bootstrap intervals of system scores and rank stability, resampling the test set's segments.

Pure statistics (arrays in, arrays out; no pandas, no I/O), used by :mod:`leaderboard.human.ranking`
(Ave, Ave z) and :mod:`leaderboard.expert.ranking` (MQM).

A system's score is the mean, over the segments it was judged on, of its per-segment score
(repeats already averaged). A resample draws the test set's ``n`` segment ids with replacement;
every system's judgments of a drawn segment come along, as often as the segment was drawn. With
``values[s, g]`` the score of system ``s`` on segment ``g`` (NaN: not judged) and ``w[b, g]`` the
number of times segment ``g`` occurs in resample ``b``, the resampled score is the ratio

    sum_g w[b, g] * values[s, g] / sum_g w[b, g] * judged[s, g]

so all resamples of all systems come from two matrix products (``w @ values.T``), computed in
blocks of resamples to bound memory; no loop over resamples or judgments.
"""

from __future__ import annotations

import numpy as np

DEFAULT_RESAMPLES = 1000
DEFAULT_CONFIDENCE = 0.95
_BLOCK_CELLS = 4_000_000  # resamples x segments per block of the weight matrix (32 MB of float64)
_COUNT_CELLS = 200_000  # draws counted at once (their counts fit in the CPU's cache)


def segment_counts(n_segments: int, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """(resamples x segments) multinomial counts: how often each segment is drawn in each resample.

    Each row sums to ``n_segments`` (``n_segments`` uniform draws with replacement).
    """
    if n_segments == 0 or n_resamples == 0:
        return np.zeros((n_resamples, n_segments))
    dtype = np.int32 if n_resamples * n_segments < 2**31 else np.int64
    out = np.empty((n_resamples, n_segments))
    # counted a few rows at a time so that the counts being incremented stay in the CPU cache; the
    # generator's stream continues from one call to the next, so the draws are those of one call
    rows = max(1, _COUNT_CELLS // n_segments)
    for start in range(0, n_resamples, rows):
        k = min(rows, n_resamples - start)
        draws = rng.integers(0, n_segments, size=(k, n_segments), dtype=dtype)
        draws += (np.arange(k, dtype=dtype) * n_segments)[:, None]
        out[start:start + k] = np.bincount(draws.ravel(), minlength=k * n_segments).reshape(k, n_segments)
    return out


def bootstrap_means(values: np.ndarray | list[np.ndarray], n_resamples: int = DEFAULT_RESAMPLES,
                    seed: int = 12345) -> list[np.ndarray]:
    """Resampled per-system means of one or more (systems x segments) score matrices.

    ``values``: one matrix or a list of matrices with the same segment columns (e.g. raw and z);
    NaN marks a segment the system was not judged on. All matrices share the same draws. Returns
    one (resamples x systems) array per matrix; NaN where a resample holds none of a system's
    segments.
    """
    given = [np.asarray(v, dtype=float) for v in (values if isinstance(values, (list, tuple)) else [values])]
    # a matrix without a single judged cell (e.g. raw scores of a release read without its worker
    # mean/sd file) has no resampled means: NaN, and no columns in the product
    empty = [bool(np.isnan(m).all()) for m in given]
    result = [np.full((n_resamples, m.shape[0]), np.nan) for m in given]
    if all(empty):
        return result
    live = [m for m, e in zip(given, empty) if not e]
    out = _bootstrap_live(live, n_resamples, seed)
    for i, k in enumerate(k for k, e in enumerate(empty) if not e):
        result[k] = out[i]
    return result


def _bootstrap_live(mats: list[np.ndarray], n_resamples: int, seed: int) -> list[np.ndarray]:
    """:func:`bootstrap_means` of matrices that each hold at least one judged cell."""
    n_seg = mats[0].shape[1]
    rng = np.random.default_rng(seed)
    # one right-hand matrix for a single product per block: every matrix's sums, then its judged mask
    # (shared when two matrices have the same judged cells, e.g. raw and z of the same judgments)
    columns, layout, masks = [], [], []
    for m in mats:
        judged = ~np.isnan(m)
        columns.append(np.where(judged, m, 0.0).T)
        k = next((i for i, seen in enumerate(masks) if np.array_equal(seen, judged)), None)
        if k is None:
            masks.append(judged)
            k = len(masks) - 1
        layout.append(k)
    width = sum(m.shape[0] for m in mats)
    right = np.concatenate(columns + [mk.T.astype(float) for mk in masks], axis=1)
    starts = np.cumsum([0] + [m.shape[0] for m in mats])
    mask_starts = width + np.cumsum([0] + [mk.shape[0] for mk in masks])
    out = [np.empty((n_resamples, m.shape[0])) for m in mats]
    block = max(1, _BLOCK_CELLS // max(n_seg, 1))
    for start in range(0, n_resamples, block):  # blocks of resamples, to bound memory
        stop = min(n_resamples, start + block)
        both = segment_counts(n_seg, stop - start, rng) @ right
        for k in range(len(mats)):
            sums = both[:, starts[k]:starts[k + 1]]
            counts = both[:, mask_starts[layout[k]]:mask_starts[layout[k] + 1]]
            with np.errstate(divide="ignore", invalid="ignore"):
                out[k][start:stop] = sums / counts
    return out


def percentile_intervals(samples: np.ndarray, point: np.ndarray,
                         confidence: float = DEFAULT_CONFIDENCE) -> np.ndarray:
    """(systems x 2) percentile interval of each column of ``samples``, widened to contain ``point``.

    A percentile interval can miss the point estimate when the bootstrap distribution is skewed;
    the interval shown next to the point then includes it. Systems without finite samples get NaN.
    """
    samples = np.asarray(samples, dtype=float)
    point = np.asarray(point, dtype=float)
    tail = (1 - confidence) / 2
    out = np.full((samples.shape[1], 2), np.nan)
    ok = np.isfinite(samples).any(axis=0) & np.isfinite(point)
    if ok.any():
        lo, hi = np.empty(int(ok.sum())), np.empty(int(ok.sum()))
        chosen = samples[:, ok]
        gaps = np.isnan(chosen).any(axis=0)
        if not gaps.all():  # columns without NaN: np.quantile, the same numbers without nanquantile's
            lo[~gaps], hi[~gaps] = np.quantile(chosen[:, ~gaps], [tail, 1 - tail], axis=0)  # per-column loop
        if gaps.any():
            with np.errstate(invalid="ignore"):
                lo[gaps], hi[gaps] = np.nanquantile(chosen[:, gaps], [tail, 1 - tail], axis=0)
        out[ok, 0] = np.minimum(lo, point[ok])
        out[ok, 1] = np.maximum(hi, point[ok])
    return out


def rank_shares(samples: np.ndarray, higher_is_better: bool = True) -> np.ndarray:
    """(systems x ranks) share of resamples in which each system takes each rank (1 = best).

    Ranks order the systems within each resample by their resampled score (ties broken by column
    order; NaN last). Each row and each column sums to 1.
    """
    samples = np.asarray(samples, dtype=float)
    n_res, n_sys = samples.shape
    if n_res == 0 or n_sys == 0:
        return np.zeros((n_sys, n_sys))
    key = -samples if higher_is_better else samples.copy()
    key[np.isnan(key)] = np.inf
    order = np.argsort(key, axis=1, kind="stable")           # order[b, r] = system at rank r
    ranks = np.empty_like(order)
    ranks[np.arange(n_res)[:, None], order] = np.arange(n_sys)[None, :]
    cells = (np.arange(n_sys)[None, :] * n_sys + ranks).ravel()
    return np.bincount(cells, minlength=n_sys * n_sys).reshape(n_sys, n_sys) / n_res


def system_intervals(values: list[np.ndarray], points: list[np.ndarray], *, sort_by: int = 0,
                     higher_is_better: bool = True, n_resamples: int = DEFAULT_RESAMPLES, seed: int = 12345,
                     confidence: float = DEFAULT_CONFIDENCE) -> tuple[list[np.ndarray], np.ndarray]:
    """Intervals of each score matrix's system means and the rank shares of score ``sort_by``.

    ``values``: (systems x segments) matrices (NaN = not judged), ``points``: the point estimates
    (one per system) shown next to each interval. Returns (one (systems x 2) interval array per
    matrix, the (systems x ranks) rank-share matrix).
    """
    samples = bootstrap_means(values, n_resamples, seed)
    cis = [percentile_intervals(s, p, confidence) for s, p in zip(samples, points)]
    return cis, rank_shares(samples[sort_by], higher_is_better)
