"""Two ratings per item (WMT25's human evaluation): a table with one row per rating and its wave.

CSV or TSV with a header. Required columns: ``system``, ``segment`` (the item), ``wave`` (1 or 2: the
first or the second ESA rating of the item) and ``score`` (0–100); optional: ``lp`` (else ``--lp``),
``doc`` (document id), ``domain``, ``rater``. An item has at most one rating per wave and system.
:func:`read_waves` refuses (with file, line and column) a missing column, an empty system / segment, a
control or text-direction character in a name, a language pair that is not SRC-TGT, a wave other than 1 or
2, a score that is not a number from 0 to 100 (NaN and infinity included) and a second rating of the
same (lp, system, segment, wave).
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from ..errors import InputError
from ..languages import split_lp
from ..naming import UNSAFE_NAME_CHARS, check_name
from .textio import csv_rows, read_text

REQUIRED: tuple[str, ...] = ("system", "segment", "wave", "score")
OPTIONAL: tuple[str, ...] = ("lp", "doc", "domain", "rater")
COLUMNS: tuple[str, ...] = ("lp", "system", "segment", "wave", "score", "doc", "domain", "rater", "_line")




def read_waves(path: str | os.PathLike, *, lp: str | None = None, name: str | None = None) -> pd.DataFrame:
    """Read and validate a two-wave rating table (columns :data:`COLUMNS`)."""
    label = name or str(path)
    text = read_text(path, label, nul_ok=False)
    first = text.split("\n", 1)[0]
    sep = "\t" if "\t" in first else ","
    rows = csv_rows(text, label, delimiter=sep, what="TSV" if sep == "\t" else "CSV")
    if not rows:
        raise InputError("the file is empty", file=label)
    header = [c.strip().lower() for c in rows[0]]
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise InputError(f"missing column(s) {', '.join(missing)} (expected {', '.join(REQUIRED)}, optionally "
                         f"{', '.join(OPTIONAL)})", file=label, line=1)
    if len(set(header)) != len(header):
        raise InputError("a column name appears twice in the header", file=label, line=1)
    body, lines = [], []
    for i, row in enumerate(rows[1:], start=2):
        if not row or (len(row) == 1 and not row[0].strip()):
            continue
        if len(row) != len(header):
            raise InputError(f"expected {len(header)} fields, found {len(row)}", file=label, line=i)
        body.append(row)
        lines.append(i)
    if not body:
        raise InputError("no ratings found (the file holds only a header)", file=label)
    raw = pd.DataFrame(body, columns=header)
    line_no = np.asarray(lines)
    for col in ("system", "segment") + (("lp",) if "lp" in header else ()):
        raw[col] = raw[col].str.strip()
        empty = np.flatnonzero((raw[col] == "").to_numpy())
        if empty.size:
            raise InputError("empty value", file=label, line=int(line_no[empty[0]]), column=col)
    for col in ("lp", "system", "segment", "doc", "domain", "rater"):
        if col not in raw.columns:
            continue
        unsafe = np.flatnonzero(raw[col].str.contains(UNSAFE_NAME_CHARS).to_numpy(dtype=bool))
        if unsafe.size:
            check_name(raw[col].iloc[unsafe[0]], "value", file=label, line=int(line_no[unsafe[0]]), column=col)
    if "lp" in header:
        for pair in raw["lp"].unique():
            try:
                split_lp(pair)
            except InputError as exc:
                first = int(np.flatnonzero((raw["lp"] == pair).to_numpy())[0])
                raise InputError(exc.message, file=label, line=int(line_no[first]), column="lp") from None
    wave = pd.to_numeric(raw["wave"].str.strip(), errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero(~np.isin(wave, (1.0, 2.0)))
    if bad.size:
        raise InputError(f"wave must be 1 or 2, not {raw['wave'].iloc[bad[0]]!r}", file=label,
                         line=int(line_no[bad[0]]), column="wave")
    score = pd.to_numeric(raw["score"].str.strip(), errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero(~np.isfinite(score) | (score < 0) | (score > 100))
    if bad.size:
        raise InputError(f"score {raw['score'].iloc[bad[0]]!r} is not a number from 0 to 100", file=label,
                         line=int(line_no[bad[0]]), column="score")
    if "lp" in header:
        pairs = raw["lp"]
        if lp is not None:
            keep = (pairs == lp).to_numpy()
            if not keep.any():
                raise InputError(f"no ratings for language pair {lp!r}; the file holds "
                                 f"{', '.join(sorted(pairs.unique())[:10])}", file=label, column="lp")
            raw, wave, score, line_no, pairs = raw[keep], wave[keep], score[keep], line_no[keep], pairs[keep]
    elif lp is None:
        raise InputError("the file has no lp column; give the language pair", file=label, column="lp", code="no_lp")
    else:
        pairs = pd.Series(lp, index=raw.index)
    out = pd.DataFrame({
        "lp": pairs.to_numpy(dtype=object), "system": raw["system"].to_numpy(dtype=object),
        "segment": raw["segment"].to_numpy(dtype=object), "wave": wave.astype(np.int64), "score": score,
        **{c: (raw[c].str.strip().to_numpy(dtype=object) if c in raw.columns else np.full(len(raw), "", dtype=object))
           for c in ("doc", "domain", "rater")},
        "_line": line_no})
    dup = out.duplicated(["lp", "system", "segment", "wave"], keep=False).to_numpy()
    if dup.any():
        first = out[dup].iloc[0]
        twins = out[dup & (out["lp"] == first["lp"]).to_numpy() & (out["system"] == first["system"]).to_numpy()
                    & (out["segment"] == first["segment"]).to_numpy() & (out["wave"] == first["wave"]).to_numpy()]
        raise InputError(f"a second wave-{first['wave']} rating of system {first['system']!r}, segment "
                         f"{first['segment']!r} (first on line {int(twins['_line'].iloc[0])})", file=label,
                         line=int(twins["_line"].iloc[1]), column="wave")
    return out[list(COLUMNS)].reset_index(drop=True)
