"""The MQM TSV layout of google/wmt-mqm-human-evaluation, read into a validated error frame.

One row per marked error (or one ``No-error`` row for a segment a rater found clean):
``system doc doc_id seg_id rater source target category severity comment``, tab separated,
no quoting, a header line; ``<v>…</v>`` marks the error span in ``target``. The frame keeps
every row (spans, categories, severities, raters, comments) with its file line; the target is
stored without the markup and the span as character offsets into it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputError
from ..naming import UNSAFE_NAME_CHARS, check_name
from .textio import read_text

COLUMNS: tuple[str, ...] = ("system", "doc", "doc_id", "seg_id", "rater", "source", "target", "category",
                            "severity", "comment")
REQUIRED: tuple[str, ...] = ("system", "seg_id", "rater", "category", "severity")
#: columns of :func:`read_mqm`'s frame
FRAME_COLUMNS: tuple[str, ...] = ("lp", "system", "doc", "doc_id", "segment", "rater", "source", "target",
                                  "category", "severity", "comment", "span_start", "span_end", "_line")
#: canonical severities after :func:`normal_severity`
SEVERITIES: tuple[str, ...] = ("major", "minor", "neutral", "no-error")
_SEVERITY_ALIASES = {"noerror": "no-error", "none": "no-error", "noerrors": "no-error"}


def normal_severity(value: str) -> str:
    """``'Major'`` → ``'major'``, ``'No-error'`` / ``'no error'`` / ``'No_Error'`` → ``'no-error'``."""
    key = re.sub(r"[\s_\-]+", "", str(value).strip().lower())
    return _SEVERITY_ALIASES.get(key, key if key in ("major", "minor", "neutral") else str(value).strip())


def normal_category(value: str) -> str:
    """Lower case, no trailing ``!``, no spaces around ``/``: ``'Non-translation!'`` → ``'non-translation'``."""
    text = re.sub(r"\s*/\s*", "/", str(value).strip().lower()).rstrip("!").strip()
    if re.fullmatch(r"non[\s_\-]?translation", text):
        return "non-translation"
    if re.fullmatch(r"no[\s_\-]?error", text):
        return "no-error"
    return text


_SPAN = re.compile(r"<v>(.*?)</v>", re.DOTALL)


def looks_like_mqm(head: str) -> bool:
    """True when the first line is a tab-separated header naming the MQM columns."""
    first = head.splitlines()[0] if head else ""
    cols = {c.strip().lower() for c in first.split("\t")}
    return set(REQUIRED) <= cols and "target" in cols


def lp_from_name(path: str | os.PathLike) -> str | None:
    """``mqm_ted_ende.tsv`` → ``en-de``, ``mqm_newstest2020_zhen.tsv`` → ``zh-en`` (None if no pair)."""
    found = re.findall(r"(?:^|[._-])([a-z]{2})([a-z]{2})(?=[._-]|$)", Path(path).name.lower())
    return f"{found[-1][0]}-{found[-1][1]}" if found else None


def strip_spans(target: pd.Series) -> tuple[pd.Series, np.ndarray, np.ndarray]:
    """Targets without ``<v>``/``</v>`` and the first span's [start, end) offsets in the clean text (-1: none)."""
    clean = target.str.replace("<v>", "", regex=False).str.replace("</v>", "", regex=False)
    opened = target.str.find("<v>").to_numpy()
    closed = target.str.find("</v>").to_numpy()
    ok = (opened >= 0) & (closed > opened)
    start = np.where(ok, opened, -1)
    end = np.where(ok, closed - 3, -1)  # the 3 characters of "<v>" come out before the end
    return clean, start.astype(np.int64), end.astype(np.int64)


def _rejoin(fields: list[str]) -> list[str] | None:
    """A standard-layout row with a tab inside source or target: the fixed columns are found around the
    severity (the first field from the 8th on that is one); the text between is split where the target's
    ``<v>`` markup starts, else at the first tab. None when no severity is found."""
    for k in range(7, len(fields)):
        if normal_severity(fields[k]) in SEVERITIES:
            middle = fields[5:k - 1]
            if len(middle) < 2:
                return None
            cut = next((i for i, part in enumerate(middle) if "<v>" in part and i > 0), 1)
            return fields[:5] + ["\t".join(middle[:cut]), "\t".join(middle[cut:]), fields[k - 1], fields[k],
                                 "\t".join(fields[k + 1:])]
    return None


