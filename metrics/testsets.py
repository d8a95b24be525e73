"""Comparing test sets (or reference sets) by percentage of baseline and agreement of system orders.

Absolute scores are not comparable across test sets: BLEU on a single reference is much lower
than on four, and a new test set may be harder. Bloodgood & Callison-Burch (2010)
therefore compare test sets by *percentage of baseline*: each system's score divided by a chosen
baseline system's score on the same test set (the baseline is 100%). A test set is a good
substitute for another when these percentages, and the order of the systems, are kept; the
order agreement is measured here by Spearman's rho between the two test sets' scores.

All functions are pure: a systems × test sets frame in, frames out.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats

from leaderboard.errors import InputError


def percent_of_baseline(scores: pd.DataFrame, baseline: str) -> pd.DataFrame:
    """100 × score / baseline's score, per test set (column); the baseline row is 100.

    For a lower-is-better metric (TER) the ratio keeps its meaning (below 100% = fewer errors
    than the baseline) but the order is reversed; compare like with like.
    """
    if baseline not in scores.index:
        raise InputError(f"baseline system {baseline!r} is not among the systems ({', '.join(map(str, scores.index))})",
                         column="system")
    base = scores.loc[baseline].astype(float)
    bad = base.isna() | (base == 0)
    if bad.any():
        raise InputError(f"the baseline {baseline!r} has no non-zero score on {', '.join(map(str, base.index[bad]))}",
                         column="score")
    return scores.astype(float).div(base, axis=1) * 100.0


def order_agreement(scores: pd.DataFrame, reference: str | None = None) -> pd.DataFrame:
    """Spearman's rho between the system orders of test sets (columns).

    Every pair of columns, or each column against ``reference``. Systems missing (NaN) from
    either column are left out of that pair. Returns columns a, b, n, rho, p (two-sided).
    """
    cols = list(scores.columns)
    if reference is not None:
        if reference not in cols:
            raise InputError(f"reference test set {reference!r} is not among {', '.join(map(str, cols))}")
        pairs = [(reference, c) for c in cols if c != reference]
    else:
        pairs = list(combinations(cols, 2))
    rows = []
    for a, b in pairs:
        both = scores[[a, b]].astype(float).dropna()
        n = len(both)
        if n >= 3 and both[a].nunique() > 1 and both[b].nunique() > 1:
            res = stats.spearmanr(both[a], both[b])
            rho, p = float(res.statistic), float(res.pvalue)
        else:
            rho, p = np.nan, np.nan
        rows.append({"a": a, "b": b, "n": n, "rho": rho, "p": p})
    return pd.DataFrame(rows, columns=["a", "b", "n", "rho", "p"])


def compare_testsets(scores: pd.DataFrame, baseline: str, reference: str | None = None) -> dict:
    """Scores, percentages of ``baseline`` and Spearman agreement in one result.

    Also reports, per test set, the largest absolute difference of a system's percentage from
    the ``reference`` test set (how well the percentages are kept), when a reference is given.
    """
    pct = percent_of_baseline(scores, baseline)
    out = {"baseline": baseline, "reference": reference, "scores": scores, "percent": pct,
           "agreement": order_agreement(scores, reference)}
    if reference is not None:
        out["max_percent_shift"] = (pct.sub(pct[reference], axis=0).abs().max(axis=0)).drop(reference)
    return out
