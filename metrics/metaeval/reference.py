"""Reference points of a meta-evaluation table: what kind each metric is, and the level of chance.

Kinds (shown beside every metric; the statistics treat all of them alike):

- ``sentinel`` — a sentinel metric (Perrella et al. 2024: a model trained on human scores that sees
  only the candidate, only the reference or only the source), named ``sentinel-*``;
- ``baseline`` — a baseline metric of the WMT Metrics tasks (BLEU, chrF, COMET-22, ...), or any name
  the user declares a baseline;
- ``human`` — a second human rating entered as a metric: the human ceiling;
- ``metric`` — everything else.

Chance levels, per language pair: a seeded random continuous metric (standard normal scores,
:data:`RANDOM_SEED`) evaluated like any metric, and acc_eq of a constant metric (every pair a metric
tie at any ε, so it agrees exactly on the human ties: the mean share of tied pairs per segment).
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from .acc_eq import item_pairs

#: baselines of the WMT20-25 Metrics tasks (compared case-insensitively)
WMT_BASELINES = frozenset(name.lower() for name in (
    "BLEU", "sentBLEU", "spBLEU", "f200spBLEU", "f101spBLEU", "chrF", "chrF++", "TER", "BERTScore", "BLEURT-20",
    "COMET-22", "COMET22", "COMET", "CometKiwi", "COMETKiwi22", "COMET-20", "COMET-QE", "YiSi-1", "PrismRefMedium",
    "PrismRefSmall", "PrismSrc", "MS-COMET-22", "MS-COMET-QE-22", "Random-sysname", "eBLEU", "MetricX-23",
    "MetricX-23-QE", "XCOMET", "XCOMET-QE"))
RANDOM_SEED = 20240101

KINDS = ("metric", "baseline", "sentinel", "human")


def metric_kind(name: str, baselines: Iterable[str] = (), humans: Iterable[str] = ()) -> str:
    """The kind of one metric (module docstring)."""
    if name in set(humans):
        return "human"
    low = name.lower()
    if low.startswith("sentinel"):
        return "sentinel"
    if low in WMT_BASELINES or name in set(baselines):
        return "baseline"
    return "metric"


def random_metric(human: np.ndarray) -> np.ndarray:
    """Standard normal scores on the rated cells (NaN elsewhere), from :data:`RANDOM_SEED`."""
    rng = np.random.default_rng(RANDOM_SEED)
    return np.where(np.isnan(human), np.nan, rng.standard_normal(human.shape))


def constant_acc_eq(human: np.ndarray) -> float:
    """acc_eq of a constant metric: the mean over segments of the share of human-tied pairs."""
    p = item_pairs(human, np.where(np.isnan(human), np.nan, 0.0))
    n = np.bincount(p.item, minlength=p.n_items)
    ties = np.bincount(p.item[p.human_tie], minlength=p.n_items)
    used = n > 0
    return float((ties[used] / n[used]).mean()) if used.any() else float("nan")
