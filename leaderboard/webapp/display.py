"""Tables as a visitor reads them: one place that prepares every table the pages show.

:func:`prepare` turns a frame as the lower layers return it (snake_case columns such as ``lp`` or
``test_set``, booleans, missing values) into the frame a page shows: headers in words ("Language
pair", "Test set"), booleans as "yes" / "no", and no ``None`` / ``nan`` cells (missing numbers show
as "–", missing text as an empty cell). Downloads keep the machine-readable frame: pages pass the
frame they got to :func:`leaderboard.webapp.common.csv_download` and only the shown copy goes
through here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

import pandas as pd

#: what a missing number shows (the same dash as :mod:`.html_table`)
MISSING = "–"
YES, NO = "yes", "no"

#: headers that the generic rule (:func:`header`) would not write well
HEADERS: dict[str, str] = {
    "lp": "Language pair", "lps": "Language pairs", "src_lang": "Source language",
    "tgt_lang": "Target language", "test_set": "Test set", "testset": "Test set", "testset_id": "Test set ID",
    "id": "ID", "n": "N", "n_all": "N (all)", "z": "z", "p": "p", "t": "t", "raw": "Raw",
    "ave": "Ave.", "ave_z": "Ave. z", "p_value": "p-value", "p_repeat": "p (repeats)", "qc": "QC",
    "n_hits": "HITs", "n_pairs": "Pairs", "n_repeat_pairs": "Repeat pairs", "n_ref_pairs": "Reference pairs",
    "mean_ref": "Mean (references)", "mean_system": "Mean (system outputs)",
    "mean_bad_ref": "Mean (bad references)", "mean_repeat": "Mean (repeats)",
    "max_const_run": "Longest run of one score", "min_hit_seconds": "Shortest HIT (s)",
    "mean_hit_seconds": "Mean HIT time (s)", "assumption_b": "Assumption B",
    "per_segment": "Per segment", "span_start": "Span start", "span_end": "Span end",
    "is_human": "Human translation", "bleu_tokenize": "BLEU tokenizer", "url": "URL",
    "published_in": "Published versions using it", "retractable": "Can be retracted",
    "public_before_deadline": "Public before the deadline", "max_submissions": "Most submissions",
    "starts_at": "Opens", "created_at": "Created at", "created_by": "Created by",
    "verified_at": "Verified at", "verified_by": "Verified by", "input_format": "Input format",
    "file_name": "File", "BLEU": "BLEU", "chrF": "chrF", "hit": "HIT", "hits": "HITs",
    "item_type": "Item type", "doc": "Document", "mqm": "MQM", "esa": "ESA",
}
# numeric columns that hold yes/no (0/1) rather than a count
_BOOLEAN_NAMES = re.compile(r"^(is|has|can)_")


def header(name) -> str:
    """A column name in words: from :data:`HEADERS`, else ``snake_case`` → "Snake case"."""
    name = str(name)
    if name in HEADERS:
        return HEADERS[name]
    words = name.replace("_", " ").strip()
    if not words:
        return name
    return words[0].upper() + words[1:] if words == words.lower() else words


def _is_missing(value) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    try:
        return bool(isinstance(value, float) and math.isnan(value))
    except TypeError:
        return False


def _boolean(column: pd.Series, name: str) -> bool:
    """Whether a column holds yes/no values: a bool dtype, Python bools with gaps, or 0/1 in an
    ``is_…`` column."""
    if pd.api.types.is_bool_dtype(column):
        return True
    values = [v for v in column.tolist() if not _is_missing(v)]
    if not values:
        return False
    if all(isinstance(v, bool) or type(v).__name__ == "bool_" for v in values):
        return True
    return bool(_BOOLEAN_NAMES.match(name)) and pd.api.types.is_numeric_dtype(column) \
        and all(v in (0, 1) for v in values)


def _number_text(value, fmt: str | None) -> str:
    if fmt:
        try:
            return fmt % value if "%" in fmt else fmt.format(value)
        except (TypeError, ValueError):
            return str(value)
    if isinstance(value, float) and value.is_integer():
        return f"{int(value):,}" if abs(value) >= 10_000 else str(int(value))
    if isinstance(value, float):
        return f"{value:.4g}" if abs(value) < 1000 else f"{value:,.1f}"
    return str(value)


def prepare(frame: pd.DataFrame, headers: Mapping[str, str] | None = None,
            formats: Mapping[str, str] | None = None, *, blank_missing: bool = True) -> pd.DataFrame:
    """The frame as a page shows it (a copy; ``frame`` is not changed).

    ``headers``: column → header, before :data:`HEADERS` and the generic rule. ``formats``: column →
    format (``"{:.3f}"`` or ``"%.3g"``) for number columns that have missing values, which become text
    so that no cell reads ``None``. ``blank_missing=False`` leaves missing numbers as they are, for a
    renderer that writes its own dash (:mod:`.html_table`). Booleans read "yes" / "no"; a named index
    is kept and its name put in words.
    """
    headers = dict(headers or {})
    formats = dict(formats or {})
    shown = frame.copy()
    out = {}
    for name in shown.columns:
        column = shown[name]
        key = str(name)
        if _boolean(column, key):
            out[name] = column.map(lambda v: "" if _is_missing(v) else (YES if bool(v) else NO)).astype(object)
        elif pd.api.types.is_datetime64_any_dtype(column):
            out[name] = column.map(lambda v: "" if _is_missing(v) else v.strftime("%Y-%m-%d %H:%M")).astype(object)
        elif pd.api.types.is_numeric_dtype(column):
            if blank_missing and column.isna().any():
                fmt = formats.get(key)
                out[name] = column.map(lambda v, fmt=fmt: MISSING if _is_missing(v) else _number_text(v, fmt)) \
                    .astype(object)
            else:
                out[name] = column
        elif blank_missing:
            out[name] = column.map(lambda v: "" if _is_missing(v) else v).astype(object)
        else:
            out[name] = column
    shown = pd.DataFrame(out, index=shown.index, columns=shown.columns)
    names: list[str] = []
    for c in shown.columns:
        name = headers.get(str(c)) or header(c)
        if name in names:  # two columns read alike: keep them apart by their own names
            name = f"{name} ({c})"
        names.append(name)
    shown.columns = names
    if shown.index.name is not None:
        shown.index.name = headers.get(str(shown.index.name)) or header(shown.index.name)
    return shown


def renamed(config: Mapping[str, object] | None, frame: pd.DataFrame,
            headers: Mapping[str, str] | None = None) -> dict:
    """A ``column_config`` keyed by ``frame``'s own column names, re-keyed by the shown headers."""
    headers = dict(headers or {})
    return {headers.get(str(k)) or header(k): v for k, v in (config or {}).items()}
