"""Worker QC throughput on a synthetic crowd campaign (default 1M judgments = 10,000 HITs).

Builds 100-item HITs with SYSTEM / REF / BAD_REF / REPEAT items (numpy, leaderboard.human.qc.
simulate_judgments), 20% random clickers, 2 HITs per worker, and times the per-worker report for
every QC method plus the filter. Prints one JSON object. Usage: python bench/bench_qc.py [--rows N]
"""

from __future__ import annotations

import argparse
import json
import time

from leaderboard.human import qc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000, help="judgments (rounded to whole HITs)")
    parser.add_argument("--hits-per-worker", type=int, default=2)
    args = parser.parse_args()
    workers = max(1, args.rows // (100 * args.hits_per_worker))
    t0 = time.perf_counter()
    frame = qc.simulate_judgments(workers, args.hits_per_worker, random_share=0.2, seed=1)
    result = {"bench": "qc", "judgments": len(frame), "workers": workers,
              "generate_seconds": round(time.perf_counter() - t0, 3), "methods": {}}
    for method in qc.METHODS:
        t = time.perf_counter()
        report = qc.worker_report(frame, method)
        seconds = time.perf_counter() - t
        result["methods"][method] = {
            "seconds": round(seconds, 3), "judgments_per_second": round(len(frame) / seconds),
            "workers_kept": int(report["passed"].sum())}
    t = time.perf_counter()
    kept, report = qc.filter_judgments(frame)
    result["filter_seconds"] = round(time.perf_counter() - t, 3)
    result["summary"] = qc.qc_summary(report)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
