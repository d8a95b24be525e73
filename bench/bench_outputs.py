"""Benchmark: the automatic leaderboard's paired bootstrap for all pairs vs sacrebleu's per-pair test.

Synthetic sufficient statistics of a WMT-sized test set (default 15 systems × 2000 segments, BLEU
and chrF, 1000 resamples, seed 12345). sacrebleu tests one system against one baseline at a time,
recomputing both systems' resampled scores for every pair; the leaderboard draws once and scores
every system once. The p-values must be identical (exit code 1 otherwise). sacrebleu's time is
measured on a few pairs and scaled to all pairs. Prints one JSON object.

    python bench/bench_outputs.py [--systems 15 --segments 2000 --pairs-timed 3]
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np
from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.significance import _compute_p_value

from leaderboard.outputs.significance import paired_bootstrap


def synthetic_stats(metric: str, systems: int, segments: int, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    out = {}
    for s in range(systems):
        quality = 0.4 + 0.4 * s / max(systems - 1, 1)
        if metric == "bleu":
            length = rng.integers(5, 40, segments)
            total = np.stack([np.maximum(length - n, 0) for n in range(4)], axis=1)
            correct = (total * np.clip(quality - 0.12 * np.arange(4) + rng.normal(0, 0.1, (segments, 4)), 0, 1)).astype(int)
            out[f"sys{s:02d}"] = np.column_stack([length, length + rng.integers(-3, 4, segments).clip(0), correct, total])
        else:
            n = rng.integers(20, 200, (segments, 1)) - np.arange(6)
            match = (n * np.clip(quality - 0.08 * np.arange(6) + rng.normal(0, 0.1, (segments, 6)), 0, 1)).astype(int)
            out[f"sys{s:02d}"] = np.stack([n, n + 2, match], axis=2).reshape(segments, 18)
    return out


def sacrebleu_pair(metric_obj, a: np.ndarray, b: np.ndarray, score_a: float, score_b: float, idxs) -> float:
    """sacrebleu's _paired_bs_test for one pair, from the same statistics and draws."""
    a32, b32 = a.astype("float32"), b.astype("float32")
    scores_a = np.array([metric_obj._compute_score_from_stats(s.sum(0)).score for s in a32[idxs]])
    scores_b = np.array([metric_obj._compute_score_from_stats(s.sum(0)).score for s in b32[idxs]])
    diffs = np.abs(scores_b - scores_a)
    return _compute_p_value(diffs - diffs.mean(), abs(score_a - score_b))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--systems", type=int, default=15)
    ap.add_argument("--segments", type=int, default=2000)
    ap.add_argument("--pairs-timed", type=int, default=3)
    args = ap.parse_args()
    out = {"benchmark": "outputs_paired_bootstrap", "systems": args.systems, "segments": args.segments,
           "resamples": 1000, "pairs": args.systems * (args.systems - 1) // 2}
    ok = True
    for metric, obj in (("bleu", BLEU()), ("chrf", CHRF())):
        stats = synthetic_stats(metric, args.systems, args.segments)
        best = float("inf")
        for _ in range(3):
            t = time.perf_counter()
            result = paired_bootstrap(stats, metric)
            best = min(best, time.perf_counter() - t)
        idxs = np.random.default_rng(12345).choice(args.segments, size=(1000, args.segments), replace=True)
        names = list(stats)
        t = time.perf_counter()
        for k in range(args.pairs_timed):
            i, j = 0, k + 1
            p = sacrebleu_pair(obj, stats[names[i]], stats[names[j]], result.scores[i], result.scores[j], idxs)
            ok &= p == result.pvalues[i, j]
        per_pair = (time.perf_counter() - t) / args.pairs_timed
        out[f"{metric}_all_pairs_s"] = round(best, 3)
        out[f"{metric}_sacrebleu_all_pairs_s_estimated"] = round(per_pair * out["pairs"], 1)
        out[f"{metric}_speedup"] = round(per_pair * out["pairs"] / best, 1)
    out["identical_pvalues"] = bool(ok)
    print(json.dumps(out))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
