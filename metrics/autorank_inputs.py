"""Readers of AutoRank's inputs: system-level metric tables and the WMT25 per-document score files.

Two formats (UTF-8, optionally gzip-compressed):

* **System-level CSV** (comma- or tab-separated, with a header): ``lp, system, <metric>…`` — one
  row per language pair and system, one column per metric holding its system-level value as the
  metric reports it (MetricX: lower is better; CometKiwi, XCOMET, GEMBA-ESA, chrF++: higher is
  better; MetricX or CometKiwi negated, all ≤ 0, as the WMT releases sometimes store them, are
  recognised by their sign). An optional ``type`` column holds the system's category for the
  selection for human evaluation: ``constrained``, ``open-source`` or ``closed-system`` (the
  spellings of the WMT24 AutoRank sheet; ``open``, ``closed``, ``unconstrained`` are accepted too).
  An empty metric cell means the metric is missing for that system.
* **WMT25 per-document JSONL** (``data/automatic_scores/<System>.jsonl`` of the WMT25 release): the
  file stem is the system's name; one JSON object per line, ``{"language_pair": "en-it_IT",
  "domain": …, "document_id": …, "metric_scores": {"<metric>": [one value per paragraph], …}}``.
  A system's value of a metric is the mean over every paragraph of the pair (MetricX is stored
  negated there, higher is better). A ``null`` — for a whole document (``"GEMBA-ESA-CMDA": null``)
  or for one paragraph in the list — is a judge that returned nothing: the value is missing there and
  the mean is over the paragraphs present, as the organisers' AutoRank averages; the reader counts
  them (``null_paragraphs``, ``null_documents``). Text, booleans, NaN, infinities and numbers too
  large to average are refused.

A third, small file gives the categories when the scores do not: **system types CSV** with the
header ``system, type`` (optionally ``lp`` first, when a system's category differs by pair).

Every reader returns a frame of system-level values ``lp, system, metric, value, file, line,
column`` (``line``/``column``: where the value comes from, so a later check can point at it) and
refuses malformed input with an :class:`InputError` naming the file, line and column.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from leaderboard.errors import InputError
from leaderboard.ingest.textio import csv_records, finite_number, read_text
from leaderboard.languages import split_lp
from leaderboard.naming import unsafe_char

from .autorank import category

COLUMNS = ["lp", "system", "metric", "value", "file", "line", "column"]
_KEY_COLUMNS = ("lp", "system", "type")
_MISSING = {"", "-"}
_NOT_NUMBERS = {"na", "n/a", "nan", "null", "none", "inf", "+inf", "-inf", "infinity", "-infinity"}


def _has_control(text: str) -> bool:
    """Control characters (C0, DEL, C1) and the invisible text-direction marks (``leaderboard.naming``)."""
    return unsafe_char(text) is not None


def _name(value: str, what: str, file: str, line: int) -> str:
    text = value.strip()
    if not text:
        raise InputError(f"the {what} is empty", file=file, line=line, column=what)
    if _has_control(text):
        raise InputError(f"the {what} holds the character {unsafe_char(text)}; names may hold no control or "
                         "text-direction characters", file=file, line=line, column=what)
    if what in ("lp", "language_pair"):
        try:
            split_lp(text)
        except InputError as exc:
            raise InputError(exc.message, file=file, line=line, column=what) from None
    return text


def _table_rows(text: str, label: str) -> tuple[list[str], int, list[tuple[int, list[str]]]]:
    """Header (stripped), its line and the data rows (line, fields) of a CSV or TSV text."""
    first = next((ln for ln in text.split("\n") if ln.strip()), "")
    if not first:
        raise InputError("the file is empty", file=label)
    delimiter = "\t" if "\t" in first and "," not in first else ","
    records = csv_records(text, label, delimiter)
    if not records:  # blank fields only
        raise InputError("the file is empty", file=label)
    (header_line, header_fields), *rows = records
    header = [f.strip() for f in header_fields]
    for col in header:
        if not col:
            raise InputError("a column of the header has no name", file=label, line=header_line)
        if _has_control(col):
            raise InputError("a column name contains a control character", file=label, line=header_line, column=col)
    seen = set()
    for col in header:
        if col.lower() in seen:
            raise InputError(f"column {col!r} appears twice in the header", file=label, line=header_line, column=col)
        seen.add(col.lower())
    for line, fields in rows:
        if len(fields) != len(header):
            raise InputError(f"found {len(fields)} columns but the header has {len(header)}", file=label, line=line)
    return header, header_line, rows


def _number(text: str, file: str, line: int, column: str) -> float:
    value = text.strip()
    if value.lower() in _NOT_NUMBERS:
        raise InputError(f"value {value!r} is not a finite number", file=file, line=line, column=column)
    return finite_number(value, file, line, column, subject="value")


def read_system_metrics(path: str | os.PathLike, name: str | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A system-level CSV: (values, types).

    ``values``: :data:`COLUMNS`, one row per cell (an empty cell is NaN: the metric is missing for
    that system, which :func:`metric_table` refuses when AutoRank needs it). ``types``: ``lp, system, category, file, line`` (empty when
    the file has no ``type`` column).
    """
    label = name or str(path)
    header, header_line, rows = _table_rows(read_text(path, label), label)
    lower = [c.lower() for c in header]
    for col in ("lp", "system"):
        if col not in lower:
            raise InputError(f"the header lacks the column {col!r}; expected lp, system, <metric>… [, type]",
                             file=label, line=header_line, column=col)
    metrics = [c for c in header if c.lower() not in _KEY_COLUMNS]
    if not metrics:
        raise InputError("the header names no metric column (expected lp, system, <metric>…)", file=label,
                         line=header_line)
    if not rows:
        raise InputError("the file has a header but no rows", file=label, line=header_line)
    i_lp, i_sys = lower.index("lp"), lower.index("system")
    i_type = lower.index("type") if "type" in lower else None
    index = {c: header.index(c) for c in metrics}
    values: list[tuple] = []
    types: list[tuple] = []
    seen: dict[tuple[str, str], int] = {}
    for line, fields in rows:
        lp = _name(fields[i_lp], "lp", label, line)
        system = _name(fields[i_sys], "system", label, line)
        if (lp, system) in seen:
            raise InputError(f"{system} of {lp} appears twice (also line {seen[lp, system]})", file=label, line=line,
                             column="system")
        seen[lp, system] = line
        if i_type is not None:
            try:
                types.append((lp, system, category(fields[i_type]), label, line))
            except InputError as exc:
                raise InputError(exc.message, file=label, line=line, column=header[i_type]) from None
        for metric in metrics:
            cell = fields[index[metric]]
            value = np.nan if cell.strip() in _MISSING else _number(cell, label, line, metric)
            values.append((lp, system, metric, value, label, line, metric))
    return (pd.DataFrame(values, columns=COLUMNS),
            pd.DataFrame(types, columns=["lp", "system", "category", "file", "line"]))


