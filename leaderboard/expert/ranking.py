"""Rank systems by MQM (lower is better) with the DA path's significance and cluster machinery.

Per language pair: system score = mean MQM over its rated segments (:mod:`.scoring`); every
ordered pair of systems is tested one-sided on the segments both systems have (paired), on the
negated MQM (so "greater" means better):

- ``signed-rank`` (default): Wilcoxon signed-rank, normal approximation with tie correction
  (:func:`leaderboard.human.significance.signed_rank_greater_matrix`);
- ``approx-randomisation``: paired approximate randomisation, seeded
  (:func:`leaderboard.human.significance.approximate_randomisation_matrix`).

Wins, rank ranges and clusters follow :mod:`leaderboard.human.clusters` (the organisers' rule by
default). The signature names the weight scheme, the test and the counts.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..human.clusters import CLUSTER_RULES, cluster_ends, cluster_numbers, cluster_spans, wins_losses
from ..errors import InputError
from ..human.intervals import DEFAULT_RESAMPLES, system_intervals
from ..naming import is_human
from ..human.spec import MqmSpec
from ..human.significance import (DEFAULT_SEED, DEFAULT_TRIALS, approximate_randomisation_matrix, score_matrix,
                            signed_rank_greater_matrix)
from ..ingest.mqm import attention_checks
from .scoring import segment_scores, system_scores
from .weights import DEFAULT_SCHEME, get_scheme

TESTS: dict[str, str] = {
    "signed-rank": "signed-rank-greater",
    "approx-randomisation": "ar-greater",
}


def _float(v: Any) -> float | None:
    v = float(v)
    return None if np.isnan(v) else v


def rank_segments(seg: pd.DataFrame, *, lp: str, weights: str = DEFAULT_SCHEME, test: str = "signed-rank",
                  alpha: float = 0.05, cluster_rule: str = "organisers", seed: int = DEFAULT_SEED,
                  trials: int = DEFAULT_TRIALS, raters: int | None = None,
                  annotations: int | None = None, n_resamples: int = DEFAULT_RESAMPLES,
                  human_systems: dict[str, bool] | None = None) -> dict[str, Any]:
    """One language pair's ranking from per-segment MQM scores (columns system, segment, mqm).

    Returns the JSON object of ``mtlb rank --input-format mqm``: ``lp``, ``assessment`` ("mqm"),
    ``signature``, ``systems`` sorted by ``mqm`` ascending (system, mqm, n, rank_lo, rank_hi,
    cluster, wins, losses, ``mqm_ci``: 95% bootstrap interval resampling segments, ``rank_shares``:
    share of resamples at each rank, ``human``) and ``pvalues`` (``pvalues[a][b]`` = one-sided p
    that a is better). ``n_resamples`` (0 = no intervals) and ``seed`` are in the signature.
    """
    if test not in TESTS:
        raise InputError(f"unknown MQM test {test!r} (choose from {', '.join(TESTS)})", column="test")
    if cluster_rule not in CLUSTER_RULES:
        raise InputError(f"cluster rule must be one of {', '.join(CLUSTER_RULES)}", column="cluster-rule")
    if not 0 < alpha < 1:
        raise InputError("alpha must lie strictly between 0 and 1", column="alpha")
    table = system_scores(seg.assign(lp=lp))
    table = table.sort_values(["mqm", "system"], kind="mergesort").reset_index(drop=True)
    systems = table["system"].astype(str).tolist()
    better = seg.assign(score=-seg["mqm"].to_numpy(dtype=float))
    matrix = score_matrix(better, systems, "score")
    if TESTS[test] == "signed-rank-greater":
        p = signed_rank_greater_matrix(matrix)
    else:
        p = approximate_randomisation_matrix(matrix, trials=trials, seed=seed)
    wins, losses = wins_losses(p, alpha)
    n = len(systems)
    numbers = cluster_numbers(cluster_ends(p, alpha, cluster_rule))
    start, end = cluster_spans(numbers)
    spec = mqm_spec(weights=weights, test=test, alpha=alpha, cluster_rule=cluster_rule, seed=seed, trials=trials,
                    n_resamples=n_resamples)
    cis = shares = None
    if n_resamples:
        (cis,), shares = system_intervals([-np.asarray(matrix, dtype=float)], [table["mqm"].to_numpy(dtype=float)],
                                          higher_is_better=False, n_resamples=n_resamples, seed=seed)
    humans = {**{s: is_human(s) for s in systems}, **(human_systems or {})}
    rows = []
    for i, rec in enumerate(table.itertuples(index=False)):
        rows.append({"system": systems[i], "mqm": float(rec.mqm),
                     "mqm_ci": None if cis is None or np.isnan(cis[i]).any() else [float(v) for v in cis[i]],
                     "human": bool(humans[systems[i]]), "n": int(rec.n),
                     "rank_lo": int(1 + losses[i]), "rank_hi": int(n - wins[i]), "cluster": int(numbers[i]),
                     "wins": int(wins[i]), "losses": int(losses[i]),
                     "cluster_start": int(start[i]), "cluster_end": int(end[i]),
                     "rank_shares": None if shares is None else [round(float(v), 4) for v in shares[i]]})
    pv = {a: {b: _float(p[i, j]) for j, b in enumerate(systems) if j != i} for i, a in enumerate(systems)}
    signature = spec.signature(systems=n, segments=int(seg["segment"].nunique()), raters=raters,
                               annotations=annotations)
    return {"lp": lp, "assessment": "mqm", "signature": signature, "systems": rows, "pvalues": pv, "protocol": "mqm",
            "alpha": alpha, "cluster_rule": cluster_rule}


def mqm_spec(*, weights: str = DEFAULT_SCHEME, test: str = "signed-rank", alpha: float = 0.05,
             cluster_rule: str = "organisers", seed: int = DEFAULT_SEED, trials: int = DEFAULT_TRIALS,
             n_resamples: int = DEFAULT_RESAMPLES, **_: Any) -> MqmSpec:
    """The spec of an MQM ranking made with these options (:func:`rank_segments`'s; others ignored)."""
    uses_seed = test == "approx-randomisation"
    return MqmSpec(weights=weights, test=TESTS[test] + "-paired", alpha=alpha,
                   cluster_rule=cluster_rule, trials=trials if uses_seed else None, resamples=n_resamples,
                   seed=seed if uses_seed or n_resamples else None)


def rank_mqm(errors: pd.DataFrame, *, weights: str = DEFAULT_SCHEME, lp: str | None = None,
             **options: Any) -> list[dict[str, Any]]:
    """Rank every language pair of an MQM error frame (:func:`leaderboard.ingest.mqm.read_mqm`).

    A pair whose file has attention checks (severity HOTW-test) also gets ``attention_checks``: per
    rater, how many they had, found and missed (:func:`leaderboard.ingest.mqm.attention_checks`).
    """
    scheme = get_scheme(weights)
    if lp is not None:
        errors = errors[errors["lp"].astype(str) == lp]
        if errors.empty:
            raise InputError(f"no MQM annotations for language pair {lp!r}")
    seg = segment_scores(errors, scheme)
    out = []
    for pair, part in seg.groupby("lp", sort=True):
        rows = errors[errors["lp"] == pair]
        out.append(rank_segments(part, lp=str(pair), weights=scheme.name, raters=int(rows["rater"].nunique()),
                                 annotations=len(rows), **options))
        checks = attention_checks(rows)
        if checks["checks"].sum():  # files with attention checks (HOTW-test rows) report them per rater
            out[-1]["attention_checks"] = [
                {"rater": r.rater, "checks": int(r.checks), "found": int(r.found), "missed": int(r.missed)}
                for r in checks.itertuples(index=False)]
    return out
