"""Metric validation for the Metrics page: baselines from stored texts, system- and segment-level results.

Plain functions (frames in, frames / dicts out; no Streamlit) so the page can cache them and the
tests can call them. The statistics are those of :mod:`metrics` (correlate_lp, darr_tau,
segment_correlation); this module only assembles their inputs from what the store holds.
"""

from __future__ import annotations

import re
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from ..naming import is_human, match_systems, strip_index
from .render import is_human_entry

BASELINES: dict[str, str] = {"bleu": "BLEU", "chrf": "chrF"}
#: how well-known metrics are written, whatever case a file uses ("ter" → "TER")
METRIC_SPELLING: dict[str, str] = {name.lower(): name for name in (
    "BLEU", "sentBLEU", "chrF", "chrF++", "TER", "HTER", "CharacTER", "EED", "METEOR", "COMET", "COMET-QE",
    "BLEURT", "BERTScore", "YiSi-1", "PRISM", "MetricX", "WER", "PER", "CDER")}
LONG_COLUMNS = ["metric", "system", "score"]
SEGMENT_COLUMNS = ["metric", "system", "segment", "score"]


def text_name(system: str, names: Sequence[str]) -> str | None:
    """The stored hypothesis / reference name of a judged system ("Online-B.0" → "Online-B",
    "HUMAN-C" → reference "C"), or None."""
    if system in names:
        return system
    base = strip_index(system)
    if base in names:
        return base
    human = re.match(r"^(?:HUMAN|REF|ref)[-_.]?([A-Za-z0-9]+)$", base)
    if human and human.group(1) in names:
        return human.group(1)
    return None


def metric_display_name(name: str) -> str:
    """A known metric's usual spelling (``ter`` → ``TER``, ``CHRF`` → ``chrF``); other names unchanged."""
    return METRIC_SPELLING.get(str(name).strip().lower(), str(name))


def humans_left_out(systems: Sequence[str], long: pd.DataFrame,
                    humans: Sequence[bool] | None = None) -> tuple[list[str], list[str]]:
    """Human translations that some metric does not score (left out of every correlation, so all
    metrics are compared on the same systems, as ``mtlb correlate`` does without
    ``--include-human``), and the notes that say so. ``humans``: one flag per system (the published
    ranking's ``human`` marks); default WMT naming."""
    from metrics.validation import unscored_humans
    flags = list(humans) if humans is not None else [is_human(s) for s in systems]
    lacking = unscored_humans(list(systems), flags, long)
    notes = [f"{human} (a human translation) is left out of the correlations: "
             f"{', '.join(metrics)} {'has' if len(metrics) == 1 else 'have'} no score for it."
             for human, metrics in lacking.items()]
    return sorted(lacking), notes


def norm_segment(value) -> str:
    """Segment ids compared as text, integers without leading zeros ("007" → "7")."""
    text = str(value).strip()
    return str(int(text)) if re.fullmatch(r"[+-]?\d+", text) else text


def baseline_inputs(texts: pd.DataFrame, judged: Sequence[str]) -> tuple[dict[str, list[str]], list[list[str]]]:
    """Outputs of the judged systems (by name) and the reference streams to score them against.

    A judged human translation ("HUMAN-C") is scored like a system, so its reference ("C") is left
    out of the reference streams: every system, human or not, is scored against the same others.
    When that would leave no reference at all, the human translations are not scored (and are
    then left out of the correlations, see :func:`humans_left_out`).
    """
    hyps_all = texts[texts["kind"] == "hypothesis"]
    refs = texts[texts["kind"] == "reference"]
    hyp_names = sorted(hyps_all["name"].unique())
    ref_names = sorted(refs["name"].unique())
    hyps: dict[str, list[str]] = {}
    used_refs: set[str] = set()
    for system in judged:
        name = text_name(system, hyp_names)
        if name:
            hyps[system] = hyps_all[hyps_all["name"] == name].sort_values("line")["text"].tolist()
            continue
        ref = text_name(system, ref_names)
        if ref:
            hyps[system] = refs[refs["name"] == ref].sort_values("line")["text"].tolist()
            used_refs.add(ref)
    if used_refs and not set(ref_names) - used_refs:
        hyps = {s: lines for s, lines in hyps.items() if text_name(s, hyp_names)}
        used_refs = set()
    streams = [refs[refs["name"] == r].sort_values("line")["text"].tolist() for r in ref_names if r not in used_refs]
    return hyps, streams


