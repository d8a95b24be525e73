"""The meta-evaluation of one or several language pairs, as ``mtlb meta-eval --json`` prints it.

Per pair: every metric's acc_eq (with ε), SPA, system accuracy, Pearson correlations and PDP; for the
statistics of the task set (:mod:`.tasks`) the metric-vs-metric p-values and clusters (:mod:`.perm`,
:mod:`.hybrids`); reference points (:mod:`.reference`). Over all pairs: the global ranking
(:mod:`.global_rank`). The significance draws of task t come from ``default_rng([seed, t])``, tasks
numbered in the order pairs × statistics (the pooled WMT23 accuracy last); nothing else is random.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from .global_rank import Task, global_ranking
from .hybrids import PooledAccuracyHybrids, pooled_accuracy
from .perm import Significance, compare
from .reference import constant_acc_eq, metric_kind, random_metric
from .spa import complete_segments, pair_pvalues
from .sysacc import system_means
from .tasks import STATISTICS, TASK_SETS, hybrids, values

DEFAULT_DRAWS = 1000
DEFAULT_SEED = 12345
VALUE_KEYS = ("acc_eq", "epsilon", "spa", "sys_accuracy", "sys_pearson", "seg_pearson", "pdp")


@dataclass
class PairInput:
    """One language pair: human and metric scores as systems × segments arrays (NaN = unrated)."""
    lp: str
    human: np.ndarray
    metrics: Mapping[str, np.ndarray]
    kinds: Mapping[str, str] = field(default_factory=dict)
    extra: dict = field(default_factory=dict)        # passed through to the output (input notes)


def _f(v) -> float | None:
    if v is None:
        return None
    v = float(v)
    return None if np.isnan(v) else v


def _rng(seed: int, task: int) -> np.random.Generator:
    return np.random.default_rng([int(seed), task])


class _Progress:
    def __init__(self, total: int, callback: Callable[[int, int], None] | None):
        self.total, self.done, self.callback = total, 0, callback

    def __call__(self, n: int) -> None:
        self.done += n
        if self.callback:
            self.callback(self.done, self.total)


def _tests(n_metrics: int) -> int:
    return n_metrics * (n_metrics - 1) // 2


def _pair_values(p: PairInput, names: list[str]) -> tuple[dict, dict]:
    h = np.asarray(p.human, dtype=float)
    keep = complete_segments(h)
    human_p = pair_pvalues(h[:, keep]) if keep.any() else None
    rows = {}
    for name in names:
        v = values(h, np.asarray(p.metrics[name], dtype=float), human_spa_p=human_p)
        rows[name] = {"metric": name, "kind": p.kinds.get(name) or metric_kind(name), **{k: _f(v[k]) for k in VALUE_KEYS}}
    chance = values(h, random_metric(h), human_spa_p=human_p)
    reference = {"chance": {"random_metric": {k: _f(chance[k]) for k in VALUE_KEYS if k != "epsilon"},
                            "constant_metric": {"acc_eq": _f(constant_acc_eq(h))}},
                 **{f"{kind}s": [n for n in names if rows[n]["kind"] == kind] for kind in ("baseline", "sentinel")},
                 "human_ceiling": [n for n in names if rows[n]["kind"] == "human"]}
    return rows, reference


def _pvalue_table(result: Significance) -> dict:
    return {a: {b: _f(p) for b, p in result.pvalues[a].items()} for a in result.order}


def evaluate(pairs: list[PairInput], *, task_set: str = "wmt24", draws: int = DEFAULT_DRAWS,
             seed: int = DEFAULT_SEED, alpha: float = 0.05, early_stop: int | None = None,
             progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Every pair, then the global ranking over the task set (module docstring).

    Returns ``{"lps": [per pair], "global_ranking": [...], "global_pvalues": {a: {b: p}}, "tasks": {...}, ...}``.
    The draws' matrix products are thin (systems × segments by a few columns): BLAS runs them on one
    thread here, where its own threads cost two to three times the time they save.
    """
    from threadpoolctl import threadpool_limits
    with threadpool_limits(limits=1, user_api="blas"):
        return _evaluate(pairs, task_set=task_set, draws=draws, seed=seed, alpha=alpha, early_stop=early_stop,
                         progress=progress)


