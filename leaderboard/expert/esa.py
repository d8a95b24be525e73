"""ESA (Error Span Annotation, WMT24): the error spans of Appraise exports, and the WMT24 ranking test.

Appraise's export (:mod:`leaderboard.ingest.appraise`) carries, per judgment, a JSON list of marked
spans: ``{"start_i", "end_i", "severity", "error_type"}`` with character offsets into the output
(end inclusive, as Appraise writes it) or ``"missing"`` for an error without a location (an
omission). :func:`read_esa_spans` keeps them all, one row per span, keyed like the judgment it
belongs to (campaign, lp, system, segment, annotator) with its file line.

WMT24 ranks ESA systems on raw scores with a two-sided Wilcoxon signed-rank test per domain on the
segments both systems share, combining the domains with Stouffer's Z (METHOD.md §9):
:func:`stouffer_signed_rank_matrix`. The domain of a segment is read from its document id
(``test-en-news_seattle.123`` → ``news``: the text before the first ``_``, after its last ``-``).
"""

from __future__ import annotations

import csv
import io
import json
from typing import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.special import ndtr, ndtri

from ..errors import InputError
from ..ingest.appraise import COLUMN_NAMES, N_COLUMNS, _lang
from ..ingest.textio import read_text
from ..significance import signed_rank_greater_matrix

SPAN_COLUMNS = ("campaign", "lp", "system", "segment", "rater", "category", "severity", "span_start", "span_end",
                "line")
FIELD = "error spans (field 10)"


def _offset(value, label: str, line: int) -> int | None:
    if value is None or value == "missing":
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value) or value < 0:
        raise InputError(f"span offset {value!r} is not a whole number >= 0 or \"missing\"", file=label, line=line,
                         column=FIELD)
    return int(value)


def read_esa_spans(path: str, campaign: str, name: str | None = None) -> pd.DataFrame:
    """Every error span of an Appraise export (columns :data:`SPAN_COLUMNS`; ``span_end`` exclusive)."""
    label = name or str(path)
    text = read_text(path, label)
    out = []
    for i, row in enumerate(csv.reader(io.StringIO(text)), start=1):
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
                        severity, start, None if end is None else end + 1, i))
    return pd.DataFrame(out, columns=list(SPAN_COLUMNS))


def domain_of(doc: str | None) -> str:
    """``test-en-news_seattle.123`` → ``news``; a document id without that shape is its own domain."""
    if doc is None or (isinstance(doc, float) and np.isnan(doc)) or doc is pd.NA:
        return "all"
    head = str(doc).split("_", 1)[0]
    return head.rsplit("-", 1)[-1] if "-" in head else head


def stouffer_signed_rank_matrix(scores: np.ndarray, domains: Sequence[str]) -> np.ndarray:
    """k × k p-values, row better than column: two-sided Wilcoxon signed-rank per domain, Stouffer-combined.

    Per domain, the one-sided signed-rank p (paired, shared segments; :func:`signed_rank_greater_matrix`)
    gives a signed z = Φ⁻¹(1 − p); Z = Σ z / √(domains with a test); p[i, j] is the two-sided
    2·(1 − Φ(|Z|)) when Z > 0 (i is better) and 1 otherwise, so a win needs p < α in the right direction.
    """
    scores = np.asarray(scores, dtype=float)
    doms = np.asarray(domains, dtype=object)
    k = scores.shape[0]
    total = np.zeros((k, k))
    count = np.zeros((k, k))
    for d in pd.unique(doms):
        p = signed_rank_greater_matrix(scores[:, doms == d])
        z = -ndtri(np.clip(p, 1e-300, 1.0))
        ok = ~np.isnan(p)
        total += np.where(ok, z, 0.0)
        count += ok
    with np.errstate(divide="ignore", invalid="ignore"):
        big_z = total / np.sqrt(count)
    out = np.where(big_z > 0, 2 * ndtr(-np.abs(big_z)), 1.0)
    out[count == 0] = np.nan
    np.fill_diagonal(out, np.nan)
    return out


def segment_domains(frame: pd.DataFrame) -> Mapping[tuple[str, str], str]:
    """(lp, segment) → domain, from the judgments' document ids."""
    docs = frame.drop_duplicates(["lp", "segment"])
    return {(str(lp), str(seg)): domain_of(doc) for lp, seg, doc in zip(docs["lp"], docs["segment"], docs["doc"])}
