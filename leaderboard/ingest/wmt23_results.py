"""The published WMT23 DA+SQM results (``WMT23.results.txt``): the organisers' tables, read back.

The file is the log of the organisers' script. Per language pair, a block opened by ``[ces-->ukr]``
holds, in ranking order (raw Ave descending):

- one line per system ``83.67 ('ONLINE-B', 1672, 0.1617…, 83.665…, 3.9236…)``: the rounded Ave, then
  system, N, Ave z, Ave (raw) and the "H" score (the mean of min(round(raw / 25) + 1, 4));
- the table ``Wins  System ID  Ave Score``, clusters separated by dashed rules.

After the blocks come LaTeX tables (one per pair, ``\\tto{Czech}{Ukrainian}``) with each system's rank
range. :func:`read_wmt23_results` returns one row per (pair, system) with every value as printed, and
:func:`leaderboard.publish.published_tables.results_rankings` turns them into rankings shaped like ``mtlb rank --json`` (for ``mtlb
longitudinal`` and for publishing the table as a campaign of its own, compared on the Across years page).
"""

from __future__ import annotations

import ast
import os
import re

import numpy as np
import pandas as pd

from ..errors import InputError
from ..naming import check_name
from .appraise import _lang
from .textio import read_text

COLUMNS: tuple[str, ...] = ("lp", "position", "system", "n", "ave_z", "ave", "h", "wins", "cluster", "rank_lo",
                            "rank_hi", "line")
_BLOCK = re.compile(r"^\[([a-z]{2,3})-->([a-z]{2,3})\]\s*$")
#: a line meant as a block header, whatever its language codes
_BLOCK_LIKE = re.compile(r"^\[(.*)-->(.*)\]\s*$")
#: the largest annotation count N kept
MAX_N = 2**31 - 1
_TUPLE = re.compile(r"^(-?\d+(?:\.\d+)?)\s+(\(.*\))\s*$")
_WINS = re.compile(r"^(\d+)\s+(\S+)\s+(-?\d+(?:\.\d+)?)\s*$")
_RULE = re.compile(r"^-{20,}\s*$")
_COUNT = re.compile(r"^(\S+?)(?::\s*|-->)(\d+)\s*$")
_LATEX_ROW = re.compile(r"^.*?&\s*(\d+)(?:-(\d+))?\s*&\s*(-?\d+(?:\.\d+)?)\s*&\s*(.+?)\s*\\\\(.*)$")


def looks_like_wmt23_results(head: str) -> bool:
    """True when the text holds a ``[xxx-->yyy]`` block header within its first lines."""
    return any(_BLOCK.match(line.strip()) for line in head.splitlines()[:20])


