"""Tie-calibrated pairwise accuracy (acc_eq), grouped by item, with the optimal tie threshold ε.

The rule (Deutsch et al. 2023; mt-metrics-eval ``KendallWithTiesOpt(variant='acc23',
average_by='item', sample_rate=1.0)``):

- per item (segment), every pair of systems that both have a human and a metric score;
- a human tie is exact equality of the two human scores; a metric tie is |Δmetric| ≤ ε;
- a pair agrees when both sides tie, or neither ties and the two orders match;
- the item's accuracy is agreeing pairs / its pairs; items without a pair are left out;
- acc_eq(ε) is the mean of the item accuracies; ε is 0 or one of the observed |Δmetric|,
  the smallest one that reaches the highest mean.

How (no loop over ε): as ε grows, a pair flips from "metric tie" to "no tie" exactly once, at
its own |Δmetric|. With the pairs sorted by |Δmetric| and each pair weighted by 1/(pairs of its
item), acc(ε) = W_humantie(|Δ| ≤ ε) + W_concordant(|Δ| > ε), two cumulative sums evaluated at
every candidate at once. Near-maximal candidates (float sums can differ in the last bit) are
compared again exactly, with integer counts and fractions, so ties between thresholds are broken
towards the smallest ε the way the rule says.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np


@dataclass
class Pairs:
    """All usable (item, system i < system j) pairs, flattened."""
    item: np.ndarray        # item (segment) index of each pair
    dist: np.ndarray        # |Δmetric|
    human_tie: np.ndarray   # Δhuman == 0
    concordant: np.ndarray  # no human tie, Δmetric ≠ 0 and the signs agree
    n_items: int            # items of the input (with or without pairs)


def item_pairs(human: np.ndarray, metric: np.ndarray) -> Pairs:
    """The pairs of systems × items arrays ``human`` and ``metric`` (NaN = missing)."""
    h = np.asarray(human, dtype=float)
    m = np.asarray(metric, dtype=float)
    if h.shape != m.shape or h.ndim != 2:
        raise ValueError(f"human {h.shape} and metric {m.shape} must both be systems x items")
    i, j = np.triu_indices(h.shape[0], k=1)
    dh = h[i] - h[j]                       # (pairs of systems, items)
    dm = m[i] - m[j]
    ok = ~(np.isnan(dh) | np.isnan(dm))
    item = np.broadcast_to(np.arange(h.shape[1]), dh.shape)[ok]
    dh, dm = dh[ok], dm[ok]
    tie = dh == 0
    return Pairs(item=item, dist=np.abs(dm), human_tie=tie,
                 concordant=~tie & (dm != 0) & ((dm > 0) == (dh > 0)), n_items=h.shape[1])


@dataclass
class AccEq:
    acc_eq: float
    epsilon: float
    item_accuracy: np.ndarray   # per item at the chosen ε (NaN: item without a pair)
    n_items: int                # items with at least one pair
    n_pairs: int


def _exact_mean(p: Pairs, eps: float, per_item_n: np.ndarray, used: np.ndarray) -> Fraction:
    """The mean item accuracy at ``eps`` as an exact fraction."""
    agree = (p.human_tie & (p.dist <= eps)) | (p.concordant & (p.dist > eps))
    counts = np.bincount(p.item[agree], minlength=p.n_items)[used]
    n = per_item_n[used]
    total = Fraction(0)
    for value in np.unique(n):
        total += Fraction(int(counts[n == value].sum()), int(value))
    return total / int(used.sum())


def acc_eq(human: np.ndarray, metric: np.ndarray, *, tolerance: float = 1e-9) -> AccEq:
    """acc_eq and its ε for systems × items arrays (see the module docstring)."""
    p = item_pairs(human, metric)
    per_item_n = np.bincount(p.item, minlength=p.n_items)
    used = per_item_n > 0
    n_used = int(used.sum())
    if n_used == 0:
        return AccEq(float("nan"), 0.0, np.full(p.n_items, np.nan), 0, 0)
    w = 1.0 / per_item_n[p.item]
    order = np.argsort(p.dist, kind="stable")
    d_sorted = p.dist[order]
    cands = np.unique(np.concatenate([[0.0], d_sorted]))
    upto = np.searchsorted(d_sorted, cands, side="right")  # pairs with |Δ| ≤ candidate
    cum_tie = np.concatenate([[0.0], np.cumsum(np.where(p.human_tie[order], w[order], 0.0))])
    cum_con = np.concatenate([[0.0], np.cumsum(np.where(p.concordant[order], w[order], 0.0))])
    acc = (cum_tie[upto] + (cum_con[-1] - cum_con[upto])) / n_used
    near = np.flatnonzero(acc >= acc.max() - tolerance)
    if len(near) == 1:
        best_eps, best = float(cands[near[0]]), None
    else:
        exact = [_exact_mean(p, float(cands[k]), per_item_n, used) for k in near]
        top = max(exact)
        k = next(k for k, e in zip(near, exact) if e == top)  # the smallest ε reaching the maximum
        best_eps, best = float(cands[k]), top
    agree = (p.human_tie & (p.dist <= best_eps)) | (p.concordant & (p.dist > best_eps))
    per_item = np.bincount(p.item[agree], minlength=p.n_items) / np.where(used, per_item_n, 1)
    per_item = np.where(used, per_item, np.nan)
    value = float(best) if best is not None else float(_exact_mean(p, best_eps, per_item_n, used))
    return AccEq(value, best_eps, per_item, n_used, len(p.item))
