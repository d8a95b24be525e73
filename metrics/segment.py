"""Segment-level metric validation with bootstrap CIs, and system-level pairwise accuracy.

* :func:`darr_tau` — the WMT17–20 "DA relative ranking" Kendall-like tau: for every source
  segment, every pair of system outputs whose raw human DA scores differ by at least 25 points
  is a pair; Concordant when the metric orders it as the humans do, Discordant otherwise
  (a metric tie counts as Discordant); tau = (C − D) / (C + D), pairs pooled over segments.
* :func:`segment_correlation` — Pearson or Kendall tau-b between human and metric segment
  scores with grouping ``none`` (all (system, segment) cells pooled), ``item`` (per segment
  across systems, then averaged) or ``system`` (per system across segments, then averaged).
* :func:`pairwise_accuracy` — share of system pairs that the metric orders as the humans do
  (Kocmi et al. 2021).

Bootstrap CIs resample source segments with replacement (one draw shared by all systems and
metrics) and never loop over resamples in Python: a draw is a count matrix ``(B, N)`` and every
statistic is written as sums over segments weighted by the counts (for Kendall tau-b as
quadratic forms ``wᵀ G w`` over the segments).

Segment scores are ``(S, N)`` arrays (systems × segments) with NaN where a cell is missing
(a human score not collected); DARR takes long per-output arrays.
"""

from __future__ import annotations

import warnings
from typing import Mapping

import numpy as np

from .bootstrap import DEFAULT_SEED, draw_indices, index_counts, percentile_interval

# --------------------------------------------------------------------------------------------
# DARR
# --------------------------------------------------------------------------------------------


def darr_pairs(segment: np.ndarray, human: np.ndarray, threshold: float = 25.0) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs ``(better, worse)`` of outputs of the same segment whose human scores differ by ≥ threshold.

    One row per output (``segment[i]`` its source segment, ``human[i]`` its raw DA score,
    averaged over repeated judgments beforehand).
    """
    segment = np.asarray(segment)
    human = np.asarray(human, dtype=float)
    _, codes = np.unique(segment, return_inverse=True)
    order = np.argsort(codes, kind="stable")
    codes_sorted = codes[order]
    n = len(order)
    firsts, lasts = [], []
    if n:
        max_group = int(np.bincount(codes_sorted).max())
        # pairs (k, k + d) inside one group, for each offset d up to the largest group size
        for d in range(1, max_group):
            k = np.arange(n - d)
            same = codes_sorted[k] == codes_sorted[k + d]
            firsts.append(order[k[same]])
            lasts.append(order[k[same] + d])
    i = np.concatenate(firsts) if firsts else np.empty(0, dtype=int)
    j = np.concatenate(lasts) if lasts else np.empty(0, dtype=int)
    diff = human[i] - human[j]
    keep = np.abs(diff) >= threshold
    i, j, diff = i[keep], j[keep], diff[keep]
    better = np.where(diff > 0, i, j)
    worse = np.where(diff > 0, j, i)
    return better, worse


def darr_tau(
    segment: np.ndarray,
    human: np.ndarray,
    metric: np.ndarray | Mapping[str, np.ndarray],
    *,
    threshold: float = 25.0,
    n_resamples: int = 0,
    seed: int | None = DEFAULT_SEED,
    alpha: float = 0.05,
) -> dict:
    """DARR Kendall-like tau of one metric (array) or several (mapping → dict of results).

    Returns ``{"tau", "concordant", "discordant", "n_pairs"}`` and, with ``n_resamples``, a
    ``tau_ci`` from resampling source segments.
    """
    if isinstance(metric, Mapping):
        return {name: darr_tau(segment, human, scores, threshold=threshold, n_resamples=n_resamples,
                               seed=seed, alpha=alpha) for name, scores in metric.items()}
    metric = np.asarray(metric, dtype=float)
    better, worse = darr_pairs(segment, human, threshold)
    conc = metric[better] > metric[worse]          # ties and reversals are discordant
    c, d = int(conc.sum()), int((~conc).sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = (c - d) / (c + d) if c + d else float("nan")
    out: dict = {"tau": tau, "concordant": c, "discordant": d, "n_pairs": c + d}
    if n_resamples:
        _, codes = np.unique(np.asarray(segment), return_inverse=True)
        nseg = int(codes.max()) + 1 if len(codes) else 0
        pair_seg = codes[better]
        c_seg = np.bincount(pair_seg[conc], minlength=nseg).astype(float)
        d_seg = np.bincount(pair_seg[~conc], minlength=nseg).astype(float)
        counts = index_counts(draw_indices(nseg, n_resamples, seed), nseg)
        cc, dd = counts @ c_seg, counts @ d_seg
        with np.errstate(invalid="ignore", divide="ignore"):
            taus = (cc - dd) / (cc + dd)
        out["tau_ci"] = tuple(float(v) for v in percentile_interval(taus, alpha))
    return out


# --------------------------------------------------------------------------------------------
# Segment-level correlations with grouping
# --------------------------------------------------------------------------------------------

def _masked_pearson(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Weighted Pearson r along the last axis (weights 0 drop a cell)."""
    n = w.sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mx = (w * x).sum(-1) / n
        my = (w * y).sum(-1) / n
        sxy = (w * x * y).sum(-1) - n * mx * my
        sxx = (w * x * x).sum(-1) - n * mx * mx
        syy = (w * y * y).sum(-1) - n * my * my
        r = sxy / np.sqrt(sxx * syy)
    r = np.where((sxx > 1e-12 * np.maximum(1, np.abs((w * x * x).sum(-1)))) &
                 (syy > 1e-12 * np.maximum(1, np.abs((w * y * y).sum(-1)))), r, np.nan)
    return np.clip(r, -1, 1)


