"""Synthetic DA campaign written in the WMT release layout (``ad-<lp>-good-stnd.csv``).

Same columns as the WMT22 release: a whitespace-separated header, tab-separated body; ``score``
is a worker z-score. Each language pair gets HITs of 100 items (70 SYSTEM, 10 REPEAT, 10 REF,
10 BAD_REF), systems with different true quality, and workers with their own bias. Used by
``bench/bench_rank.py``; importable for other benchmarks.
"""

from __future__ import annotations

import string
from pathlib import Path

import numpy as np
import pandas as pd

HEADER = "HITId WorkerId Input.src Input.trg Input.item hit sys_id rid type sid score time"
LANGS = ["cs", "de", "lv", "ru", "zh", "ja", "uk", "hr", "fr", "es", "it", "pl", "fi", "et", "lt", "ro",
         "tr", "kk", "gu", "ps", "km", "ta", "iu", "sah"]


def synth_frame(n_judgments: int = 1_000_000, n_lps: int = 20, n_systems: int = 15,
                segments_per_lp: int = 2000, hit_size: int = 100, seed: int = 0) -> pd.DataFrame:
    """The release columns of a synthetic campaign, as a frame (strings and floats)."""
    rng = np.random.default_rng(seed)
    n_hits = max(n_judgments // hit_size, n_lps)
    n = n_hits * hit_size
    hit = np.repeat(np.arange(n_hits), hit_size)
    lp = hit % n_lps
    kinds = np.array(["SYSTEM"] * 70 + ["REPEAT"] * 10 + ["REF"] * 10 + ["BAD_REF"] * 10)
    kinds = np.resize(kinds, hit_size)
    item_type = np.concatenate([rng.permutation(kinds) for _ in range(min(n_hits, 64))])
    item_type = np.resize(item_type, n)
    system = rng.integers(0, n_systems, n)
    segment = rng.integers(1, segments_per_lp + 1, n)
    workers_per_lp = max(n_hits // n_lps // 4, 2)
    worker = lp * workers_per_lp + (hit // n_lps) % workers_per_lp
    quality = rng.normal(0, 0.15, (n_lps, n_systems))
    bias = rng.normal(0, 0.3, worker.max() + 1)
    z = quality[lp, system] + bias[worker] + rng.normal(0, 0.9, n)
    z = np.where(item_type == "BAD_REF", z - 0.8, z)
    z = np.where(item_type == "REF", z + 0.3, z)
    letters = np.array(list(string.ascii_uppercase + string.digits))
    hit_ids = np.array(["".join(rng.choice(letters, 30)) for _ in range(n_hits)])
    src = np.array(LANGS[:n_lps] if n_lps <= len(LANGS) else [f"l{i}" for i in range(n_lps)])
    sys_names = np.array([f"System-{chr(65 + s % 26)}{s // 26 or ''}.{s}" for s in range(n_systems)])
    return pd.DataFrame({
        "HITId": hit_ids[hit], "WorkerId": np.char.add("M", np.char.zfill(worker.astype(str), 4)),
        "Input.src": src[lp], "Input.trg": "en", "Input.item": "ad", "hit": hit % 1000,
        "sys_id": sys_names[system], "rid": 1_000_000 + segment, "type": item_type, "sid": segment,
        "score": np.round(z, 9), "time": np.round(rng.uniform(1500, 4000, n_hits)[hit], 1),
    })


def write_release(path: str | Path, **kwargs) -> Path:
    """Write :func:`synth_frame` in the release layout; returns the path."""
    frame = synth_frame(**kwargs)
    path = Path(path)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(HEADER + "\n")
        frame.to_csv(fh, sep="\t", header=False, index=False, lineterminator="\n")
    return path


if __name__ == "__main__":  # pragma: no cover
    import sys
    print(write_release(sys.argv[1] if len(sys.argv) > 1 else "synthetic-good-stnd.csv"))
