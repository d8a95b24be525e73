"""The speed baseline of bench_meta_eval.py: the WMT23-25 meta-evaluation procedure with the reference
tool's loop structure (mt-metrics-eval, whose Google package cannot be installed here: this is a
re-implementation written from a description of its rules, not its code).

Where the reference loops in Python, this module loops; where it uses numpy, this module does too:

- acc_eq value: every candidate ε (0 and each observed |Δmetric|) in increasing order, all pairs of
  one |Δ| flipped from "tie" to "no tie" at once, a running float sum of item accuracies; the first
  candidate at the maximum wins.
- SPA value: the fixed permutations are drawn afresh on every call (``default_rng(4)``, float32,
  ``rint``), per-system signed sums as one float32 matrix product, then a Python loop over the
  system pairs i < j; the human p-values are recomputed on every call too.
- SPA test ("scores"): a loop over draws; each draw z-scores nothing new, swaps every (system,
  segment) cell with probability 1/2 (a binomial vector from the legacy global generator) and
  recomputes SPA of both hybrids in full.
- acc_eq test ("pairs"): a loop over draws and, inside, over segments; per segment a random
  symmetric 0/1 matrix over its systems picks which metric's verdict goes to which hybrid.
- p-values: for each metric pair a above b (order (−score, name)), share of draws with Δ* ≥ Δ.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import zscore


def acc_eq_loop(human: np.ndarray, metric: np.ndarray) -> tuple[float, float]:
    """(acc_eq, ε): candidates visited one by one with a running float sum."""
    n_sys, n_items = human.shape
    rows = []
    for s in range(n_items):
        pairs = []
        for i in range(n_sys):
            for j in range(i + 1, n_sys):
                hi, hj, mi, mj = human[i, s], human[j, s], metric[i, s], metric[j, s]
                if np.isnan(hi) or np.isnan(hj) or np.isnan(mi) or np.isnan(mj):
                    continue
                pairs.append((float(hi == hj), float(abs(mi - mj)), float((hi > hj) == (mi > mj) and hi != hj and mi != mj)))
        if pairs:
            rows.append(pairs)
    # the accuracy at ε = 0, then the change at each |Δ| when its pairs become metric ties
    events: dict[float, float] = {}
    total = 0.0
    for pairs in rows:
        w = 1.0 / len(pairs)
        for human_tie, dist, concordant in pairs:
            if dist == 0.0:
                total += w * human_tie
            else:
                total += w * concordant
                events[dist] = events.get(dist, 0.0) + w * (human_tie - concordant)
    best, best_eps, running = total / len(rows), 0.0, total
    for eps in sorted(events):
        running += events[eps]
        value = running / len(rows)
        if value > best:
            best, best_eps = value, eps
    return best, best_eps


def verdicts_loop(human: np.ndarray, metric: np.ndarray, eps: float) -> list[np.ndarray]:
    """Per segment, the n × n matrix of verdicts (1: the pair agrees with the humans at ε)."""
    out = []
    for s in range(human.shape[1]):
        h, m = human[:, s], metric[:, s]
        dh = h[:, None] - h[None, :]
        dm = m[:, None] - m[None, :]
        tie_h = dh == 0
        tie_m = np.abs(dm) <= eps
        out.append(((tie_h & tie_m) | (~tie_h & ~tie_m & (np.sign(dh) == np.sign(dm)))).astype(float))
    return out


def pce_pvalues(scores: np.ndarray) -> np.ndarray:
    """Upper-triangle p(i, j) of the fixed sign-flip test, drawn afresh (seed 4) as the reference does."""
    x = np.asarray(scores, dtype=np.float32)
    n, s = x.shape
    rng = np.random.default_rng(4)
    signs = np.rint(rng.random((1000, s), dtype=np.float32)) * 2 - 1
    null = signs @ x.T
    sums = x.sum(axis=1)
    p = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            p[i, j] = ((null[:, i] - null[:, j]) >= (sums[i] - sums[j])).sum() / len(signs)
    return p


def spa_loop(human: np.ndarray, metric: np.ndarray) -> float:
    n = human.shape[0]
    i, j = np.triu_indices(n, k=1)
    return float(1.0 - np.abs(pce_pvalues(human)[i, j] - pce_pvalues(metric)[i, j]).mean())


def spa_test_loop(human, metric_a, metric_b, observed: float, k: int) -> float:
    """p that a (ranked above b) is better in SPA: k cell-swap draws, SPA recomputed per hybrid."""
    shape = metric_a.shape
    za, zb = zscore(metric_a.ravel()), zscore(metric_b.ravel())
    hits = 0
    for _ in range(k):
        swap = np.random.binomial(1, 0.5, size=za.size).astype(bool)
        h1 = np.where(swap, zb, za).reshape(shape)
        h2 = np.where(swap, za, zb).reshape(shape)
        hits += spa_loop(human, h1) - spa_loop(human, h2) >= observed
    return hits / k


def acc_eq_test_loop(verdicts_a: list[np.ndarray], verdicts_b: list[np.ndarray], observed: float, k: int) -> float:
    """p that a (ranked above b) is better in acc_eq: k draws, each a loop over segments."""
    hits = 0
    for _ in range(k):
        acc1 = acc2 = 0.0
        for va, vb in zip(verdicts_a, verdicts_b):
            n = len(va)
            swap = np.triu(np.random.binomial(1, 0.5, size=(n, n)), 1)
            swap = (swap + swap.T).astype(bool)
            upper = np.triu(np.ones((n, n), dtype=bool), 1)
            acc1 += np.where(swap, vb, va)[upper].mean()
            acc2 += np.where(swap, va, vb)[upper].mean()
        hits += (acc1 - acc2) / len(verdicts_a) >= observed
    return hits / k


def meta_eval_loop(human: np.ndarray, metrics: dict[str, np.ndarray], k: int, seed: int = 1) -> dict:
    """acc_eq, ε, SPA of every metric and the p-values of both tests (complete systems × segments input)."""
    np.random.seed(seed)
    values = {}
    for name, m in metrics.items():
        acc, eps = acc_eq_loop(human, m)
        values[name] = {"acc_eq": acc, "epsilon": eps, "spa": spa_loop(human, m)}
    pvalues: dict[str, dict] = {"acc_eq": {}, "spa": {}}
    for stat in ("acc_eq", "spa") if k else ():
        order = sorted(values, key=lambda m: (-values[m][stat], m))
        for x, a in enumerate(order):
            pvalues[stat][a] = {}
            for b in order[x + 1:]:
                observed = values[a][stat] - values[b][stat]
                if stat == "spa":
                    p = spa_test_loop(human, metrics[a], metrics[b], observed, k)
                else:
                    p = acc_eq_test_loop(verdicts_loop(human, metrics[a], values[a]["epsilon"]),
                                         verdicts_loop(human, metrics[b], values[b]["epsilon"]), observed, k)
                pvalues[stat][a][b] = p
    return {"metrics": values, "pvalues": pvalues}
