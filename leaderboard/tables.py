"""Writing tables for people: CSV/TSV/Parquet files with spreadsheet formulas neutralised, LaTeX cells escaped."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import IO

import pandas as pd

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def neutralise_formulas(frame: pd.DataFrame) -> pd.DataFrame:
    """Prefix text cells that a spreadsheet would run as a formula with a single quote.

    Only text cells are touched; numbers (including negative ones) stay numbers.
    """
    out = frame.copy()
    for col in out.columns:
        values = out[col]
        if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
            continue
        text = values.astype("string")
        risky = text.str.startswith(FORMULA_START, na=False)
        if risky.any():
            out[col] = values.astype(object).where(~risky, "'" + text.astype(object))
    if any(str(c).startswith(FORMULA_START) for c in out.columns):
        out.columns = ["'" + str(c) if str(c).startswith(FORMULA_START) else c for c in out.columns]
    return out


def to_csv_bytes(frame: pd.DataFrame) -> bytes:
    """CSV bytes for a download button: UTF-8, formulas neutralised."""
    return neutralise_formulas(frame).to_csv(index=False).encode("utf-8")


def write_table(frame: pd.DataFrame, target: str | Path | IO[str]) -> None:
    """Write ``frame`` to a path (format from the extension) or an open text stream (CSV)."""
    if isinstance(target, (str, Path)):
        path = Path(target)
        if path.suffix.lower() in (".parquet", ".pq"):
            frame.to_parquet(path, index=False)
            return
        sep = "\t" if path.suffix.lower() == ".tsv" else ","
        neutralise_formulas(frame).to_csv(path, index=False, sep=sep)
        return
    buf = io.StringIO()
    neutralise_formulas(frame).to_csv(buf, index=False)
    target.write(buf.getvalue())


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped, for a table cell or caption."""
    return re.sub(r"[\\&%$#_{}~^]", lambda m: _LATEX_SPECIAL[m.group(0)], str(text))
