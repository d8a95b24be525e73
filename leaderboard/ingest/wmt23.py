"""The WMT23 DA+SQM annotation CSV (``WMT23.scores_all.csv``): 11 fields per line, no header.

Fields: user id, system id, segment id (1-based, within its document), type (``TGT``), source
language, target language, score (integer 0–100), document id, is-document flag (``False``), start
time, end time. A header line naming the fields (``UserID,SystemID,...``) is skipped when present.

Mapping to the canonical model: user → worker and HIT, the segment → ``<document id>:<segment id>``
(segment ids restart in every document), ``TGT`` → ``SYSTEM`` (``BAD`` / ``CHK`` / ``REF`` as in
Appraise), three-letter language codes → two letters (``ces`` → ``cs``); position = the order in which
the user finished the items (by end time, ties in file order); seconds = end − start. Times are unix
seconds or a date and time (``2023-08-21 10:11:12``, ISO 8601). Document-level rows (is-document
``True``) are not segment judgments: they are left out and counted in ``attrs["document_rows"]``.
"""

from __future__ import annotations

import csv

import numpy as np
import pandas as pd

from ..errors import InputError
from ..naming import UNSAFE_NAME_CHARS, check_name
from ..schema import LINE, MAX_POSITION
from .appraise import TYPE_MAP, _lang
from .textio import csv_rows, read_text

N_COLUMNS = 11
COLUMN_NAMES = ("user", "system", "segment", "type", "src_lang", "tgt_lang", "score", "doc", "is_doc", "start", "end")
HEADER = ("userid", "systemid", "segmentid", "type", "sourcelanguage", "targetlanguage", "score", "documentid",
          "isdocument?", "starttime", "endtime")
FIELDS = {name: f"{title} (field {i})" for i, (name, title) in enumerate(zip(COLUMN_NAMES, (
    "UserID", "SystemID", "SegmentID", "Type", "SourceLanguage", "TargetLanguage", "Score", "DocumentID",
    "IsDocument?", "StartTime", "EndTime")), start=1)}
SOURCE_COLUMNS = {"worker": FIELDS["user"], "hit": FIELDS["user"], "system": FIELDS["system"],
                  "segment": FIELDS["segment"], "item_type": FIELDS["type"], "lp": "languages (fields 5-6)",
                  "raw": FIELDS["score"], "doc": FIELDS["doc"], "seconds": "times (fields 10-11)"}


def _is_header(row: list[str]) -> bool:
    return [c.strip().lower().replace(" ", "") for c in row] == list(HEADER)


def looks_like_wmt23(head: str) -> bool:
    """True when the first data line parses as 11 CSV fields with an item type in field 4."""
    lines = [ln for ln in head.splitlines() if ln.strip()][:2]
    try:
        rows = list(csv.reader(lines))
    except csv.Error:
        return False
    rows = [r for r in rows if not _is_header(r)]
    return bool(rows) and len(rows[0]) == N_COLUMNS and rows[0][3].strip().upper() in TYPE_MAP


def _times(text: pd.Series, label: str, lines: np.ndarray, column: str) -> np.ndarray:
    """Seconds since the epoch from unix seconds or date-time text; a bad value is refused."""
    stripped = text.str.strip()
    numeric = pd.to_numeric(stripped.replace("", None), errors="coerce").to_numpy(dtype=float, copy=True)
    need = np.isnan(numeric) & (stripped != "").to_numpy()
    if need.any():
        parsed = pd.to_datetime(stripped[need], errors="coerce", utc=True, format="mixed")
        seconds = (parsed - pd.Timestamp("1970-01-01", tz="UTC")).dt.total_seconds().to_numpy(dtype=float)
        numeric[need] = seconds
    bad = np.flatnonzero((np.isnan(numeric) & (stripped != "").to_numpy()) | np.isinf(numeric))
    if bad.size:
        i = int(bad[0])
        raise InputError(f"time {text.iloc[i]!r} is neither unix seconds nor a date and time", file=label,
                         line=int(lines[i]), column=FIELDS[column])
    return numeric


