"""Small readers for ``mtlb correlate``: WMT system-level metric scores and human system scores.

(metrics.submissions has the full, validating reader of metric submissions; this one only needs
the system-level layouts and may be replaced by it.)

* metric scores: WMT TSV without header, ``metric lp testset system score`` or
  ``metric lp testset refset system score``; tab-separated (whitespace when a line has no tab).
* human scores: the JSON of ``mtlb rank --json`` (an object with ``systems`` or a list of them),
  or a WMT ``ad-sys-scores`` whitespace table with the header ``RAW.SCR Z.SCR N SYS N.ALL``.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any

import pandas as pd

from leaderboard.errors import InputError

METRIC_COLUMNS = ["metric", "lp", "testset", "refset", "system", "score"]


def _read(path: str | os.PathLike) -> str:
    from leaderboard.ingest.textio import read_text  # size limit, devices, gzip, encoding checks
    return read_text(path, str(path))


def read_metric_sys_scores(path: str | os.PathLike) -> pd.DataFrame:
    """Rows ``metric, lp, testset, refset, system, score`` (refset None in the 5-column form)."""
    label = str(path)
    rows = []
    ncols = None
    for lineno, line in enumerate(_read(path).splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.rstrip("\r").split("\t") if "\t" in line else line.split()
        if ncols is None:
            ncols = len(fields)
            if ncols not in (5, 6):
                raise InputError(f"found {ncols} columns; a WMT system-level metric file has 5 "
                                 "(metric lp testset system score) or 6 (metric lp testset refset system score)",
                                 file=label, line=lineno)
        if len(fields) != ncols:
            raise InputError(f"found {len(fields)} columns, the first line has {ncols}", file=label, line=lineno)
        fields = [f.strip() for f in fields]
        try:
            score = float(fields[-1])
        except ValueError:
            raise InputError(f"score {fields[-1]!r} is not a number", file=label, line=lineno,
                             column="score") from None
        if not math.isfinite(score):
            raise InputError(f"score is {fields[-1]}", file=label, line=lineno, column="score")
        for name, value in zip(["metric", "lp", "testset"], fields[:3]):
            if not value:
                raise InputError(f"{name} is empty", file=label, line=lineno, column=name)
        if not fields[-2]:
            raise InputError("system is empty", file=label, line=lineno, column="system")
        refset = fields[3] if ncols == 6 else None
        rows.append((fields[0], fields[1], fields[2], refset, fields[-2], score))
    if not rows:
        raise InputError("no metric scores in the file", file=label)
    return pd.DataFrame(rows, columns=METRIC_COLUMNS)


def _systems_from_json(obj: Any, label: str) -> list[dict]:
    """Collect ``{"lp", "system", "ave", "ave_z"}`` rows from rank JSON (object, list, or nested)."""
    rows: list[dict] = []
    if isinstance(obj, list):
        for item in obj:
            rows += _systems_from_json(item, label)
        return rows
    if not isinstance(obj, dict):
        return rows
    if isinstance(obj.get("systems"), list):
        lp = obj.get("lp")
        assessment = obj.get("assessment")
        for entry in obj["systems"]:
            if not isinstance(entry, dict) or "system" not in entry:
                raise InputError("every entry of 'systems' needs a 'system' name", file=label)
            rows.append({"lp": entry.get("lp", lp), "assessment": entry.get("assessment", assessment),
                         "system": str(entry["system"]),
                         "ave": entry.get("ave"), "ave_z": entry.get("ave_z"), "n": entry.get("n"),
                         "is_human": entry.get("human")})
        return rows
    for value in obj.values():              # e.g. {"rankings": [...]} or {"cs-en": {...}}
        if isinstance(value, (list, dict)):
            rows += _systems_from_json(value, label)
    return rows


def read_human_sys_scores(path: str | os.PathLike) -> pd.DataFrame:
    """Human system scores as ``lp, [assessment,] system, ave, ave_z, n[, is_human]`` (lp None when the file has none).

    ``is_human``: the rank JSON's marking of human translations (None when absent, e.g. older JSON or a
    WMT table: then WMT naming decides).
    """
    label = str(path)
    text = _read(path)
    stripped = text.lstrip()
    if stripped.startswith("{") or stripped.startswith("["):
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON: {exc.msg}", file=label, line=exc.lineno, column=exc.colno) from None
        rows = _systems_from_json(obj, label)
        if not rows:
            raise InputError("no 'systems' list found (expected a ranking's JSON)", file=label, code="not_a_ranking")
        frame = pd.DataFrame(rows, columns=["lp", "assessment", "system", "ave", "ave_z", "n", "is_human"])
        for col in ("ave", "ave_z", "n"):
            frame[col] = pd.to_numeric(frame[col], errors="coerce")
        return frame
    lines = [(i, ln.split()) for i, ln in enumerate(text.splitlines(), start=1) if ln.strip()]
    if not lines:
        raise InputError("the file is empty", file=label)
    header_line, header = lines[0]
    wanted = {"RAW.SCR": "ave", "Z.SCR": "ave_z", "SYS": "system", "N": "n"}
    if "SYS" not in header or ("Z.SCR" not in header and "RAW.SCR" not in header):
        raise InputError("expected mtlb rank JSON or a WMT system-score table with the header "
                         "RAW.SCR Z.SCR N SYS N.ALL", file=label, line=header_line)
    rows = []
    for lineno, fields in lines[1:]:
        if len(fields) != len(header):
            raise InputError(f"found {len(fields)} columns, the header has {len(header)}", file=label, line=lineno)
        row: dict[str, Any] = {"lp": None}
        for name, value in zip(header, fields):
            if name not in wanted:
                continue
            key = wanted[name]
            if key == "system":
                row[key] = value
            else:
                try:
                    row[key] = float(value)
                except ValueError:
                    raise InputError(f"{value!r} is not a number", file=label, line=lineno, column=name) from None
        rows.append(row)
    return pd.DataFrame(rows, columns=["lp", "system", "ave", "ave_z", "n"])


#: columns of a human per-segment score table (``mtlb published --format segments``)
HUMAN_SEGMENT_COLUMNS = ["system", "segment", "raw", "z"]


def read_human_segment_scores(path: str | os.PathLike) -> pd.DataFrame:
    """Human per-(system, segment) scores: a CSV with the header ``system,segment,raw,z[,n]`` as
    ``mtlb published --format segments`` writes it. Empty cells are missing scores; any other
    non-number is refused with its line and column."""
    import csv
    import io

    label = str(path)
    text = _read(path)
    rows = list(csv.reader(io.StringIO(text)))
    rows = [(i, r) for i, r in enumerate(rows, start=1) if any(c.strip() for c in r)]
    if not rows:
        raise InputError("the file is empty", file=label)
    header_line, header = rows[0]
    header = [h.strip().lower() for h in header]
    missing = [c for c in HUMAN_SEGMENT_COLUMNS if c not in header]
    if missing:
        raise InputError(f"missing column(s) {', '.join(missing)} (expected the header system,segment,raw,z,n "
                         "of a snapshot's per-segment scores)", file=label, line=header_line,
                         code="not_segment_scores")
    at = {c: header.index(c) for c in HUMAN_SEGMENT_COLUMNS}
    out = []
    for lineno, fields in rows[1:]:
        if len(fields) != len(header):
            raise InputError(f"expected {len(header)} fields, found {len(fields)}", file=label, line=lineno)
        row = {"system": fields[at["system"]].strip(), "segment": fields[at["segment"]].strip()}
        for col in ("system", "segment"):
            if not row[col]:
                raise InputError(f"empty {col}", file=label, line=lineno, column=col)
        for col in ("raw", "z"):
            cell = fields[at[col]].strip()
            try:
                value = float(cell) if cell else math.nan
            except ValueError:
                raise InputError(f"not a number: {cell!r}", file=label, line=lineno, column=col) from None
            if math.isinf(value):
                raise InputError(f"not a finite number: {cell!r}", file=label, line=lineno, column=col)
            row[col] = value
        out.append(row)
    frame = pd.DataFrame(out, columns=HUMAN_SEGMENT_COLUMNS)
    if frame.duplicated(["system", "segment"]).any():
        first = frame[frame.duplicated(["system", "segment"])].iloc[0]
        raise InputError(f"system {first['system']!r} segment {first['segment']!r} appears twice", file=label)
    return frame
