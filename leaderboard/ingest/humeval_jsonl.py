"""The WMT25 human-evaluation release as JSON lines: each line one translated segment of one system with
every human rating it received, so the two ESA waves need no separate wave table.

A line is a JSON object. Keys, with the spellings accepted (the task TSV's names first):

- language pair: ``source_lang`` + ``target_lang`` (or ``src_lang`` + ``tgt_lang``, or ``lp`` /
  ``language_pair`` as ``SRC-TGT``);
- ``system_id`` (or ``system``); ``doc_id`` (or ``document_id``, optional); ``segment_id`` (or
  ``seg_id``; absent: the document is the segment); ``hypothesis_segment`` (or ``hypothesis``, ``tgt``,
  optional: offsets are checked against it); ``domain_name`` (or ``domain``) and ``method`` (optional);
- the ratings: a list under ``annotations`` (or ``ratings``), each ``{"score", "error_spans": [...],
  "annotator", "wave"}`` (also ``overall`` for the score, ``spans`` / ``errors`` for the spans, ``rater``
  / ``user_id`` for the annotator; all but the score optional). A rating's wave is its ``wave`` when
  given, else its place in the list (1 = first rating, what mt-metrics-eval calls ``esa-human1``).
- a span: ``{"start_i", "end_i", "severity", "category"}`` — Appraise's convention, the end offset on
  the span's last character — or ``{"start", "end", …}`` with the end one past it; ``"missing"`` (or
  null) offsets for missing content; severity minor, major, critical, undecided or neutral.

:func:`read_humeval_jsonl` returns the ratings ``(lp, system, doc, segment, domain, rating, wave, order,
score, line)`` and the spans ``(lp, system, doc, segment, rating, start, end, severity, category, line)``
(end exclusive), refusing with file, line and column anything malformed: invalid JSON, a missing key, a
score that is not a finite number from 0 to 100 (null: not scored), a span outside the translation or
with an unknown severity, an item given twice.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import pandas as pd

from ..errors import InputError, brief
from ..languages import split_lp
from ..naming import unsafe_char
from .jsonio import json_lines

SEVERITIES: tuple[str, ...] = ("minor", "major", "critical", "undecided", "neutral", "missing")
RATING_COLUMNS = ("lp", "system", "doc", "segment", "domain", "rating", "wave", "order", "score", "line")
SPAN_COLUMNS = ("lp", "system", "doc", "segment", "rating", "start", "end", "severity", "category", "line")


@dataclass
class HumanRelease:
    ratings: pd.DataFrame
    spans: pd.DataFrame
    source: str


def _first(obj: dict, *keys: str):
    for key in keys:
        if key in obj:
            return key, obj[key]
    return keys[0], None


def _text(obj: dict, keys: tuple[str, ...], label: str, line: int, required: bool = True) -> str:
    key, value = _first(obj, *keys)
    if value is None:
        if required:
            raise InputError(f"the object lacks {' / '.join(keys)}", file=label, line=line, column=keys[0])
        return ""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InputError(f"{key} must be text", file=label, line=line, column=key)
    text = str(value).strip()
    if required and not text:
        raise InputError(f"{key} is empty", file=label, line=line, column=key)
    if unsafe_char(text):
        raise InputError(f"{key} holds {unsafe_char(text)}; ids may hold no control or text-direction characters",
                         file=label, line=line, column=key)
    return text


def _offset(value, label: str, line: int, column: str) -> float:
    if value is None or value == "missing":
        return math.nan
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value != int(value) or value < 0:
        raise InputError(f"span offset {brief(value)!r} is not a whole number from 0 (or \"missing\")", file=label,
                         line=line, column=column)
    return float(value)


def read_humeval_jsonl(path: str | os.PathLike, *, name: str | None = None, lp: str | None = None) -> HumanRelease:
    """Read and validate the release (module docstring); ``lp``: keep that pair only."""
    label = name or str(path)
    ratings, spans, seen = [], [], {}
    order = 0
    for lineno, obj in json_lines(path, label):
        if not isinstance(obj, dict):
            raise InputError("each line must be a JSON object", file=label, line=lineno)
        if "lp" in obj or "language_pair" in obj:
            pair = _text(obj, ("lp", "language_pair"), label, lineno)
            column = "lp"
        else:
            src = _text(obj, ("source_lang", "src_lang"), label, lineno)
            tgt = _text(obj, ("target_lang", "tgt_lang"), label, lineno)
            pair, column = f"{src}-{tgt}", "target_lang"
        try:
            split_lp(pair)
        except InputError as exc:
            raise InputError(exc.message, file=label, line=lineno, column=column) from None
        if lp is not None and pair != lp:
            continue
        system = _text(obj, ("system_id", "system"), label, lineno)
        doc = _text(obj, ("doc_id", "document_id"), label, lineno, required=False)
        segment = _text(obj, ("segment_id", "seg_id"), label, lineno, required=False) or doc
        if not segment:
            raise InputError("the object names neither a segment_id nor a doc_id", file=label, line=lineno,
                             column="segment_id")
        domain = _text(obj, ("domain_name", "domain"), label, lineno, required=False)
        hyp_key, hyp = _first(obj, "hypothesis_segment", "hypothesis", "tgt")
        length = len(hyp) if isinstance(hyp, str) else None
        key = (pair, system, doc, segment)
        if key in seen:
            raise InputError(f"segment {brief(segment)!r} of system {brief(system)!r} ({pair}) appears twice (also "
                             f"line {seen[key]})", file=label, line=lineno, column="segment_id")
        seen[key] = lineno
        list_key, rated = _first(obj, "annotations", "ratings")
        if rated is None:
            raise InputError("the object lacks its ratings (annotations)", file=label, line=lineno,
                             column="annotations")
        if not isinstance(rated, list):
            raise InputError(f"{list_key} must be a list of ratings", file=label, line=lineno, column=list_key)
        for k, rating in enumerate(rated, start=1):
            where = f"{list_key}[{k - 1}]"
            if not isinstance(rating, dict):
                raise InputError("a rating must be an object", file=label, line=lineno, column=where)
            score_key, score = _first(rating, "score", "overall")
            if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))
                                      or not math.isfinite(score) or not 0 <= score <= 100):
                raise InputError(f"score {brief(score)!r} is not a number from 0 to 100 (or null)", file=label,
                                 line=lineno, column=f"{where}.{score_key}")
            wave = rating.get("wave", k)
            if isinstance(wave, bool) or not isinstance(wave, (int, str)) or not str(wave).strip():
                raise InputError(f"wave {brief(wave)!r} is not a number or a name", file=label, line=lineno,
                                 column=f"{where}.wave")
            rater = _text(rating, ("annotator", "rater", "user_id"), label, lineno, required=False)
            rating_id = f"{rater or 'rating'}#{k}"
            order += 1
            ratings.append((pair, system, doc, segment, domain, rating_id, str(wave).strip(), order,
                            math.nan if score is None else float(score), lineno))
            span_key, marked = _first(rating, "error_spans", "spans", "errors")
            if marked is None:
                continue
            if not isinstance(marked, list):
                raise InputError(f"{span_key} must be a list of spans", file=label, line=lineno,
                                 column=f"{where}.{span_key}")
            for span in marked:
                column = f"{where}.{span_key}"
                if not isinstance(span, dict):
                    raise InputError("a span must be an object", file=label, line=lineno, column=column)
                appraise = "start_i" in span or "end_i" in span
                start = _offset(span.get("start_i" if appraise else "start"), label, lineno, column)
                end = _offset(span.get("end_i" if appraise else "end"), label, lineno, column)
                if math.isnan(start) != math.isnan(end):
                    raise InputError("a span has one offset and not the other", file=label, line=lineno, column=column)
                if not math.isnan(start):
                    end = end + 1 if appraise else end
                    if end < start:
                        raise InputError(f"span {int(start)}..{int(end)} ends before it starts", file=label,
                                         line=lineno, column=column)
                    if length is not None and end > length:
                        raise InputError(f"span {int(start)}..{int(end)} reaches past the end of the {length}-"
                                         f"character translation ({hyp_key})", file=label, line=lineno, column=column)
                severity = str(span.get("severity") or "").strip().lower()
                if severity not in SEVERITIES:
                    raise InputError(f"severity {brief(span.get('severity'))!r} is not one of "
                                     f"{', '.join(SEVERITIES)}", file=label, line=lineno, column=column)
                category = span.get("category", span.get("error_type"))
                spans.append((pair, system, doc, segment, rating_id, start, end,
                              "major" if severity == "critical" else severity,
                              None if category is None else str(category), lineno))
    if not seen:
        raise InputError("no rated segment found" + (f" for {lp}" if lp else ""), file=label,
                         column="lp" if lp else None)
    return HumanRelease(pd.DataFrame(ratings, columns=list(RATING_COLUMNS)),
                        pd.DataFrame(spans, columns=list(SPAN_COLUMNS)), label)


def waves_frame(release: HumanRelease) -> pd.DataFrame:
    """The ratings as a two-wave rating table (the columns of :func:`leaderboard.ingest.waves.read_waves`):
    scored ratings of waves 1 and 2 only."""
    r = release.ratings
    r = r[r["score"].notna() & r["wave"].isin(["1", "2"])]
    return pd.DataFrame({"lp": r["lp"].to_numpy(), "system": r["system"].to_numpy(), "segment": r["segment"].to_numpy(),
                         "wave": r["wave"].astype(int).to_numpy(), "score": r["score"].to_numpy(),
                         "doc": r["doc"].to_numpy(), "domain": r["domain"].to_numpy(),
                         "rater": r["rating"].str.rsplit("#", n=1).str[0].to_numpy(), "_line": r["line"].to_numpy()})
