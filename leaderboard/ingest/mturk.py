"""Mechanical Turk batch results (the CSV MTurk exports for a published batch), see docs/formats-mturk.md.

One row per assignment (a worker's answer to one HIT) with MTurk's own columns (``HITId``,
``WorkerId``, ``AssignmentId``, ``AssignmentStatus``, ``WorkTimeInSeconds``, ...), the upload CSV's
columns echoed as ``Input.<name>`` and the task form's fields as ``Answer.<name>``. The layout
written by ``mtlb hits build`` (:mod:`leaderboard.hits.export`) is:

* per HIT: ``Input.lp`` (required), ``Input.assessment`` (default ``adequacy``), ``Input.campaign``
  (optional; otherwise the ``campaign`` argument);
* per item k: ``Input.item_k_system``, ``Input.item_k_segment``, ``Input.item_k_type`` (SYSTEM |
  REPEAT | REF | BAD_REF), optionally ``Input.item_k_doc``; ``Input.item_k_pair``,
  ``Input.item_k_text`` and ``Input.item_k_ref`` may be present and are not needed here;
* per item k: ``Answer.score_k`` (0–100, required) and optionally ``Answer.time_k`` (seconds).

Mapping: worker ← ``WorkerId``, hit ← ``HITId``, position ← k, segment / system / item_type ←
the item's ``Input`` columns, raw ← ``Answer.score_k``, seconds ← ``Answer.time_k`` when the column
exists and the assignment has item times, else ``WorkTimeInSeconds`` spread evenly over the HIT's
items (NaN when neither is known). QC pairs are recognised
from the shared (hit, system, segment) of a pair's two items, which the builder guarantees.

Every assignment is kept whatever its ``AssignmentStatus`` (Submitted, Approved, Rejected): payment
decisions and the statistical filter are separate (docs/method/quality-control.md#payment-flags), so QC decides. Pass
``statuses=("Submitted", "Approved")`` to :func:`read_mturk` to leave rejected work out
explicitly. Missing answers, non-numeric scores, scores outside 0–100, unknown item types and
empty ids are refused with the file, the CSV line of the assignment's row and the column.
"""

from __future__ import annotations

import csv
import io
import re

import numpy as np
import pandas as pd

from ..errors import InputError
from ..schema import ITEM_TYPES, LINE
from .textio import read_text

REQUIRED = ("HITId", "WorkerId")
_ITEM = re.compile(r"^Input\.item_(\d+)_(system|segment|type|doc)$")
_ANSWER = re.compile(r"^Answer\.(score|time)_(\d+)$")
SOURCE_COLUMNS = {"worker": "WorkerId", "hit": "HITId", "lp": "Input.lp", "assessment": "Input.assessment",
                  "campaign": "Input.campaign", "segment": "Input.item_<k>_segment",
                  "system": "Input.item_<k>_system", "item_type": "Input.item_<k>_type",
                  "raw": "Answer.score_<k>", "seconds": "Answer.time_<k>", "position": "item number k"}


def looks_like_mturk(head: str) -> bool:
    """True when the header names MTurk's ``HITId`` and ``WorkerId`` and at least one ``Answer.`` column.

    (When ``head`` ends inside the header line, an ``Input.item_`` column stands in for the answers.)
    """
    first = head.split("\n", 1)[0].lstrip("\ufeff")
    try:
        row = next(csv.reader([first]))
    except (csv.Error, StopIteration):
        return False
    names = {c.strip() for c in row}
    if not all(c in names for c in REQUIRED):
        return False
    if "\n" not in head:  # a header longer than the sniffed text: the Answer columns come last
        return any(c.startswith("Input.item_") for c in names)
    return any(c.startswith("Answer.") for c in names)


def _rows(text: str, label: str) -> tuple[list[str], list[list[str]], list[int]]:
    reader = csv.reader(io.StringIO(text))
    try:
        header = [c.strip() for c in next(reader)]
        rows: list[list[str]] = []
        lines: list[int] = []
        end = reader.line_num
        for row in reader:
            start, end = end + 1, reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                raise InputError(f"expected {len(header)} comma-separated fields (as in the header), found {len(row)}",
                                 file=label, line=start)
            rows.append(row)
            lines.append(start)
    except csv.Error as exc:
        raise InputError(f"cannot parse CSV: {exc}", file=label, line=reader.line_num) from None
    return header, rows, lines


def _first(mask: np.ndarray) -> tuple[int, int] | None:
    """(row, item) of the first True cell in file order."""
    hits = np.argwhere(mask)
    return (int(hits[0][0]), int(hits[0][1])) if len(hits) else None


