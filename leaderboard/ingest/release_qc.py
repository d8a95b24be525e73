"""The organisers' own per-worker QC files of a WMT crowd-DA release, read and validated.

- ``ad-trk-stats.csv`` (no header, whitespace separated): worker, p, t, bad-reference pairs — the
  paired one-sided test of originals against degraded copies over all of a worker's HITs;
- ``ad-trk-stats.class`` (no header): worker, ``good`` or ``bad`` — the organisers' verdicts.

Published with a ranking, they show on the Quality control page what the organisers decided about
the workers whose judgments the release kept.
"""

from __future__ import annotations

import os

import pandas as pd

from ..errors import InputError
from .textio import finite_number, read_text

STATS_COLUMNS = ("worker", "p", "t", "pairs")
CLASS_COLUMNS = ("worker", "verdict")
VERDICTS = ("good", "bad")


def _rows(path: str | os.PathLike, name: str | None, columns: tuple[str, ...]) -> tuple[str, list[tuple[int, list[str]]]]:
    label = name or str(path)
    text = read_text(path, label, nul_ok=False)  # refuses an empty or blank file
    rows = [(i, line.split()) for i, line in enumerate(text.splitlines(), start=1) if line.strip()]
    for line, fields in rows:
        if len(fields) != len(columns):
            raise InputError(f"expected {len(columns)} whitespace-separated fields ({' '.join(columns)}), found "
                             f"{len(fields)}", file=label, line=line)
        if not fields[0].isprintable():
            raise InputError("the worker id holds control characters", file=label, line=line, column="worker")
    seen: dict[str, int] = {}
    for line, fields in rows:
        if fields[0] in seen:
            raise InputError(f"worker {fields[0]!r} appears twice (first on line {seen[fields[0]]})", file=label,
                             line=line, column="worker")
        seen[fields[0]] = line
    return label, rows


def read_trk_stats(path: str | os.PathLike, name: str | None = None) -> pd.DataFrame:
    """``ad-trk-stats.csv`` as a frame (worker, p, t, pairs); refuses malformed rows with file, line and column."""
    label, rows = _rows(path, name, STATS_COLUMNS)
    out = []
    for line, (worker, p, t, pairs) in rows:
        p_value = finite_number(p, label, line, "p")
        if not 0.0 <= p_value <= 1.0:
            raise InputError(f"p {p!r} is outside [0, 1]", file=label, line=line, column="p")
        n = finite_number(pairs, label, line, "pairs")
        if n < 0 or n != int(n):
            raise InputError(f"pairs {pairs!r} is not a count", file=label, line=line, column="pairs")
        out.append((worker, p_value, finite_number(t, label, line, "t"), int(n)))
    return pd.DataFrame(out, columns=list(STATS_COLUMNS))


def read_trk_class(path: str | os.PathLike, name: str | None = None) -> pd.DataFrame:
    """``ad-trk-stats.class`` as a frame (worker, verdict good / bad)."""
    label, rows = _rows(path, name, CLASS_COLUMNS)
    for line, (_, verdict) in rows:
        if verdict not in VERDICTS:
            raise InputError(f"verdict {verdict!r} is not good or bad", file=label, line=line, column="verdict")
    return pd.DataFrame([fields for _, fields in rows], columns=list(CLASS_COLUMNS))
