"""The global ranking of metrics across tasks (language pairs × statistics), as WMT23's main table.

Each task gives every metric a score (acc_eq, SPA, system accuracy, ...) and a significance
cluster (its rank). The global table averages, per metric, the scores and the cluster ranks over
the tasks; metrics are ordered by average score (WMT23 orders by the average accuracy/correlation
and prints the average rank beside it). Metrics missing from a task are listed after the complete
ones, with their averages over the tasks they have.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd


def global_ranking(tasks: Mapping[str, list[dict]]) -> pd.DataFrame:
    """``tasks``: task name → ``[{"metric", "score", "cluster"}]``.

    Returns one row per metric: metric, avg_score, avg_rank, tasks (count), complete (in every
    task), global_rank (1-based order of the complete metrics by avg_score, then the others).
    """
    rows = [{"task": task, "metric": r["metric"], "score": float(r["score"]), "rank": float(r["cluster"])}
            for task, result in tasks.items() for r in result]
    if not rows:
        return pd.DataFrame(columns=["metric", "avg_score", "avg_rank", "tasks", "complete", "global_rank"])
    frame = pd.DataFrame(rows)
    out = frame.groupby("metric", sort=True).agg(avg_score=("score", "mean"), avg_rank=("rank", "mean"),
                                                 tasks=("task", "nunique")).reset_index()
    out["complete"] = out["tasks"] == len(tasks)
    out = out.sort_values(["complete", "avg_score", "avg_rank", "metric"], ascending=[False, False, True, True],
                          kind="mergesort").reset_index(drop=True)
    out["global_rank"] = np.arange(1, len(out) + 1)
    return out