def read_mturk(path: str, campaign: str | None = None, name: str | None = None, *,
               statuses: tuple[str, ...] | None = None, assessment: str | None = None) -> pd.DataFrame:
    """Read an MTurk batch-results CSV into canonical columns (plus ``_line``), unvalidated.

    ``statuses`` keeps only assignments with those ``AssignmentStatus`` values (default: all).
    ``campaign`` / ``assessment`` fill HITs whose ``Input.campaign`` / ``Input.assessment`` is
    missing or empty (:func:`leaderboard.ingest.read_judgments` applies the command-line options).
    """
    label = name or str(path)
    header, rows, lines = _rows(read_text(path, label, nul_ok=False), label)
    missing = [c for c in (*REQUIRED, "Input.lp") if c not in header]
    if missing:
        raise InputError("not an MTurk batch-results file with item columns: missing column(s) "
                         + ", ".join(missing), file=label, line=1)
    col = {c: i for i, c in enumerate(header)}
    items: dict[int, set[str]] = {}
    for c in header:
        m = _ITEM.match(c)
        if m:
            items.setdefault(int(m.group(1)), set()).add(m.group(2))
    answers = {(m.group(1), int(m.group(2))) for m in map(_ANSWER.match, header) if m}
    if not items:
        raise InputError("no item columns (Input.item_<k>_system / _segment / _type) in the header",
                         file=label, line=1)
    ks = sorted(items)
    for k in ks:
        for part in ("system", "segment", "type"):
            if part not in items[k]:
                raise InputError(f"item {k} has no Input.item_{k}_{part} column", file=label, line=1,
                                 column=f"Input.item_{k}_{part}")
        if ("score", k) not in answers:
            raise InputError(f"item {k} has no answer column", file=label, line=1, column=f"Answer.score_{k}")
    extra = sorted(k for kind, k in answers if k not in items)
    if extra:
        raise InputError(f"answer for item {extra[0]} but no Input.item_{extra[0]}_* columns describe it",
                         file=label, line=1, column=f"Answer.score_{extra[0]}")
    if not rows:
        raise InputError("no assignments found (only a header)", file=label)

    table = np.array(rows, dtype=object)
    line_of = np.array(lines, dtype=np.int64)
    if statuses is not None and "AssignmentStatus" in col:
        keep = np.isin(np.char.strip(table[:, col["AssignmentStatus"]].astype(str)), list(statuses))
        table, line_of = table[keep], line_of[keep]
        if not len(table):
            raise InputError(f"no assignments with status {', '.join(statuses)}", file=label)
    n, K = len(table), len(ks)

    def grid(fmt: str) -> np.ndarray:
        idx = [col[fmt.format(k)] for k in ks]
        return np.char.strip(table[:, idx].astype(str))

    def fail(message: str, cell: tuple[int, int], fmt: str) -> InputError:
        r, j = cell
        return InputError(message, file=label, line=int(line_of[r]), column=fmt.format(ks[j]))

    systems, segments = grid("Input.item_{}_system"), grid("Input.item_{}_segment")
    for values, fmt in ((systems, "Input.item_{}_system"), (segments, "Input.item_{}_segment")):
        cell = _first(values == "")
        if cell:
            raise fail("empty value", cell, fmt)
    types = np.char.upper(grid("Input.item_{}_type"))
    cell = _first(~np.isin(types, ITEM_TYPES))
    if cell:
        raise fail(f"unknown item type {str(types[cell])!r} (expected one of {', '.join(ITEM_TYPES)})",
                   cell, "Input.item_{}_type")
    score_text = grid("Answer.score_{}")
    cell = _first(score_text == "")
    if cell:
        raise fail(f"no answer for item {ks[cell[1]]}", cell, "Answer.score_{}")
    raw = pd.to_numeric(pd.Series(score_text.reshape(-1)), errors="coerce").to_numpy(dtype=float).reshape(n, K)
    cell = _first(np.isnan(raw))
    if cell:
        raise fail(f"score is not a number: {str(score_text[cell])!r}", cell, "Answer.score_{}")
    cell = _first(np.isinf(raw))
    if cell:
        raise fail(f"score is not a finite number: {str(score_text[cell])!r}", cell, "Answer.score_{}")
    cell = _first((raw < 0) | (raw > 100))
    if cell:
        raise fail(f"score {raw[cell]:g} is outside 0-100", cell, "Answer.score_{}")

    if all(("time", k) in answers for k in ks):
        time_text = grid("Answer.time_{}")
        seconds = pd.to_numeric(pd.Series(np.where(time_text == "", "nan", time_text).reshape(-1)),
                                errors="coerce").to_numpy(dtype=float, copy=True).reshape(n, K)
        cell = _first(np.isnan(seconds) & (time_text != "") & (np.char.lower(time_text) != "nan"))
        if cell:
            raise fail(f"time is not a number: {str(time_text[cell])!r}", cell, "Answer.time_{}")
        cell = _first(seconds < 0)
        if cell:
            raise fail("negative time", cell, "Answer.time_{}")
        cell = _first(np.isinf(seconds))
        if cell:
            raise fail("time is not a finite number", cell, "Answer.time_{}")
    else:
        seconds = np.full((n, K), np.nan)
    if "WorkTimeInSeconds" in col:  # assignments without item times: the HIT time spread evenly
        work = pd.to_numeric(pd.Series(table[:, col["WorkTimeInSeconds"]]), errors="coerce").to_numpy(dtype=float)
        untimed = np.isnan(seconds).all(axis=1)
        seconds[untimed] = (work[untimed] / K)[:, None]

    def per_row(column: str, default: str | None) -> np.ndarray:
        if column in col:
            values = np.char.strip(table[:, col[column]].astype(str)).astype(object)
            if default is not None:
                values[values == ""] = default
            return values
        return np.full(n, default if default is not None else "", dtype=object)

    out = pd.DataFrame({
        "campaign": np.repeat(per_row("Input.campaign", campaign or "mturk"), K),
        "lp": np.repeat(per_row("Input.lp", None), K),
        "assessment": np.repeat(per_row("Input.assessment", assessment or "adequacy"), K),
        "worker": np.repeat(table[:, col["WorkerId"]], K),
        "hit": np.repeat(table[:, col["HITId"]], K),
        "position": np.tile(np.array(ks, dtype=np.int64), n),
        "segment": segments.reshape(-1).astype(object),
        "system": systems.reshape(-1).astype(object),
        "item_type": types.reshape(-1).astype(object),
        "raw": raw.reshape(-1),
        "seconds": seconds.reshape(-1),
        LINE: np.repeat(line_of, K),
    })
    if all("doc" in items[k] for k in ks):
        doc = grid("Input.item_{}_doc").reshape(-1).astype(object)
        out["doc"] = np.where(doc == "", None, doc)
    out.attrs["source_columns"] = SOURCE_COLUMNS
    return out
