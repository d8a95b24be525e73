"""Metric validation for one language pair: the entry point of ``mtlb correlate`` and the Metrics page.

:func:`correlate_lp` matches the systems of a human ranking with those of a WMT metric-score table,
computes Pearson r, Spearman rho and Kendall tau-b with bootstrap confidence intervals, the
Williams test for every ordered pair of metrics and the metric significance clusters. The plain
statistics it combines live below it: :mod:`metrics.correlation`, :mod:`metrics.bootstrap`,
:mod:`metrics.permutation`, :mod:`metrics.williams`, :mod:`metrics.clusters`.
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from leaderboard.errors import InputError
from leaderboard.naming import is_human, match_systems

from .bootstrap import segment_bootstrap_ci, system_bootstrap_ci
from .clusters import metric_clusters
from .correlation import STATS, correlation
from .outliers import mad_outliers
from .permutation import permutation_matrix
from .williams import williams_matrix


# --------------------------------------------------------------------------------------------
# System-level correlations of several metrics
# --------------------------------------------------------------------------------------------

def system_correlations(
    human: np.ndarray,
    metrics: Mapping[str, np.ndarray],
    *,
    n_resamples: int = 0,
    seed: int | None = 12345,
    alpha: float = 0.05,
    stats: Sequence[str] = STATS,
) -> pd.DataFrame:
    """Pearson, Spearman and Kendall tau-b of each metric with the human system scores.

    ``human`` has one score per system; each metric array has the same length and order. With
    ``n_resamples > 0`` a percentile bootstrap CI (resampling systems, the same draws for every
    metric) is added as ``<stat>_lo`` / ``<stat>_hi`` columns. Returns one row per metric,
    in input order, with ``n_systems``.
    """
    human = np.asarray(human, dtype=float)
    rows = []
    for name, scores in metrics.items():
        scores = np.asarray(scores, dtype=float)
        if scores.shape != human.shape:
            raise ValueError(f"metric {name!r} has {scores.shape[0]} scores for {human.shape[0]} systems")
        row: dict[str, object] = {"metric": name}
        for stat in stats:
            row[stat] = correlation(stat, human, scores)
        row["n_systems"] = int(human.shape[0])
        rows.append(row)
    frame = pd.DataFrame(rows)
    if n_resamples and len(metrics):
        cis = system_bootstrap_ci(human, metrics, n_resamples=n_resamples, seed=seed, alpha=alpha, stats=stats)
        for stat in stats:
            frame[f"{stat}_lo"] = [cis[name][stat][0] for name in metrics]
            frame[f"{stat}_hi"] = [cis[name][stat][1] for name in metrics]
    return frame


# --------------------------------------------------------------------------------------------
# The high-level, JSON-shaped result for one language pair
# --------------------------------------------------------------------------------------------

def _human_table(human_df: pd.DataFrame, lp: str | None, human_score: str,
                 assessment: str | None = None) -> pd.DataFrame:
    frame = human_df.copy()
    if "assessment" in frame.columns:
        if assessment is not None:
            found = frame["assessment"].dropna().unique()
            if assessment not in found:
                raise InputError(f"the human scores have no assessment {assessment!r} "
                                 f"(found: {', '.join(map(str, found)) or 'none'})", code="unknown_assessment",
                                 column="assessment", value=assessment)
            frame = frame[frame["assessment"] == assessment]
    if "lp" in frame.columns and lp is not None:
        lps = frame["lp"].dropna().unique()
        if len(lps) and lp in lps:
            frame = frame[frame["lp"] == lp]
        elif len(lps):
            raise InputError(f"the human scores have no language pair {lp!r} (found: {', '.join(map(str, lps))})",
                             code="unknown_lp", column="lp", value=lp)
    column = {"z": "ave_z", "raw": "ave"}.get(human_score)
    if column is None:
        raise ValueError(f"human_score must be 'z' or 'raw', not {human_score!r}")
    for needed in ("system", column):
        if needed not in frame.columns:
            raise InputError(f"the human scores have no {needed!r} column", code="missing_column", column=needed)
    marks = frame["is_human"] if "is_human" in frame.columns else pd.Series(None, index=frame.index, dtype=object)
    frame = frame[["system"] + [c for c in ("ave", "ave_z") if c in frame.columns]].copy()
    frame["system"] = frame["system"].astype(str)
    frame["is_human"] = [is_human(s) if m is None or pd.isna(m) else bool(m) for s, m in zip(frame["system"], marks)]
    frame["human"] = pd.to_numeric(human_df.loc[frame.index, column], errors="coerce")
    if frame["system"].duplicated().any():
        dup = sorted(frame.loc[frame["system"].duplicated(), "system"].unique())
        hint = " (several assessments? choose one with assessment=...)" if "assessment" in human_df.columns else ""
        raise InputError(f"the human scores list system(s) more than once: {', '.join(dup)}{hint}",
                         code="duplicate_system", column="system", value=dup[0])
    if frame["human"].isna().any():
        bad = sorted(frame.loc[frame["human"].isna(), "system"])
        raise InputError(f"the human scores lack {column} for: {', '.join(bad)}", code="missing_score",
                         column=column, value=bad[0])
    return frame.reset_index(drop=True)


def _metric_table(metric_df: pd.DataFrame, lp: str | None, testset: str | None, refset: str | None) -> pd.DataFrame:
    frame = metric_df
    for needed in ("metric", "system", "score"):
        if needed not in frame.columns:
            raise InputError(f"the metric scores have no {needed!r} column", code="missing_column", column=needed)
    if lp is not None and "lp" in frame.columns:
        frame = frame[frame["lp"] == lp]
    if testset is not None and "testset" in frame.columns:
        frame = frame[frame["testset"] == testset]
    if refset is not None and "refset" in frame.columns:
        frame = frame[frame["refset"] == refset]
    frame = frame.copy()
    frame["metric"] = frame["metric"].astype(str)
    frame["system"] = frame["system"].astype(str)
    frame["score"] = pd.to_numeric(frame["score"], errors="coerce")
    dup = frame.duplicated(["metric", "system"], keep=False)
    if dup.any():
        first = frame[dup].iloc[0]
        raise InputError(
            f"metric {first['metric']!r} has more than one score for system {first['system']!r} in {lp}; "
            "choose one test set / reference set (testset=..., refset=...)", code="duplicate_metric_score",
            column="system", value=first["system"])
    return frame


def _segment_cis(human_segments: pd.DataFrame, metric_segments: pd.DataFrame, lp: str | None,
                 human_score: str, systems: list[str], metrics: list[str], n_resamples: int,
                 seed: int | None, alpha: float) -> dict[str, dict[str, tuple[float, float]]]:
    """Segment-resampling CIs for the metrics that have segment scores for every system."""
    hs = human_segments
    if lp is not None and "lp" in hs.columns:
        hs = hs[hs["lp"] == lp]
    column = {"z": "z", "raw": "raw"}[human_score]
    if column not in hs.columns:
        column = "score"
    hs = hs.assign(system=hs["system"].astype(str), segment=hs["segment"].astype(str))
    mapping = match_systems(systems, hs["system"].unique())
    if len(mapping) < len(systems):
        return {}
    back = {v: k for k, v in mapping.items()}
    hs = hs[hs["system"].isin(back)].assign(system=lambda f: f["system"].map(back))
    human = hs.pivot_table(index="system", columns="segment", values=column, aggfunc="mean")
    ms = metric_segments
    if lp is not None and "lp" in ms.columns:
        ms = ms[ms["lp"] == lp]
    ms = ms.assign(system=ms["system"].astype(str), segment=ms["segment"].astype(str))
    segments = sorted(set(human.columns) | set(ms["segment"]))
    human = human.reindex(index=systems, columns=segments)
    arrays: dict[str, np.ndarray] = {}
    for name, group in ms.groupby("metric", sort=False):
        if name not in metrics:
            continue
        mmap = match_systems(systems, group["system"].unique())
        if len(mmap) < len(systems):
            continue
        mback = {v: k for k, v in mmap.items()}
        g = group[group["system"].isin(mback)].assign(system=lambda f: f["system"].map(mback))
        table = g.pivot_table(index="system", columns="segment", values="score", aggfunc="mean")
        table = table.reindex(index=systems, columns=segments)
        if table.isna().all(axis=1).any():
            continue
        arrays[name] = table.to_numpy(dtype=float)
    if not arrays:
        return {}
    res = segment_bootstrap_ci(human.to_numpy(dtype=float), arrays, n_resamples=n_resamples, seed=seed,
                               alpha=alpha)
    return {name: {stat: tuple(res[name][f"{stat}_ci"]) for stat in STATS} for name in arrays}


#: the bootstrap behind every published system-level correlation: the Metrics page, the baselines
#: stored with a snapshot and ``mtlb correlate``'s defaults
N_RESAMPLES, SEED = 1000, 12345


def correlate_with_ranking(human: pd.DataFrame, metric_df: pd.DataFrame, lp: str, *,
                           exclude: Iterable[str] = ()) -> dict:
    """Every metric of ``metric_df`` (metric, system, score) against a published ranking's Ave z.

    ``human``: system, ave_z (and is_human, ave) of the ranking; ``exclude``: systems left out of
    every correlation (human translations some metric does not score). :func:`correlate_lp` with
    :data:`N_RESAMPLES` system resamples seeded :data:`SEED` — the one call behind the Metrics page
    and the snapshot's stored baseline correlations."""
    return correlate_lp(human.assign(lp=lp), metric_df, lp, human_score="z", n_resamples=N_RESAMPLES,
                        seed=SEED, exclude=exclude)


