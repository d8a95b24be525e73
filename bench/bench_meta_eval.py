"""Benchmark: `mtlb meta-eval`'s computation against the reference tool's loop procedure, side by side.

Both run on the same inputs (one language pair, every metric, k draws per metric pair, both
statistics: acc_eq with its (segment, system pair) test and SPA with its cell-swap test). The fast
path is :func:`metrics.metaeval.evaluate.evaluate`, timed end to end (values, both tests, clusters,
the two-task global ranking). The baseline is bench/mtme_loops.py: the same procedure with the loop
structure of Google's mt-metrics-eval (which cannot be installed here; a faithful re-implementation
from its rules). Its values are computed in full; its tests run ``--baseline-draws`` draws per
metric pair and are scaled to k (every draw costs the same), or all k with ``--full``.

Without ``--human`` (as ``make bench`` runs it) the task is synthetic, of the sample's shape: 9 systems
× 200 segments × 5 metrics, MQM-like human scores.

Both sides run on one core (BLAS limited to one thread unless the environment says otherwise), on a
machine that other work may share: wall-clock and CPU seconds are both reported.

Checks (exit code 1 when one fails): the baseline's acc_eq (1e-9) and SPA (exactly) equal the fast
ones, and every p-value of the two lies within 4 Monte-Carlo standard errors (+1/k) of the other's.
With ``--expected`` (the reference tool's own output as JSON: metrics → acc_eq / spa, pvalues), the
same comparisons against it are reported. Prints one JSON object.

    python bench/bench_meta_eval.py --human H.csv --human-format canonical --human-score z \\
        --metric-scores SEG.tsv --lp zh-en [--draws 1000 --baseline-draws 100 --full --expected E.json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")      # both sides on one core (the baseline's Python loops use one anyway)

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mtme_loops import meta_eval_loop  # noqa: E402

from leaderboard.cli.meta_eval import pair_input, register  # noqa: E402
from metrics.metaeval.evaluate import PairInput, evaluate  # noqa: E402
from leaderboard.jsonable import to_jsonable  # noqa: E402
from metrics.submissions import read_submission  # noqa: E402


def band(p: float, k: int) -> float:
    return 4 * math.sqrt(2 * p * (1 - p) / k) + 1 / k


def compare_pvalues(got: dict, want: dict, k: int) -> dict:
    inside = total = 0
    worst = 0.0
    for stat, table in want.items():
        for a, row in table.items():
            for b, p in row.items():
                q = got[stat][a][b]
                total += 1
                inside += int(abs(q - p) <= band(p, k))
                worst = max(worst, abs(q - p))
    return {"inside_4se_band": inside, "pvalues": total, "max_abs_diff": round(worst, 4)}


def value_diffs(fast_rows: dict, other: dict) -> dict:
    return {stat: max(abs(fast_rows[m][stat] - other[m][stat]) for m in other) for stat in ("acc_eq", "spa")}


def make_task(systems: int = 9, segments: int = 200, metrics: int = 5, seed: int = 0) -> PairInput:
    """MQM-like human scores (many exact ties) and continuous metrics of decreasing quality."""
    rng = np.random.default_rng(seed)
    quality = np.linspace(0.5, 2.5, systems)[:, None]
    human = -rng.poisson(quality * rng.gamma(1.0, 1.0, size=(1, segments)), size=(systems, segments)).astype(float)
    scores = {f"metric{j}": human + rng.normal(scale=0.5 + 0.5 * j, size=human.shape) for j in range(metrics)}
    return PairInput("xx-yy", human, scores)


def main() -> int:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers()
    register(sub)                                  # the CLI's own input options
    cli = argparse.ArgumentParser(add_help=False)
    cli.add_argument("--baseline-draws", type=int, default=100)
    cli.add_argument("--full", action="store_true")
    cli.add_argument("--expected")
    extra, rest = cli.parse_known_args()
    load_start = round(os.getloadavg()[0], 2)
    synthetic = "--human" not in rest
    if synthetic:                                  # `make bench`: a task of the sample's shape, made up here
        rest += ["--human", "-", "--metric-scores", "-", "--lp", "xx-yy"]
    args = ap.parse_args(["meta-eval", *rest])
    if len(args.lp) != 1:
        ap.error("one --lp")
    k = args.draws
    pair = make_task() if synthetic else pair_input(args, read_submission(args.metric_scores, level="segment"),
                                                    args.lp[0])
    names = sorted(pair.metrics)

    start, cpu = time.perf_counter(), time.process_time()
    out = evaluate([pair], draws=k, seed=args.seed, early_stop=args.early_stop)
    fast, fast_cpu = time.perf_counter() - start, time.process_time() - cpu
    rows = {r["metric"]: r for r in out["lps"][0]["metrics"]}

    human = np.asarray(pair.human, dtype=float)
    metrics = {n: np.asarray(pair.metrics[n], dtype=float) for n in names}
    start, cpu = time.perf_counter(), time.process_time()
    values_only = meta_eval_loop(human, metrics, k=0)
    loop_values, loop_values_cpu = time.perf_counter() - start, time.process_time() - cpu
    loop_k = k if extra.full else min(extra.baseline_draws, k)
    start, cpu = time.perf_counter(), time.process_time()
    loop = meta_eval_loop(human, metrics, k=loop_k)
    loop_tests = time.perf_counter() - start - loop_values
    loop_tests_cpu = time.process_time() - cpu - loop_values_cpu
    baseline = loop_values + loop_tests * k / loop_k
    baseline_cpu = loop_values_cpu + loop_tests_cpu * k / loop_k

    same_values = value_diffs(rows, values_only["metrics"])
    loop_vs_fast = compare_pvalues(out["lps"][0]["pvalues"], loop["pvalues"], loop_k) if loop_k else {}
    result = {
        "task": {"lp": args.lp[0], "data": "synthetic (no --human given)" if synthetic else args.human, "systems": int(human.shape[0]), "segments": int(human.shape[1]),
                 "metrics": len(names), "draws_per_metric_pair": k, "metric_pairs_per_statistic":
                     len(names) * (len(names) - 1) // 2},
        "fast_seconds": round(fast, 3),
        "baseline_seconds": round(baseline, 1),
        "baseline_measured": "in full" if loop_k == k else f"values in full, tests on {loop_k} draws per pair × {k / loop_k:g}",
        "speedup": round(baseline / fast, 1),
        "fast_cpu_seconds": round(fast_cpu, 3), "baseline_cpu_seconds": round(baseline_cpu, 1),
        "speedup_cpu": round(baseline_cpu / fast_cpu, 1),
        "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS"), "load_average_start_end": [load_start, round(os.getloadavg()[0], 2)],
        "baseline_vs_fast": {"max_abs_diff": same_values, **{f"pvalues_{key}": v for key, v in loop_vs_fast.items()}},
    }
    ok = same_values["acc_eq"] <= 1e-9 and same_values["spa"] == 0.0 and (
        not loop_vs_fast or loop_vs_fast["inside_4se_band"] == loop_vs_fast["pvalues"])
    if extra.expected:
        want = json.loads(Path(extra.expected).read_text(encoding="utf-8"))
        result["vs_expected"] = {"max_abs_diff": value_diffs(rows, want["metrics"]),
                                 "pvalues": compare_pvalues(out["lps"][0]["pvalues"], want["pvalues"], k),
                                 "clusters_equal": {stat: [(c["metric"], c["cluster"]) for c in
                                                           out["lps"][0]["clusters"][stat]]
                                                    == [(c["metric"], c["cluster"]) for c in want["clusters"][stat]]
                                                    for stat in want["clusters"]}}
    result["checks_passed"] = bool(ok)
    print(json.dumps(to_jsonable(result)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
