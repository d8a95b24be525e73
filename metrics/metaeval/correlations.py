"""Pearson correlations of the WMT23 Metrics task, and Pairwise Difference Pearson (PDP).

- :func:`pearson` — Pearson's r; NaN for a constant vector (not scipy's warning and value).
- :func:`grouped_pearson` — the reference tool's ``average_by``: ``"none"`` one r over all cells;
  ``"item"`` / ``"sys"`` the mean of the per-segment / per-system r, rows with fewer than two human
  scores skipped and NaN rows dropped.
- :func:`pdp` — Pairwise Difference Pearson: in each row (as chosen by ``average_by``) every
  ordered pair of systems (r, c), r = c included, gives the differences x_c − x_r of the human and
  of the metric scores; all rows' differences are pooled into one vector each and ONE Pearson r is
  computed (the grouping decides which scores are paired, not how correlations are averaged).

Inputs are systems × segments arrays, NaN = missing (a human NaN removes the metric's cell too).
"""

from __future__ import annotations

import numpy as np


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson's r; NaN when a vector has fewer than two values or is constant."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    dx, dy = x - x.mean(), y - y.mean()
    r = float((dx * dy).sum() / np.sqrt((dx * dx).sum() * (dy * dy).sum()))
    return max(-1.0, min(1.0, r))


def _rows(human: np.ndarray, metric: np.ndarray, average_by: str) -> list[tuple[np.ndarray, np.ndarray]]:
    h = np.asarray(human, dtype=float)
    m = np.asarray(metric, dtype=float)
    if average_by == "none":
        return [(h.ravel(), m.ravel())]
    if average_by == "item":
        return list(zip(h.T, m.T))
    if average_by == "sys":
        return list(zip(h, m))
    raise ValueError(f"average_by must be none, item or sys, not {average_by!r}")


def grouped_pearson(human: np.ndarray, metric: np.ndarray, average_by: str = "none") -> float:
    """Pearson over all cells (``none``) or averaged over segments (``item``) / systems (``sys``)."""
    values = []
    for h, m in _rows(human, metric, average_by):
        ok = ~(np.isnan(h) | np.isnan(m))
        if ok.sum() >= 2:
            values.append(pearson(h[ok], m[ok]))
    values = [v for v in values if not np.isnan(v)]
    if not values:
        return float("nan")
    return float(np.mean(values))


def pdp(human: np.ndarray, metric: np.ndarray, average_by: str = "item") -> float:
    """Pairwise Difference Pearson (module docstring)."""
    h = np.asarray(human, dtype=float)
    m = np.asarray(metric, dtype=float)
    if average_by == "none":
        h, m = h.reshape(1, -1), m.reshape(1, -1)
    elif average_by == "item":
        h, m = h.T, m.T
    elif average_by != "sys":
        raise ValueError(f"average_by must be none, item or sys, not {average_by!r}")
    # rows × (r, c): x_c − x_r for every ordered pair of one row
    dh = (h[:, None, :] - h[:, :, None]).ravel()
    dm = (m[:, None, :] - m[:, :, None]).ravel()
    ok = ~(np.isnan(dh) | np.isnan(dm))
    return pearson(dh[ok], dm[ok])
