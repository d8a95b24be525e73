"""Outlier systems by the median absolute deviation (Mathur, Baldwin & Cohn 2020, "Tangled up in BLEU").

A system is an outlier when its robust z-score |x − median| / (1.4826 · MAD) exceeds 2.5
(Leys et al. 2013); 1.4826 makes the MAD a consistent estimate of the standard deviation of
normal data. Apply it to the human system scores before correlating metrics with them.
"""

from __future__ import annotations

import numpy as np

MAD_SCALE = 1.4826


def robust_z(scores: np.ndarray, scale: float = MAD_SCALE) -> np.ndarray:
    """|x − median| / (scale · MAD); infinite for points off a zero MAD, 0 for points on it."""
    x = np.asarray(scores, dtype=float)
    med = np.median(x)
    mad = scale * np.median(np.abs(x - med))
    dev = np.abs(x - med)
    if mad == 0:
        return np.where(dev > 0, np.inf, 0.0)
    return dev / mad


def mad_outliers(scores: np.ndarray, threshold: float = 2.5, scale: float = MAD_SCALE) -> np.ndarray:
    """Boolean mask of the outlier systems (robust z-score > ``threshold``)."""
    return robust_z(scores, scale) > threshold
