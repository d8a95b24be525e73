"""Relative-ranking judgments (older WMT / IWSLT, Bentivogli et al. 2011;
docs/method/significance-and-clusters.md#relative-ranking).

A judge orders a "ranking set" of up to five outputs of one source segment from best to worst
(ties allowed). Input frame columns: ``set`` (ranking-set id), ``worker``, ``segment``,
``system`` and ``rank`` (1 = best; equal ranks are ties).

Every ranking set yields one pairwise comparison per pair of its systems. System score = share of
its comparisons it won: Bentivogli et al. 2011 ("average number of times that a system was judged better than
any other system") counts ties in the denominator (``ties="count"``, the default); WMT-12
excluded them (``ties="exclude"``). Pairwise significance: one-sided sign test on the non-tied
comparisons. Agreement: over pairs of judgments of the same system pair on the same segment
(by the same worker: intra; by different workers: inter), Pr(a) = share of pairs with the same
outcome among {<, =, >}, kappa with Pr(e) = 1/3.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from .agreement import kappa_from_agreement

REQUIRED = ("set", "worker", "segment", "system", "rank")


def _check(rankings: pd.DataFrame) -> None:
    missing = [c for c in REQUIRED if c not in rankings.columns]
    if missing:
        raise ValueError(f"ranking frame lacks column(s): {', '.join(missing)}")


def pairwise_comparisons(rankings: pd.DataFrame) -> pd.DataFrame:
    """One row per pair of systems in a ranking set: set, worker, segment, sys_a < sys_b
    (by name), outcome = +1 when sys_a ranked better, 0 for a tie, -1 when sys_b ranked better."""
    _check(rankings)
    base = rankings[list(REQUIRED)].reset_index(drop=True)
    both = base.merge(base, on=["set", "worker", "segment"], suffixes=("_a", "_b"))
    both = both[both["system_a"].astype(str) < both["system_b"].astype(str)]
    outcome = np.sign(both["rank_b"].to_numpy(dtype=float) - both["rank_a"].to_numpy(dtype=float))
    return pd.DataFrame({"set": both["set"].to_numpy(), "worker": both["worker"].to_numpy(),
                         "segment": both["segment"].to_numpy(), "sys_a": both["system_a"].to_numpy(),
                         "sys_b": both["system_b"].to_numpy(), "outcome": outcome.astype(int)})


def _win_counts(comparisons: pd.DataFrame) -> tuple[list[str], np.ndarray, np.ndarray]:
    systems = sorted(set(comparisons["sys_a"]) | set(comparisons["sys_b"]))
    idx = {s: i for i, s in enumerate(systems)}
    a = comparisons["sys_a"].map(idx).to_numpy()
    b = comparisons["sys_b"].map(idx).to_numpy()
    o = comparisons["outcome"].to_numpy()
    k = len(systems)
    wins = np.zeros((k, k), dtype=np.int64)
    ties = np.zeros((k, k), dtype=np.int64)
    np.add.at(wins, (a[o > 0], b[o > 0]), 1)
    np.add.at(wins, (b[o < 0], a[o < 0]), 1)
    np.add.at(ties, (a[o == 0], b[o == 0]), 1)
    ties = ties + ties.T
    return systems, wins, ties


def relative_scores(rankings: pd.DataFrame, ties: str = "count") -> pd.DataFrame:
    """Per system: wins, losses, ties, comparisons and score (share won), sorted best first."""
    if ties not in ("count", "exclude"):
        raise ValueError("ties must be 'count' or 'exclude'")
    systems, wins, tie = _win_counts(pairwise_comparisons(rankings))
    w = wins.sum(axis=1)
    losses = wins.sum(axis=0)
    t = tie.sum(axis=1)
    denom = w + losses + (t if ties == "count" else 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        score = w / denom
    out = pd.DataFrame({"system": systems, "wins": w, "losses": losses, "ties": t,
                        "comparisons": w + losses + t, "score": score})
    return out.sort_values(["score", "system"], ascending=[False, True], kind="stable").reset_index(drop=True)


def sign_test_matrix(rankings: pd.DataFrame) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(systems, wins, p): wins[i, j] = comparisons i won against j; p[i, j] = one-sided sign-test
    p-value that i beats j more often than not (ties dropped): P(X >= wins[i, j]),
    X ~ Binomial(wins[i, j] + wins[j, i], 1/2). NaN on the diagonal and for pairs never compared."""
    systems, wins, _ = _win_counts(pairwise_comparisons(rankings))
    n = wins + wins.T
    p = stats.binom.sf(wins - 1, n, 0.5)
    p = np.where(n > 0, p, np.nan)
    np.fill_diagonal(p, np.nan)
    return systems, wins, p


def ranking_agreement(rankings: pd.DataFrame, p_chance: float = 1 / 3) -> pd.DataFrame:
    """Intra- and inter-annotator agreement of pairwise outcomes (Bentivogli et al. 2011, Table 2).

    Columns: scope, comparisons (pairs of judgments), p_agree, kappa.
    """
    comp = pairwise_comparisons(rankings).reset_index(drop=True)
    comp["_id"] = np.arange(len(comp))
    both = comp.merge(comp, on=["segment", "sys_a", "sys_b"], suffixes=("_1", "_2"))
    both = both[both["_id_1"] < both["_id_2"]]
    # a pair of judgments must come from two different ranking sets (the same set is one judgment)
    both = both[(both["set_1"] != both["set_2"]) | (both["worker_1"] != both["worker_2"])]
    same = both["worker_1"].to_numpy() == both["worker_2"].to_numpy()
    agree = both["outcome_1"].to_numpy() == both["outcome_2"].to_numpy()
    rows = []
    for scope, sel in (("intra", same), ("inter", ~same)):
        n = int(sel.sum())
        pa = float(agree[sel].mean()) if n else float("nan")
        rows.append({"scope": scope, "comparisons": n, "p_agree": pa,
                     "kappa": kappa_from_agreement(pa, p_chance) if n else float("nan")})
    return pd.DataFrame(rows)
