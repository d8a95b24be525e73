"""Exports of collected judgments in the layouts other tools (and ``mtlb ingest``) read.

* ``appraise``: Appraise's headerless 12-column CSV (annotator, system, item id, type, source and
  target language as three-letter codes, score, document, is-complete, error spans as JSON with
  inclusive ends and ``"missing"`` for missing content, start and end as Unix seconds), every
  counted answer of every annotator, in the order given. Item types: SYSTEM → TGT, BAD_REF → BAD,
  REPEAT → CHK, REF → REF.
* ``wmt``: the WMT crowd-DA release: ``<item>-<src><tgt>-good-stnd.csv`` (a space-separated header,
  tab-separated rows ``HITId WorkerId Input.src Input.trg Input.item hit sys_id rid type sid score
  time``; ``score`` is the worker z-score, ``time`` the assignment's seconds) holding only the
  annotators who passed the worker test and were not rejected, as the organisers release "good"
  workers, and ``<item>-<src><tgt>-trk-mean-sd.txt``, the R print-out of each one's raw mean and sd
  from which ``mtlb ingest --worker-stats`` rebuilds the raw scores. ``item`` is ``ad`` (adequacy),
  ``sr`` (source-based) or ``esa``.

Text cells that a spreadsheet would run as formulas are neutralised (:mod:`leaderboard.tables`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError
from ..human.standardise import worker_stats, worker_z
from ..ingest.appraise import ISO3_TO_2
from ..languages import split_lp
from ..storage import Store
from ..storage import collect as db
from ..tables import neutralise_formulas

FORMATS: tuple[str, ...] = ("appraise", "wmt")
APPRAISE_TYPES = {"SYSTEM": "TGT", "BAD_REF": "BAD", "REPEAT": "CHK", "REF": "REF"}
ITEM_CODES = {"adequacy": "ad", "source-based": "sr", "esa": "esa"}
_ISO2_TO_3 = {two: three for three, two in ISO3_TO_2.items()}


def _unix(values: pd.Series) -> np.ndarray:
    return (pd.to_datetime(values, utc=True) - pd.Timestamp(0, tz="UTC")).dt.total_seconds().round(3).to_numpy()


def _appraise_spans(text: str | None) -> str:
    spans = json.loads(text) if text else []
    out = []
    for s in spans:
        missing = s.get("start") is None
        out.append({"start_i": "missing" if missing else s["start"], "end_i": "missing" if missing else s["end"] - 1,
                    "severity": s["severity"], "error_type": None})
    return json.dumps(out, separators=(",", ":"))


def appraise_frame(answers: pd.DataFrame, lp: str) -> pd.DataFrame:
    """The Appraise rows of the collected answers (no header)."""
    src, tgt = split_lp(lp)
    score = answers["raw"].astype(float)
    return pd.DataFrame({
        "annotator": answers["annotator"], "system": answers["system"], "item": answers["segment"],
        "type": answers["item_type"].map(APPRAISE_TYPES), "src": _ISO2_TO_3.get(src, src),
        "tgt": _ISO2_TO_3.get(tgt, tgt),
        "score": np.where(score == np.round(score), score.round().astype("int64").astype(str), score.astype(str)),
        "doc": answers["doc"].fillna("").astype(str), "complete": "False",
        "spans": answers["spans"].map(_appraise_spans), "start": _unix(answers["started_at"]),
        "end": _unix(answers["ended_at"]),
    })


def release_frames(answers: pd.DataFrame, lp: str, assessment: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(good-stnd rows, per-worker mean / sd) of the annotators who passed and were not rejected."""
    good = answers[(answers["qc_pass"] == True) & (answers["decision"] != "rejected")]  # noqa: E712
    src, tgt = split_lp(lp)
    frame = pd.DataFrame({"worker": good["annotator"].to_numpy(), "lp": lp, "assessment": assessment,
                          "raw": good["raw"].to_numpy(dtype=float), "item_type": good["item_type"].to_numpy()})
    z = worker_z(frame)
    keep = np.isfinite(z)  # a worker whose scores do not vary has no z (as in the WMT releases)
    good, frame, z = good[keep], frame[keep], z[keep]
    seconds = (pd.to_datetime(good["ended_at"], utc=True) - pd.to_datetime(good["started_at"], utc=True)
               ).dt.total_seconds().to_numpy()
    key = good["hit"].astype(str) + "\t" + good["annotator"].astype(str)
    hit_seconds = pd.Series(seconds).groupby(key.to_numpy()).transform("sum").to_numpy()
    hit_number = pd.factorize(good["hit"])[0]
    stnd = pd.DataFrame({
        "HITId": good["hit"].to_numpy(), "WorkerId": good["annotator"].to_numpy(), "Input.src": src,
        "Input.trg": tgt, "Input.item": ITEM_CODES.get(assessment, assessment), "hit": hit_number,
        "sys_id": good["system"].to_numpy(), "rid": good["doc"].fillna("-").astype(str).to_numpy(),
        "type": good["item_type"].to_numpy(), "sid": good["segment"].to_numpy(), "score": z,
        "time": np.round(hit_seconds, 3),
    })
    stats = worker_stats(frame)
    return stnd, stats


def _r_number(value: float) -> str:
    return "NA" if not np.isfinite(value) else f"{value:.7g}"


def export(store: Store, campaign: str, lp: str, fmt: str, out: str | Path) -> dict[str, Any]:
    """Write the collected judgments of (campaign, lp) to folder ``out``; ``{"files", "rows", "workers"}``."""
    if fmt not in FORMATS:
        raise InputError(f"export format must be one of {', '.join(FORMATS)}, got {fmt!r}", column="format")
    info = db.collection(store, campaign, lp)
    answers = db.collected_answers(store, info["id"])
    decisions = db.annotator_table(store, info["id"]).set_index("name")["decision"]
    answers["decision"] = answers["annotator"].map(decisions)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    src, tgt = split_lp(lp)
    if fmt == "appraise":
        path = folder / f"{_slug(campaign)}.{lp}.appraise.csv"
        neutralise_formulas(appraise_frame(answers, lp)).to_csv(path, header=False, index=False)
        return {"files": [str(path)], "rows": len(answers), "workers": int(answers["annotator"].nunique())}
    stnd, stats = release_frames(answers, lp, info["assessment"])
    if stnd.empty:
        raise InputError("no annotator has passed the worker test yet, and the WMT release holds only those who "
                         "did (the Appraise export holds everyone)", code="no_annotator_passed")
    code = ITEM_CODES.get(info["assessment"], info["assessment"])
    stnd_path = folder / f"{code}-{src}{tgt}-good-stnd.csv"
    with stnd_path.open("w", encoding="utf-8", newline="") as fh:
        fh.write(" ".join(stnd.columns) + "\n")
        neutralise_formulas(stnd).to_csv(fh, sep="\t", header=False, index=False, float_format="%.15g")
    stats_path = folder / f"{code}-{src}{tgt}-trk-mean-sd.txt"
    lines = []
    for row in stats.itertuples():
        lines += [f'[1] "{row.worker}"', f"[1] {_r_number(row.mean)}", f"[1] {_r_number(row.sd)}"]
    stats_path.write_text("\n".join(lines) + ("\n" if lines else ""), encoding="utf-8")
    return {"files": [str(stnd_path), str(stats_path)], "rows": len(stnd), "workers": int(len(stats))}


def _slug(text: str) -> str:
    import re
    return re.sub(r"[^A-Za-z0-9._-]+", "_", str(text)).strip("_") or "campaign"
