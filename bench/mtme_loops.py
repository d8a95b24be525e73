"""The comparison baseline of bench_meta_eval.py: the meta-evaluation computed the way mt-metrics-eval
does it, with Python loops (written here from the rules in issue 18, not copied from that library).

- acc_eq: a Python loop over every candidate threshold ε (0 and each observed |Δmetric|); for each
  one, the per-item accuracies over all system pairs (numpy inside the loop), then their mean; the
  first ε with the highest mean wins.
- SPA: a Python loop over system pairs and permutation draws; in each draw the paired segment
  differences get random signs and the signed sum is compared with the observed one.
- PERM-BOTH clusters: a Python loop over metric pairs and draws; each draw swaps the two metrics'
  scores segment by segment and recomputes both statistics (acc_eq with each metric's ε; SPA with
  a full inner permutation test per system pair, the reference tool's nested resampling).
"""

from __future__ import annotations

import numpy as np


def pair_arrays(human: np.ndarray, metric: np.ndarray):
    i, j = np.triu_indices(human.shape[0], k=1)
    dh = human[i] - human[j]
    dm = metric[i] - metric[j]
    ok = ~(np.isnan(dh) | np.isnan(dm))
    item = np.broadcast_to(np.arange(human.shape[1]), dh.shape)[ok]
    return item, dh[ok], dm[ok]


def item_accuracy_at(item, dh, dm, eps, n_items):
    human_tie = dh == 0
    metric_tie = np.abs(dm) <= eps
    agree = (human_tie & metric_tie) | (~human_tie & ~metric_tie & ((dh > 0) == (dm > 0)))
    total = np.bincount(item, minlength=n_items)
    hits = np.bincount(item[agree], minlength=n_items)
    used = total > 0
    return hits[used] / total[used]


def acc_eq_loop(human, metric, max_candidates: int | None = None):
    """(acc_eq, ε, candidates looped over, candidates in all)."""
    item, dh, dm = pair_arrays(human, metric)
    candidates = sorted({0.0, *np.abs(dm).tolist()})
    best, best_eps = -1.0, 0.0
    looped = candidates if max_candidates is None else candidates[:max_candidates]
    for eps in looped:
        acc = item_accuracy_at(item, dh, dm, eps, human.shape[1]).mean()
        if acc > best:
            best, best_eps = acc, eps
    return best, best_eps, len(looped), len(candidates)


def spa_loop(human, metric, signs, max_pairs: int | None = None):
    """(SPA, pairs looped over, pairs in all)."""
    k = human.shape[0]
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    looped = pairs if max_pairs is None else pairs[:max_pairs]
    gaps = []
    for i, j in looped:
        ok = ~np.isnan(human[i] + human[j] + metric[i] + metric[j])
        p = []
        for scores in (human, metric):
            d = scores[i, ok] - scores[j, ok]
            observed = d.sum()
            hits = 0
            for row in signs:
                hits += (row[ok] * d).sum() >= observed - 1e-9 * np.abs(d).sum()
            p.append(hits / len(signs))
        gaps.append(abs(p[0] - p[1]))
    return 1 - float(np.mean(gaps)), len(looped), len(pairs)


def perm_both_acc_eq_draw(human, metric_a, metric_b, eps_a, eps_b, rng):
    """One PERM-BOTH draw for acc_eq: swap the two metrics' segments, recompute both accuracies."""
    swap = rng.random(human.shape[1]) < 0.5
    a = np.where(swap[None, :], metric_b, metric_a)
    b = np.where(swap[None, :], metric_a, metric_b)
    n = human.shape[1]
    # a segment that came from the other metric is judged with that metric's ε
    ia, dha, dma = pair_arrays(human, a)
    ib, dhb, dmb = pair_arrays(human, b)
    acc_a = np.where(swap[np.unique(ia)], item_accuracy_at(ia, dha, dma, eps_b, n),
                     item_accuracy_at(ia, dha, dma, eps_a, n)).mean()
    acc_b = np.where(swap[np.unique(ib)], item_accuracy_at(ib, dhb, dmb, eps_a, n),
                     item_accuracy_at(ib, dhb, dmb, eps_b, n)).mean()
    return acc_a - acc_b


def perm_both_spa_draw(human, metric_a, metric_b, signs, rng, max_pairs: int | None = None):
    """One PERM-BOTH draw for SPA with the full inner permutation test (optionally on the first pairs)."""
    swap = rng.random(human.shape[1]) < 0.5
    a = np.where(swap[None, :], metric_b, metric_a)
    b = np.where(swap[None, :], metric_a, metric_b)
    spa_a, looped, total = spa_loop(human, a, signs, max_pairs)
    spa_b, _, _ = spa_loop(human, b, signs, max_pairs)
    return spa_a - spa_b, looped, total