def read_mqm(path: str | os.PathLike, *, lp: str | None = None, name: str | None = None) -> pd.DataFrame:
    """Read and validate an MQM TSV; one row per annotation (columns :data:`FRAME_COLUMNS`).

    ``lp`` names the language pair (the file has no column for it); default: from the file name.
    Refuses (with file, line and column) a missing header column, a row with the wrong number of
    fields, an empty system / segment id / category, and a severity outside Major, Minor,
    Neutral, No-error (any spelling of case, spaces and hyphens). Rows without a rater keep an
    empty rater: they count as one anonymous rater of that segment.
    """
    label = name or str(path)
    text = read_text(path, label, nul_ok=False)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
    header = [c.strip().lower() for c in lines[0].split("\t")]
    missing = [c for c in REQUIRED + ("target",) if c not in header]
    if missing:
        raise InputError(f"not an MQM file: the header lacks {', '.join(missing)} "
                         f"(expected {' '.join(COLUMNS)})", file=label, line=1)
    if len(set(header)) != len(header):
        raise InputError("a column name appears twice in the header", file=label, line=1)
    width = len(header)
    rows, numbers = [], []
    for i, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) == width - 1 and header[-1] == "comment":
            fields.append("")  # a trailing empty comment cut off by an editor
        if len(fields) > width and tuple(header) == COLUMNS and normal_severity(fields[8]) not in SEVERITIES:
            fields = _rejoin(fields) or fields  # a tab inside source or target moved the severity right
        if len(fields) != width:
            raise InputError(f"expected {width} tab-separated fields, found {len(fields)} "
                             "(MQM files are not quoted: a tab inside a text breaks the row)", file=label, line=i)
        rows.append(fields)
        numbers.append(i)
    if not rows:
        raise InputError("no annotations found (the file holds only a header)", file=label)
    raw = pd.DataFrame(rows, columns=header)
    for col in COLUMNS:
        if col not in raw.columns:
            raw[col] = ""
    line_no = np.asarray(numbers)
    for col in ("system", "seg_id", "category", "severity"):
        values = raw[col].str.strip()
        empty = np.flatnonzero((values == "").to_numpy())
        if empty.size:
            raise InputError("empty value", file=label, line=int(line_no[empty[0]]), column=col)
        raw[col] = values
    for col in ("system", "doc", "doc_id", "seg_id", "rater", "category", "severity"):
        unsafe = np.flatnonzero(raw[col].str.contains(UNSAFE_NAME_CHARS).to_numpy(dtype=bool))
        if unsafe.size:
            check_name(raw[col].iloc[unsafe[0]], "value", file=label, line=int(line_no[unsafe[0]]), column=col)
    severity = raw["severity"].map(normal_severity)
    bad = np.flatnonzero(~severity.isin(SEVERITIES).to_numpy())
    if bad.size:
        raise InputError(f"unknown severity {raw['severity'].iloc[bad[0]]!r} (expected Major, Minor, Neutral "
                         "or No-error)", file=label, line=int(line_no[bad[0]]), column="severity")
    lp = lp or lp_from_name(label)
    if not lp:
        raise InputError("the MQM file does not name its language pair; pass --lp", file=label)
    clean, start, end = strip_spans(raw["target"])
    frame = pd.DataFrame({
        "lp": lp,
        "system": raw["system"],
        "doc": raw["doc"].str.strip(),
        "doc_id": raw["doc_id"].str.strip(),
        "segment": raw["seg_id"],
        "rater": raw["rater"].str.strip(),
        "source": raw["source"],
        "target": clean,
        "category": raw["category"],
        "severity": severity,
        "comment": raw["comment"],
        "span_start": start,
        "span_end": end,
        "_line": line_no,
    })
    return frame[list(FRAME_COLUMNS)]
