"""Inputs of the meta-evaluation: human segment scores and WMT segment-level metric scores → matrices.

- Human scores: MQM annotations (segment MQM, negated so that higher = better) or any judgment
  file of the product (the canonical CSV, Appraise/ESA, the WMT release): per (system, segment)
  average of the SYSTEM and REPEAT items' raw scores (``score="z"``: z-scores).
- Metric scores: the WMT segment-level TSV ``metric lp testset system seg-id score`` (no header),
  read and validated by :func:`metrics.submissions.read_submission`.

Pairing: segment ids are compared as text with integers normalised (``007`` = ``7``): the MQM
``seg_id`` and the TSV ``seg-id`` both number the test set's segments. System names are paired
exactly, then by :func:`leaderboard.naming.match_systems` (``Online-W.2`` = ``Online-W``), then the
one human translation on each side (``ref`` = ``ref-A`` = ``ref.A``, :func:`leaderboard.naming.is_human`).
Metric scores of systems or segments without a human score are not used; they are counted.

Systems (as the WMT meta-evaluation selects them): every system with a human score, less the
reference the metrics used (never a system), the human translations declared as such, unless
they are asked for, and any human translation (by its name) that no metric scores: the reference
itself when it was rated. A metric must score every rated (system, segment) of those systems.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping

import numpy as np
import pandas as pd

from leaderboard.errors import InputError
from leaderboard.naming import is_human, match_systems


def norm_segment(value) -> str:
    text = str(value).strip()
    return str(int(text)) if text.lstrip("+-").isdigit() else text


@dataclass
class MetaInputs:
    systems: list[str]
    segments: list[str]
    human: np.ndarray                      # systems × segments (higher = better; NaN = unrated)
    metrics: dict[str, np.ndarray]         # metric → systems × segments
    unmatched_systems: list[str] = field(default_factory=list)
    unused_scores: int = 0
    excluded: dict[str, list[str]] = field(default_factory=dict)   # why → systems left out
    skipped: list[dict] = field(default_factory=list)              # metrics left out (lenient mode)


def human_from_mqm(errors: pd.DataFrame, lp: str, weights: str = "google-mqm") -> pd.DataFrame:
    """(system, segment, score) with score = −MQM of each rated segment."""
    from leaderboard.expert.scoring import segment_scores
    part = errors[errors["lp"].astype(str) == lp]
    seg = segment_scores(part, weights)
    return pd.DataFrame({"system": seg["system"].astype(str), "segment": seg["segment"].map(norm_segment),
                         "score": -seg["mqm"].to_numpy(dtype=float)})


def human_from_judgments(frame: pd.DataFrame, lp: str, score: str = "raw", rating: str = "mean") -> pd.DataFrame:
    """(system, segment, score): mean raw (or z) per (system, segment) of SYSTEM / REPEAT items; with
    ``rating="first"`` only the first SYSTEM judgment of each (system, segment) in the frame's order (the
    first rating: the gold mt-metrics-eval calls ``esa-human1``)."""
    if score not in ("raw", "z"):
        raise InputError(f"human score must be raw or z, not {score!r}", column="human-score")
    if rating not in ("mean", "first"):
        raise InputError(f"judgment files give the mean or the first rating, not {rating!r} (waves need the "
                         "WMT25 release or a wave table)", column="human-rating")
    part = frame[(frame["lp"].astype(str) == lp) & frame["item_type"].isin(["SYSTEM", "REPEAT"])]
    part = part[part[score].notna()]
    if rating == "first":
        part = part[part["item_type"] == "SYSTEM"].drop_duplicates(["system", "segment"], keep="first")
    if part.empty:
        raise InputError(f"no SYSTEM judgments with a {score} score for language pair {lp!r}", column=score)
    seg = part.groupby(["system", "segment"], sort=True)[score].mean().reset_index()
    return pd.DataFrame({"system": seg["system"].astype(str), "segment": seg["segment"].map(norm_segment),
                         "score": seg[score].to_numpy(dtype=float)})


def _pair_names(human_systems: list[str], metric_systems: list[str]) -> dict[str, str]:
    """metric system name → human system name."""
    mapping = match_systems(metric_systems, human_systems)
    left_m = [s for s in metric_systems if s not in mapping and is_human(s)]
    left_h = [s for s in human_systems if s not in set(mapping.values()) and is_human(s)]
    if len(left_m) == 1 and len(left_h) == 1:
        mapping[left_m[0]] = left_h[0]
    return mapping


def _excluded(h_systems: list[str], names: Iterable[str]) -> list[str]:
    """The human-file systems that ``names`` designate (exactly, or without a ``.N`` suffix)."""
    names = list(names)
    mapping = match_systems(names, h_systems)
    return sorted(set(mapping.values()))


def _missing_problem(metric: str, part: pd.DataFrame, lp: str, systems: list[str], segments: list[str],
                     gold: np.ndarray, mat: np.ndarray, file: str | None) -> dict:
    """What a metric misses, and the error that names it."""
    hole = ~np.isnan(gold) & np.isnan(mat)
    whole = np.isnan(mat).all(axis=1) & hole.any(axis=1)
    absent = [systems[i] for i in np.flatnonzero(whole)]
    r, c = np.nonzero(hole & ~whole[:, None])
    parts = [f"no score at all for system(s) {', '.join(absent)}"] if absent else []
    if len(r):
        parts.append(f"{len(r)} rated (system, segment) cells without a score (first: system {systems[r[0]]}, "
                     f"segment {segments[c[0]]})")
    line = int(part["line"].min()) if "line" in part.columns and part["line"].notna().any() else None
    message = (f"metric {metric!r} ({lp}): {'; '.join(parts)}; every metric needs a score wherever a human score "
               "exists" + (" (the metric's rows start on this line)" if line else ""))
    return {"metric": metric, "missing_systems": absent, "missing_cells": int(hole.sum()),
            "error": InputError(message, file=file, line=line, column="system" if absent else "segment")}


def build(human: pd.DataFrame, metric_scores: pd.DataFrame, lp: str, file: str | None = None, *,
          human_file: str | None = None, references: Iterable[str] = (), human_translations: Iterable[str] = (),
          include_human: bool = False, sources: Mapping[str, str] | None = None, strict: bool = True) -> MetaInputs:
    """Align human (system, segment, score) and metric (metric, lp, system, segment, score[, line]) rows.

    Systems: those with at least one human score, less the ``references`` the metrics used (never
    a system) and, unless ``include_human``, the declared ``human_translations``. Every metric must
    score every rated cell of those systems: otherwise an :class:`InputError` naming the file
    (``sources[metric]`` or ``file``), the metric's first line and the column, or with
    ``strict=False`` the metric is left out and listed in ``skipped``.
    """
    scores = metric_scores[metric_scores["lp"].astype(str) == lp]
    if scores.empty:
        found = sorted(metric_scores["lp"].astype(str).unique())[:10]
        raise InputError(f"no metric scores for language pair {lp!r}; the file holds {', '.join(found)}",
                         file=file, column="lp")
    if "testset" in scores.columns and scores["testset"].nunique() > 1:
        raise InputError(f"the metric scores of {lp} come from several test sets "
                         f"({', '.join(sorted(scores['testset'].astype(str).unique()))}); keep one", file=file,
                         column="testset")
    human = human[human["score"].notna()]
    if human.empty:
        raise InputError(f"no human scores for language pair {lp!r}", file=human_file, column="lp")
    h_systems = sorted(human["system"].unique())
    excluded = {"reference": _excluded(h_systems, references)}
    declared = [s for s in _excluded(h_systems, human_translations) if s not in excluded["reference"]]
    excluded["human_translations"] = [] if include_human else declared
    dropped = set(excluded["reference"]) | set(excluded["human_translations"])
    mapping = _pair_names(h_systems, sorted(scores["system"].astype(str).unique()))
    unmatched = sorted(set(scores["system"].astype(str)) - set(mapping))
    scores = scores.assign(system=scores["system"].astype(str).map(mapping), segment=scores["segment"].map(norm_segment))
    scores = scores[scores["system"].notna() & ~scores["system"].isin(dropped)]
    # a human translation that no metric scores is the reference they used (or one nobody asked for)
    excluded["unscored_human_translations"] = sorted(
        s for s in h_systems if s not in dropped and is_human(s) and s not in set(scores["system"]))
    dropped |= set(excluded["unscored_human_translations"])
    if scores.empty:
        raise InputError(f"no (system, segment) of {lp} has both a human and a metric score: check that the "
                         "segment ids and system names of the two files agree", file=file, column="system")
    kept = human[~human["system"].isin(dropped)]
    if kept.empty:
        raise InputError(f"no system of {lp} is left once the reference and human translations are set aside",
                         file=human_file, column="system")
    systems = sorted(kept["system"].unique())
    segments = sorted(kept["segment"].unique(), key=lambda s: (0, int(s)) if s.lstrip("-").isdigit() else (1, s))
    si = {s: i for i, s in enumerate(systems)}
    gi = {g: i for i, g in enumerate(segments)}
    hm = np.full((len(systems), len(segments)), np.nan)
    hm[kept["system"].map(si).to_numpy(), kept["segment"].map(gi).to_numpy()] = kept["score"].to_numpy()
    matrices: dict[str, np.ndarray] = {}
    problems: list[dict] = []
    unused = 0
    for metric, part in scores.groupby("metric", sort=False):
        r = part["system"].map(si)
        c = part["segment"].map(gi)
        ok = (r.notna() & c.notna()).to_numpy()
        unused += int((~ok).sum())
        mat = np.full_like(hm, np.nan)
        mat[r[ok].astype(int).to_numpy(), c[ok].astype(int).to_numpy()] = part["score"].to_numpy(dtype=float)[ok]
        if (~np.isnan(hm) & np.isnan(mat)).any():
            where = (sources or {}).get(str(metric), file)
            problems.append(_missing_problem(str(metric), part, lp, systems, segments, hm, mat, where))
            continue
        matrices[str(metric)] = np.where(np.isnan(hm), np.nan, mat)
    if problems and strict:
        raise InputError.collect([p["error"] for p in problems], "metrics with missing scores")
    skipped = [{k: v for k, v in p.items() if k != "error"} for p in problems]
    if not matrices:
        raise InputError(f"no metric of {lp} scores every rated (system, segment)", file=file, column="segment")
    return MetaInputs(systems, segments, hm, matrices, unmatched, unused, excluded, skipped)
