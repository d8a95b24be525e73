"""System-level pairwise accuracy (Kocmi et al. 2021; the WMT22-24 system-level statistic).

System scores are the means over the segments where the system has both a human and a metric
score; a pair of systems agrees when the signs of the two score differences are equal (a pair
tied on both sides agrees). Accuracy = agreeing pairs / pairs.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..segment import pairwise_accuracy


def system_means(human: np.ndarray, metric: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-system means of both score sources over their shared cells (NaN: no shared cell)."""
    h = np.asarray(human, dtype=float)
    m = np.asarray(metric, dtype=float)
    ok = ~(np.isnan(h) | np.isnan(m))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(np.where(ok, h, np.nan), axis=1), np.nanmean(np.where(ok, m, np.nan), axis=1)


def system_accuracy(human: np.ndarray, metric: np.ndarray) -> float:
    """Pairwise accuracy of the system means (systems without a shared cell are left out)."""
    h, m = system_means(human, metric)
    keep = ~(np.isnan(h) | np.isnan(m))
    if keep.sum() < 2:
        return float("nan")
    return float(pairwise_accuracy(h[keep], m[keep]))
