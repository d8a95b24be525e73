"""Metric-vs-metric significance and clusters, the procedure of the WMT23-25 Metrics tasks.

Metrics are sorted by (−score, name). For every metric a ranked above b, one one-sided test asks
whether a is really better: each of ``k`` draws mixes the two metrics into two hybrids and
recomputes the statistic on both (how, per statistic, is in :mod:`.hybrids`); the p-value is the
share of draws whose hybrid difference Δ* is at least the observed difference Δ = score_a − score_b
(counted over the draws made, no +1). Only the pairs a above b are tested; each pair gets its own
draws from one seeded generator, pairs in row-major order. The draws are kept: the global ranking
across tasks (:mod:`.global_rank`) sums them draw by draw.

Early stopping (opt-in, the reference tool's ``block_size`` / ``early_min`` / ``early_max``): draws
come in blocks; after a block the test stops when the running p is below 0.02 or above 0.5. For the
acc_eq test (``stop_only_after_a_hit``) the reference checks only after a block whose last draw
was itself ≥ Δ, and so do we.

Clusters (:func:`assign_ranks`): walk the metrics in score order; a metric opens a new cluster when
any metric from the current cluster's first member down to the one just above it beats it with
p ≤ alpha.

"≥" is exact except for float rounding: a draw within 1e-12 (relative) of Δ counts as ≥, so that a
difference that is zero in exact arithmetic is not decided by the order of a float sum.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Protocol

import numpy as np

EARLY_MIN = 0.02
EARLY_MAX = 0.5


class Hybrids(Protocol):
    """What a statistic provides to the test: n draws of Δ* for metrics a (better) and b."""

    def deltas(self, a: int, b: int, n: int, rng: np.random.Generator) -> np.ndarray: ...


@dataclass
class Significance:
    """The outcome of one task's tests."""
    order: list[str]                                        # by (−score, name)
    scores: dict[str, float]
    pvalues: dict[str, dict[str, float]]                    # pvalues[a][b], a ranked above b
    draws: dict[tuple[str, str], np.ndarray] = field(repr=False)   # Δ* draws, (a above b)
    draws_done: dict[str, dict[str, int]] = field(default_factory=dict)
    ranks: dict[str, int] = field(default_factory=dict)

    def clusters(self) -> list[dict]:
        return [{"metric": m, "score": self.scores[m], "cluster": self.ranks[m]} for m in self.order]


def score_order(scores: Mapping[str, float]) -> list[str]:
    """Metric names by (−score, name); metrics without a finite score are left out."""
    return sorted((m for m, v in scores.items() if v is not None and np.isfinite(v)),
                  key=lambda m: (-float(scores[m]), m))


def assign_ranks(order: list[str], pvalues: Mapping[str, Mapping[str, float]], alpha: float = 0.05
                 ) -> dict[str, int]:
    """Cluster number of each metric of ``order`` (see the module docstring)."""
    ranks: dict[str, int] = {}
    rank, start = 1, 0
    for i, metric in enumerate(order):
        if any(pvalues[other][metric] <= alpha for other in order[start:i]):
            rank, start = rank + 1, i
        ranks[metric] = rank
    return ranks


def count_at_least(draws: np.ndarray, observed: float) -> np.ndarray:
    """Per draw: Δ* ≥ Δ (with the 1e-12 relative rounding allowance of the module docstring)."""
    return draws >= observed - 1e-12 * max(1.0, abs(observed))


def _draws_with_early_stop(hyb: Hybrids, a: int, b: int, observed: float, k: int, block: int,
                           rng: np.random.Generator, stop_only_after_a_hit: bool) -> np.ndarray:
    done: list[np.ndarray] = []
    hits = total = 0
    while total < k:
        d = hyb.deltas(a, b, min(block, k - total), rng)
        done.append(d)
        hit = count_at_least(d, observed)
        hits += int(hit.sum())
        total += len(d)
        if total < k and (hit[-1] or not stop_only_after_a_hit):
            p = hits / total
            if p < EARLY_MIN or p > EARLY_MAX:
                break
    return np.concatenate(done)


def compare(names: list[str], scores: Mapping[str, float], hyb: Hybrids, *, k: int,
            rng: np.random.Generator, alpha: float = 0.05, early_stop: int | None = None,
            stop_only_after_a_hit: bool = False, progress: Callable[[int], None] | None = None) -> Significance:
    """Test every metric pair of one task (module docstring).

    ``names``: the metrics in the index order of ``hyb``; ``scores``: metric → observed statistic.
    ``progress(n)`` is called after each tested pair with n = 1.
    """
    index = {m: i for i, m in enumerate(names)}
    order = score_order(scores)
    pvalues: dict[str, dict[str, float]] = {m: {} for m in order}
    draws: dict[tuple[str, str], np.ndarray] = {}
    done: dict[str, dict[str, int]] = {m: {} for m in order}
    for x, a in enumerate(order):
        for b in order[x + 1:]:
            observed = float(scores[a]) - float(scores[b])
            if early_stop:
                d = _draws_with_early_stop(hyb, index[a], index[b], observed, k, early_stop, rng,
                                           stop_only_after_a_hit)
            else:
                d = hyb.deltas(index[a], index[b], k, rng)
            draws[(a, b)] = d
            pvalues[a][b] = float(count_at_least(d, observed).mean())
            done[a][b] = len(d)
            if progress:
                progress(1)
    result = Significance(order, {m: float(scores[m]) for m in order}, pvalues, draws, done)
    result.ranks = assign_ranks(order, pvalues, alpha)
    return result
