"""Benchmark: the vectorised meta-evaluation (acc_eq, SPA, PERM-BOTH clusters) vs Python loops.

Task (issue 18): 20 metrics × 15 systems × 1,500 segments, 1,000 permutation draws; human scores
MQM-like (many exact ties), metric scores continuous. The fast path is
:func:`metrics.metaeval.evaluate.meta_evaluate`, timed end to end. The baseline
(bench/mtme_loops.py) is the reference tool's loop algorithm; run in full it would take days, so each
of its parts runs on a measured slice (the first ε candidates, system pairs or draws) and is scaled
by the count of those units, which the loop visits one after another at the same cost. acc_eq and ε
of the loop version are checked to be EQUAL to the fast ones on a 15 × 60 sub-task run in full (exit
code 1 otherwise). Prints one JSON object.

    python bench/bench_meta_eval.py [--systems 15 --segments 1500 --metrics 20 --draws 1000]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mtme_loops import acc_eq_loop, perm_both_acc_eq_draw, perm_both_spa_draw, spa_loop  # noqa: E402

from metrics.metaeval.acc_eq import acc_eq  # noqa: E402
from metrics.metaeval.evaluate import meta_evaluate  # noqa: E402
from metrics.metaeval.spa import sign_flips  # noqa: E402


def make_task(s: int, n: int, k: int, seed: int = 0) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    quality = np.linspace(0.5, 2.5, s)[:, None]
    errors = rng.poisson(quality * rng.gamma(1.0, 1.0, size=(1, n)), size=(s, n)).astype(float)
    human = -(errors + 4 * (rng.random((s, n)) < 0.05))          # negated MQM: 0, -1, -2, ... (ties)
    metrics = {f"metric{j:02d}": human + rng.normal(scale=0.5 + 0.15 * j, size=(s, n)) for j in range(k)}
    return human, metrics


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--systems", type=int, default=15)
    ap.add_argument("--segments", type=int, default=1500)
    ap.add_argument("--metrics", type=int, default=20)
    ap.add_argument("--draws", type=int, default=1000)
    args = ap.parse_args()
    human, metrics = make_task(args.systems, args.segments, args.metrics)
    names = list(metrics)
    result, fast = timed(meta_evaluate, human, metrics, draws=args.draws)

    # exactness: the loop version on a sub-task, in full
    sub_h = human[:, :60]
    same = True
    for name in names[:3]:
        loop_acc, loop_eps, _, _ = acc_eq_loop(sub_h, metrics[name][:, :60])
        fast_res = acc_eq(sub_h, metrics[name][:, :60])
        same &= abs(loop_acc - fast_res.acc_eq) < 1e-12 and loop_eps == fast_res.epsilon

    # the loop baseline on slices, scaled by its unit counts
    m0, m1 = metrics[names[0]], metrics[names[1]]
    (_, _, looped, n_cands), t = timed(acc_eq_loop, human, m0, max_candidates=300)
    acc_eq_all = t / looped * n_cands * args.metrics
    signs = sign_flips(args.segments, args.draws)
    (_, looped, n_pairs), t = timed(spa_loop, human, m0, signs, max_pairs=3)
    spa_all = t / looped * n_pairs * args.metrics
    eps0, eps1 = acc_eq(human, m0).epsilon, acc_eq(human, m1).epsilon
    rng = np.random.default_rng(1)
    _, t = timed(lambda: [perm_both_acc_eq_draw(human, m0, m1, eps0, eps1, rng) for _ in range(5)])
    metric_pairs = args.metrics * (args.metrics - 1) // 2
    perm_acc_all = t / 5 * args.draws * metric_pairs
    (_, looped, n_pairs), t = timed(perm_both_spa_draw, human, m0, m1, signs[:50], rng, max_pairs=2)
    perm_spa_all = t / (looped * 50) * n_pairs * args.draws * args.draws * metric_pairs
    baseline = acc_eq_all + spa_all + perm_acc_all + perm_spa_all
    baseline_no_nested = acc_eq_all + spa_all + perm_acc_all
    out = {
        "task": {"metrics": args.metrics, "systems": args.systems, "segments": args.segments, "draws": args.draws},
        "fast_seconds": round(fast, 3),
        "baseline_seconds_estimated": round(baseline, 1),
        "baseline_parts_seconds": {"acc_eq": round(acc_eq_all, 1), "spa": round(spa_all, 1),
                                   "perm_both_acc_eq": round(perm_acc_all, 1),
                                   "perm_both_spa_nested": round(perm_spa_all, 1)},
        "speedup": round(baseline / fast, 1),
        "speedup_without_the_nested_spa_test": round(baseline_no_nested / fast, 1),
        "acc_eq_equal_on_full_subtask": bool(same),
        "epsilon_candidates_per_metric": n_cands,
        "top_metric": result["metrics"][0]["metric"],
    }
    print(json.dumps(out))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