def _pearson_from_sums(n, sx, sy, sxx, syy, sxy):
    with np.errstate(invalid="ignore", divide="ignore"):
        cxy = sxy - sx * sy / n
        cxx = sxx - sx * sx / n
        cyy = syy - sy * sy / n
        r = cxy / np.sqrt(cxx * cyy)
    ok = (cxx > 1e-12 * np.maximum(1, np.abs(sxx))) & (cyy > 1e-12 * np.maximum(1, np.abs(syy)))
    return np.clip(np.where(ok, r, np.nan), -1, 1)


def _masked_kendall(x: np.ndarray, y: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Kendall tau-b along the last axis over valid entries (for short rows, e.g. systems)."""
    n = x.shape[-1]
    iu, ju = np.triu_indices(n, k=1)
    pv = valid[..., iu] & valid[..., ju]
    sx = np.where(pv, np.sign(x[..., ju] - x[..., iu]), 0.0)
    sy = np.where(pv, np.sign(y[..., ju] - y[..., iu]), 0.0)
    num = (sx * sy).sum(-1)
    den = np.sqrt(np.abs(sx).sum(-1) * np.abs(sy).sum(-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def kendall_block_matrices(x: np.ndarray, y: np.ndarray, unit: np.ndarray, n_units: int,
                           chunk: int = 2048) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Block sums over units of the pair matrices of Kendall tau-b.

    For items i, j: S_ij = sign(x_i − x_j)·sign(y_i − y_j), A_ij = [x_i ≠ x_j], B_ij = [y_i ≠ y_j].
    Returns G_S, G_A, G_B with G[u, v] = Σ_{i in u, j in v} M_ij, so that when every unit u is
    taken w_u times (a bootstrap draw), tau-b = wᵀG_S w / √(wᵀG_A w · wᵀG_B w); with w = 1 it is
    the ordinary tau-b (copies of one item are tied on both sides and drop out, as in tau-b).
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    unit = np.asarray(unit)
    order = np.argsort(unit, kind="stable")
    x, y, unit = x[order], y[order], unit[order]
    # columns grouped by unit: reduceat over the start of each unit's run
    col_starts = np.flatnonzero(np.r_[True, unit[1:] != unit[:-1]]) if len(unit) else np.empty(0, dtype=int)
    col_units = unit[col_starts]
    gs = np.zeros((n_units, n_units))
    ga = np.zeros((n_units, n_units))
    gb = np.zeros((n_units, n_units))
    for start in range(0, len(x), chunk):
        sl = slice(start, start + chunk)
        dx = np.sign(x[sl, None] - x[None, :])
        dy = np.sign(y[sl, None] - y[None, :])
        u = unit[sl]
        row_starts = np.flatnonzero(np.r_[True, u[1:] != u[:-1]])
        rows = u[row_starts]                      # unique within the chunk (sorted by unit)
        cols = np.ix_(rows, col_units)
        for g, mat in ((gs, dx * dy), (ga, np.abs(dx)), (gb, np.abs(dy))):
            g[cols] += np.add.reduceat(np.add.reduceat(mat, col_starts, axis=1), row_starts, axis=0)
    return gs, ga, gb


def _quad(weights: np.ndarray, g: np.ndarray) -> np.ndarray:
    return ((weights @ g) * weights).sum(-1)


def _tau_from_blocks(weights: np.ndarray, gs, ga, gb) -> np.ndarray:
    num = _quad(weights, gs)
    den = np.sqrt(_quad(weights, ga) * _quad(weights, gb))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.clip(np.where(den > 0, num / np.where(den > 0, den, 1), np.nan), -1, 1)


def segment_correlation(
    human: np.ndarray,
    metric: np.ndarray,
    *,
    stat: str = "pearson",
    grouping: str = "none",
    n_resamples: int = 0,
    seed: int | None = DEFAULT_SEED,
    alpha: float = 0.05,
) -> dict:
    """Segment-level Pearson r or Kendall tau-b between ``(S, N)`` human and metric scores.

    ``grouping``: ``none`` pools every cell where both scores exist; ``item`` correlates the
    systems within each segment and averages over segments (undefined ones skipped); ``system``
    correlates the segments of each system and averages over systems. Returns ``{"value",
    "n_cells", "n_groups"}`` plus ``"ci"`` with ``n_resamples`` (segments resampled).
    """
    if stat not in ("pearson", "kendall"):
        raise ValueError("stat must be 'pearson' or 'kendall'")
    if grouping not in ("none", "item", "system"):
        raise ValueError("grouping must be 'none', 'item' or 'system'")
    h = np.asarray(human, dtype=float)
    m = np.asarray(metric, dtype=float)
    if h.shape != m.shape or h.ndim != 2:
        raise ValueError("human and metric scores must both be (systems, segments) arrays")
    valid = ~np.isnan(h) & ~np.isnan(m)
    h0 = np.where(valid, h, 0.0)
    m0 = np.where(valid, m, 0.0)
    s, n = h.shape
    counts = index_counts(draw_indices(n, n_resamples, seed), n) if n_resamples else None
    out: dict = {"stat": stat, "grouping": grouping, "n_cells": int(valid.sum())}
    samples = None

    if grouping == "item":
        # one correlation per segment (across systems)
        if stat == "pearson":
            per = _masked_pearson(h0.T, m0.T, valid.T.astype(float))
        else:
            per = _masked_kendall(h0.T, m0.T, valid.T)
        ok = ~np.isnan(per)
        out["n_groups"] = int(ok.sum())
        out["value"] = float(per[ok].mean()) if ok.any() else float("nan")
        if counts is not None:
            with np.errstate(invalid="ignore", divide="ignore"):
                samples = (counts @ np.where(ok, per, 0.0)) / (counts @ ok.astype(float))
    elif stat == "pearson":
        w = valid.astype(float)
        sums = [w, h0, m0, h0 * h0, m0 * m0, h0 * m0]
        if grouping == "system":
            per = _pearson_from_sums(*[a.sum(-1) for a in sums])
            out["n_groups"] = int((~np.isnan(per)).sum())
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                out["value"] = float(np.nanmean(per))
                if counts is not None:
                    per_b = _pearson_from_sums(*[counts @ a.T for a in sums])     # (B, S)
                    samples = np.nanmean(per_b, axis=-1)
        else:
            out["n_groups"] = 1
            out["value"] = float(_pearson_from_sums(*[a.sum() for a in sums]))
            if counts is not None:
                samples = _pearson_from_sums(*[counts @ a.sum(0) for a in sums])
    else:  # kendall, grouping none or system, via block quadratic forms over segments
        if grouping == "none":
            rows, cols = np.nonzero(valid)
            blocks = [kendall_block_matrices(h[rows, cols], m[rows, cols], cols, n)]
            units = [np.arange(n)]
        else:
            blocks, units = [], []
            for k in range(s):                    # a loop over systems, not resamples
                cols = np.nonzero(valid[k])[0]
                blocks.append(kendall_block_matrices(h[k, cols], m[k, cols], np.arange(len(cols)), len(cols)))
                units.append(cols)
        ones = [_tau_from_blocks(np.ones(len(u)), *g) for u, g in zip(units, blocks)]
        out["n_groups"] = int(np.sum(~np.isnan(ones)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            out["value"] = float(np.nanmean(ones))
            if counts is not None:
                per_b = np.stack([_tau_from_blocks(counts[:, u], *g) for u, g in zip(units, blocks)], axis=-1)
                samples = np.nanmean(per_b, axis=-1)
    if samples is not None:
        out["ci"] = tuple(float(v) for v in percentile_interval(samples, alpha))
    return out


# --------------------------------------------------------------------------------------------
# System-level pairwise accuracy
# --------------------------------------------------------------------------------------------

def _pair_diffs(scores: np.ndarray) -> np.ndarray:
    scores = np.asarray(scores, dtype=float)
    iu, ju = np.triu_indices(scores.shape[-1], k=1)
    return scores[..., iu] - scores[..., ju]


def pairwise_accuracy(human: np.ndarray, metric: np.ndarray) -> np.ndarray | float:
    """Share of system pairs whose order (sign of the score difference) the metric gets right.

    Works along the last axis (systems). A pair tied on both sides counts as agreement; a pair tied
    on one side only as disagreement (exact ties are rare with real system scores).
    """
    agree = np.sign(_pair_diffs(human)) == np.sign(_pair_diffs(metric))
    acc = agree.mean(axis=-1)
    return acc if np.ndim(acc) else float(acc)
