"""AutoRank: the automatic ranking the WMT General MT task puts on every submission, and the
organisers' rules for choosing which systems go to human evaluation.

Two generations (Kocmi et al. 2024 for WMT24; the WMT25 preliminary ranking, 2025):

* **WMT24** — system-level MetricX-23-XL and CometKiwi-DA-XL. Each metric is rescaled to
  ``r = 1 + N·(x − best)/(worst − best)`` over the N systems of the pair (the best system gets 1,
  the worst N + 1) and AutoRank is the mean of the rescaled metrics.
* **WMT25** — per metric the system's mean over every paragraph of the pair, robust-scaled
  ``z = (x − median)/max(ε, P100 − P25)`` across systems, averaged over the metrics, and the average
  mapped linearly onto 1 … N (best 1, worst N). The metrics are GEMBA-ESA-CMDA, GEMBA-ESA-GPT4.1,
  MetricX-24-Hybrid-XL, XCOMET-XL and CometKiwi-XL; a pair without a human reference leaves
  CometKiwi-XL out; targets none of those models covers (Bhojpuri, Maasai) use chrF++ alone.

Selection for human evaluation:

* **WMT24** — systems in AutoRank order. A closed system ranked below the first third (position
  > round(N/3)) and an open-weights one below the first two thirds (position > round(2N/3)) are
  left out; constrained systems stay. Systems past the first gap of more than 1.5 AutoRank points
  between neighbours (over all systems) are left out too.
* **WMT25** — the 8 best constrained systems by AutoRank, then the best of all others until 18.

Everything here is a pure function of frames and arrays (no files, no store).
"""

from __future__ import annotations

import math
import re
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from leaderboard.errors import InputError

PROTOCOLS = ("wmt24", "wmt25")
WMT24_METRICS: tuple[str, ...] = ("MetricX-23-XL", "CometKiwi-DA-XL")
WMT25_METRICS: tuple[str, ...] = ("GEMBA-ESA-CMDA", "GEMBA-ESA-GPT4.1", "MetricX-24-Hybrid-XL", "XCOMET-XL",
                                  "CometKiwi-XL")
#: WMT25: the metric a pair without a human reference leaves out.
WMT25_NO_REFERENCE_DROPS: tuple[str, ...] = ("CometKiwi-XL",)
#: WMT25: target languages (ISO 639 codes) that none of the neural metrics covers; they use chrF++ alone.
WMT25_CHRF_ONLY_TARGETS: frozenset[str] = frozenset({"bho", "mas"})
WMT25_CHRF: tuple[str, ...] = ("chrF++",)
#: WMT25's robust scale floor (the spread P100 − P25 never goes below it).
WMT25_EPSILON = 1e-9
WMT24_GAP = 1.5
WMT25_CONSTRAINED = 8
WMT25_TOTAL = 18

#: System categories of the selection rules. The inputs' spellings (the WMT24 AutoRank sheet writes
#: ``closed-system``, ``open-source``, ``constrained``) map onto these.
CATEGORIES = ("constrained", "open", "closed")
_CATEGORY_ALIASES = {
    "constrained": "constrained", "constrained-system": "constrained",
    "open": "open", "open-source": "open", "open-weights": "open", "open-weight": "open", "opensource": "open",
    "closed": "closed", "closed-system": "closed", "closed-source": "closed", "unconstrained": "closed",
    "proprietary": "closed",
}


def category(text: object) -> str | None:
    """``"closed-system"`` → ``"closed"``, ``"open-source"`` → ``"open"``…; None for an empty cell; InputError otherwise.

    ``unconstrained`` counts as closed: WMT25's rule only asks whether a system is constrained, and
    an unconstrained system of unknown openness must not profit from WMT24's open-weights allowance.
    """
    if text is None or (isinstance(text, float) and math.isnan(text)):
        return None
    key = re.sub(r"[\s_]+", "-", str(text).strip().lower())
    if not key:
        return None
    if key not in _CATEGORY_ALIASES:
        raise InputError(f"system type {text!r} is not one of constrained, open-source, closed-system", column="type")
    return _CATEGORY_ALIASES[key]


