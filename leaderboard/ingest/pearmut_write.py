"""Pearmut annotation logs written from judgments: the inverse of :mod:`leaderboard.ingest.pearmut_log`.

:func:`pearmut_log_lines` is pure (frames in, JSON lines out) and writes what Pearmut 1.1.6 itself
appends to ``data/annotations/<campaign_id>.jsonl`` when an annotator submits a page::

    {"annotation": [{model: {"score", "error_spans": [{"start_i", "end_i", "category", "severity"}],
                             "textfield": null}} per segment],
     "item": [{"src", "tgt": {model: text}, "item_id"[, "instructions"]} per segment],
     "user_id": ..., "item_i": ...}

One line per page: the judgments sharing (worker, hit), in the order the pages first appear in the
frame; segments in the order of their first position, models in position order (the order shown).
``item_i`` comes from an ``item_i`` column, else from a hit of the reader's form ``"<item_i>@<line>"``,
else the pages of each user are numbered 0, 1, … . Scores that are whole numbers are written as
integers (Pearmut's slider gives integers). Span offsets go back to Pearmut's inclusive ``end_i``; a
span on a special token (a ``token`` value, or offsets past the text) is written at ``len(text) + k``
for the k-th of ``special_tokens``. No ``actions`` are written: Pearmut reads a log without them
(they only feed its timing when a page is submitted), and the service records times on its own.
"""

from __future__ import annotations

import json
import math
from typing import Any, Sequence

import numpy as np
import pandas as pd

from ..errors import InputError
from .pearmut_log import WMT26_SPECIAL_TOKENS


def pearmut_log_lines(judgments: pd.DataFrame, items: pd.DataFrame, spans: pd.DataFrame | None = None, *,
                      special_tokens: Sequence[str] = WMT26_SPECIAL_TOKENS) -> list[str]:
    """The lines of a Pearmut annotation log (without newlines) for ``judgments``.

    ``judgments``: worker, hit, position, segment, system, raw (optionally item_i). ``items``: segment,
    system, source, target (optionally instructions): the texts shown, one row per item × model.
    ``spans`` (optional): rater, hit, segment, system, severity, category, span_start, span_end (end
    exclusive; both empty with a ``token`` for a span on a special token). Refuses, naming the item,
    a judgment without its text, a score outside 0–100, and a span outside its text and the tokens.
    """
    tokens = list(special_tokens)
    texts = _texts(items)
    marks = _spans(spans)
    frame = judgments.reset_index(drop=True)
    workers = frame["worker"].astype(str).to_numpy(dtype=object)
    hits = frame["hit"].astype(str).to_numpy(dtype=object)
    page_codes, _ = pd.factorize(pd.Series(workers + "\x00" + hits))  # pages in order of first appearance
    order = np.lexsort((frame["position"].to_numpy(dtype=np.int64), page_codes))
    segments = frame["segment"].astype(str).to_numpy(dtype=object)[order].tolist()
    systems = frame["system"].astype(str).to_numpy(dtype=object)[order].tolist()
    scores = frame["raw"].to_numpy(dtype=float)[order].tolist()
    given_i = frame["item_i"].to_numpy(dtype=object)[order].tolist() if "item_i" in frame.columns else None
    codes, workers, hits = page_codes[order].tolist(), workers[order].tolist(), hits[order].tolist()
    counters: dict[str, int] = {}
    lines: list[str] = []
    k, n = 0, len(codes)
    while k < n:
        worker, hit, code = workers[k], hits[k], codes[k]
        item_i = _item_i(None if given_i is None else given_i[k], hit, counters.get(worker, 0))
        counters[worker] = counters.get(worker, 0) + 1
        by_segment: dict[str, tuple[dict, dict, list]] = {}  # segment -> (answers, tgt, [src, instructions])
        while k < n and codes[k] == code:
            segment, system, raw = segments[k], systems[k], scores[k]
            text = texts.get((segment, system))
            if text is None:
                raise InputError(f"no text for item {segment!r} of model {system!r}: the log must show what was "
                                 "annotated", column="target")
            if not (math.isfinite(raw) and 0 <= raw <= 100):
                raise InputError(f"score {raw!r} of item {segment!r}, model {system!r} is not a number from 0 to 100",
                                 column="raw")
            source, target, instructions = text
            answer, tgt, extra = by_segment.setdefault(segment, ({}, {}, [source, None]))
            if instructions:
                extra[1] = instructions
            tgt[system] = target
            answer[system] = {"score": int(raw) if float(raw).is_integer() else float(raw),
                              "error_spans": [_span(s, target, tokens, segment, system)
                                              for s in marks.get((worker, hit, segment, system), [])],
                              "textfield": None}
            k += 1
        annotation, shown = [], []
        for segment, (answer, tgt, (source, instructions)) in by_segment.items():
            annotation.append(answer)
            item = {"src": source or "", "tgt": tgt, "item_id": segment}
            if instructions:
                item["instructions"] = instructions
            shown.append(item)
        lines.append(json.dumps({"annotation": annotation, "item": shown, "user_id": worker, "item_i": item_i},
                                ensure_ascii=False))
    return lines


