"""Correlation coefficients as plain functions over arrays: Pearson r, Spearman rho, Kendall tau-b.

They work on the last axis of arrays of any shape, so one call computes a correlation for every
bootstrap resample (or every metric) at once: ``pearson(h, m)`` with ``h.shape == m.shape == (B, n)``
returns ``B`` values. NaN marks an undefined correlation (a constant input). The resampling code
(:mod:`metrics.bootstrap`, :mod:`metrics.permutation`) sits above this module and calls it;
:mod:`metrics.validation` puts everything together for ``mtlb correlate``.
"""

from __future__ import annotations

import numpy as np

STATS = ("pearson", "spearman", "kendall")


# --------------------------------------------------------------------------------------------
# Vectorised correlation coefficients (along the last axis)
# --------------------------------------------------------------------------------------------

def pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray | float:
    """Pearson r along the last axis; NaN when either side is constant."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    xc = x - x.mean(axis=-1, keepdims=True)
    yc = y - y.mean(axis=-1, keepdims=True)
    num = (xc * yc).sum(axis=-1)
    den = np.sqrt((xc * xc).sum(axis=-1) * (yc * yc).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    r = np.clip(r, -1.0, 1.0)
    return r if r.ndim else float(r)


def average_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n along the last axis, ties get the average of their ranks (like scipy's rankdata)."""
    x = np.asarray(x, dtype=float)
    n = x.shape[-1]
    order = np.argsort(x, axis=-1, kind="stable")
    xs = np.take_along_axis(x, order, axis=-1)
    pos = np.broadcast_to(np.arange(n), xs.shape)
    new_group = np.ones(xs.shape, dtype=bool)
    new_group[..., 1:] = xs[..., 1:] != xs[..., :-1]
    # first position of each element's tie group (running maximum of group starts)
    start = np.maximum.accumulate(np.where(new_group, pos, 0), axis=-1)
    # last position: the same trick from the right
    last_in_group = np.ones(xs.shape, dtype=bool)
    last_in_group[..., :-1] = new_group[..., 1:]
    end_rev = np.maximum.accumulate(np.where(last_in_group, n - 1 - pos, 0)[..., ::-1], axis=-1)[..., ::-1]
    end = n - 1 - end_rev
    ranks_sorted = (start + end) / 2.0 + 1.0
    ranks = np.empty_like(ranks_sorted)
    np.put_along_axis(ranks, order, ranks_sorted, axis=-1)
    return ranks


def spearman(x: np.ndarray, y: np.ndarray) -> np.ndarray | float:
    """Spearman rho (Pearson r of average ranks) along the last axis."""
    return pearson(average_ranks(x), average_ranks(y))


def kendall(x: np.ndarray, y: np.ndarray) -> np.ndarray | float:
    """Kendall tau-b along the last axis (all pairs; meant for a few dozen systems, not thousands)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    n = x.shape[-1]
    iu, ju = np.triu_indices(n, k=1)
    sx = np.sign(x[..., ju] - x[..., iu])
    sy = np.sign(y[..., ju] - y[..., iu])
    num = (sx * sy).sum(axis=-1)
    den = np.sqrt(np.abs(sx).sum(axis=-1) * np.abs(sy).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    tau = np.clip(tau, -1.0, 1.0)
    return tau if tau.ndim else float(tau)


CORRELATIONS = {"pearson": pearson, "spearman": spearman, "kendall": kendall}


def correlation(name: str, x: np.ndarray, y: np.ndarray) -> np.ndarray | float:
    """Dispatch by name: ``pearson``, ``spearman`` or ``kendall`` (tau-b)."""
    try:
        return CORRELATIONS[name](x, y)
    except KeyError:
        raise ValueError(f"unknown correlation {name!r}; choose one of {', '.join(CORRELATIONS)}") from None