def baseline_scores(texts: pd.DataFrame, judged: Sequence[str], *, segments: bool = False,
                    lp: str | None = None) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, str]]:
    """BLEU and chrF (sacrebleu via :func:`metrics.scoring.score_systems`) of the judged systems.

    Returns (system scores: metric, system, score; segment scores: metric, system, segment, score,
    empty unless ``segments``; signatures by metric label). Systems without stored output are
    absent (see :func:`humans_left_out` and the correlation's ``skipped``). ``lp`` picks BLEU's
    tokeniser by target language.
    """
    from metrics.scoring import score_systems
    empty = pd.DataFrame(columns=LONG_COLUMNS), pd.DataFrame(columns=SEGMENT_COLUMNS), {}
    if texts.empty:
        return empty
    hyps, streams = baseline_inputs(texts, judged)
    if not hyps or not streams:
        return empty
    rows, seg_rows, signatures = [], [], {}
    for key, label in BASELINES.items():
        result = score_systems(hyps, streams, key, segments=segments, lp=lp)
        signatures[label] = result["signature"]
        rows += [{"metric": label, "system": s, "score": v} for s, v in result["systems"].items()]
        for system, values in (result.get("segments") or {}).items():
            seg_rows.append(pd.DataFrame({"metric": label + " (sentence)" if key == "bleu" else label,
                                          "system": system, "segment": [str(i + 1) for i in range(len(values))],
                                          "score": values}))
    seg = pd.concat(seg_rows, ignore_index=True) if seg_rows else empty[1]
    return pd.DataFrame(rows, columns=LONG_COLUMNS), seg, signatures


def baselines_note(judged: Sequence[str], long: pd.DataFrame) -> str:
    """Which of the ranked systems the baselines scored (:func:`baseline_scores`: those with a stored output)."""
    scored = set(long["system"])
    without = [s for s in judged if s not in scored]
    return (f"BLEU and chrF are computed for the {len(scored)} of {len(judged)} ranked systems with a stored "
            "output" + (f" (none for {', '.join(without)})." if without else "."))


def human_table(ranking: Mapping) -> pd.DataFrame:
    """System, Ave, Ave z and the human-translation mark of a published ranking (the human side of the
    correlation; rankings published before the mark existed get it from WMT naming)."""
    return pd.DataFrame([{"system": s["system"], "ave": s.get("ave"), "ave_z": s.get("ave_z"),
                          "is_human": is_human_entry(s)}
                         for s in ranking["systems"]], columns=["system", "ave", "ave_z", "is_human"])


def correlation_table(result: Mapping) -> pd.DataFrame:
    """One row per metric of a :func:`metrics.correlation.correlate_lp` result, with its cluster."""
    clusters = {c["metric"]: c["cluster"] for c in result.get("clusters", [])}
    rows = []
    for m in result.get("metrics", []):
        row = {"metric": m["metric"], "cluster": clusters.get(m["metric"])}
        for stat in ("pearson", "spearman", "kendall"):
            row[stat] = m.get(stat)
            ci = m.get(f"{stat}_ci") or (None, None)
            row[f"{stat}_ci_lo"], row[f"{stat}_ci_hi"] = ci[0], ci[1]
        row["ci_resample"] = m.get("ci_resample")
        row["n_systems"] = m.get("n_systems")
        rows.append(row)
    return pd.DataFrame(rows)


