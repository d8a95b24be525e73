"""The statistics of a meta-evaluation and the task sets of the WMT Metrics tasks.

A task is one statistic on one language pair (or, for WMT23's system accuracy, pooled over every
pair); the global ranking averages the metrics' scores over the tasks of a task set:

- ``wmt24`` / ``wmt25`` (default): per pair, system-level SPA and segment-level acc_eq, all tasks
  weighted equally;
- ``wmt23``: per pair, system-level Pearson (one r over the system scores), segment-level Pearson
  (one r over all rated cells, no grouping) and acc_eq, plus one system-level pairwise accuracy
  pooled over all pairs (Σ agreeing pairs / Σ pairs) weighted by the number of pairs, every other
  task 1; weights are then normalised to sum to 1.

Scores enter the average normalised to [0, 1]: accuracies (acc_eq, SPA, system accuracy) as they
are, correlations as (r + 1) / 2.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .acc_eq import acc_eq
from .correlations import grouped_pearson, pdp
from .hybrids import AccEqHybrids, PearsonHybrids, SpaHybrids
from .spa import complete_segments, spa
from .sysacc import system_accuracy, system_means


@dataclass(frozen=True)
class Statistic:
    key: str
    label: str
    correlation: bool          # range (−1, 1) normalised as (r + 1) / 2; else (0, 1) as is
    test: str                  # the resampling unit of its significance test

    def normalise(self, value: float) -> float:
        return (value + 1.0) / 2.0 if self.correlation else value

    @property
    def scale(self) -> float:
        """Factor of a score difference under :meth:`normalise`."""
        return 0.5 if self.correlation else 1.0


STATISTICS = {
    "acc_eq": Statistic("acc_eq", "segment acc_eq", False, "(segment, system pair) comparisons, each metric's own ε"),
    "spa": Statistic("spa", "system SPA", False, "(system, segment) cells of the z-scored metrics"),
    "sys_pearson": Statistic("sys_pearson", "system Pearson", True, "systems (z-scored system scores)"),
    "seg_pearson": Statistic("seg_pearson", "segment Pearson (no grouping)", True,
                             "(system, segment) cells of the z-scored metrics"),
    "sys_accuracy": Statistic("sys_accuracy", "system accuracy, pooled over pairs", False,
                              "(pair, system) of the z-scored system scores"),
}

#: per-pair statistics of each task set, and whether it adds the pooled system accuracy
TASK_SETS = {"wmt24": (("spa", "acc_eq"), False), "wmt25": (("spa", "acc_eq"), False),
             "wmt23": (("sys_pearson", "seg_pearson", "acc_eq"), True)}


def values(human: np.ndarray, metric: np.ndarray, *, human_spa_p: np.ndarray | None = None) -> dict:
    """Every statistic of one metric on one pair (systems × segments, NaN = unrated)."""
    res = acc_eq(human, metric)
    keep = complete_segments(human)
    hs, ms = system_means(human, metric)
    ok = ~np.isnan(human)
    return {"acc_eq": res.acc_eq, "epsilon": float(res.epsilon),
            "spa": spa(human[:, keep], metric[:, keep], human_p=human_spa_p) if keep.any() else float("nan"),
            "sys_accuracy": system_accuracy(human, metric),
            "sys_pearson": grouped_pearson(hs[None], ms[None], "none"),
            "seg_pearson": grouped_pearson(human[ok][None], metric[ok][None], "none"),
            "pdp": pdp(human, metric, "item")}


def hybrids(stat: str, human: np.ndarray, metrics: np.ndarray, epsilons: np.ndarray):
    """The resampling of ``stat``'s test for metrics × systems × segments scores."""
    if stat == "acc_eq":
        return AccEqHybrids(human, metrics, epsilons)
    if stat == "spa":
        keep = complete_segments(human)
        return SpaHybrids(human[:, keep], metrics[:, :, keep])
    ok = ~np.isnan(human)
    if stat == "seg_pearson":
        return PearsonHybrids(human[ok], np.stack([m[ok] for m in metrics]))
    if stat == "sys_pearson":
        gold = np.nanmean(human, axis=1)
        return PearsonHybrids(gold, np.stack([np.nanmean(np.where(ok, m, np.nan), axis=1) for m in metrics]))
    raise ValueError(f"no per-pair test for {stat!r}")
