"""The meta-evaluation of one language pair: acc_eq, SPA, system accuracy, PERM-BOTH clusters.

:func:`meta_evaluate` is what ``mtlb meta-eval --json`` prints and what the Metrics page shows.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np

from .acc_eq import acc_eq
from .perm import acc_eq_pvalues, clusters, spa_pvalues
from .spa import DEFAULT_DRAWS, DEFAULT_SEED, pair_differences, pair_pvalues, sign_flips, spa, usable_cells
from .sysacc import system_accuracy


def _f(v: float) -> float | None:
    v = float(v)
    return None if np.isnan(v) else v


def meta_evaluate(human: np.ndarray, metrics: Mapping[str, np.ndarray], *, lp: str = "",
                  draws: int = DEFAULT_DRAWS, seed: int = DEFAULT_SEED, alpha: float = 0.05,
                  progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Every metric against the human scores (systems × segments arrays, higher = better, NaN = missing).

    Returns ``{"lp", "n_systems", "n_segments", "metrics": [{"metric", "acc_eq", "epsilon", "spa",
    "sys_accuracy", "acc_eq_cluster", "spa_cluster"}], "clusters": {"acc_eq": [...], "spa": [...]},
    "pvalues": {"acc_eq": {a: {b: p}}, "spa": {...}}, "draws", "seed", "alpha"}``; metrics are listed
    by acc_eq (best first).
    """
    h = np.asarray(human, dtype=float)
    names = list(metrics)
    if not names:
        raise ValueError("no metrics to evaluate")
    stack = np.stack([np.asarray(metrics[m], dtype=float) for m in names])
    covered = ~np.isnan(h) & (~np.isnan(stack)).any(axis=0)
    signs = sign_flips(h.shape[1], draws, seed)
    rows, item_acc = {}, []
    for k, name in enumerate(names):
        if progress:
            progress(name)
        m = stack[k]
        res = acc_eq(h, m)
        item_acc.append(res.item_accuracy)
        ok = usable_cells(h, m)
        human_p = pair_pvalues(pair_differences(h, ok), signs)
        rows[name] = {"metric": name, "acc_eq": _f(res.acc_eq), "epsilon": float(res.epsilon),
                      "spa": _f(spa(h, m, signs, human_p=human_p)), "sys_accuracy": _f(system_accuracy(h, m))}
    p_acc = acc_eq_pvalues(np.stack(item_acc), names, draws, seed)
    p_spa, _analytic = spa_pvalues(h, stack, names, draws, seed)
    c_acc = clusters({n: rows[n]["acc_eq"] if rows[n]["acc_eq"] is not None else np.nan for n in names},
                     p_acc, alpha)
    c_spa = clusters({n: rows[n]["spa"] if rows[n]["spa"] is not None else np.nan for n in names}, p_spa, alpha)
    for c, key in ((c_acc, "acc_eq_cluster"), (c_spa, "spa_cluster")):
        for r in c:
            rows[r["metric"]][key] = r["cluster"]
    ordered = [rows[r["metric"]] for r in c_acc]

    def pv(frame):
        return {a: {b: _f(frame.loc[a, b]) for b in names if b != a} for a in names}

    return {"lp": lp, "n_systems": int(covered.any(axis=1).sum()), "n_segments": int(covered.any(axis=0).sum()),
            "metrics": ordered, "clusters": {"acc_eq": c_acc, "spa": c_spa},
            "pvalues": {"acc_eq": pv(p_acc), "spa": pv(p_spa)},
            "draws": draws, "seed": seed, "alpha": alpha,
            "method": {"acc_eq": "KendallWithTiesOpt acc23, average by item, sample rate 1.0",
                       "spa": f"sign-flip permutation p-values, {draws} draws shared by all pairs",
                       "clusters": "PERM-BOTH: per-segment swaps; acc_eq keeps each metric's ε; SPA uses the "
                                   "normal limit of the sign-flip p-values (see metrics.metaeval.perm)"}}