def _evaluate(pairs: list[PairInput], *, task_set: str, draws: int, seed: int, alpha: float,
              early_stop: int | None, progress: Callable[[int, int], None] | None) -> dict[str, Any]:
    if task_set not in TASK_SETS:
        raise ValueError(f"unknown task set {task_set!r} (choose from {', '.join(TASK_SETS)})")
    per_pair, pooled = TASK_SETS[task_set]
    all_names = [list(p.metrics) for p in pairs]
    in_all = [n for n in all_names[0] if all(n in names for names in all_names)] if pairs else []
    total = sum(len(per_pair) * _tests(len(n)) for n in all_names) + (_tests(len(in_all)) if pooled else 0)
    step = _Progress(total, progress)
    tasks: list[Task] = []
    outputs = []
    for p, names in zip(pairs, all_names):
        if not names:
            raise ValueError(f"{p.lp}: no metrics to evaluate")
        h = np.asarray(p.human, dtype=float)
        rows, reference = _pair_values(p, names)
        stack = np.stack([np.asarray(p.metrics[n], dtype=float) for n in names])
        eps = np.array([rows[n]["epsilon"] for n in names])
        results: dict[str, Significance] = {}
        for stat in per_pair:
            scores = {n: rows[n][stat] if rows[n][stat] is not None else np.nan for n in names}
            results[stat] = compare(names, scores, hybrids(stat, h, stack, eps), k=draws,
                                    rng=_rng(seed, len(tasks)), alpha=alpha, early_stop=early_stop,
                                    stop_only_after_a_hit=stat == "acc_eq", progress=step)
            tasks.append(Task(f"{p.lp}/{stat}", STATISTICS[stat], 1.0, results[stat]))
            for r in results[stat].clusters():
                rows[r["metric"]][f"{stat}_cluster"] = r["cluster"]
        first = "acc_eq" if "acc_eq" in results else per_pair[0]
        ordered = [rows[m] for m in results[first].order] + [rows[m] for m in names if m not in results[first].order]
        covered = ~np.isnan(h)
        outputs.append({
            "lp": p.lp, "n_systems": int(covered.any(axis=1).sum()), "n_segments": int(covered.any(axis=0).sum()),
            "metrics": ordered,
            "clusters": {s: [{**c, "kind": rows[c["metric"]]["kind"]} for c in r.clusters()] for s, r in results.items()},
            "pvalues": {s: _pvalue_table(r) for s, r in results.items()},
            "draws_done": {s: r.draws_done for s, r in results.items()},
            "reference_points": reference, **p.extra})
    if pooled:
        gold = [np.nanmean(np.asarray(p.human, dtype=float), axis=1) for p in pairs]
        means = {n: [system_means(p.human, p.metrics[n])[1] for p in pairs] for n in in_all}
        scores = {n: pooled_accuracy(gold, means[n]) for n in in_all}
        hyb = PooledAccuracyHybrids(gold, [np.stack([means[n][i] for n in in_all]) for i in range(len(pairs))])
        result = compare(in_all, scores, hyb, k=draws, rng=_rng(seed, len(tasks)), alpha=alpha,
                         early_stop=early_stop, progress=step)
        tasks.append(Task("all/sys_accuracy", STATISTICS["sys_accuracy"], float(len(pairs)), result))
    glob = global_ranking(tasks, alpha)
    kinds = {m["metric"]: m["kind"] for o in outputs for m in o["metrics"]}
    chance = _global_chance(tasks, glob["weights"], outputs)
    return {"lps": outputs,
            "global_ranking": [{**r, "avg_score": _f(r["avg_score"]), "avg_rank": _f(r["avg_rank"]),
                                "kind": kinds.get(r["metric"], "metric")} for r in glob["ranking"]],
            "global_pvalues": {a: {b: _f(v) for b, v in row.items()} for a, row in glob["pvalues"].items()},
            "global_reference_points": {"chance": chance},
            "tasks": [{"task": t.name, "statistic": t.statistic.key, "weight": glob["weights"][t.name]} for t in tasks],
            "task_set": task_set, "draws": draws, "seed": seed, "alpha": alpha, "early_stop": early_stop,
            "method": method(draws, early_stop)}


def _global_chance(tasks: list[Task], weights: dict, outputs: list[dict]) -> float | None:
    """The global average a seeded random metric would reach (its pooled system accuracy ≈ 1/2)."""
    by_lp = {o["lp"]: o["reference_points"]["chance"]["random_metric"] for o in outputs}
    total = 0.0
    for t in tasks:
        lp, stat = t.name.split("/", 1)
        value = 0.5 if lp == "all" else by_lp[lp].get(stat)
        if value is None:
            return None
        total += weights[t.name] * t.statistic.normalise(value)
    return total


def method(draws: int, early_stop: int | None) -> dict:
    stop = (f"early stopping after blocks of {early_stop} draws (p < 0.02 or > 0.5)" if early_stop
            else f"exactly {draws} draws per metric pair")
    return {"acc_eq": "tie-calibrated pairwise accuracy grouped by segment (KendallWithTiesOpt acc23, sample rate 1)",
            "spa": "soft pairwise accuracy, 1000 fixed sign-flip permutations (seed 4, float32)",
            "significance": f"one-sided, better → worse, p = share of draws with Δ* ≥ Δ; {stop}; acc_eq swaps "
                            "(segment, system pair) comparisons, each metric keeping its own ε; SPA and Pearson "
                            "swap cells of the z-scored metrics and recompute the statistic on each hybrid",
            "clusters": "metrics by (−score, name); a new cluster opens when a member of the current one beats "
                        "the metric with p ≤ alpha"}
