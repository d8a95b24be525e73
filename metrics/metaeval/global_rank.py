"""The global ranking of metrics over tasks (language pairs × statistics), as the WMT23-25 Metrics tasks do it.

- Every task's scores are normalised to [0, 1] (:mod:`.tasks`) and averaged with the task weights
  (normalised to sum to 1).
- Only metrics present in every task are ranked, by (−average, name); the others are listed apart
  with the tasks they miss.
- Significance: for a ranked above b, the null draws are Σ_tasks weight × normalised (Δ*_a − Δ*_b)
  of that task's own draws, summed draw by draw (draw d of every task; a task with fewer draws,
  after early stopping, is repeated cyclically up to the longest); p = share of null draws at
  least the observed difference of the averages. Clusters as in each task (:func:`.perm.assign_ranks`).
- The average rank (weighted mean of the per-task clusters) is shown beside, not used for order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .perm import Significance, assign_ranks, count_at_least, score_order
from .tasks import Statistic


@dataclass
class Task:
    name: str                  # e.g. "zh-en/spa"
    statistic: Statistic
    weight: float
    result: Significance


def _task_draws(task: Task, a: str, b: str) -> np.ndarray:
    d = task.result.draws.get((a, b))
    return d if d is not None else -task.result.draws[(b, a)]


def global_ranking(tasks: list[Task], alpha: float = 0.05) -> dict:
    """``{"ranking": [{metric, avg_score, avg_rank, complete, global_cluster, global_rank, tasks, missing}],
    "pvalues": {a: {b: p}}, "weights": {task: w}}`` (module docstring)."""
    total = sum(t.weight for t in tasks)
    weights = {t.name: t.weight / total for t in tasks}
    everyone = sorted({m for t in tasks for m in t.result.order})
    present = {m: [t for t in tasks if m in t.result.scores] for m in everyone}
    complete = [m for m in everyone if len(present[m]) == len(tasks)]
    avg = {m: sum(weights[t.name] * t.statistic.normalise(t.result.scores[m]) for t in tasks) for m in complete}
    avg_rank = {m: sum(weights[t.name] * t.result.ranks[m] for t in tasks) for m in complete}
    order = score_order(avg)
    pvalues: dict[str, dict[str, float]] = {m: {} for m in order}
    longest = max((len(d) for t in tasks for d in t.result.draws.values()), default=0)
    for x, a in enumerate(order):
        for b in order[x + 1:]:
            null = np.zeros(longest)
            for t in tasks:
                null += weights[t.name] * t.statistic.scale * np.resize(_task_draws(t, a, b), longest)
            pvalues[a][b] = float(count_at_least(null, avg[a] - avg[b]).mean()) if longest else float("nan")
    ranks = assign_ranks(order, pvalues, alpha)
    rows = [{"metric": m, "avg_score": avg[m], "avg_rank": avg_rank[m], "complete": True,
             "global_cluster": ranks[m], "global_rank": i + 1, "tasks": len(tasks), "missing": []}
            for i, m in enumerate(order)]
    apart = sorted((m for m in everyone if m not in avg), key=lambda m: (-len(present[m]), m))
    rows += [{"metric": m, "avg_score": None, "avg_rank": None, "complete": False, "global_cluster": None,
              "global_rank": None, "tasks": len(present[m]),
              "missing": [t.name for t in tasks if m not in t.result.scores]} for m in apart]
    return {"ranking": rows, "pvalues": pvalues, "weights": weights}