def williams_against(result: Mapping, metric: str) -> pd.DataFrame:
    """The chosen metric against every other: one-sided Williams p both ways and the verdict."""
    w = result.get("williams") or {}
    pearson = {m["metric"]: m["pearson"] for m in result.get("metrics", [])}
    rows = []
    for other in w:
        if other == metric or metric not in w:
            continue
        p_better, p_worse = w[metric].get(other), w[other].get(metric)
        verdict = ("significantly better" if p_better is not None and p_better < 0.05 else
                   "significantly worse" if p_worse is not None and p_worse < 0.05 else "no significant difference")
        rows.append({"compared_with": other, "r_metric": pearson.get(metric), "r_other": pearson.get(other),
                     "p_metric_better": p_better, "p_other_better": p_worse, "verdict": verdict})
    return pd.DataFrame(rows, columns=["compared_with", "r_metric", "r_other", "p_metric_better",
                                       "p_other_better", "verdict"])


def segment_matrix(long: pd.DataFrame, systems: Sequence[str], segments: Sequence[str], value: str) -> np.ndarray:
    """(systems × segments) array of ``value`` from a long (system, segment, value) frame; NaN where absent."""
    mapping = match_systems(list(systems), long["system"].astype(str).unique())
    back = {v: k for k, v in mapping.items()}
    part = long.assign(system=long["system"].astype(str).map(back), segment=long["segment"].map(norm_segment))
    part = part.dropna(subset=["system"])
    table = part.pivot_table(index="system", columns="segment", values=value, aggfunc="mean")
    return table.reindex(index=list(systems), columns=list(segments)).to_numpy(dtype=float)


def segment_level(human_seg: pd.DataFrame, metric_seg: pd.DataFrame, systems: Sequence[str], *,
                  n_resamples: int = 1000, seed: int = 12345) -> pd.DataFrame:
    """Segment-level validation of every metric in ``metric_seg`` (metric, system, segment, score).

    ``human_seg``: per (system, segment) human averages (system, segment, raw, z). Reports the
    WMT DARR Kendall-like tau (raw DA pairs ≥ 25 points apart within a segment), the segment-level
    Pearson r over all (system, segment) cells with human z ("no grouping") and Kendall tau-b of the
    systems within each segment averaged over segments ("item grouping"; pooled tau-b is quadratic
    in the number of cells), each with a 95% CI from resampling segments.
    """
    from metrics.segment import darr_tau, segment_correlation
    segments = sorted({norm_segment(s) for s in human_seg["segment"]}, key=lambda s: (len(s), s))
    human = human_seg.assign(segment=human_seg["segment"].map(norm_segment))
    h_raw = segment_matrix(human.rename(columns={"raw": "value"}), systems, segments, "value")
    h_z = segment_matrix(human.rename(columns={"z": "value"}), systems, segments, "value")
    rows = []
    for name, part in metric_seg.groupby("metric", sort=False):
        m = segment_matrix(part, systems, segments, "score")
        cells = np.isfinite(m) & np.isfinite(h_raw)
        seg_idx = np.nonzero(cells)[1]
        darr = darr_tau(seg_idx, h_raw[cells], m[cells], n_resamples=n_resamples, seed=seed)
        pear = segment_correlation(h_z, m, stat="pearson", grouping="none", n_resamples=n_resamples, seed=seed)
        kend = segment_correlation(h_z, m, stat="kendall", grouping="item", n_resamples=n_resamples, seed=seed)
        ci = darr.get("tau_ci", (np.nan, np.nan))
        rows.append({"metric": name, "darr_tau": darr["tau"], "darr_tau_ci_lo": ci[0], "darr_tau_ci_hi": ci[1],
                     "darr_pairs": darr["n_pairs"],
                     "pearson": pear["value"], "pearson_ci_lo": pear["ci"][0], "pearson_ci_hi": pear["ci"][1],
                     "kendall_item": kend["value"], "kendall_item_ci_lo": kend["ci"][0],
                     "kendall_item_ci_hi": kend["ci"][1],
                     "cells": pear["n_cells"]})
    return pd.DataFrame(rows)