def metrics_for(protocol: str, lp: str | None = None, reference: bool = True) -> tuple[str, ...]:
    """The metrics AutoRank of ``protocol`` uses for ``lp`` (``reference``: the pair has a human reference)."""
    if protocol == "wmt24":
        return WMT24_METRICS
    if protocol != "wmt25":
        raise InputError(f"unknown AutoRank protocol {protocol!r} (choose from {', '.join(PROTOCOLS)})",
                         column="protocol")
    if lp is not None:
        from leaderboard.languages import target_language
        if target_language(lp) in WMT25_CHRF_ONLY_TARGETS:
            return WMT25_CHRF
    if not reference:
        return tuple(m for m in WMT25_METRICS if m not in WMT25_NO_REFERENCE_DROPS)
    return WMT25_METRICS


# ---- directions ---------------------------------------------------------------------------------
_ERROR_METRICS = re.compile(r"^metricx", re.IGNORECASE)            # 0 (perfect) … 25 error scores
_UNIT_METRICS = re.compile(r"^(comet-?kiwi|xcomet)", re.IGNORECASE)  # similarity in [0, 1]


def higher_is_better(name: str, values: Sequence[float]) -> bool:
    """Whether higher values of metric ``name`` are better, as the values are written.

    MetricX is an error score (0 best): raw values (all ≥ 0) are lower-better, the negated form of
    the WMT25 release (all ≤ 0) higher-better. CometKiwi and XCOMET lie in [0, 1]: all ≤ 0 means the
    negated form of the WMT24 AutoRank sheet (lower-better). Every other metric AutoRank uses
    (GEMBA-ESA, chrF++, COMET) is higher-better. Mixed signs where the sign decides are refused.
    """
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    if _ERROR_METRICS.match(name) or _UNIT_METRICS.match(name):
        error = bool(_ERROR_METRICS.match(name))
        if (x >= 0).all():
            return not error
        if (x <= 0).all():
            return error
        raise InputError(f"{name} has both positive and negative values; it is written either as the metric gives "
                         f"it ({'all ≥ 0, lower is better' if error else 'all ≥ 0, higher is better'}) or negated "
                         "(all ≤ 0), not mixed", column=name)
    return True


# ---- AutoRank -----------------------------------------------------------------------------------
def _check_table(scores: pd.DataFrame, directions: Mapping[str, bool]) -> np.ndarray:
    if scores.empty or scores.shape[1] == 0:
        raise InputError("AutoRank needs at least one system and one metric")
    missing = [m for m in scores.columns if m not in directions]
    if missing:
        raise ValueError(f"no direction for {', '.join(map(str, missing))}")
    x = scores.to_numpy(dtype=float)
    bad = ~np.isfinite(x)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise InputError(f"{scores.columns[j]} of {scores.index[i]} is {x[i, j]}; AutoRank needs a finite value "
                         "for every system and metric", column=str(scores.columns[j]))
    if len(set(map(str, scores.index))) != len(scores.index):
        raise InputError("a system appears twice", column="system")
    signs = np.array([1.0 if directions[m] else -1.0 for m in scores.columns])
    return x * signs                                   # higher is better in every column


def autorank_wmt24(scores: pd.DataFrame, directions: Mapping[str, bool]) -> pd.DataFrame:
    """WMT24 AutoRank of the systems (index) from system-level metric scores (one column per metric).

    ``directions``: metric → True when higher is better. Returns a frame indexed by system, in
    AutoRank order: one ``rank_<metric>`` column per metric (1 = best, N + 1 = worst) and ``autorank``.
    """
    x = _check_table(scores, directions)
    n = x.shape[0]
    best, worst = x.max(axis=0), x.min(axis=0)
    flat = [str(m) for m, b, w in zip(scores.columns, best, worst) if b == w]
    if flat and n > 1:
        raise InputError(f"{', '.join(flat)} gives every system the same score; WMT24 AutoRank cannot rescale it",
                         column=flat[0])
    span = np.where(best == worst, 1.0, worst - best)
    ranks = 1.0 + n * (x - best) / span
    out = pd.DataFrame(ranks, index=scores.index, columns=[f"rank_{m}" for m in scores.columns])
    out["autorank"] = ranks.mean(axis=1)
    return _ordered(out)