def read_system_types(path: str | os.PathLike, name: str | None = None) -> pd.DataFrame:
    """A system types CSV (``[lp,] system, type``): ``lp`` (None when the file has none), ``system``, ``category``."""
    label = name or str(path)
    header, header_line, rows = _table_rows(read_text(path, label), label)
    lower = [c.lower() for c in header]
    for col in ("system", "type"):
        if col not in lower:
            raise InputError(f"the header lacks the column {col!r}; expected [lp,] system, type", file=label,
                             line=header_line, column=col)
    extra = [c for c in header if c.lower() not in _KEY_COLUMNS]
    if extra:
        raise InputError(f"unknown column {extra[0]!r}; a system types file has [lp,] system, type", file=label,
                         line=header_line, column=extra[0])
    if not rows:
        raise InputError("the file has a header but no rows", file=label, line=header_line)
    out, seen = [], {}
    for line, fields in rows:
        lp = _name(fields[lower.index("lp")], "lp", label, line) if "lp" in lower else None
        system = _name(fields[lower.index("system")], "system", label, line)
        if (lp, system) in seen:
            raise InputError(f"{system} appears twice (also line {seen[lp, system]})", file=label, line=line,
                             column="system")
        seen[lp, system] = line
        try:
            cat = category(fields[lower.index("type")])
        except InputError as exc:
            raise InputError(exc.message, file=label, line=line, column="type") from None
        out.append((lp, system, cat, label, line))
    return pd.DataFrame(out, columns=["lp", "system", "category", "file", "line"])


def system_from_path(path: str | os.PathLike) -> str:
    """``data/automatic_scores/GPT-4.1.jsonl`` → ``GPT-4.1`` (also ``.jsonl.gz``)."""
    base = Path(path).name
    for suffix in (".gz", ".jsonl", ".json"):
        base = base.removesuffix(suffix)
    return base


class _NonFinite(str):
    """What ``json.loads`` makes of ``NaN`` / ``Infinity`` / ``-Infinity``: refused once its place is known."""


def _first_non_finite(value) -> str | None:
    """The first :class:`_NonFinite` anywhere in a parsed JSON value (None when there is none)."""
    stack = [value]  # iterative: a line nested deeply enough would exhaust Python's recursion limit
    while stack:
        item = stack.pop()
        if isinstance(item, _NonFinite):
            return str(item)
        if isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return None


