"""Leaderboard page timing for a campaign of N judgments (default 1M): first render and cached rerender.

Stores N synthetic judgments in a temporary SQLite store, publishes their ranking, then runs the app's
leaderboard page with Streamlit's AppTest: once with empty caches (first render of a published
snapshot) and several times more (cached reruns). Prints one JSON object.

    python bench/bench_app.py [--judgments 1000000] [--reruns 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]


def synthetic(n: int, systems: int = 20, seed: int = 0) -> pd.DataFrame:
    """n SYSTEM judgments: 100-item HITs, one HIT per worker, systems of graded quality."""
    rng = np.random.default_rng(seed)
    idx = np.arange(n)
    hit = idx // 100
    system = rng.integers(0, systems, n)
    segment = rng.integers(1, 2001, n)
    raw = np.clip(60 + 1.5 * (systems - system) + rng.normal(0, 20, n), 0, 100).round()
    frame = pd.DataFrame({
        "campaign": "bench", "lp": "xx-en", "assessment": "adequacy",
        "worker": pd.Series(hit // 2).map("W{}".format), "hit": pd.Series(hit).map("H{}".format),
        "position": idx % 100 + 1, "segment": segment.astype(str), "system": pd.Series(system).map("sys-{:02d}".format),
        "item_type": "SYSTEM", "raw": raw.astype(float), "seconds": 30.0, "doc": None,
    })
    g = frame.groupby("worker")["raw"]
    frame["z"] = (frame["raw"] - g.transform("mean")) / g.transform("std")
    return frame


def ranking_of(frame: pd.DataFrame) -> dict:
    """The WMT DA ranking of the synthetic campaign (leaderboard.human.ranking, default protocol)."""
    from leaderboard.human.ranking import rank_judgments
    return rank_judgments(frame)[0]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--judgments", type=int, default=1_000_000)
    parser.add_argument("--reruns", type=int, default=5)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="mtlb-bench-app-")
    os.environ.update(MTLB_DATA_DIR=folder, MTLB_NO_DEMO="1")
    os.environ.pop("DATABASE_URL", None)
    from leaderboard.storage import Store, default_url
    from leaderboard.storage.store import frame_hash

    t0 = time.perf_counter()
    frame = synthetic(args.judgments)
    store = Store(default_url())
    store.load_judgments(frame, file_name="bench.csv", input_format="canonical")
    t_load = time.perf_counter() - t0
    t0 = time.perf_counter()
    ranking = ranking_of(frame)
    store.publish("bench", "xx-en", "adequacy", ranking, data_hash=frame_hash(frame), publisher="bench")
    t_rank = time.perf_counter() - t0
    del frame

    import streamlit as st
    from streamlit.testing.v1 import AppTest
    st.cache_data.clear()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    t0 = time.perf_counter()
    at.run()
    first = time.perf_counter() - t0
    if at.exception:
        print(json.dumps({"error": [e.value for e in at.exception]}))
        return 1
    rows = len(at.table[0].value)
    cached = []
    for _ in range(args.reruns):
        t0 = time.perf_counter()
        at.run()
        cached.append(time.perf_counter() - t0)
    # a new session (another visitor): process-wide caches are warm
    at2 = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    t0 = time.perf_counter()
    at2.run()
    new_session = time.perf_counter() - t0
    print(json.dumps({
        "judgments": args.judgments, "systems": rows, "store_load_s": round(t_load, 2), "rank_publish_s": round(t_rank, 2),
        "first_render_s": round(first, 3), "cached_rerender_s": round(statistics.median(cached), 3),
        "cached_rerender_max_s": round(max(cached), 3), "new_session_warm_cache_s": round(new_session, 3),
        "targets": {"first_render_s": 2.0, "cached_rerender_s": 0.3},
        "method": "streamlit AppTest script-run time of the leaderboard page (server side, no browser paint)",
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