HUMAN_UNSCORED = "human translation without metric scores"


def unscored_humans(systems: Sequence[str], humans: Sequence[bool], metric_df: pd.DataFrame) -> dict[str, list[str]]:
    """Human translations among ``systems`` that some metric of ``metric_df`` does not score.

    ``humans``: one flag per system. ``metric_df``: long (metric, system, score) rows. Returns
    system → the metrics without a (finite) score for it, for the human systems that lack one.
    """
    wanted = [s for s, h in zip(systems, humans) if h]
    out: dict[str, list[str]] = {}
    if not wanted:
        return out
    for name, group in metric_df.groupby("metric", sort=False):
        ok = group[np.isfinite(pd.to_numeric(group["score"], errors="coerce").to_numpy(dtype=float))]
        mapping = match_systems(wanted, ok["system"].astype(str).unique())
        for s in wanted:
            if s not in mapping:
                out.setdefault(s, []).append(str(name))
    return {s: out[s] for s in wanted if s in out}


def correlate_lp(
    human_df: pd.DataFrame,
    metric_df: pd.DataFrame,
    lp: str | None,
    human_score: str = "z",
    *,
    exclude: Iterable[str] = (),
    exclude_outliers: bool = False,
    outlier_threshold: float = 2.5,
    human_raw_metric: str | None = None,
    testset: str | None = None,
    refset: str | None = None,
    n_resamples: int = 1000,
    seed: int | None = 12345,
    alpha: float = 0.05,
    permutation: bool = False,
    human_segments: pd.DataFrame | None = None,
    metric_segments: pd.DataFrame | None = None,
    assessment: str | None = None,
    include_human: bool = False,
) -> dict:
    """Correlate every metric with the human system scores of one language pair.

    ``human_df``: columns ``system`` and ``ave_z`` (``human_score="z"``) or ``ave`` (``"raw"``),
    optionally ``lp``. ``metric_df``: columns ``metric``, ``system``, ``score`` and optionally
    ``lp``, ``testset``, ``refset``; scores are used as given (higher = better).

    Systems: human systems named in ``exclude`` (exact or suffix-stripped names) and, with
    ``exclude_outliers``, systems whose human score is a MAD outlier (Mathur et al. 2020) are
    dropped; metric systems without a human score are ignored. A metric lacking any remaining
    human system is left out and reported under ``skipped`` (the WMT20 rule). Human translations
    (the ``is_human`` column of ``human_df``, else WMT naming) that some metric does not score are
    left out of every correlation and listed under ``excluded`` with the reason
    :data:`HUMAN_UNSCORED`, unless ``include_human`` (then a missing score skips the metric). With
    ``human_raw_metric="HUMAN_RAW"`` the raw human score (``ave``) is added as a metric.

    Returns the ``mtlb correlate --json`` object: ``lp``, ``human_score``, ``systems``,
    ``excluded``, ``metrics`` (r/rho/tau-b, bootstrap CIs that resample systems, ``n_systems``),
    ``williams`` (``williams[a][b]`` = one-sided p that a correlates better than b, None for
    identical scores), ``clusters`` and ``skipped``.

    With ``human_segments`` (columns ``system``, ``segment``, ``z``/``raw``: one row per judged
    (system, segment), repeats averaged) and ``metric_segments`` (``metric``, ``system``,
    ``segment``, ``score``, optionally ``lp``), CIs resample segments (the honest CI, see
    :mod:`metrics.bootstrap`) for every metric with segment scores for all systems; the others keep
    the system-resampling CI. Each metric says which in ``ci_resample``.
    """
    human = _human_table(human_df, lp, human_score, assessment)
    metrics_long = _metric_table(metric_df, lp, testset, refset)

    excluded: list[dict] = []
    not_found: list[str] = []
    exclude = list(exclude)
    if exclude:
        mapping = match_systems(exclude, human["system"])
        # names the human scores do not have are reported, not refused (WMT20 cs-en has no Human-A.0)
        not_found += [e for e in exclude if e not in mapping]
        drop = set(mapping.values())
        excluded += [{"system": s, "reason": "excluded"} for s in human["system"] if s in drop]
        human = human[~human["system"].isin(drop)].reset_index(drop=True)
    if not include_human:
        unscored = unscored_humans(human["system"].tolist(), human["is_human"].tolist(), metrics_long)
        excluded += [{"system": s, "reason": HUMAN_UNSCORED} for s in unscored]
        human = human[~human["system"].isin(unscored)].reset_index(drop=True)
    if exclude_outliers and len(human) > 2:
        mask = mad_outliers(human["human"].to_numpy(), threshold=outlier_threshold)
        excluded += [{"system": s, "reason": "outlier"} for s in human.loc[mask, "system"]]
        human = human[~mask].reset_index(drop=True)

    systems = human["system"].tolist()
    h = human["human"].to_numpy(dtype=float)
    metric_arrays: dict[str, np.ndarray] = {}
    skipped: list[dict] = []
    if human_raw_metric:
        if "ave" not in human.columns or human["ave"].isna().any():
            raise InputError("human_raw_metric needs the raw human score (ave) of every system",
                             code="no_raw_human_score", column="ave")
        metric_arrays[human_raw_metric] = human["ave"].to_numpy(dtype=float)
    for name, group in metrics_long.groupby("metric", sort=False):
        scores = dict(zip(group["system"], group["score"]))
        mapping = match_systems(systems, scores)
        missing = [s for s in systems if s not in mapping or not np.isfinite(scores[mapping[s]])]
        if missing:
            skipped.append({"metric": name, "missing": missing})
            continue
        metric_arrays[name] = np.array([scores[mapping[s]] for s in systems], dtype=float)

    n = len(systems)
    out_metrics = []
    ci_kind: dict[str, str] = {}
    if metric_arrays:
        table = system_correlations(h, metric_arrays, stats=STATS)
        cis = system_bootstrap_ci(h, metric_arrays, n_resamples=n_resamples, seed=seed, alpha=alpha) \
            if n_resamples else {}
        ci_kind = {name: "systems" for name in metric_arrays}
        if n_resamples and human_segments is not None and metric_segments is not None:
            seg_cis = _segment_cis(human_segments, metric_segments, lp, human_score, systems,
                                   list(metric_arrays), n_resamples, seed, alpha)
            for name, value in seg_cis.items():
                cis[name] = value
                ci_kind[name] = "segments"
        for row in table.to_dict(orient="records"):
            item = {"metric": row["metric"]}
            for stat in STATS:
                item[stat] = row[stat]
                if cis:
                    item[f"{stat}_ci"] = list(cis[row["metric"]][stat])
            if cis:
                item["ci_resample"] = ci_kind[row["metric"]]
            item["n_systems"] = n
            out_metrics.append(item)
    out_metrics.sort(key=lambda d: (-np.nan_to_num(d["pearson"], nan=-np.inf)))
    order = [d["metric"] for d in out_metrics]
    williams = williams_matrix(h, {m: metric_arrays[m] for m in order}) if len(order) else pd.DataFrame()
    wdict = {a: {b: (None if not np.isfinite(williams.loc[a, b]) else float(williams.loc[a, b]))
                 for b in order} for a in order}
    result = {
        "lp": lp,
        "human_score": human_score,
        "n_systems": n,
        "systems": systems,
        "excluded": excluded,
        "exclude_not_found": not_found,
        "bootstrap": {"resample": "segments" if n_resamples and "segments" in ci_kind.values() else "systems",
                      "n_resamples": int(n_resamples), "seed": seed,
                      "confidence": 1 - alpha},
        "metrics": out_metrics,
        "williams": wdict,
        "clusters": metric_clusters({d["metric"]: d["pearson"] for d in out_metrics}, williams, alpha=alpha)
        if order else [],
        "skipped": skipped,
    }
    if permutation and order:
        perm = permutation_matrix(h, {m: metric_arrays[m] for m in order}, n_resamples=n_resamples or 1000,
                                  seed=seed)
        result["permutation"] = {a: {b: (None if not np.isfinite(perm.loc[a, b]) else float(perm.loc[a, b]))
                                     for b in order} for a in order}
    return result