def _non_finite_place(obj) -> str | None:
    """The ``metric_scores.<metric>`` holding a :class:`_NonFinite` (None when it is elsewhere)."""
    scores = obj.get("metric_scores") if isinstance(obj, dict) else None
    for key, values in (scores.items() if isinstance(scores, dict) else ()):
        if isinstance(values, _NonFinite) or (isinstance(values, list) and any(isinstance(v, _NonFinite) for v in values)):
            return str(key)
    return None


def read_paragraph_scores(path: str | os.PathLike, lp: str | None = None,
                          metrics: Sequence[str] | Callable[[str], Sequence[str]] | None = None,
                          name: str | None = None, system: str | None = None) -> pd.DataFrame:
    """A WMT25 per-document JSONL file as system-level values: the mean of each needed metric over
    every paragraph of each pair (only ``lp`` when given).

    ``metrics``: those that every document of the pair must have and that are averaged, or a function
    of the pair giving them (None: the metrics of the pair's first document). Other metrics of a
    document are checked (finite numbers) but not averaged. The frame has :data:`COLUMNS` plus ``paragraphs`` and ``documents``; its
    ``attrs["documents"]`` maps each pair to the sorted (document id, paragraph counts) tuple, so
    callers can compare systems. An empty result means the file has no line of ``lp``.
    """
    label = name or str(path)
    system = system or system_from_path(name or path)
    _name(system, "system", label, 1)
    text = read_text(path, label)
    if not text.strip():
        raise InputError("the file is empty", file=label)
    sums: dict[tuple[str, str], float] = {}
    counts: dict[tuple[str, str], int] = {}
    first_line: dict[str, int] = {}
    wanted: dict[str, tuple[str, ...]] = {}
    docs: dict[str, dict[str, tuple[int, int]]] = {}
    # (pair, metric) -> [null paragraphs (a whole null document counts the paragraphs its other metrics
    # score), documents with no score at all]
    missing: dict[tuple[str, str], list[int]] = {}
    for lineno, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw, parse_constant=_NonFinite)
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON: {exc.msg}", file=label, line=lineno, column=f"character {exc.colno}") \
                from None
        except RecursionError:
            raise InputError("the JSON object is nested too deeply", file=label, line=lineno) from None
        constant = _first_non_finite(obj)
        if constant is not None:
            where = _non_finite_place(obj)
            raise InputError(f"{constant} is not a finite number; every score must be a finite number", file=label,
                             line=lineno, column=None if where is None else f"metric_scores.{where}")
        if not isinstance(obj, dict):
            raise InputError("each line must be a JSON object", file=label, line=lineno)
        for key, kind in (("language_pair", str), ("document_id", (str, int)), ("metric_scores", dict)):
            if key not in obj:
                raise InputError(f"the object lacks {key!r}", file=label, line=lineno, column=key)
            if not isinstance(obj[key], kind) or isinstance(obj[key], bool):
                raise InputError(f"{key} must be {'an object' if kind is dict else 'a string'}", file=label,
                                 line=lineno, column=key)
        pair = _name(obj["language_pair"], "language_pair", label, lineno)
        if lp is not None and pair != lp:
            continue
        doc = str(obj["document_id"])
        for key, text in (("document_id", doc), ("domain", obj.get("domain"))):
            if isinstance(text, str) and _has_control(text):
                raise InputError(f"the {key} holds the character {unsafe_char(text)}; ids may hold no control or "
                                 "text-direction characters", file=label, line=lineno, column=key)
        scores: Mapping = obj["metric_scores"]
        if not scores:
            raise InputError("metric_scores is empty", file=label, line=lineno, column="metric_scores")
        first_line.setdefault(pair, lineno)
        if pair not in wanted:
            wanted[pair] = tuple(scores) if metrics is None else tuple(metrics(pair) if callable(metrics) else metrics)
        need = wanted[pair]
        if doc in docs.setdefault(pair, {}):
            raise InputError(f"document {doc!r} of {pair} appears twice (also line {docs[pair][doc][0]})",
                             file=label, line=lineno, column="document_id")
        lengths: set[int] = set()
        names = {str(k).lower(): str(k) for k in scores}      # metric names match in any case
        used = {}
        for metric in need:
            if metric.lower() not in names:
                raise InputError(f"document {doc!r} has no {metric} scores", file=label, line=lineno,
                                 column=f"metric_scores.{metric}")
            used[names[metric.lower()]] = metric
        for key, values in scores.items():
            metric = used.get(key, key)
            column = f"metric_scores.{key}"
            if values is None:                      # the judge returned nothing for this document
                if metric in need:
                    nulls = missing.setdefault((pair, metric), [0, 0])
                    nulls[0] += max((len(v) for v in scores.values() if isinstance(v, list)), default=0)
                    nulls[1] += 1
                continue
            if not isinstance(values, list) or not values:
                raise InputError(f"{metric} must be a non-empty list with one score per paragraph (or null)",
                                 file=label, line=lineno, column=column)
            bad = next((v for v in values if v is not None and (not isinstance(v, (int, float)) or isinstance(v, bool))),
                       None)
            if bad is not None:
                raise InputError(f"{metric} holds {json.dumps(bad)}, not a number", file=label, line=lineno,
                                 column=column)
            arr = np.array([np.nan if v is None else v for v in values], dtype=float)
            present = ~np.isnan(arr)
            if not np.isfinite(arr[present]).all():
                raise InputError(f"{metric} holds a value that is not finite", file=label, line=lineno, column=column)
            if metric in need:
                lengths.add(len(values))
                with np.errstate(over="ignore"):        # an overflow is refused just below
                    sums[pair, metric] = sums.get((pair, metric), 0.0) + float(arr[present].sum())
                counts[pair, metric] = counts.get((pair, metric), 0) + int(present.sum())
                if not present.all():
                    nulls = missing.setdefault((pair, metric), [0, 0])
                    nulls[0] += int((~present).sum())
                    nulls[1] += int(not present.any())
                if not np.isfinite(sums[pair, metric]):
                    raise InputError(f"{metric} holds values too large to average", file=label, line=lineno,
                                     column=column)
        docs[pair][doc] = (lineno, tuple(sorted(lengths)))
    rows = []
    for (pair, metric) in dict.fromkeys(list(sums) + list(missing)):
        present = counts.get((pair, metric), 0)
        nulls = missing.get((pair, metric), [0, 0])
        rows.append({"lp": pair, "system": system, "metric": metric,
                     "value": sums[pair, metric] / present if present else np.nan,
                     "file": label, "line": first_line[pair], "column": f"metric_scores.{metric}",
                     "paragraphs": present, "documents": len(docs[pair]), "null_paragraphs": nulls[0],
                     "null_documents": nulls[1]})
    frame = pd.DataFrame(rows, columns=COLUMNS + ["paragraphs", "documents", "null_paragraphs", "null_documents"])
    frame.attrs["documents"] = {pair: tuple(sorted((d, n) for d, (_, n) in found.items()))
                                for pair, found in docs.items()}
    return frame


