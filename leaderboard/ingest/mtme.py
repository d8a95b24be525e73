"""mt-metrics-eval's data directories: one test set as texts, human scores (gold) and metric scores.

A test-set folder holds:

- ``sources/<lp>.txt`` — one source segment per line (segment ids are line numbers from 1);
- ``references/<lp>.<ref>.txt`` and ``system-outputs/<lp>/<system>.txt`` — aligned with the sources;
- ``documents/<lp>.docs`` (optional) — ``domain<TAB>document`` per segment;
- ``human-scores/<lp>[.<gold>].seg.score`` — ``system<TAB>score`` lines, each system's segments in order
  (``None``: not rated); the gold is named after the pair (``en-de.mqm.seg.score``: ``mqm``;
  ``en-de.seg.score``: ``human``); ``…sys.score`` holds one ``system<TAB>score`` line per system;
- ``metric-scores/<lp>/<metric>-<ref>.seg.score`` — the same layout for a metric that used reference
  ``ref`` (``src``: none); ``.sys.score`` files beside them are system-level.

:func:`read_mtme` returns the pair's human scores as ``(gold, system, segment, score)``, the metric
scores as ``(metric, lp, testset, system, segment, score, line, file)`` (the shape of
:func:`metrics.submissions.read_submission`), the references the metrics used and the texts. It
refuses, with file, line and column, a line that is not ``system<TAB>score``, a score that is not a
finite number or ``None``, a system with a different number of lines than the pair has segments, a
system listed in two separate runs of lines, and a metric score of ``None`` (metrics score everything).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ..errors import InputError, brief
from ..naming import unsafe_char
from .textio import finite_number, read_text

NONE = "None"


@dataclass
class MtmeData:
    """One language pair of an mt-metrics-eval test-set folder."""
    testset: str
    lp: str
    segments: int
    human: pd.DataFrame                    # gold, system, segment, score (NaN: not rated)
    human_system: pd.DataFrame             # gold, system, score (the .sys.score files)
    metrics: pd.DataFrame                  # metric, lp, testset, system, segment, score, line, file
    references: dict[str, str] = field(default_factory=dict)      # metric -> the reference it used
    documents: list[str] = field(default_factory=list)
    texts: dict[str, list[str]] = field(default_factory=dict)     # "source", "ref:<name>", "system:<name>"


def _lines(path: Path) -> list[str]:
    text = read_text(path, str(path), nul_ok=False)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def read_score_file(path: Path, n_segments: int | None, *, allow_none: bool = True, per_segment: bool = True
                    ) -> pd.DataFrame:
    """``system, segment, score, line`` of a ``.seg.score`` (or ``.sys.score`` with ``per_segment=False``)."""
    label = str(path)
    rows, order, last = [], {}, None
    for i, line in enumerate(_lines(path), start=1):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != 2:
            fields = line.split()
        if len(fields) != 2:
            raise InputError(f"expected system<TAB>score, found {len(fields)} fields", file=label, line=i)
        system, value = fields[0].strip(), fields[1].strip()
        if not system or unsafe_char(system):
            raise InputError("the system name is empty or holds a control character", file=label, line=i,
                             column="system")
        if value == NONE:
            if not allow_none:
                raise InputError("a metric score is None; metrics must score every segment", file=label, line=i,
                                 column="score")
            score = math.nan
        else:
            score = finite_number(value, label, i, "score", allowed=" (or None)")
        if system != last and system in order:
            raise InputError(f"system {brief(system)!r} appears again after other systems (first on line "
                             f"{order[system][0]}); each system's lines must be together", file=label, line=i,
                             column="system")
        order.setdefault(system, [i, 0])
        order[system][1] += 1
        last = system
        rows.append((system, order[system][1], score, i))
    frame = pd.DataFrame(rows, columns=["system", "segment", "score", "line"])
    if per_segment and n_segments is not None:
        for system, (first, count) in order.items():
            if count != n_segments:
                raise InputError(f"system {brief(system)!r} has {count} lines; the pair has {n_segments} segments",
                                 file=label, line=first, column="system")
    elif not per_segment:
        for system, (first, count) in order.items():
            if count != 1:
                raise InputError(f"system {brief(system)!r} has {count} lines; a .sys.score has one per system",
                                 file=label, line=first, column="system")
    frame["segment"] = frame["segment"].astype(str)
    return frame


def gold_names(folder: str | os.PathLike, lp: str) -> list[str]:
    """The human-score names of a pair: ``human-scores/en-de.mqm.seg.score`` → ``mqm``."""
    base = Path(folder) / "human-scores"
    names = []
    for path in sorted(base.glob(f"{lp}*.seg.score")):
        middle = path.name[len(lp):-len(".seg.score")]
        if middle == "" or middle.startswith("."):
            names.append(middle.lstrip(".") or "human")
    return names


def read_mtme(folder: str | os.PathLike, lp: str, *, golds: list[str] | None = None) -> MtmeData:
    """One pair of a test-set folder (module docstring); ``golds``: the human scores to read (default all)."""
    root = Path(folder)
    if not root.is_dir():
        raise InputError("not a folder (an mt-metrics-eval test set has sources/, human-scores/, …)", file=str(root))
    source = root / "sources" / f"{lp}.txt"
    if not source.is_file():
        found = sorted(p.stem for p in (root / "sources").glob("*.txt")) if (root / "sources").is_dir() else []
        raise InputError(f"no sources/{lp}.txt" + (f"; the folder has {', '.join(found)}" if found else ""),
                         file=str(root), column="lp")
    sources = _lines(source)
    n = len(sources)
    texts: dict[str, list[str]] = {"source": sources}
    for kind, pattern, prefix in (("references", f"{lp}.*.txt", "ref:"), ("system-outputs", f"{lp}/*.txt", "system:")):
        for path in sorted((root / kind).glob(pattern)):
            name = path.name[len(lp) + 1:-4] if kind == "references" else path.stem
            lines = _lines(path)
            if len(lines) != n:
                raise InputError(f"{len(lines)} lines; sources/{lp}.txt has {n}", file=str(path))
            texts[prefix + name] = lines
    documents: list[str] = []
    docs = root / "documents" / f"{lp}.docs"
    if docs.is_file():
        lines = _lines(docs)
        if len(lines) != n:
            raise InputError(f"{len(lines)} lines; sources/{lp}.txt has {n}", file=str(docs))
        documents = [ln.split("\t", 1)[-1].strip() for ln in lines]
    available = gold_names(root, lp)
    wanted = available if golds is None else golds
    missing = [g for g in wanted if g not in available]
    if missing or not wanted:
        raise InputError(f"no human scores {', '.join(missing) or ''} for {lp}"
                         + (f"; the folder has {', '.join(available)}" if available else ""),
                         file=str(root / "human-scores"), column="gold")
    human, human_sys = [], []
    for gold in wanted:
        stem = lp if gold == "human" else f"{lp}.{gold}"
        frame = read_score_file(root / "human-scores" / f"{stem}.seg.score", n)
        human.append(frame.assign(gold=gold))
        sys_path = root / "human-scores" / f"{stem}.sys.score"
        if sys_path.is_file():
            human_sys.append(read_score_file(sys_path, None, per_segment=False).assign(gold=gold))
    metrics, references = [], {}
    for path in sorted((root / "metric-scores" / lp).glob("*.seg.score")):
        name = path.name[:-len(".seg.score")]
        frame = read_score_file(path, n, allow_none=False)
        metric, _, ref = name.rpartition("-")
        if metric and ref:
            references[name] = ref
        metrics.append(frame.assign(metric=name, lp=lp, testset=root.name, file=str(path)))
    human_frame = pd.concat(human, ignore_index=True)[["gold", "system", "segment", "score"]]
    sys_frame = (pd.concat(human_sys, ignore_index=True)[["gold", "system", "score"]] if human_sys
                 else pd.DataFrame(columns=["gold", "system", "score"]))
    metric_frame = (pd.concat(metrics, ignore_index=True)[["metric", "lp", "testset", "system", "segment", "score",
                                                           "line", "file"]] if metrics
                    else pd.DataFrame(columns=["metric", "lp", "testset", "system", "segment", "score", "line", "file"]))
    return MtmeData(root.name, lp, n, human_frame, sys_frame, metric_frame, references, documents, texts)
