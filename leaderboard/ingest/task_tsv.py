"""The WMT25 MT-evaluation task TSV: one row per translated segment, with error spans, a score or a label.

Header columns (tab separated, a header line, fields quoted the way pandas writes them): ``doc_id``,
``segment_id``, ``source_lang``, ``target_lang``, ``set_id``, ``system_id``, ``source_segment``,
``hypothesis_segment``, ``reference_segment``, ``domain_name``, ``method`` and what the row gives:

- error spans: ``start_indices``, ``end_indices``, ``error_types`` — space-separated lists of equal
  length, one entry per span, character offsets into ``hypothesis_segment`` (end exclusive unless
  the caller says the file's ends are inclusive) and the span's severity (``minor``, ``major``,
  ``critical``, ``undecided``, ``neutral`` or ``missing``); ``no-error`` (or empty cells, or -1
  offsets) for a segment without spans. A span of missing content may have the offset ``missing``
  or -1;
- ``score``: a number (a human score in gold files, a metric score in submissions; empty: none);
- ``label``: 0 or 1 (1: the segment is error-free).

Only ``segment_id``, ``source_lang``, ``target_lang`` and ``system_id`` are required besides what the
row gives; the pair is ``SOURCE-TARGET`` (``en-cs_CZ``). :func:`read_task_tsv` refuses, with file,
line and column, a missing column, a malformed or duplicated row, a span that is not inside the
translation, an unknown severity, a score that is not a finite number and a label other than 0/1;
nothing is kept from a refused file.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

import pandas as pd

from ..errors import InputError, brief
from ..languages import split_lp
from ..naming import unsafe_char
from .textio import csv_records, finite_number, read_text

KEY_COLUMNS: tuple[str, ...] = ("segment_id", "source_lang", "target_lang", "system_id")
SPAN_COLUMNS: tuple[str, ...] = ("start_indices", "end_indices", "error_types")
SEVERITIES: tuple[str, ...] = ("minor", "major", "critical", "undecided", "neutral", "missing")
NO_ERROR = "no-error"
#: the largest character offset kept
MAX_OFFSET = 2**31 - 1
ITEM_COLUMNS: tuple[str, ...] = ("lp", "system", "doc", "segment", "domain", "method", "length", "score", "label",
                                 "line")
SPAN_FRAME_COLUMNS: tuple[str, ...] = ("lp", "system", "doc", "segment", "start", "end", "severity", "line", "item")


@dataclass
class TaskFile:
    """A read task TSV: ``items`` (:data:`ITEM_COLUMNS`, one row per segment), ``spans``
    (:data:`SPAN_FRAME_COLUMNS`, one row per span; ``item``: its row in ``items``), what the rows give (``has_spans``, ``has_score``,
    ``has_label``) and the file's name for messages."""
    items: pd.DataFrame
    spans: pd.DataFrame
    source: str
    has_spans: bool
    has_score: bool
    has_label: bool
    texts: dict = field(default_factory=dict)


def _name(value: str, column: str, label: str, line: int, required: bool = True) -> str:
    text = value.strip()
    if required and not text:
        raise InputError("empty value", file=label, line=line, column=column)
    bad = unsafe_char(text)
    if bad is not None:
        raise InputError(f"the value holds {bad}; ids may hold no control or text-direction characters", file=label,
                         line=line, column=column)
    return text


def _offsets(cell: str, column: str, label: str, line: int) -> list[float]:
    out: list[float] = []
    for token in cell.split():
        low = token.lower()
        if low in ("missing", "-1"):
            out.append(math.nan)
            continue
        if not token.isdigit() or int(token) > MAX_OFFSET:
            raise InputError(f"offset {brief(token)!r} is not a whole number from 0 to {MAX_OFFSET:,} (or -1 / "
                             "missing for missing content)", file=label, line=line, column=column)
        out.append(float(int(token)))
    return out


def _spans(fields: dict[str, str], label: str, line: int, length: int | None,
           end_inclusive: bool) -> list[tuple[float, float, str]]:
    types = fields["error_types"].split()
    starts_cell, ends_cell = fields["start_indices"].strip(), fields["end_indices"].strip()
    if not types or (len(types) == 1 and types[0].lower() == NO_ERROR):
        for column, cell in (("start_indices", starts_cell), ("end_indices", ends_cell)):
            if cell.lower() not in ("", NO_ERROR, "-1", "[]"):
                raise InputError(f"the row says {NO_ERROR} but gives the offsets {brief(cell)!r}", file=label,
                                 line=line, column=column)
        return []
    starts = _offsets(starts_cell, "start_indices", label, line)
    ends = _offsets(ends_cell, "end_indices", label, line)
    if not len(starts) == len(ends) == len(types):
        raise InputError(f"{len(starts)} start offsets, {len(ends)} end offsets and {len(types)} error types: one "
                         "of each per span", file=label, line=line,
                         column="start_indices" if len(starts) != len(types) else "end_indices")
    out = []
    for start, end, kind in zip(starts, ends, types):
        severity = kind.lower()
        if severity == NO_ERROR or severity not in SEVERITIES:
            raise InputError(f"error type {brief(kind)!r} is not one of {', '.join(SEVERITIES)} (or {NO_ERROR} "
                             "alone)", file=label, line=line, column="error_types")
        if math.isnan(start) != math.isnan(end):
            raise InputError("a span has one offset and not the other", file=label, line=line, column="end_indices")
        if not math.isnan(start):
            end = end + 1 if end_inclusive else end
            if end < start:
                raise InputError(f"span {int(start)}..{int(end)} ends before it starts", file=label, line=line,
                                 column="end_indices")
            if length is not None and end > length:
                raise InputError(f"span {int(start)}..{int(end)} reaches past the end of the {length}-character "
                                 "translation", file=label, line=line, column="end_indices")
        out.append((start, end, "major" if severity == "critical" else severity))
    return out


