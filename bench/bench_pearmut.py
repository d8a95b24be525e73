"""Benchmark reading, ranking and writing a WMT26-sized Pearmut annotation log (one language pair).

A synthetic dynamic cESA campaign: ``--models`` systems (default 40), ``--docs`` documents of
``--segments`` segments (default 400 x 4 = 1,600 items), three models per page, pages handed out until
every item x model has about ``--redundancy`` annotations (default 1.5; some twice, as dynamic
assignment does), plus tutorial and attention-check pages (one each per 10 pages) and a reset. The
log is written with the product's own writer, then timed: reading it (:func:`read_pearmut_log`), the
pure WMT26 rule (:func:`leaderboard.human.wmt26.rank_pair`), the full ``wmt26`` ranking as ``mtlb rank``
runs it (1000 bootstrap resamples), and writing it back. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from leaderboard.human.ranking import rank_judgments  # noqa: E402
from leaderboard.human.wmt26 import rank_pair  # noqa: E402
from leaderboard.ingest.pearmut_log import read_pearmut_log  # noqa: E402
from leaderboard.ingest.pearmut_write import pearmut_log_lines  # noqa: E402


def synthetic(models: int, docs: int, segments: int, redundancy: float, seed: int):
    rng = np.random.default_rng(seed)
    names = [f"System-{k:02d}" for k in range(models)]
    quality = rng.uniform(40, 90, models)
    item_ids = [[f"news_###_site.{d}_###_{s}" for s in range(segments)] for d in range(docs)]
    items = pd.DataFrame([(i, m, "Source sentence number %d." % n, "Translation %s of %s with several words." % (m, i))
                          for n, i in enumerate(x for doc in item_ids for x in doc) for m in names],
                         columns=["segment", "system", "source", "target"])
    pages = int(docs * models * redundancy / 3)
    rows, users = [], [f"annotator-{u:03d}" for u in range(50)]
    for p in range(pages):
        d = int(rng.integers(docs))
        shown = rng.choice(models, 3, replace=False)
        user = users[p % len(users)]
        slot = 0
        for s, item in enumerate(item_ids[d]):
            for m in shown:
                slot += 1
                score = float(np.clip(np.round(quality[m] + rng.normal(0, 12)), 0, 100))
                rows.append((user, f"{d}@{p}", slot, item, names[m], score))
    judgments = pd.DataFrame(rows, columns=["worker", "hit", "position", "segment", "system", "raw"])
    spans = judgments[judgments["raw"] < 50].assign(rater=lambda f: f["worker"], severity="major", category=None,
                                                    span_start=0, span_end=5)
    return judgments, items, spans


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--models", type=int, default=40)
    ap.add_argument("--docs", type=int, default=400)
    ap.add_argument("--segments", type=int, default=4)
    ap.add_argument("--redundancy", type=float, default=1.5)
    ap.add_argument("--seed", type=int, default=26)
    args = ap.parse_args()
    judgments, items, spans = synthetic(args.models, args.docs, args.segments, args.redundancy, args.seed)
    t0 = time.perf_counter()
    lines = pearmut_log_lines(judgments, items, spans)
    t1 = time.perf_counter()
    extra = [json.dumps({"user_id": "annotator-000", "annotation": "__RESET__"})]
    tutorial = json.dumps({"annotation": [{"tutorial A": {"score": 80, "error_spans": []}}],
                           "item": [{"src": "x", "tgt": {"tutorial A": "y"}, "item_id": "xx_#_tutorial_#_0"}],
                           "user_id": "annotator-001", "item_i": "welcome_0"})
    check = json.dumps({"annotation": [{"1st": {"score": 20, "error_spans": []}}],
                        "item": [{"src": "x", "tgt": {"1st": "y"}, "item_id": "attention_check_0"}],
                        "user_id": "annotator-002", "item_i": "random_0"})
    body = []
    for k, line in enumerate(lines):
        body.append(line)
        if k % 10 == 0:
            body += [tutorial, check]
        if k == 5:
            body += extra
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "eng_Latn---ces_Latn bench.jsonl"
        path.write_text("\n".join(body) + "\n", encoding="utf-8")
        size = path.stat().st_size
        t2 = time.perf_counter()
        log = read_pearmut_log(path)
        t3 = time.perf_counter()
        rank_pair(log.judgments, lp=log.lp)
        t4 = time.perf_counter()
        rank_judgments(log.judgments, protocol="wmt26")
        t5 = time.perf_counter()
    print(json.dumps({
        "models": args.models, "items": args.docs * args.segments, "log_lines": len(body),
        "log_megabytes": round(size / 2**20, 1), "judgments": len(log.judgments), "error_spans": len(log.spans),
        "write_lines_s": round(t1 - t0, 3), "read_log_s": round(t3 - t2, 3), "rank_pair_s": round(t4 - t3, 3),
        "rank_wmt26_with_bootstrap_s": round(t5 - t4, 3),
        "read_judgments_per_s": round(len(log.judgments) / (t3 - t2)),
        "load_average_1min": round(os.getloadavg()[0], 1),  # the host is shared: read the times against it
    }))


if __name__ == "__main__":
    main()