def read_wmt23_results(path: str | os.PathLike, name: str | None = None) -> pd.DataFrame:
    """Every system of every pair (columns :data:`COLUMNS`), refusing a block whose parts disagree."""
    label = name or str(path)
    lines = read_text(path, label, nul_ok=False).splitlines()
    rows: list[dict] = []
    lp = None
    tuples: list[dict] = []
    wins: list[tuple[int, str, int, int]] = []
    in_wins = False
    cluster = 0
    counts: dict[str, tuple[int, int]] = {}

    def close(at: int) -> None:
        if lp is None:
            return
        if not tuples:
            raise InputError(f"the block of {lp} lists no system scores", file=label, line=at)
        for t in tuples:
            n, where = counts.get(t["system"], (t["n"], t["line"]))
            if n != t["n"]:
                raise InputError(f"{t['system']} has {n} annotations on line {where} but N = {t['n']} here",
                                 file=label, line=t["line"])
        if [t["system"] for t in tuples] != [w[1] for w in wins]:
            # point at the first row of the wins table that differs (else where the block ends)
            where = next((w[3] for t, w in zip(tuples, wins) if t["system"] != w[1]), at)
            raise InputError(f"the wins table of {lp} does not list the systems of its score lines in the same order",
                             file=label, line=where, column="System ID")
        for pos, (t, (count, _, number, _)) in enumerate(zip(tuples, wins), start=1):
            rows.append({**t, "lp": lp, "position": pos, "wins": count, "cluster": number})

    for i, raw in enumerate(lines, start=1):
        line = raw.strip()
        m = _BLOCK.match(line)
        if not m and _BLOCK_LIKE.match(line):
            raise InputError(f"{line} does not name a language pair by two- or three-letter codes (e.g. "
                             "[ces-->ukr])", file=label, line=i, column="language pair")
        if m:
            close(i)
            lp, tuples, wins, in_wins, cluster = f"{_lang(m.group(1))}-{_lang(m.group(2))}", [], [], False, 0
            counts = {}
            continue
        if lp is None:
            continue
        if line.startswith("{\\bf") or line.startswith("\\begin{tabular}"):
            close(i)
            lp = None
            continue
        m = _TUPLE.match(line)
        if m:
            score = _score_line(m.group(2), label, i)
            twin = next((t for t in tuples if t["system"] == score["system"]), None)
            if twin is not None:
                raise InputError(f"{score['system']} has a second score line in the block of {lp} (also line "
                                 f"{twin['line']})", file=label, line=i, column="system")
            tuples.append(score)
            continue
        m = _COUNT.match(line) if not in_wins and not tuples else None
        if m:
            seen = counts.setdefault(m.group(1), (int(m.group(2)), i))
            if seen[0] != int(m.group(2)):
                raise InputError(f"{m.group(1)} has {seen[0]} annotations on line {seen[1]} and {m.group(2)} here",
                                 file=label, line=i)
            continue
        if line.startswith("Wins"):
            in_wins, cluster = True, 0
            continue
        if in_wins and _RULE.match(line):
            if wins and wins[-1][2] == cluster:
                cluster += 1
            elif not wins:
                cluster = 1
            continue
        m = _WINS.match(line) if in_wins else None
        if m:
            wins.append((int(m.group(1)), m.group(2), max(cluster, 1), i))
    close(len(lines))
    if not rows:
        raise InputError("no result blocks found (expected lines like '[ces-->ukr]')", file=label)
    frame = pd.DataFrame(rows)
    frame["rank_lo"] = pd.array([pd.NA] * len(frame), dtype="Int64")
    frame["rank_hi"] = pd.array([pd.NA] * len(frame), dtype="Int64")
    _add_rank_ranges(frame, lines, label)
    return frame[list(COLUMNS)]


def _score_line(text: str, label: str, line: int) -> dict:
    """``('ONLINE-B', 1672, 0.16…, 83.66…, 3.92…)`` → its values, each checked."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise InputError("cannot read the score tuple", file=label, line=line) from None
    if not (isinstance(value, tuple) and len(value) == 5):
        raise InputError("a score line must hold (system, N, Ave z, Ave, H)", file=label, line=line)
    if not isinstance(value[0], str) or not value[0].strip():
        raise InputError("the system must be a non-empty name in quotes", file=label, line=line, column="system")
    system = check_name(value[0].strip(), "system", file=label, line=line, column="system")
    if not isinstance(value[1], int) or isinstance(value[1], bool) or not 0 <= value[1] <= MAX_N:
        raise InputError(f"N = {value[1]!r} is not a count from 0 to {MAX_N:,}", file=label, line=line, column="N")
    for v, column in zip(value[2:], ("Ave z", "Ave", "H")):
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not np.isfinite(float(v)):
            raise InputError(f"{column} = {v!r} is not a finite number", file=label, line=line, column=column)
    return {"system": system, "n": value[1], "ave_z": float(value[2]), "ave": float(value[3]),
            "h": float(value[4]), "line": line}


def _add_rank_ranges(frame: pd.DataFrame, lines: list[str], label: str) -> None:
    """Rank ranges from the LaTeX tables, each matched to the pair whose systems it lists in the same order."""
    tables: list[list[tuple[int, int, str, int]]] = []
    current: list | None = None
    for i, raw in enumerate(lines, start=1):
        line = raw.strip()
        if line.startswith("\\begin{tabular}"):
            current = []
        elif line.startswith("\\end{tabular}"):
            if current:
                tables.append(current)
            current = None
        elif current is not None:
            m = _LATEX_ROW.match(line)
            if m:
                lo = int(m.group(1))
                hi = int(m.group(2)) if m.group(2) else lo
                current.append((lo, hi, m.group(4).replace("\\_", "_").strip(), i))
    by_systems = {tuple(part["system"]): lp for lp, part in frame.groupby("lp", sort=False)}
    for table in tables:
        lp = by_systems.get(tuple(t[2] for t in table))
        if lp is None:
            raise InputError("a LaTeX table lists systems in an order no result block has", file=label,
                             line=table[0][3])
        idx = frame.index[frame["lp"] == lp]
        frame.loc[idx, "rank_lo"] = [t[0] for t in table]
        frame.loc[idx, "rank_hi"] = [t[1] for t in table]
