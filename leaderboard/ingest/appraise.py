"""Appraise CSV exports: headerless, 12 columns (the WMT24 ESA/DA format).

Columns: annotator, system, item id, item type (TGT | BAD | CHK | REF), source language,
target language, score, document id, is-complete flag, error spans (JSON), start, end (unix s).

Mapping to the canonical model: annotator → worker and hit (an Appraise task is one annotator's
batch), item id → segment, TGT → SYSTEM, BAD → BAD_REF, CHK → REPEAT, REF → REF; position is
the order in which the annotator finished the item (by end time, equal end times in file order, rows
without one last), so the latest of several ratings of one item has the highest position;
seconds = end − start. Three-letter language codes are shortened to two letters where ISO 639-1 has
one (eng → en, jpn → ja, zho → zh).
The assessment is ``esa`` when any row carries error spans, otherwise ``adequacy``.
"""

from __future__ import annotations

import csv

import numpy as np
import pandas as pd

from ..errors import InputError
from ..schema import LINE
from .textio import csv_rows, read_text

N_COLUMNS = 12
COLUMN_NAMES = ("annotator", "system", "item", "type", "src_lang", "tgt_lang", "score", "doc",
                "complete", "spans", "start", "end")
#: canonical column -> the export's field, for error messages
SOURCE_COLUMNS = {"worker": "annotator (field 1)", "hit": "annotator (field 1)", "system": "system (field 2)",
                  "segment": "item id (field 3)", "item_type": "type (field 4)", "lp": "languages (fields 5-6)",
                  "raw": "score (field 7)", "doc": "document (field 8)", "seconds": "times (fields 11-12)"}
TYPE_MAP = {"TGT": "SYSTEM", "BAD": "BAD_REF", "CHK": "REPEAT", "REF": "REF"}
ISO3_TO_2 = {
    "eng": "en", "jpn": "ja", "zho": "zh", "deu": "de", "ces": "cs", "fra": "fr", "spa": "es",
    "rus": "ru", "ukr": "uk", "hin": "hi", "isl": "is", "kor": "ko", "pol": "pl", "ita": "it",
    "por": "pt", "ara": "ar", "heb": "he", "hrv": "hr", "srp": "sr", "lit": "lt", "lav": "lv",
    "est": "et", "fin": "fi", "tur": "tr", "ron": "ro", "kaz": "kk", "guj": "gu", "tam": "ta",
    "ben": "bn", "mar": "mr", "nld": "nl", "swe": "sv", "dan": "da", "nor": "no", "hun": "hu",
    "ell": "el", "bul": "bg", "slk": "sk", "slv": "sl", "vie": "vi", "tha": "th", "ind": "id",
    "khm": "km", "pus": "ps", "xho": "xh", "zul": "zu", "hau": "ha", "yor": "yo", "ibo": "ig",
}


def looks_like_appraise(head: str) -> bool:
    """True when the first line parses as 12 CSV fields with an Appraise item type in field 4."""
    lines = head.splitlines()
    if not lines:
        return False
    try:
        row = next(csv.reader([lines[0]]))
    except (csv.Error, StopIteration):
        return False
    return len(row) == N_COLUMNS and row[3].strip().upper() in TYPE_MAP


def _lang(code: str) -> str:
    code = code.strip().lower()
    return ISO3_TO_2.get(code, code)


def read_appraise(path: str, campaign: str | None = None, assessment: str | None = None,
                  name: str | None = None) -> pd.DataFrame:
    """Read an Appraise export into canonical columns (plus ``_line``), unvalidated."""
    label = name or str(path)
    text = read_text(path, label, nul_ok=False)
    rows = csv_rows(text, label)
    for i, row in enumerate(rows, start=1):
        if len(row) != N_COLUMNS:
            raise InputError(f"expected {N_COLUMNS} comma-separated fields, found {len(row)}",
                             file=label, line=i)
    body = pd.DataFrame(rows, columns=list(COLUMN_NAMES))
    body[LINE] = np.arange(1, len(body) + 1)
    body = body[body["annotator"].str.strip() != ""].reset_index(drop=True) if len(body) else body
    kind = body["type"].str.strip().str.upper()
    unknown = np.flatnonzero(~kind.isin(list(TYPE_MAP)).to_numpy())
    if unknown.size:
        i = int(unknown[0])
        raise InputError(f"unknown Appraise item type {body['type'].iloc[i]!r} "
                         f"(expected {', '.join(TYPE_MAP)})", file=label,
                         line=int(body[LINE].iloc[i]), column="type (field 4)")
    times = {}
    for col, field in (("start", "start time (field 11)"), ("end", "end time (field 12)")):
        text = body[col].str.strip()
        values = pd.to_numeric(text.replace("", None), errors="coerce")
        bad = np.flatnonzero((values.isna() & (text != "")).to_numpy() | np.isinf(values.to_numpy(dtype=float)))
        if bad.size:
            i = int(bad[0])
            raise InputError(f"time {body[col].iloc[i]!r} is not a finite number of seconds", file=label,
                             line=int(body[LINE].iloc[i]), column=field)
        times[col] = values.to_numpy(dtype=float)
    if assessment is None:
        spans = body["spans"].str.strip()
        assessment = "esa" if ((spans != "") & (spans != "[]")).any() else "adequacy"
    src = body["src_lang"].map(_lang)
    tgt = body["tgt_lang"].map(_lang)
    out = pd.DataFrame({
        "campaign": campaign or "appraise",
        "lp": src + "-" + tgt,
        "assessment": assessment,
        "worker": body["annotator"],
        "hit": body["annotator"],
        "segment": body["item"],
        "system": body["system"],
        "item_type": kind.map(TYPE_MAP),
        "raw": body["score"],
        "seconds": times["end"] - times["start"],
        "doc": body["doc"],
        LINE: body[LINE],
    })
    # the order in which the annotator finished the items: by end time, ties (and rows without one) in
    # file order; the latest of several ratings of one item is the one with the highest position
    order = np.lexsort((body[LINE].to_numpy(), np.nan_to_num(times["end"], nan=np.inf)))
    out["position"] = 0
    out.loc[out.index[order], "position"] = out.iloc[order].groupby("hit", sort=False).cumcount().to_numpy() + 1
    out.attrs["source_columns"] = SOURCE_COLUMNS
    return out
