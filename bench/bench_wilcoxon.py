"""Benchmark the small-sample signed-rank p (all 2^n sign flips, n ≤ 13 with zeros or ties).

Times (a) ``mtlb rank --protocol wmt24-esa`` on the shipped WMT24 en-ja wave-3 release as a whole process
(user + system CPU, empty data folder), and (b) in this process, ``wilcoxon_pvalue`` against
``scipy.stats.wilcoxon(..., method=PermutationMethod())`` on ESA-like samples of size n, with the largest
relative difference of the two p-values. Prints one JSON object.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy import stats

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from leaderboard.human.significance import wilcoxon_pvalue  # noqa: E402

RELEASE = ROOT / "data" / "wmt24-esa" / "esa_generalMT2024_wave3.en-ja.csv.gz"


def rank_process_cpu() -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory() as data_dir:
        subprocess.run([sys.executable, "-m", "leaderboard.cli", "rank", "--input", str(RELEASE), "--protocol",
                        "wmt24-esa", "--lp", "en-ja", "--json"], check=True, stdout=subprocess.DEVNULL,
                       env={"MTLB_DATA_DIR": data_dir, "PATH": "/usr/bin:/bin"}, cwd=ROOT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def per_call(n: int, samples: int, rng: np.random.Generator) -> dict:
    ds = []
    while len(ds) < samples:
        d = (rng.integers(0, 101, n) - rng.integers(0, 101, n)) // 10 * 1.0
        nz = np.abs(d[d != 0])
        if len(nz) and (len(nz) < n or len(np.unique(nz)) < len(nz)):
            ds.append(d)
    t = time.process_time()
    ours = [wilcoxon_pvalue(d) for d in ds]
    t_ours = (time.process_time() - t) / samples
    t = time.process_time()
    ref = [stats.wilcoxon(d, method=stats.PermutationMethod(), correction=False, zero_method="wilcox").pvalue
           for d in ds]
    t_ref = (time.process_time() - t) / samples
    rel = max(abs(a - b) / b for a, b in zip(ours, ref))
    return {"n": n, "samples": samples, "ms_per_call": round(1e3 * t_ours, 4),
            "scipy_ms_per_call": round(1e3 * t_ref, 2), "max_rel_diff": rel}


def main() -> None:
    rng = np.random.default_rng(7)
    out = {"rank_wmt24_esa_en_ja_cpu_s": round(rank_process_cpu(), 2),
           "per_call": [per_call(n, s, rng) for n, s in ((5, 40), (9, 10), (13, 2))]}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
