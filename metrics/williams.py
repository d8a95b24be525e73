"""Williams test for the difference between two dependent correlations (Graham & Baldwin 2014).

Metric A and metric B are both correlated with the same human scores H over the same n systems,
so the two correlations are dependent; the Williams test (Williams 1959, as in R's
``psych::r.test(n, r12, r13, r23)``) accounts for the correlation between the metrics:

    r12 = r(H, A), r13 = r(H, B), r23 = r(A, B)
    |R| = 1 − r12² − r13² − r23² + 2·r12·r13·r23,  r̄ = (r12 + r13) / 2
    t = (r12 − r13)·√((n − 1)(1 + r23)) / √(2·(n − 1)/(n − 3)·|R| + r̄²·(1 − r23)³),  df = n − 3

The p-value is one-sided, P(T > t): small when A correlates better than B.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd
from scipy import stats as _st


def williams_test(r12, r13, r23, n) -> tuple:
    """Williams t statistic and one-sided p-value (H1: r12 > r13); works element-wise on arrays."""
    r12 = np.asarray(r12, dtype=float)
    r13 = np.asarray(r13, dtype=float)
    r23 = np.asarray(r23, dtype=float)
    n = np.asarray(n, dtype=float)
    det = 1.0 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2.0 * r12 * r13 * r23
    rbar = (r12 + r13) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        t = (r12 - r13) * np.sqrt((n - 1.0) * (1.0 + r23)) / np.sqrt(
            2.0 * (n - 1.0) / (n - 3.0) * det + rbar ** 2 * (1.0 - r23) ** 3)
        p = _st.t.sf(t, n - 3.0)
    if t.ndim == 0:
        return float(t), float(p)
    return t, p


def williams_matrix(human: np.ndarray, metrics: Mapping[str, np.ndarray]) -> pd.DataFrame:
    """One-sided Williams p-values for every ordered pair of metrics.

    Cell ``[a, b]`` is the p-value for "metric a correlates (Pearson) better with ``human`` than
    metric b" (close to 1 when a's correlation is the lower one). NaN on the diagonal and for pairs
    of metrics whose scores are identical (the test is undefined there).
    """
    names = list(metrics)
    human = np.asarray(human, dtype=float)
    if not names:
        return pd.DataFrame(dtype=float)
    stack = np.stack([np.asarray(metrics[k], dtype=float) for k in names])
    n = human.shape[0]
    full = np.corrcoef(np.vstack([human[None, :], stack]))
    rh = full[0, 1:]                           # r(H, metric)
    rmm = full[1:, 1:]                         # r(metric, metric)
    r12 = rh[:, None] * np.ones_like(rmm)
    r13 = rh[None, :] * np.ones_like(rmm)
    _, p = williams_test(r12, r13, rmm, n)
    p = np.asarray(p, dtype=float)
    same = (stack[:, None, :] == stack[None, :, :]).all(axis=-1)
    p[same] = np.nan
    return pd.DataFrame(p, index=names, columns=names)
