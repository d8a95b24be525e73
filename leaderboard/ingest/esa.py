"""ESA (Error Span Annotation, WMT24): the error spans of Appraise exports.

Appraise's export (:mod:`leaderboard.ingest.appraise`) carries, per judgment, a JSON list of marked
spans: ``{"start_i", "end_i", "severity", "error_type"}`` with character offsets into the output
(end inclusive, as Appraise writes it) or ``"missing"`` for an error without a location (an
omission). :func:`read_esa_spans` keeps them all, one row per span, keyed like the judgment it
belongs to (campaign, lp, system, segment, annotator) with its file line.
"""

from __future__ import annotations

import json
import math

import pandas as pd

from ..errors import InputError
from .appraise import COLUMN_NAMES, N_COLUMNS, _lang
from .textio import csv_rows, read_text

SPAN_COLUMNS = ("campaign", "lp", "system", "segment", "rater", "category", "severity", "span_start", "span_end",
                "line", "item_type", "doc")
FIELD = "error spans (field 10)"
#: the largest character offset kept (a 32-bit integer column)
MAX_OFFSET = 2**31 - 1


def _offset(value, label: str, line: int) -> int | None:
    if value is None or value == "missing":
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value != int(value) or not 0 <= value <= MAX_OFFSET:
        raise InputError(f"span offset {value!r} is not a whole number from 0 to {MAX_OFFSET:,} or \"missing\"",
                         file=label, line=line, column=FIELD)
    return int(value)


def read_esa_spans(path: str, campaign: str, name: str | None = None) -> pd.DataFrame:
    """Every error span of an Appraise export (columns :data:`SPAN_COLUMNS`; ``span_end`` exclusive;
    ``item_type`` the row's Appraise type: TGT for a system's output, BAD for its degraded copy, …;
    ``doc`` the row's document id, with Appraise's marks such as ``#dup``)."""
    label = name or str(path)
    text = read_text(path, label, nul_ok=False)
    out = []
    for i, row in enumerate(csv_rows(text, label), start=1):
        if len(row) != N_COLUMNS or not row[0].strip():
            continue  # the judgment reader reports malformed rows
        rec = dict(zip(COLUMN_NAMES, row))
        raw = rec["spans"].strip()
        if raw in ("", "[]"):
            continue
        try:
            spans = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InputError(f"error spans are not valid JSON ({exc.msg})", file=label, line=i, column=FIELD) from None
        except RecursionError:
            raise InputError("error spans are nested too deeply to be a list of spans", file=label, line=i,
                             column=FIELD) from None
        if not isinstance(spans, list) or not all(isinstance(s, dict) for s in spans):
            raise InputError("error spans must be a JSON list of objects", file=label, line=i, column=FIELD)
        lp = f"{_lang(rec['src_lang'])}-{_lang(rec['tgt_lang'])}"
        for span in spans:
            start = _offset(span.get("start_i"), label, i)
            end = _offset(span.get("end_i"), label, i)
            if (start is None) != (end is None) or (start is not None and end < start):
                raise InputError(f"span {start}..{end} is not a valid range", file=label, line=i, column=FIELD)
            severity = str(span.get("severity") or "").strip().lower()
            if not severity:
                raise InputError("a span has no severity", file=label, line=i, column=FIELD)
            out.append((campaign, lp, rec["system"].strip(), rec["item"].strip(), rec["annotator"].strip(),
                        span.get("error_type"),
                        severity, start, None if end is None else end + 1, i, rec["type"].strip().upper(),
                        rec["doc"].strip()))
    return pd.DataFrame(out, columns=list(SPAN_COLUMNS))