def robust_scale(x: np.ndarray, epsilon: float = WMT25_EPSILON) -> np.ndarray:
    """``(x − median)/max(ε, P100 − P25)`` column by column (numpy's linear percentiles)."""
    x = np.asarray(x, dtype=float)
    spread = np.maximum(epsilon, x.max(axis=0) - np.percentile(x, 25, axis=0))
    return (x - np.median(x, axis=0)) / spread


def autorank_wmt25(scores: pd.DataFrame, directions: Mapping[str, bool],
                   epsilon: float = WMT25_EPSILON) -> pd.DataFrame:
    """WMT25 AutoRank of the systems (index) from their per-metric means over the pair's paragraphs.

    Returns a frame indexed by system in AutoRank order: ``z_<metric>`` per metric, their mean
    ``z`` and ``autorank`` (the mean mapped linearly onto 1 … N, best 1).
    """
    x = _check_table(scores, directions)
    n = x.shape[0]
    z = robust_scale(x, epsilon)
    out = pd.DataFrame(z, index=scores.index, columns=[f"z_{m}" for m in scores.columns])
    mean = z.mean(axis=1)
    top, bottom = mean.max(), mean.min()
    out["z"] = mean
    out["autorank"] = 1.0 + (n - 1) * (top - mean) / (top - bottom) if top > bottom else np.ones(n)
    return _ordered(out)


def _ordered(frame: pd.DataFrame) -> pd.DataFrame:
    frame.index = frame.index.map(str)
    frame.index.name = "system"
    order = sorted(range(len(frame)), key=lambda i: (frame["autorank"].iat[i], frame.index[i]))
    return frame.iloc[order]


def autorank(protocol: str, scores: pd.DataFrame, directions: Mapping[str, bool]) -> pd.DataFrame:
    """AutoRank of ``protocol`` (``wmt24`` or ``wmt25``); see :func:`autorank_wmt24`, :func:`autorank_wmt25`."""
    if protocol == "wmt24":
        return autorank_wmt24(scores, directions)
    if protocol == "wmt25":
        return autorank_wmt25(scores, directions)
    raise InputError(f"unknown AutoRank protocol {protocol!r} (choose from {', '.join(PROTOCOLS)})",
                     column="protocol")


# ---- selection for human evaluation -------------------------------------------------------------
def _half_up(x: float) -> int:
    return int(math.floor(x + 0.5))


def select_wmt24(ranked: pd.Series, categories: Mapping[str, str | None], gap: float = WMT24_GAP) -> pd.DataFrame:
    """WMT24's choice of systems for human evaluation.

    ``ranked``: AutoRank per system; ``categories``: system → constrained / open / closed (None:
    unknown, treated as closed, the strictest). Returns a frame in AutoRank order with
    ``position``, ``autorank``, ``category``, ``past_cutoff``, ``human_eval`` and ``reason``.
    """
    frame = _selection_frame(ranked, categories)
    n = len(frame)
    closed_limit, open_limit = _half_up(n / 3), _half_up(2 * n / 3)
    values = frame["autorank"].to_numpy()
    jumps = np.flatnonzero(np.diff(values) > gap)
    cut = int(jumps[0]) + 1 if len(jumps) else n           # first position past the gap (0-based)
    frame["past_cutoff"] = np.arange(n) >= cut
    reasons, chosen = [], []
    for pos, cat, past in zip(frame["position"], frame["category"], frame["past_cutoff"]):
        treated = cat or "closed"
        if past:
            reasons.append(f"past the first AutoRank gap > {gap:g}")
        elif treated == "closed" and pos > closed_limit:
            reasons.append(f"closed system outside the first third (positions 1-{closed_limit} of {n})"
                           + ("; type unknown, treated as closed" if cat is None else ""))
        elif treated == "open" and pos > open_limit:
            reasons.append(f"open system outside the first two thirds (positions 1-{open_limit} of {n})")
        else:
            reasons.append("selected" + ("; type unknown, treated as closed" if cat is None else ""))
        chosen.append(reasons[-1].startswith("selected"))
    frame["human_eval"] = chosen
    frame["reason"] = reasons
    return frame


