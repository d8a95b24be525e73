"""Benchmark: vectorised bootstrap / permutation tests vs a per-resample loop (the usual way).

WMT-sized synthetic task (default 15 systems × 2000 segments × 20 metrics, 1000 resamples, 40% of
the human cells judged). The random draws (segment indices, swap masks) are generated once and
fed to both implementations, whose results must agree to 1e-9 (exit code 1 otherwise). The
vectorised timings are the best of 3 runs; the loops run once. Prints one JSON object.

    python bench/bench_correlate.py [--systems 15 --segments 2000 --metrics 20 --resamples 1000]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings

import numpy as np
from scipy import stats

from metrics.bootstrap import draw_indices, segment_bootstrap_samples
from metrics.permutation import draw_swaps, permutation_samples


def make_task(s: int, n: int, k: int, seed: int = 0) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    quality = np.linspace(-0.5, 0.5, s)
    difficulty = rng.normal(size=n)
    human = quality[:, None] + difficulty[None, :] + rng.normal(size=(s, n))
    human[rng.random((s, n)) > 0.4] = np.nan
    metrics = {}
    for j in range(k):
        noise = 0.2 + 0.1 * j
        metrics[f"metric{j:02d}"] = (quality + rng.normal(0, 0.1, s))[:, None] + 0.5 * difficulty[None, :] \
            + noise * rng.normal(size=(s, n))
    return human, metrics


def loop_bootstrap(human: np.ndarray, metrics: dict[str, np.ndarray], indices: np.ndarray) -> dict[str, np.ndarray]:
    """One resample at a time: system means of the drawn segments, then scipy's correlations."""
    out = {stat: np.empty((len(metrics), len(indices))) for stat in ("pearson", "spearman", "kendall")}
    for b, idx in enumerate(indices):
        h = np.nanmean(human[:, idx], axis=1)
        for k, scores in enumerate(metrics.values()):
            m = scores[:, idx].mean(axis=1)
            out["pearson"][k, b] = stats.pearsonr(h, m)[0]
            out["spearman"][k, b] = stats.spearmanr(h, m)[0]
            out["kendall"][k, b] = stats.kendalltau(h, m)[0]
    return out


def loop_permutation(human: np.ndarray, metrics: dict[str, np.ndarray], pairs: list[tuple[int, int]],
                     swaps: np.ndarray) -> np.ndarray:
    """PERM-BOTH one draw and one pair at a time (z-normalise, swap cells, average, correlate)."""
    names = list(metrics)
    h = np.nanmean(human, axis=1)
    z = {name: (v - v.mean()) / v.std() for name, v in metrics.items()}
    out = np.empty((len(pairs), len(swaps)))
    for p, (i, j) in enumerate(pairs):
        za, zb = z[names[i]], z[names[j]]
        for b, w in enumerate(swaps):
            sa = np.where(w, zb, za).mean(axis=1)
            sb = np.where(w, za, zb).mean(axis=1)
            out[p, b] = stats.pearsonr(h, sa)[0] - stats.pearsonr(h, sb)[0]
    return out


def best_of(fn, repeat: int = 3):
    """Minimum wall time of ``repeat`` calls (the fast paths take milliseconds) and the last result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--systems", type=int, default=15)
    ap.add_argument("--segments", type=int, default=2000)
    ap.add_argument("--metrics", type=int, default=20)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--loop-pairs", type=int, default=19,
                    help="metric pairs run by the slow loop (metric 0 against the next ones)")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore", RuntimeWarning)

    human, metrics = make_task(args.systems, args.segments, args.metrics)
    indices = draw_indices(args.segments, args.resamples, seed=1)
    swaps = draw_swaps((args.systems, args.segments), args.resamples, seed=2)

    t_fast_boot, fast_boot = best_of(lambda: segment_bootstrap_samples(human, metrics, indices=indices))
    t0 = time.perf_counter()
    slow_boot = loop_bootstrap(human, metrics, indices)
    t_slow_boot = time.perf_counter() - t0
    boot_diff = max(float(np.nanmax(np.abs(fast_boot[s] - slow_boot[s]))) for s in slow_boot)

    k = len(metrics)
    loop_pairs = [(0, j) for j in range(1, min(k, args.loop_pairs + 1))]
    t_fast_perm, (_, fast_perm, _) = best_of(lambda: permutation_samples(human, metrics, swaps=swaps,
                                                                           pairs=loop_pairs))
    t_fast_perm_all, (_, all_perm, all_pairs) = best_of(lambda: permutation_samples(human, metrics, swaps=swaps))
    t0 = time.perf_counter()
    slow_perm = loop_permutation(human, metrics, loop_pairs, swaps)
    t_slow_perm = time.perf_counter() - t0
    perm_diff = float(np.max(np.abs(fast_perm - slow_perm)))

    result = {
        "task": {"systems": args.systems, "segments": args.segments, "metrics": k,
                 "resamples": args.resamples, "human_cells_judged": float(np.mean(~np.isnan(human)))},
        "bootstrap": {"statistics": ["pearson", "spearman", "kendall"], "metrics": k,
                      "vectorised_s": round(t_fast_boot, 4), "loop_s": round(t_slow_boot, 3),
                      "speedup": round(t_slow_boot / t_fast_boot, 1), "max_abs_diff": boot_diff},
        "permutation": {"statistic": "pearson", "pairs": len(loop_pairs),
                        "vectorised_s": round(t_fast_perm, 4), "loop_s": round(t_slow_perm, 3),
                        "speedup": round(t_slow_perm / t_fast_perm, 1), "max_abs_diff": perm_diff,
                        "vectorised_all_pairs": {"pairs": len(all_pairs), "seconds": round(t_fast_perm_all, 4),
                                                 "loop_estimate_s": round(t_slow_perm / len(loop_pairs)
                                                                          * len(all_pairs), 1)}},
    }
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")
    ok = boot_diff < 1e-9 and perm_diff < 1e-9
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