def _texts(items: pd.DataFrame) -> dict[tuple[str, str], tuple[str, str, str | None]]:
    instructions = items["instructions"] if "instructions" in items.columns else pd.Series(None, index=items.index)
    out = {}
    for segment, system, source, target, note in zip(items["segment"].astype(str), items["system"].astype(str),
                                                      items["source"], items["target"], instructions):
        out.setdefault((segment, system), ("" if _missing(source) else str(source), str(target),
                                           None if _missing(note) else str(note)))
    return out


def _missing(value: Any) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def _spans(spans: pd.DataFrame | None) -> dict[tuple[str, str, str, str], list[dict[str, Any]]]:
    out: dict[tuple[str, str, str, str], list[dict[str, Any]]] = {}
    if spans is None or spans.empty:
        return out
    if "hit" not in spans.columns:
        raise InputError("error spans need the hit of the judgment they belong to", column="hit")
    token = spans["token"] if "token" in spans.columns else pd.Series(None, index=spans.index)
    for rec, tok in zip(spans[["rater", "hit", "segment", "system", "severity", "category", "span_start",
                               "span_end"]].itertuples(index=False), token):
        key = (str(rec.rater), str(rec.hit), str(rec.segment), str(rec.system))
        out.setdefault(key, []).append({"start": None if _missing(rec.span_start) else int(rec.span_start),
                                        "end": None if _missing(rec.span_end) else int(rec.span_end),
                                        "severity": str(rec.severity),
                                        "category": None if _missing(rec.category) else str(rec.category),
                                        "token": None if _missing(tok) else str(tok)})
    return out


def _span(span: dict[str, Any], text: str, tokens: list[str], segment: str, system: str) -> dict[str, Any]:
    start, end = span["start"], span["end"]
    if span["token"] is not None:
        if span["token"] not in tokens:
            raise InputError(f"a span of item {segment!r}, model {system!r} marks {span['token']!r}, which is not one "
                             f"of the special tokens ({', '.join(tokens) or 'none'})", column="token")
        start = end = len(text) + tokens.index(span["token"])
        end += 1
    if start is None or end is None:
        if not tokens:
            raise InputError(f"a span of item {segment!r}, model {system!r} has no location and the campaign has no "
                             "special token to put it on", column="span_start")
        start, end = len(text), len(text) + 1  # content missing: Pearmut's first special token
    inside = 0 <= start < end <= len(text)
    on_token = end == start + 1 and 0 <= start - len(text) < len(tokens)
    if not (inside or on_token):
        raise InputError(f"span {start}..{end} of item {segment!r}, model {system!r} lies outside the translation "
                         f"({len(text)} characters) and its special tokens", column="span_start")
    return {"start_i": int(start), "end_i": int(end) - 1, "category": span["category"], "severity": span["severity"]}


def _item_i(given: Any, hit: str, counter: int) -> int | str:
    if given is not None and not _missing(given):
        return int(given) if isinstance(given, (int, np.integer)) or str(given).isdigit() else str(given)
    head = hit.rsplit("@", 1)[0] if "@" in hit else None
    if head is not None and head.isdigit():
        return int(head)
    return counter