def read_wmt23(path: str, campaign: str | None = None, assessment: str | None = None,
               name: str | None = None) -> pd.DataFrame:
    """Read a WMT23 DA+SQM CSV into canonical columns (plus ``_line``), unvalidated beyond its own fields."""
    label = name or str(path)
    text = read_text(path, label, nul_ok=False)
    rows = csv_rows(text, label)
    body, lines = [], []
    for i, row in enumerate(rows, start=1):
        if not row or (len(row) == 1 and not row[0].strip()):
            continue
        if i == 1 and _is_header(row):
            continue
        if len(row) != N_COLUMNS:
            raise InputError(f"expected {N_COLUMNS} comma-separated fields, found {len(row)}", file=label, line=i)
        body.append(row)
        lines.append(i)
    if not body:
        raise InputError("no annotations found (the file is empty or holds only a header)", file=label)
    frame = pd.DataFrame(body, columns=list(COLUMN_NAMES))
    line_no = np.asarray(lines)
    kind = frame["type"].str.strip().str.upper()
    bad = np.flatnonzero(~kind.isin(list(TYPE_MAP)).to_numpy())
    if bad.size:
        i = int(bad[0])
        raise InputError(f"unknown item type {frame['type'].iloc[i]!r} (expected {', '.join(TYPE_MAP)})",
                         file=label, line=int(line_no[i]), column=FIELDS["type"])
    flag = frame["is_doc"].str.strip().str.lower()
    bad = np.flatnonzero(~flag.isin(["true", "false"]).to_numpy())
    if bad.size:
        i = int(bad[0])
        raise InputError(f"is-document must be True or False, not {frame['is_doc'].iloc[i]!r}", file=label,
                         line=int(line_no[i]), column=FIELDS["is_doc"])
    score = pd.to_numeric(frame["score"].str.strip(), errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero(~np.isfinite(score) | (score != np.round(score)) | (score < 0) | (score > 100))
    if bad.size:
        i = int(bad[0])
        raise InputError(f"score {frame['score'].iloc[i]!r} is not a whole number from 0 to 100", file=label,
                         line=int(line_no[i]), column=FIELDS["score"])
    for col in ("user", "system", "segment", "doc", "src_lang", "tgt_lang"):
        empty = np.flatnonzero((frame[col].str.strip() == "").to_numpy())
        if empty.size:
            raise InputError("empty value", file=label, line=int(line_no[empty[0]]), column=FIELDS[col])
    # the segment key joins document and segment id: each is checked here, where its own field is known
    for col in ("doc", "segment"):
        unsafe = np.flatnonzero(frame[col].str.contains(UNSAFE_NAME_CHARS).to_numpy(dtype=bool))
        if unsafe.size:
            check_name(frame[col].iloc[unsafe[0]], "value", file=label, line=int(line_no[unsafe[0]]),
                       column=FIELDS[col])
    segment = frame["segment"].str.strip()
    digits = segment.str.fullmatch(r"\d{1,10}").to_numpy(dtype=bool)
    big = digits & (pd.to_numeric(segment.where(digits, "0")).to_numpy() > MAX_POSITION)
    bad = np.flatnonzero(~digits | big)
    if bad.size:
        i = int(bad[0])
        raise InputError(f"segment id {frame['segment'].iloc[i]!r} is not a whole number from 0 to {MAX_POSITION:,} "
                         "(the segment's number in its document)", file=label, line=int(line_no[i]),
                         column=FIELDS["segment"])
    start = _times(frame["start"], label, line_no, "start")
    end = _times(frame["end"], label, line_no, "end")
    document_rows = int((flag == "true").sum())
    keep = (flag == "false").to_numpy()
    doc = frame["doc"].str.strip()
    out = pd.DataFrame({
        "campaign": campaign or "wmt23",
        "lp": frame["src_lang"].map(_lang) + "-" + frame["tgt_lang"].map(_lang),
        "assessment": assessment or "adequacy",
        "worker": frame["user"].str.strip(),
        "hit": frame["user"].str.strip(),
        "segment": doc + ":" + segment,
        "system": frame["system"].str.strip(),
        "item_type": kind.map(TYPE_MAP),
        "raw": score,
        "seconds": end - start,
        "doc": doc,
        LINE: line_no,
    })
    order = np.lexsort((line_no, np.nan_to_num(end, nan=np.inf)))
    position = np.zeros(len(out), dtype=np.int64)
    position[order] = out.iloc[order].groupby("hit", sort=False).cumcount().to_numpy() + 1
    out["position"] = position
    out = out[keep].reset_index(drop=True)
    if out.empty:
        raise InputError("no segment annotations: every row is a document-level score", file=label)
    out.attrs["source_columns"] = SOURCE_COLUMNS
    out.attrs["document_rows"] = document_rows
    return out