def read_task_tsv(path: str | os.PathLike, *, name: str | None = None, end_inclusive: bool = False,
                  keep_texts: bool = False) -> TaskFile:
    """Read and validate a WMT25 task TSV (module docstring). ``end_inclusive``: the file's end offsets
    point at a span's last character (stored exclusive either way); ``keep_texts``: keep source,
    hypothesis and reference texts (``texts[column]``, aligned with ``items``)."""
    label = name or str(path)
    text = read_text(path, label, nul_ok=False)
    records = csv_records(text, label, delimiter="\t", what="TSV")
    if not records:
        raise InputError("the file is empty", file=label)
    (header_line, header_fields), *rows = records
    header = [h.strip().lower() for h in header_fields]
    seen: set[str] = set()
    for col in header:
        if col in seen:
            raise InputError(f"column {brief(col)!r} appears twice in the header", file=label, line=header_line,
                             column=col)
        seen.add(col)
    missing = [c for c in KEY_COLUMNS if c not in seen]
    if missing:
        raise InputError(f"the header lacks {', '.join(missing)} (a WMT25 task TSV has doc_id, segment_id, "
                         "source_lang, target_lang, set_id, system_id, … and start_indices, end_indices, "
                         "error_types, or score, or label)", file=label, line=header_line, column=missing[0])
    span_cols = [c for c in SPAN_COLUMNS if c in seen]
    if span_cols and len(span_cols) != len(SPAN_COLUMNS):
        lack = [c for c in SPAN_COLUMNS if c not in seen]
        raise InputError(f"error spans need {', '.join(SPAN_COLUMNS)}; the header lacks {', '.join(lack)}",
                         file=label, line=header_line, column=lack[0])
    has_spans, has_score, has_label = bool(span_cols), "score" in seen, "label" in seen
    if not (has_spans or has_score or has_label):
        raise InputError("the header names nothing to evaluate: give error spans (start_indices, end_indices, "
                         "error_types), a score or a label column", file=label, line=header_line)
    if not rows:
        raise InputError("the file has a header but no rows", file=label, line=header_line)
    items, spans = [], []
    texts: dict[str, list[str]] = {c: [] for c in ("source_segment", "hypothesis_segment", "reference_segment")}
    first_seen: dict[tuple, int] = {}
    for line, values in rows:
        if len(values) != len(header):
            raise InputError(f"found {len(values)} tab-separated fields but the header has {len(header)}",
                             file=label, line=line)
        fields = dict(zip(header, values))
        system = _name(fields["system_id"], "system_id", label, line)
        segment = _name(fields["segment_id"], "segment_id", label, line)
        doc = _name(fields.get("doc_id", ""), "doc_id", label, line, required=False)
        src = _name(fields["source_lang"], "source_lang", label, line)
        tgt = _name(fields["target_lang"], "target_lang", label, line)
        lp = f"{src}-{tgt}"
        try:
            split_lp(lp)
        except InputError as exc:
            raise InputError(exc.message, file=label, line=line, column="target_lang") from None
        key = (lp, system, doc, segment)
        if key in first_seen:
            raise InputError(f"segment {brief(segment)!r} of system {brief(system)!r} ({lp}"
                             + (f", document {brief(doc)!r}" if doc else "") + f") appears twice (also line "
                             f"{first_seen[key]})", file=label, line=line, column="segment_id")
        first_seen[key] = line
        hyp = fields.get("hypothesis_segment")
        length = len(hyp) if hyp is not None else None
        score = math.nan
        if has_score and fields["score"].strip() and fields["score"].strip().lower() not in ("none", "null", "nan"):
            score = finite_number(fields["score"].strip(), label, line, "score")
        label_value = math.nan
        if has_label:
            cell = fields["label"].strip()
            if cell not in ("0", "1"):
                raise InputError(f"label {brief(cell)!r} is not 0 or 1 (1: the segment is error-free)", file=label,
                                 line=line, column="label")
            label_value = float(cell)
        if has_spans:
            for start, end, severity in _spans(fields, label, line, length, end_inclusive):
                spans.append((lp, system, doc, segment, start, end, severity, line, len(items)))
        items.append((lp, system, doc, segment, fields.get("domain_name", "").strip(),
                      fields.get("method", "").strip(), length, score, label_value, line))
        if keep_texts:
            for col in texts:
                texts[col].append(fields.get(col, ""))
    item_frame = pd.DataFrame(items, columns=list(ITEM_COLUMNS))
    item_frame["length"] = item_frame["length"].astype("Int64")
    span_frame = pd.DataFrame(spans, columns=list(SPAN_FRAME_COLUMNS))
    for col in ("start", "end"):
        span_frame[col] = span_frame[col].astype(float)
    if has_score and "score" in seen and item_frame["score"].isna().all() and not (has_spans or has_label):
        raise InputError("the score column is empty on every row", file=label, column="score")
    return TaskFile(item_frame, span_frame, label, has_spans, has_score, has_label,
                    {k: v for k, v in texts.items()} if keep_texts else {})
