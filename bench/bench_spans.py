"""Benchmark: span scoring of many submissions with bootstrap intervals, paired tests and clusters.

A synthetic task of WMT's shape (default: 50 submissions × 20,000 segments over 4 language pairs, gold
with 0–4 spans per segment of 0–150 characters, each submission a noisy copy of the gold), scored with
:func:`metrics.spans.evaluate_spans` — the function behind ``mtlb span-eval`` — with 1,000 bootstrap
draws: values, percentile intervals per pair and over pairs, every paired p-value and the clusters.
Timed end to end (wall clock and CPU), the input frames built beforehand; the target is under 10 s.

Checks (exit code 1 when one fails): the time is under the target, and the point values of three
submissions equal those of a plain per-character loop written here from the measure's description.
Prints one JSON object; ``--out FILE`` also writes it.

    python bench/bench_spans.py [--submissions 50 --segments 20000 --draws 1000 --measure wmt25]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from metrics.spans import SpanAnnotations, evaluate_spans  # noqa: E402

TARGET_SECONDS = 10.0
PAIRS = ("en-de", "en-cs", "en-ja", "cs-uk")


def synthetic(n_segments: int, n_submissions: int, seed: int = 1) -> tuple[SpanAnnotations, dict[str, SpanAnnotations]]:
    rng = np.random.default_rng(seed)
    lp = np.array(PAIRS)[np.arange(n_segments) % len(PAIRS)]
    items = pd.DataFrame({"lp": lp, "system": "sys", "doc": "", "segment": np.arange(n_segments).astype(str)})
    n_spans = rng.integers(0, 5, size=n_segments)
    seg = np.repeat(np.arange(n_segments), n_spans)
    start = rng.integers(0, 120, size=len(seg))
    end = start + rng.integers(1, 30, size=len(seg))
    sev = rng.choice(["minor", "major"], size=len(seg))

    def frame(idx, s, e, v):
        # as the task TSV reader gives them: each span with the row of its segment
        return pd.DataFrame({"lp": lp[idx], "system": "sys", "doc": "", "segment": idx.astype(str), "start": s,
                             "end": e, "severity": v, "item": idx})

    gold = SpanAnnotations(items, frame(seg, start, end, sev))
    preds = {}
    for k in range(n_submissions):
        keep = rng.random(len(seg)) < 0.5 + 0.4 * k / max(1, n_submissions - 1)
        shift = rng.integers(-3, 4, size=len(seg))
        flip = rng.random(len(seg)) < 0.2
        s = np.maximum(start + shift, 0)[keep]
        e = np.maximum(end + rng.integers(-3, 4, size=len(seg)), np.maximum(start + shift, 0) + 1)[keep]
        v = np.where(flip, np.where(sev == "major", "minor", "major"), sev)[keep]
        extra = rng.random(n_segments) < 0.1                                 # false alarms
        xs = rng.integers(0, 120, size=int(extra.sum()))
        xi = np.flatnonzero(extra)
        spans = pd.concat([frame(seg[keep], s, e, v), frame(xi, xs, xs + rng.integers(1, 10, size=len(xi)), "minor")])
        preds[f"sub{k:02d}"] = SpanAnnotations(items, spans)
    return gold, preds


def loop_reference(gold: SpanAnnotations, pred: SpanAnnotations) -> dict:
    """The WMT25 rule with a plain loop over characters (from its description), per pair and mean."""
    def nested(a):
        out = defaultdict(lambda: defaultdict(list))
        for r in a.spans.itertuples():
            out[r.lp][r.segment].append((int(r.start), int(r.end), r.severity))
        return out
    g, p = nested(gold), nested(pred)
    res = {}
    for lp in PAIRS:
        credit = pc = gc = 0.0
        for segment in set(g[lp]) | set(p[lp]):
            counts = defaultdict(lambda: [0, 0, 0, 0])          # gold major, gold minor, pred major, pred minor
            for side, spans in ((0, g[lp][segment]), (2, p[lp][segment])):
                for s, e, v in spans:
                    for c in range(s, e):
                        counts[c][side + (0 if v == "major" else 1)] += 1
            for gM, gm, pM, pm in counts.values():
                a, b = min(gM, pM), min(gm, pm)
                credit += a + b + 0.5 * (min(gM - a, pm - b) + min(gm - b, pM - a))
                pc += pM + pm
                gc += gM + gm
        prec = credit / pc if pc else 1.0
        rec = credit / gc if gc else 1.0
        res[lp] = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
    res["all"] = float(np.mean([res[lp] for lp in PAIRS]))
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--submissions", type=int, default=50)
    ap.add_argument("--segments", type=int, default=20000)
    ap.add_argument("--draws", type=int, default=1000)
    ap.add_argument("--measure", choices=("wmt25", "mpp"), default="wmt25")
    ap.add_argument("--out", help="also write the JSON here")
    args = ap.parse_args()
    gold, preds = synthetic(args.segments, args.submissions)
    wall, cpu = time.perf_counter(), time.process_time()
    result = evaluate_spans(gold, preds, measure=args.measure, draws=args.draws, seed=12345)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    checks = {"under_target": wall < TARGET_SECONDS}
    if args.measure == "wmt25":
        worst = 0.0
        for name in list(preds)[:: max(1, len(preds) // 3)][:3]:
            ref = loop_reference(gold, preds[name])
            worst = max(worst, max(abs(ref[k] - result.values[name][k]["f1"]) for k in ref))
        checks["loop_reference_max_abs_diff"] = worst
        checks["matches_loop_reference"] = worst < 1e-12
    try:
        from threadpoolctl import threadpool_info
        blas = [{k: i.get(k) for k in ("internal_api", "num_threads")} for i in threadpool_info()]
    except Exception:  # pragma: no cover - informative only
        blas = []
    out = {"benchmark": "spans", "measure": args.measure, "submissions": args.submissions, "segments": args.segments,
           "pairs": len(PAIRS), "gold_spans": int(len(gold.spans)), "draws": args.draws,
           "paired_tests": args.submissions * (args.submissions - 1) * (len(PAIRS) + 1),
           "seconds_wall": round(wall, 3), "seconds_cpu": round(cpu, 3), "target_seconds": TARGET_SECONDS,
           "checks": checks, "machine": {"cpus": os.cpu_count(), "load_average_1min": round(os.getloadavg()[0], 2), "python": platform.python_version(),
                                         "numpy": np.__version__, "blas": blas}}
    text = json.dumps(out, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    ok = checks["under_target"] and checks.get("matches_loop_reference", True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