def select_wmt25(ranked: pd.Series, categories: Mapping[str, str | None], constrained: int = WMT25_CONSTRAINED,
                 total: int = WMT25_TOTAL) -> pd.DataFrame:
    """WMT25's choice: the ``constrained`` best constrained systems, then the best of the rest up to ``total``.

    Same columns as :func:`select_wmt24` (``past_cutoff`` is always False). Unknown categories count
    as not constrained.
    """
    frame = _selection_frame(ranked, categories)
    is_constrained = (frame["category"] == "constrained").to_numpy()
    top = np.flatnonzero(is_constrained)[:min(constrained, total)]
    chosen = np.zeros(len(frame), dtype=bool)
    chosen[top] = True
    chosen[np.flatnonzero(~chosen)[:max(0, total - len(top))]] = True
    reasons = []
    for pos, pick in enumerate(chosen):
        if pos in top:
            reasons.append(f"selected: among the {constrained} best constrained systems")
        elif pick:
            reasons.append(f"selected: among the best of the rest (up to {total})")
        else:
            reasons.append(f"not selected: {total} systems chosen before it")
    frame["past_cutoff"] = False
    frame["human_eval"] = chosen
    frame["reason"] = reasons
    return frame


def select(protocol: str, ranked: pd.Series, categories: Mapping[str, str | None]) -> pd.DataFrame:
    """The selection for human evaluation of ``protocol``; see :func:`select_wmt24`, :func:`select_wmt25`."""
    if protocol == "wmt24":
        return select_wmt24(ranked, categories)
    if protocol == "wmt25":
        return select_wmt25(ranked, categories)
    raise InputError(f"unknown AutoRank protocol {protocol!r}", column="protocol")


def _selection_frame(ranked: pd.Series, categories: Mapping[str, str | None]) -> pd.DataFrame:
    values = pd.Series(ranked, dtype=float)
    order = sorted(range(len(values)), key=lambda i: (values.iat[i], str(values.index[i])))
    values = values.iloc[order]
    frame = pd.DataFrame({"system": [str(s) for s in values.index], "position": np.arange(1, len(values) + 1),
                          "autorank": values.to_numpy()})
    frame["category"] = pd.Series([categories.get(str(s)) for s in values.index], dtype=object)
    return frame


# ---- one pair, end to end -----------------------------------------------------------------------
def rank_pair(protocol: str, lp: str, table: pd.DataFrame, categories: Mapping[str, str | None] | None = None,
              directions: Mapping[str, bool] | None = None) -> dict:
    """AutoRank of one pair from its systems × metrics table (the values as the metrics give them).

    Returns ``{"lp", "protocol", "directions", "systems": [{"system", "autorank", "metrics": {name:
    value}}], "selection": [...] or None}``, systems in AutoRank order; the selection (rows of
    :func:`select`) when ``categories`` is given. ``directions`` default to :func:`higher_is_better`.
    """
    directions = dict(directions) if directions is not None else {
        str(m): higher_is_better(str(m), table[m].to_numpy()) for m in table.columns}
    ranked = autorank(protocol, table, directions)
    table = table.rename(index=str)
    systems = [{"system": s, "autorank": float(ranked.at[s, "autorank"]),
                "metrics": {str(m): float(table.at[s, m]) for m in table.columns}} for s in ranked.index]
    selection = None
    if categories is not None:
        selection = select(protocol, ranked["autorank"], categories).to_dict(orient="records")
    return {"lp": lp, "protocol": protocol, "directions": directions, "systems": systems, "selection": selection}
