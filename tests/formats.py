"""Writers that turn a canonical frame into each accepted input format (test helpers)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from leaderboard.ingest.appraise import TYPE_MAP


def small_campaign(n_workers: int = 3, n_items: int = 12, seed: int = 0) -> pd.DataFrame:
    """A tiny valid canonical frame (one lp, adequacy) with every item type."""
    rng = np.random.default_rng(seed)
    rows = []
    types = ["SYSTEM", "SYSTEM", "REPEAT", "REF", "BAD_REF", "SYSTEM"]
    for w in range(n_workers):
        for pos in range(1, n_items + 1):
            rows.append({"campaign": "c1", "lp": "cs-en", "assessment": "adequacy", "worker": f"W{w}",
                         "hit": f"H{w}", "position": pos, "segment": str(pos % 5 + 1),
                         "system": f"sys{pos % 3}", "item_type": types[pos % len(types)],
                         "raw": float(rng.integers(0, 101)), "seconds": float(rng.integers(1, 60))})
    return pd.DataFrame(rows)


def write_canonical(frame: pd.DataFrame, path: Path) -> Path:
    frame.to_csv(path, index=False, sep="\t" if path.suffix == ".tsv" else ",")
    return path


def write_wmt_stnd(frame: pd.DataFrame, folder: Path) -> tuple[Path, Path]:
    """Write the release pair (good-stnd with z, trk-mean-sd print-out) for ``frame``."""
    stats = frame.groupby("worker")["raw"].agg(["mean", "std"])
    z = (frame["raw"] - frame["worker"].map(stats["mean"])) / frame["worker"].map(stats["std"])
    src, trg = frame["lp"].iloc[0].split("-")
    body = pd.DataFrame({"HITId": frame["hit"], "WorkerId": frame["worker"], "Input.src": src,
                         "Input.trg": trg, "Input.item": "ad", "hit": 1, "sys_id": frame["system"],
                         "rid": 1, "type": frame["item_type"], "sid": frame["segment"],
                         "score": z.map(lambda v: repr(float(v))), "time": 100.0})
    stnd = folder / "ad-xxen-good-stnd.csv"
    with open(stnd, "w") as fh:
        fh.write(" ".join(body.columns) + " \n")
        body.to_csv(fh, sep="\t", header=False, index=False)
    lines = []
    for worker, row in stats.iterrows():
        lines += [f'[1] "{worker}"', f"[1] {float(row['mean'])!r}", f"[1] {float(row['std'])!r}"]
    sd = folder / "ad-xxen-trk-mean-sd.txt"
    sd.write_text("\n".join(lines) + "\n")
    return stnd, sd


def write_appraise(frame: pd.DataFrame, path: Path) -> Path:
    back = {v: k for k, v in TYPE_MAP.items()}
    out = pd.DataFrame({"a": frame["worker"], "s": frame["system"], "i": frame["segment"],
                        "t": frame["item_type"].map(back), "sl": "ces", "tl": "eng",
                        "score": frame["raw"].astype(int), "doc": "d1", "c": "False", "spans": "[]",
                        "t0": 1.7e9, "t1": 1.7e9 + frame["seconds"]})
    out.to_csv(path, header=False, index=False)
    return path
