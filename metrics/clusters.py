"""Metric significance clusters (ranks), WMT Metrics task practice.

Metrics are walked in descending order of their correlation with the human scores. A new
cluster opens at metric i when any metric of the current cluster (from the cluster's first
metric down to i − 1) is significantly better than i (p < alpha in a one-sided test such as
Williams or PERM-BOTH). All metrics of one cluster share its rank.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd


def metric_clusters(scores: Mapping[str, float], pvalues: pd.DataFrame, alpha: float = 0.05) -> list[dict]:
    """Greedy clusters in score order.

    ``scores``: metric → correlation (higher is better; NaN sorts last). ``pvalues[a][b]``
    (row a, column b): one-sided p that a is better than b; NaN counts as "not better".
    Returns ``[{"metric", "score", "cluster"}]`` in score order, clusters numbered from 1.
    """
    order = sorted(scores, key=lambda m: -np.nan_to_num(float(scores[m]), nan=-np.inf))
    out: list[dict] = []
    cluster = 1
    start = 0
    for i, metric in enumerate(order):
        beaten = any(
            np.isfinite(p := float(pvalues.loc[other, metric])) and p < alpha
            for other in order[start:i]
        )
        if beaten:
            cluster += 1
            start = i
        out.append({"metric": metric, "score": float(scores[metric]), "cluster": cluster})
    return out
