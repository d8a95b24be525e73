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
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
    human: np.ndarray                      # systems × segments (higher = better)
    metrics: dict[str, np.ndarray]         # metric → systems × segments
    unmatched_systems: list[str] = field(default_factory=list)
    unused_scores: int = 0


def human_from_mqm(errors: pd.DataFrame, lp: str, weights: str = "google-mqm") -> pd.DataFrame:
    """(system, segment, score) with score = −MQM of each rated segment."""
    from leaderboard.expert.scoring import segment_scores
    part = errors[errors["lp"].astype(str) == lp]
    seg = segment_scores(part, weights)
    return pd.DataFrame({"system": seg["system"].astype(str), "segment": seg["segment"].map(norm_segment),
                         "score": -seg["mqm"].to_numpy(dtype=float)})


def human_from_judgments(frame: pd.DataFrame, lp: str, score: str = "raw") -> pd.DataFrame:
    """(system, segment, score): mean raw (or z) per (system, segment) of SYSTEM / REPEAT items."""
    if score not in ("raw", "z"):
        raise InputError(f"human score must be raw or z, not {score!r}", column="human-score")
    part = frame[(frame["lp"].astype(str) == lp) & frame["item_type"].isin(["SYSTEM", "REPEAT"])]
    part = part[part[score].notna()]
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


def build(human: pd.DataFrame, metric_scores: pd.DataFrame, lp: str, file: str | None = None) -> MetaInputs:
    """Align human (system, segment, score) and metric (metric, lp, system, segment, score) rows."""
    scores = metric_scores[metric_scores["lp"].astype(str) == lp]
    if scores.empty:
        found = sorted(metric_scores["lp"].astype(str).unique())[:10]
        raise InputError(f"no metric scores for language pair {lp!r}; the file holds {', '.join(found)}", file=file)
    if "testset" in scores.columns and scores["testset"].nunique() > 1:
        raise InputError(f"the metric scores of {lp} come from several test sets "
                         f"({', '.join(sorted(scores['testset'].astype(str).unique()))}); keep one", file=file)
    if human.empty:
        raise InputError(f"no human scores for language pair {lp!r}")
    h_systems = sorted(human["system"].unique())
    mapping = _pair_names(h_systems, sorted(scores["system"].astype(str).unique()))
    scores = scores.assign(system=scores["system"].astype(str).map(mapping),
                           segment=scores["segment"].map(norm_segment))
    unmatched = sorted(set(metric_scores.loc[scores.index, "system"].astype(str)) - set(mapping))
    scores = scores[scores["system"].notna()]
    covered = set(zip(scores["system"], scores["segment"]))
    keep_h = human[[(s, g) in covered for s, g in zip(human["system"], human["segment"])]]
    if keep_h.empty:
        raise InputError(f"no (system, segment) of {lp} has both a human and a metric score: check that the "
                         "segment ids and system names of the two files agree", file=file)
    systems = sorted(keep_h["system"].unique())
    segments = sorted(keep_h["segment"].unique(), key=lambda s: (0, int(s)) if s.lstrip("-").isdigit() else (1, s))
    si = {s: i for i, s in enumerate(systems)}
    gi = {g: i for i, g in enumerate(segments)}
    hm = np.full((len(systems), len(segments)), np.nan)
    hm[keep_h["system"].map(si).to_numpy(), keep_h["segment"].map(gi).to_numpy()] = keep_h["score"].to_numpy()
    matrices: dict[str, np.ndarray] = {}
    unused = 0
    for metric, part in scores.groupby("metric", sort=False):
        r = part["system"].map(si)
        c = part["segment"].map(gi)
        ok = (r.notna() & c.notna()).to_numpy()
        unused += int((~ok).sum())
        mat = np.full_like(hm, np.nan)
        mat[r[ok].astype(int).to_numpy(), c[ok].astype(int).to_numpy()] = part["score"].to_numpy(dtype=float)[ok]
        matrices[str(metric)] = np.where(np.isnan(hm), np.nan, mat)
    return MetaInputs(systems, segments, hm, matrices, unmatched, unused)
