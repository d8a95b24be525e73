"""The canonical format: CSV, TSV or Parquet whose header names the canonical columns."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputError, brief
from ..schema import COLUMNS, LINE
from .textio import check_readable, read_text

#: Alternative header spellings accepted for canonical columns.
ALIASES = {"score": "raw", "raw_score": "raw", "type": "item_type", "seg": "segment",
           "segment_id": "segment", "sys": "system", "annotator": "worker", "z_score": "z",
           "time": "seconds", "language_pair": "lp"}


def looks_like_canonical(head: str) -> bool:
    """True when the header line names canonical columns (with any delimiter)."""
    lines = head.splitlines()
    if not lines:
        return False
    cols = {c.strip().lower() for c in _split(lines[0])}
    cols = {ALIASES.get(c, c) for c in cols}
    return {"worker", "system", "segment", "item_type"} <= cols


def _split(line: str) -> list[str]:
    delim = "\t" if "\t" in line else ","
    try:
        return next(csv.reader([line], delimiter=delim))
    except csv.Error:  # e.g. a field over the csv module's size limit: a plain split names the columns
        return line.split(delim)


def _check_field_counts(text: str, delim: str, width: int, label: str) -> None:
    """Refuse the first record with fewer fields than the header (only run when a last field is empty)."""
    reader = csv.reader(io.StringIO(text), delimiter=delim)
    start = 1
    try:
        for fields in reader:
            if fields and len(fields) < width:
                raise InputError(f"found {len(fields)} fields but the header has {width}", file=label, line=start)
            start = reader.line_num + 1
    except csv.Error as exc:  # a field over the csv module's size limit, say
        raise InputError(f"not a valid CSV line ({exc})", file=label, line=start) from None


def read_canonical(path: str, name: str | None = None, defaults: dict | None = None) -> pd.DataFrame:
    """Read a canonical CSV/TSV/Parquet into canonical columns (plus ``_line``), unvalidated.

    ``defaults`` fills columns the file lacks (campaign, lp, assessment from the command line).
    """
    label = name or str(path)
    p = Path(path)
    if p.suffix.lower() in (".parquet", ".pq"):
        check_readable(p, label)
        try:
            frame = pd.read_parquet(p)
        except Exception as exc:  # pyarrow raises many types for corrupt files
            raise InputError(f"cannot read Parquet: {exc}", file=label) from None
        frame = frame.rename(columns=lambda c: ALIASES.get(str(c).strip().lower(), str(c).strip().lower()))
        frame[LINE] = np.arange(1, len(frame) + 1)  # Parquet has no header line: row numbers
    else:
        text = read_text(path, label, nul_ok=False)
        first = text.splitlines()[0]
        delim = "\t" if "\t" in first else ","
        try:
            frame = pd.read_csv(io.StringIO(text), sep=delim, dtype=str, keep_default_na=False,
                                skip_blank_lines=True)
        except pd.errors.ParserError as exc:  # e.g. "Expected 9 fields in line 4, saw 10"
            found = re.search(r"line (\d+), saw (\d+)", str(exc))
            if found:
                raise InputError(f"found {found.group(2)} fields but the header has {len(_split(first))}",
                                 file=label, line=int(found.group(1))) from None
            raise InputError(f"cannot parse: {exc}", file=label) from None
        if len(frame) and (frame.iloc[:, -1] == "").any():  # pandas fills absent trailing fields with ""
            _check_field_counts(text, delim, frame.shape[1], label)
        frame[LINE] = np.arange(2, len(frame) + 2)
        frame = frame.rename(columns=lambda c: ALIASES.get(c.strip().lower(), c.strip().lower()))
    dup_cols = frame.columns[frame.columns.duplicated()]
    if len(dup_cols):
        raise InputError(f"column {brief(dup_cols[0])!r} appears twice in the header", file=label, line=1)
    for col, value in (defaults or {}).items():
        if value is not None and col not in frame.columns:
            frame[col] = value
    extra = [c for c in frame.columns if c not in COLUMNS and c != LINE]
    if extra:
        raise InputError("unknown column(s): " + ", ".join(brief(c) for c in extra)
                         + f" (canonical columns: {', '.join(COLUMNS)})", file=label, line=1)
    return frame
