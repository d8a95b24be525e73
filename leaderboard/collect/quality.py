"""Quality control as HITs complete: the product's worker test on all of an annotator's judgments.

When an annotator completes a HIT, :func:`check_annotator` runs the default worker test of
:mod:`leaderboard.human.qc` (paired one-sided t-test of the bad-reference originals against their
degraded copies, p < 0.05) on every judgment they have given in the campaign, stores the verdict,
and the completion code follows it: the campaign's *pass* code when the annotator passes, its
*fail* code otherwise (a platform can approve on the code alone).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..human.qc import DEFAULT_METHOD, worker_report
from ..storage import Store
from ..storage.collect import annotator_judgments, record_qc

ALPHA = 0.05


def check_annotator(store: Store, annotator_id: int, assignment_id: int | None = None) -> dict[str, Any]:
    """Run and store the annotator's worker test; ``{"passed", "p_value", "reason", "pairs"}``."""
    frame = annotator_judgments(store, annotator_id)
    if frame.empty:
        verdict = {"passed": None, "p_value": None, "reason": "no judgments yet", "pairs": 0}
    else:
        row = worker_report(frame, DEFAULT_METHOD, ALPHA).iloc[0]
        p = float(row["p_value"]) if np.isfinite(row["p_value"]) else None
        verdict = {"passed": bool(row["passed"]), "p_value": p, "reason": str(row["reason"]),
                   "pairs": int(row["n_pairs"])}
    record_qc(store, annotator_id, passed=verdict["passed"], p_value=verdict["p_value"], reason=verdict["reason"],
              assignment_id=assignment_id)
    return verdict