def combine(frames: Iterable[pd.DataFrame]) -> pd.DataFrame:
    """System-level values of several files; a (pair, system, metric) given twice is an error."""
    parts = [f[COLUMNS] for f in frames if len(f)]
    if not parts:
        return pd.DataFrame(columns=COLUMNS)
    values = pd.concat(parts, ignore_index=True)
    dup = values.duplicated(["lp", "system", "metric"], keep="first")
    if dup.any():
        row = values[dup].iloc[0]
        first = values[(values["lp"] == row["lp"]) & (values["system"] == row["system"])
                       & (values["metric"] == row["metric"])].iloc[0]
        raise InputError(f"{row['metric']} of {row['system']} ({row['lp']}) is given twice (also {first['file']}, "
                         f"line {first['line']})", file=row["file"], line=int(row["line"]), column=row["column"])
    return values


def metric_table(values: pd.DataFrame, lp: str, metrics: Sequence[str]) -> pd.DataFrame:
    """Systems × ``metrics`` of pair ``lp``; a metric missing for a system is an :class:`InputError`
    pointing at the system's row (or the first file of the pair)."""
    part = values[values["lp"] == lp]
    canonical = {m.lower(): m for m in metrics}               # metric names match in any case
    part = part.assign(metric=[canonical.get(str(m).lower(), m) for m in part["metric"]])
    if part.empty:
        found = sorted(values["lp"].unique()) if len(values) else []
        raise InputError(f"no scores for the language pair {lp!r}"
                         + (f" (the input has {', '.join(found)})" if found else ""),
                         file=str(values["file"].iloc[0]) if len(values) else None, column="lp")
    systems = list(dict.fromkeys(part["system"]))
    table = part.pivot_table(index="system", columns="metric", values="value", aggfunc="first", sort=False)
    problems = []
    for metric in metrics:
        have = table[metric] if metric in table.columns else pd.Series(np.nan, index=table.index)
        for system in systems:
            if pd.isna(have.get(system)):
                where = part[part["system"] == system].iloc[0]
                jsonl = str(where["column"]).startswith("metric_scores.")
                problems.append(InputError(f"{metric} is missing for {system} ({lp})", file=str(where["file"]),
                                           line=int(where["line"]),
                                           column=f"metric_scores.{metric}" if jsonl else metric))
    if problems:
        raise InputError.collect(problems, f"metric values missing for {lp} (AutoRank needs {', '.join(metrics)})")
    return table.reindex(index=systems, columns=list(metrics)).astype(float)
