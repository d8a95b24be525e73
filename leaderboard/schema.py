"""The canonical judgment table (docs/method/da.md#the-judgment-row) and its validation.

Every importer produces a frame with these columns; everything downstream (store, QC, ranking)
consumes only this frame. Validation is vectorised and reports the first offending row with the
file line it came from.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from .errors import InputError
from .naming import UNSAFE_NAME_CHARS, unsafe_char

ITEM_TYPES: tuple[str, ...] = ("SYSTEM", "REPEAT", "REF", "BAD_REF")

#: Columns every judgment must have (values non-empty).
KEY_TEXT_COLUMNS: tuple[str, ...] = (
    "campaign", "lp", "assessment", "worker", "hit", "segment", "system", "item_type",
)
#: The full canonical column order; ``raw``, ``z``, ``seconds`` and ``doc`` may hold missing values.
COLUMNS: tuple[str, ...] = (
    "campaign", "lp", "assessment", "worker", "hit", "position", "segment", "system",
    "item_type", "raw", "z", "seconds", "doc",
)
#: A judgment is identified by these; two rows with the same key are duplicates.
KEY: tuple[str, ...] = ("campaign", "lp", "assessment", "worker", "hit", "position")

#: Longest value the store keeps per text column (its column widths); longer values are refused.
MAX_LENGTH: dict[str, int] = {"campaign": 200, "lp": 40, "assessment": 40, "worker": 200, "hit": 200,
                              "segment": 200, "system": 200, "item_type": 10, "doc": 200}

#: Name of the bookkeeping column importers may add: the 1-based file line of each row.
LINE = "_line"

#: Largest position the store keeps (a 32-bit integer column).
MAX_POSITION = 2**31 - 1


def _line_of(frame: pd.DataFrame, row: int) -> int | None:
    if LINE in frame.columns:
        return int(frame[LINE].iloc[row])
    return None


def _first_bad(mask: np.ndarray) -> int | None:
    idx = np.flatnonzero(mask)
    return int(idx[0]) if idx.size else None


def validate_judgments(frame: pd.DataFrame, file: str | None = None,
                       source_columns: dict[str, str] | None = None) -> pd.DataFrame:
    """Check ``frame`` against the canonical model and return a normalised copy.

    Raises :class:`InputError` naming the file, line and column of the first problem: missing
    columns, empty input, empty key fields, non-numeric or out-of-range scores, unknown item
    types, non-positive positions, and duplicate judgment keys. The returned frame has exactly
    :data:`COLUMNS` (in order), string keys, float scores and integer positions.
    ``source_columns`` (default: ``frame.attrs["source_columns"]``) maps canonical column names to
    the names the user's file uses, so errors point at the file's own column.
    """
    names = dict(frame.attrs.get("source_columns", {}) if frame is not None else {})
    names.update(source_columns or {})
    try:
        return _validate(frame, file)
    except InputError as exc:
        if exc.column in names:
            exc.column = names[exc.column]
        raise


def _validate(frame: pd.DataFrame, file: str | None) -> pd.DataFrame:
    if frame is None or len(frame) == 0:
        raise InputError("no judgments found (the file is empty or holds only a header)", file=file)
    missing = [c for c in (*KEY_TEXT_COLUMNS, "position") if c not in frame.columns]
    if "raw" not in frame.columns and "z" not in frame.columns:
        missing.append("raw (or z)")
    if missing:
        raise InputError(
            "missing required column(s): " + ", ".join(missing)
            + f"; found: {', '.join(str(c) for c in frame.columns if c != LINE)}",
            file=file, line=1 if LINE in frame.columns else None,
        )

    out = pd.DataFrame(index=pd.RangeIndex(len(frame)))
    src = frame.reset_index(drop=True)

    key_codes: dict[str, np.ndarray] = {}
    for col in KEY_TEXT_COLUMNS:
        out[col], key_codes[col] = _clean_text(src, col, file)

    # item types: upper-cased and checked on the distinct values
    types = pd.Series(pd.unique(key_codes["item_type"]))
    distinct_types = out["item_type"].iloc[_first_rows(key_codes["item_type"], types.to_numpy())].to_numpy(dtype=object)
    upper = pd.Series(distinct_types, dtype="object").astype(str).str.upper()
    known = upper.isin(ITEM_TYPES).to_numpy()
    if not known.all():
        bad = _first_bad(np.isin(key_codes["item_type"], types.to_numpy()[~known]))
        raise InputError(
            f"unknown item type {out['item_type'].iloc[bad]!r} (expected one of {', '.join(ITEM_TYPES)})",
            file=file, line=_line_of(src, bad), column="item_type",
        )
    if not (upper.to_numpy(dtype=object) == distinct_types.astype(object)).all():
        lookup = np.empty(int(key_codes["item_type"].max()) + 1, dtype=np.int64)
        upper_codes, upper_names = pd.factorize(upper.to_numpy(dtype=object))
        lookup[types.to_numpy()] = upper_codes
        out["item_type"] = text_series(lookup[key_codes["item_type"]], np.asarray(upper_names, dtype=object))

    position = pd.to_numeric(src["position"], errors="coerce")
    pos = position.to_numpy(dtype=float)
    bad = _first_bad(~np.isfinite(pos) | (pos < 1) | (pos > MAX_POSITION) | (pos != np.floor(pos)))
    if bad is not None:
        raise InputError(
            f"position must be a whole number from 1 to {MAX_POSITION}, got {plain(src['position'].iloc[bad])!r}",
            file=file, line=_line_of(src, bad), column="position",
        )
    out["position"] = pos.astype(np.int64)

    have_raw = "raw" in src.columns
    have_z = "z" in src.columns
    raw = _numeric(src, "raw", file) if have_raw else np.full(len(src), np.nan)
    z = _numeric(src, "z", file) if have_z else np.full(len(src), np.nan)
    bad = _first_bad(np.isinf(raw))
    if bad is not None:
        raise InputError("raw score is not a finite number", file=file, line=_line_of(src, bad), column="raw")
    bad = _first_bad((raw < 0) | (raw > 100))
    if bad is not None:
        raise InputError(
            f"raw score {raw[bad]:g} is outside 0-100", file=file, line=_line_of(src, bad), column="raw",
        )
    bad = _first_bad(np.isinf(z))
    if bad is not None:
        raise InputError("z score is not a finite number", file=file, line=_line_of(src, bad), column="z")
    bad = _first_bad(np.isnan(raw) & np.isnan(z))
    if bad is not None:
        raise InputError(
            "judgment has neither a raw score nor a z score", file=file, line=_line_of(src, bad),
            column="raw" if have_raw else "z",
        )
    out["raw"] = raw
    out["z"] = z

    if "seconds" in src.columns:
        seconds = _numeric(src, "seconds", file)
        bad = _first_bad(seconds < 0)
        if bad is not None:
            raise InputError("negative time", file=file, line=_line_of(src, bad), column="seconds")
        bad = _first_bad(np.isinf(seconds))
        if bad is not None:
            raise InputError("time is not a finite number", file=file, line=_line_of(src, bad), column="seconds")
        out["seconds"] = seconds
    else:
        out["seconds"] = np.nan
    if "doc" in src.columns:  # optional text: stripped, empty cells missing (worked on the distinct values)
        codes, uniques = pd.factorize(src["doc"], use_na_sentinel=True)
        stripped = pd.Series(uniques, dtype="object").astype("string").str.strip()
        merged, distinct = pd.factorize(stripped.to_numpy(dtype=object))
        codes = np.where(codes >= 0, merged[np.maximum(codes, 0)], -1) if len(merged) else codes  # all empty
        _check_length(pd.Series(distinct, dtype="object").astype(str), codes, src, "doc", file)
        _check_safe(pd.Series(distinct, dtype="object").astype(str), codes, src, "doc", file)
        empty = np.flatnonzero(np.asarray(distinct, dtype=object) == "")
        if empty.size:
            codes = np.where(codes == empty[0], -1, codes)
        out["doc"] = text_series(codes, np.asarray(distinct, dtype=object), dtype="string")
    else:
        out["doc"] = pd.Series(pd.NA, index=out.index, dtype="string")

    dup = _duplicated(out, key_codes)
    bad = _first_bad(dup)
    if bad is not None:
        first = out.loc[bad, list(KEY)]
        twins = np.flatnonzero(dup & (out[list(KEY)] == first).all(axis=1).to_numpy())
        lines = [_line_of(src, int(i)) for i in twins[:3]]
        where = ", ".join(str(x) for x in lines if x is not None)
        raise InputError(
            "duplicate judgment (same campaign, lp, assessment, worker, hit, position)"
            + (f" on lines {where}" if where else ""),
            file=file, line=_line_of(src, int(twins[-1]) if len(twins) else bad), column="position",
        )
    return out[list(COLUMNS)]


def _clean_text(src: pd.DataFrame, col: str, file: str | None) -> tuple[pd.Series, np.ndarray]:
    """Strip a key column and refuse empty cells; works on the distinct values (fast on 1M rows).

    Also returns each row's code of its stripped value (equal values, equal codes), which the
    checks that follow and the duplicate check use instead of hashing the strings again.
    """
    codes, uniques = pd.factorize(src[col], use_na_sentinel=True)
    stripped = pd.Series(uniques, dtype="object").astype(str).str.strip()
    empty_codes = np.flatnonzero((stripped == "").to_numpy())
    bad = _first_bad((codes < 0) | np.isin(codes, empty_codes))
    if bad is not None:
        raise InputError("empty value", file=file, line=_line_of(src, bad), column=col)
    _check_length(stripped, codes, src, col, file)
    _check_safe(stripped, codes, src, col, file)
    if col == "lp":
        _check_lps(stripped, codes, src, file)
    if col == "segment":
        _check_numeric_ids(stripped, codes, src, col, file)
    merged, distinct = pd.factorize(stripped.to_numpy(dtype=object))  # " a" and "a" become one value
    row_codes = merged[codes]
    values = src[col]
    if pd.api.types.is_string_dtype(values.dtype) and values.dtype != object \
            and (stripped.to_numpy(dtype=object) == uniques.astype(object)).all():
        return values.reset_index(drop=True), row_codes  # already clean text: no copy of a million strings
    return text_series(row_codes, np.asarray(distinct, dtype=object)), row_codes


def _first_rows(codes: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """The first row holding each code of ``wanted``."""
    first = np.full(int(codes.max()) + 1 if len(codes) else 0, -1, dtype=np.int64)
    rows = np.arange(len(codes) - 1, -1, -1)
    first[codes[::-1]] = rows  # the last write per code wins: the smallest row
    return first[wanted]


#: pandas' own text dtype ("str": Arrow-backed from pandas 3 on, NumPy objects before)
_STR_DTYPE = pd.Series(dtype="str").dtype


def text_series(codes: np.ndarray, values: np.ndarray, dtype: str = "str") -> pd.Series:
    """A text column (``dtype`` "str" or "string") from per-row codes into distinct ``values``;
    code -1 is a missing value.

    With Arrow-backed strings the column is laid out by Arrow from the distinct values, so building
    a million-row column never makes a million Python strings.
    """
    target = _STR_DTYPE if dtype == "str" else pd.api.types.pandas_dtype(dtype)
    codes = np.asarray(codes)
    if isinstance(target, pd.StringDtype) and target.storage == "pyarrow":
        import pyarrow as pa
        array = pa.DictionaryArray.from_arrays(pa.array(codes.astype(np.int32), mask=codes < 0),
                                               pa.array([str(v) for v in values], type=pa.string()))
        return pd.Series(array.dictionary_decode().to_pandas(types_mapper=lambda _type: target), copy=False)
    taken = np.asarray(values, dtype=object)[np.maximum(codes, 0)] if len(values) else np.full(len(codes), None)
    return pd.Series(np.where(codes >= 0, taken, None), dtype=target)


def _duplicated(out: pd.DataFrame, key_codes: dict[str, np.ndarray]) -> np.ndarray:
    """Rows whose :data:`KEY` another row shares (every one of them marked).

    The text parts of the key arrive as codes, combined with the position into one integer per row,
    so the check hashes a million integers rather than a million tuples of strings.
    """
    position = out["position"].to_numpy(dtype=np.int64)
    parts = [key_codes[c] for c in KEY if c != "position"]
    lo = int(position.min()) if len(position) else 0
    sizes = [int(c.max()) + 1 if len(c) else 1 for c in parts] + [int(position.max()) - lo + 1 if len(position) else 1]
    if float(np.prod(np.asarray(sizes, dtype=float))) >= 2.0**62:  # would overflow: hash the columns instead
        return out.duplicated(list(KEY), keep=False).to_numpy()
    key = np.zeros(len(out), dtype=np.int64)
    for codes, size in zip(parts, sizes):
        key = key * size + codes
    key = key * sizes[-1] + (position - lo)
    return pd.Series(key).duplicated(keep=False).to_numpy()


def _check_length(uniques: pd.Series, codes: np.ndarray, src: pd.DataFrame, col: str, file: str | None) -> None:
    """Refuse values longer than the store keeps (checked on the distinct values)."""
    lengths = uniques.str.len().to_numpy()
    too_long = np.flatnonzero(lengths > MAX_LENGTH[col])
    if too_long.size:
        bad = _first_bad(np.isin(codes, too_long))
        raise InputError(f"value is {int(lengths[codes[bad]]):,} characters long; at most {MAX_LENGTH[col]} "
                         "are allowed", file=file, line=_line_of(src, bad), column=col)


def _check_safe(uniques: pd.Series, codes: np.ndarray, src: pd.DataFrame, col: str, file: str | None) -> None:
    """Refuse names and ids holding control or text-direction characters (checked on the distinct values)."""
    unsafe = np.flatnonzero(uniques.str.contains(UNSAFE_NAME_CHARS).to_numpy(dtype=bool))
    if unsafe.size:
        bad = _first_bad(np.isin(codes, unsafe))
        raise InputError(f"the value holds the character {unsafe_char(uniques.iloc[codes[bad]])}; names and ids "
                         "may hold no control or text-direction characters", file=file, line=_line_of(src, bad),
                         column=col)


def _check_numeric_ids(uniques: pd.Series, codes: np.ndarray, src: pd.DataFrame, col: str,
                       file: str | None) -> None:
    """An id written as a number (a line number, as most releases use) must be a whole number from 0 to
    :data:`MAX_POSITION`: ``1e308`` or ``2.5`` would turn into a different line once read as one."""
    numbers = pd.to_numeric(uniques.where(uniques.str.fullmatch(r"[-+0-9.eE]+"), None), errors="coerce")
    values = numbers.to_numpy(dtype=float, na_value=np.nan)
    bad_ids = np.flatnonzero(~np.isnan(values) & ((values < 0) | (values > MAX_POSITION) | (values != np.floor(values))))
    if bad_ids.size:
        bad = _first_bad(np.isin(codes, bad_ids))
        raise InputError(f"a numeric {col} id must be a whole number from 0 to {MAX_POSITION}, got "
                         f"{uniques.iloc[codes[bad]]!r}", file=file, line=_line_of(src, bad), column=col)


def _check_lps(uniques: pd.Series, codes: np.ndarray, src: pd.DataFrame, file: str | None) -> None:
    """Refuse language pairs that are not SRC-TGT language codes (e.g. ``cs-en``, ``en-zh_TW``)."""
    from .languages import split_lp
    for k, lp in enumerate(uniques):
        try:
            split_lp(lp)
        except InputError as exc:
            bad = _first_bad(codes == k)
            raise InputError(exc.message, file=file, line=_line_of(src, bad), column="lp") from None


def plain(value):
    """A numpy scalar as the Python value it holds, so messages show ``1.5``, not ``np.float64(1.5)``."""
    return value.item() if isinstance(value, np.generic) else value


def _numeric(src: pd.DataFrame, col: str, file: str | None) -> np.ndarray:
    """Parse a score column; empty/NA cells become NaN, anything else non-numeric is an error."""
    values = src[col]
    if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
        return values.to_numpy(dtype=float, na_value=np.nan)
    text = values.astype("string").str.strip()
    blank = text.isna() | (text == "") | text.str.upper().isin(["NA", "NAN"])
    parsed = pd.to_numeric(text.where(~blank, None), errors="coerce")
    bad = _first_bad((parsed.isna() & ~blank).to_numpy())
    if bad is not None:
        raise InputError(
            f"not a number: {plain(values.iloc[bad])!r}", file=file, line=_line_of(src, bad), column=col,
        )
    return parsed.to_numpy(dtype=float, na_value=np.nan)


def normalise_dtypes(frame: pd.DataFrame) -> pd.DataFrame:
    """Give an already-valid canonical frame (e.g. read back from the store) the canonical dtypes."""
    out = frame[list(COLUMNS)].copy()
    for col in KEY_TEXT_COLUMNS:
        out[col] = out[col].astype(str)
    out["position"] = out["position"].astype("int64")
    for col in ("raw", "z", "seconds"):
        out[col] = pd.to_numeric(out[col], errors="coerce").astype(float)
    out["doc"] = out["doc"].astype("string")
    return out


def empty_judgments() -> pd.DataFrame:
    """A zero-row frame with the canonical columns and dtypes."""
    return pd.DataFrame({c: pd.Series(dtype="float64" if c in ("raw", "z", "seconds") else (
        "int64" if c == "position" else "object")) for c in COLUMNS})


def concat_judgments(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Stack validated frames and re-check keys across them (two files may collide)."""
    if not frames:
        return empty_judgments()
    both = pd.concat(frames, ignore_index=True)
    dup = both.duplicated(list(KEY), keep="first").to_numpy()
    if dup.any():
        row = both.iloc[int(np.flatnonzero(dup)[0])]
        raise InputError(
            "the same judgment appears in two inputs: "
            + ", ".join(f"{k}={row[k]}" for k in KEY)
        )
    return both
