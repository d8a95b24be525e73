"""Longitudinal comparison of a language pair across years or campaigns (Graham et al. 2014;
docs/method/longitudinal.md).

Test sets change difficulty from year to year, so the difference between two years' best systems
is not by itself a gain. Graham et al. (2014) calibrate with a fixed benchmark system CURR that translated
both years' test sets:

    Δ    = score(CURR, year A) − score(CURR, year B)      (how much harder B's test set is)
    gain = (score(BEST_B) − score(BEST_A)) + Δ

separately for fluency, adequacy and automatic metrics. Differences are tested with a Wilcoxon
rank-sum (Mann-Whitney U) test on the per-segment score samples and starred (* p<0.05, ** p<0.01,
*** p<0.001).

Everything here is pure: frames and dicts in, dicts out. Raw scores (Ave) are the primary scale
across campaigns, because z scores are standardised within each campaign's worker pool.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.stats import mannwhitneyu

from ..errors import InputError
from ..naming import strip_index

#: Star levels of Tables 4–5 in Graham et al. (2014) (smallest threshold first).
STAR_LEVELS: tuple[tuple[float, str], ...] = ((0.001, "***"), (0.01, "**"), (0.05, "*"))
ALTERNATIVES: tuple[str, ...] = ("one-sided", "two-sided")
SCORES: tuple[str, ...] = ("raw", "z")

NO_CALIBRATION_STATEMENT = (
    "The two campaigns share no calibration run: no fixed benchmark system was named as the calibration "
    "system, so nothing measures how much the test set, the workers and the scale use changed between them. "
    "The raw differences between the years are NOT gains."
)
CROSS_CAMPAIGN_CAVEAT = (
    "The calibration system was judged in two separate campaigns; the calibrated gain assumes it is "
    "the same, unchanged system in both (the data cannot confirm that; anonymised online engines "
    "change between years)."
)
NOTES: tuple[str, ...] = (
    "Scores compared across years are raw means (Ave): z scores are standardised within each "
    "campaign's workers, so a z difference between two campaigns mixes system quality with the "
    "make-up of each campaign; z gains are only given when both years come from the same campaign.",
    "Significance: Mann-Whitney U (Wilcoxon rank-sum) on the per-segment average scores of the two "
    "samples; one-sided tests H1 'the sample with the higher mean is greater' (the direction is read "
    "from the means, as in the WMT ranking), stars * p<0.05, ** p<0.01, *** p<0.001.",
    ("Calibrated gain (docs/method/longitudinal.md#the-gain): delta = CURR(from) - CURR(to); "
     "gain = (BEST(to) - BEST(from)) + delta."),
    "gain_if_benchmark (per shared system) is the calibrated gain that system would imply if it were "
    "an unchanged benchmark; without a real calibration run it is a what-if, and the spread across "
    "systems shows how far the candidates are from fixed.",
    "Systems are matched across years by name with a trailing '.N' campaign index removed "
    "(Online-B.11 = Online-B.0); other name differences are different systems unless mapped to each other.",
)


# --------------------------------------------------------------------------------------------------
# small pure helpers


def stars(p: float | None) -> str:
    """Significance stars as in Graham et al. (2014): '***' p<0.001, '**' p<0.01, '*' p<0.05, '' otherwise."""
    if p is None or not np.isfinite(p):
        return ""
    for level, mark in STAR_LEVELS:
        if p < level:
            return mark
    return ""


def base_name(system: str) -> str:
    """``system`` without a trailing ``.N`` campaign index (``Online-A.12`` → ``Online-A``)."""
    return strip_index(system)


@dataclass(frozen=True)
class Match:
    """One system present in both years; ``via`` is ``"name"`` or ``"override"``."""

    source: str
    target: str
    via: str

    @property
    def name(self) -> str:
        return base_name(self.source) if base_name(self.source) == base_name(self.target) \
            else f"{self.source}={self.target}"


def _resolve(name: str, systems: Sequence[str], side: str) -> str:
    """The system of ``systems`` called ``name`` exactly, or else the one whose base name it is."""
    if name in systems:
        return name
    hits = [s for s in systems if base_name(s) == base_name(name)]
    if len(hits) == 1:
        return hits[0]
    if not hits:
        raise InputError(f"system {name!r} is not in the {side} year (systems: {', '.join(sorted(systems))})")
    raise InputError(f"system {name!r} is ambiguous in the {side} year: {', '.join(sorted(hits))}")


def match_systems(
    source: Iterable[str], target: Iterable[str], overrides: Mapping[str, str] | None = None,
    *, strict: bool = True,
) -> list[Match]:
    """Pair the systems of two years.

    Rule: equal names once a trailing ``.N`` index is stripped, when exactly one system on each
    side has that base name. ``overrides`` maps a source name to a target name (exact or base
    name) and wins over the rule; mapping to ``""`` forbids matching that source system.
    Raises :class:`InputError` when an override names an unknown or ambiguous system; with
    ``strict=False`` an override whose source system is absent is skipped (several language
    pairs share one set of overrides).
    """
    src = list(dict.fromkeys(map(str, source)))
    tgt = list(dict.fromkeys(map(str, target)))
    pairs: list[Match] = []
    used_src: set[str] = set()
    used_tgt: set[str] = set()
    for a, b in (overrides or {}).items():
        if not strict and not any(base_name(s) == base_name(a) for s in src):
            continue
        a_sys = _resolve(a, src, "first")
        used_src.add(a_sys)
        if b:
            b_sys = _resolve(b, tgt, "second")
            if b_sys in used_tgt:
                raise InputError(f"the system matches map two systems onto {b_sys!r}", code="match_twice", value=b_sys)
            used_tgt.add(b_sys)
            pairs.append(Match(a_sys, b_sys, "override"))
    by_base_src: dict[str, list[str]] = {}
    by_base_tgt: dict[str, list[str]] = {}
    for s in src:
        if s not in used_src:
            by_base_src.setdefault(base_name(s), []).append(s)
    for s in tgt:
        if s not in used_tgt:
            by_base_tgt.setdefault(base_name(s), []).append(s)
    for base, a_list in by_base_src.items():
        b_list = by_base_tgt.get(base, [])
        if len(a_list) == 1 and len(b_list) == 1:
            pairs.append(Match(a_list[0], b_list[0], "name"))
    order = {s: i for i, s in enumerate(src)}
    return sorted(pairs, key=lambda m: order[m.source])


def ambiguous_bases(source: Iterable[str], target: Iterable[str]) -> list[str]:
    """Base names shared by both years but held by several systems in one of them (not matched)."""
    a = pd.Series([base_name(s) for s in source]).value_counts()
    b = pd.Series([base_name(s) for s in target]).value_counts()
    common = a.index.intersection(b.index)
    return sorted(str(x) for x in common if a[x] > 1 or b[x] > 1)


def calibrated_gain(best_from: Any, best_to: Any, curr_from: Any, curr_to: Any) -> dict[str, Any]:
    """The calibrated gain of Graham et al. (2014); works on scalars or aligned arrays (one value per pair/metric).

    ``delta`` = CURR(from) − CURR(to) (positive: the later test set is harder),
    ``best_difference`` = BEST(to) − BEST(from), ``gain`` = best_difference + delta.
    """
    bf, bt, cf, ct = (np.asarray(x, dtype=float) for x in (best_from, best_to, curr_from, curr_to))
    delta = cf - ct
    diff = bt - bf
    out = {"delta": delta, "best_difference": diff, "gain": diff + delta}
    if np.ndim(out["gain"]) == 0:
        out = {k: float(v) for k, v in out.items()}
    return out


def aggregate_gains(table: pd.DataFrame) -> dict[str, float]:
    """Average several language pairs into one line, as Table 3 of Graham et al. (2014) does.

    ``table`` has columns curr_from, curr_to, best_from, best_to (one row per language pair) and
    optionally n_curr_from, n_curr_to, n_best_from, n_best_to. Means are unweighted over pairs
    (each pair counts once, whatever its number of judgments); counts are summed. Because the
    gain is linear, it equals the mean of the per-pair gains.
    """
    needed = ["curr_from", "curr_to", "best_from", "best_to"]
    missing = [c for c in needed if c not in table.columns]
    if missing:
        raise InputError(f"aggregate_gains needs column(s) {', '.join(missing)}")
    means = table[needed].astype(float).mean()
    out = {k: float(v) for k, v in means.items()}
    out.update(calibrated_gain(out["best_from"], out["best_to"], out["curr_from"], out["curr_to"]))
    for c in ("n_curr_from", "n_curr_to", "n_best_from", "n_best_to"):
        if c in table.columns:
            out[c] = int(table[c].sum())
    out["pairs"] = int(len(table))
    return out


def difference_test(sample_from: Any, sample_to: Any, alternative: str = "one-sided") -> dict[str, Any]:
    """Mann-Whitney U test of two independent score samples (e.g. one system in two years).

    ``one-sided``: H1 is that the sample with the higher mean is stochastically greater (the WMT
    practice in docs/method/significance-and-clusters.md#pairwise-tests: the direction is known from the
    means). ``two-sided``: any shift.
    Returns p, stars, which side is higher ("from" / "to" / None on equal means) and sample sizes.
    """
    if alternative not in ALTERNATIVES:
        raise InputError(f"unknown alternative {alternative!r} (choose from {', '.join(ALTERNATIVES)})")
    a = np.asarray(sample_from, dtype=float)
    b = np.asarray(sample_to, dtype=float)
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    result: dict[str, Any] = {"test": f"Mann-Whitney U, {alternative}", "n_from": int(a.size),
                              "n_to": int(b.size), "higher": None, "p": None, "stars": ""}
    if a.size == 0 or b.size == 0:
        return result
    ma, mb = a.mean(), b.mean()
    result["higher"] = "to" if mb > ma else "from" if ma > mb else None
    if alternative == "two-sided":
        p = mannwhitneyu(b, a, alternative="two-sided").pvalue
    elif mb >= ma:
        p = mannwhitneyu(b, a, alternative="greater").pvalue
    else:
        p = mannwhitneyu(a, b, alternative="greater").pvalue
    result["p"] = float(p)
    result["stars"] = stars(float(p))
    return result


# --------------------------------------------------------------------------------------------------
# one year's data


SYSTEM_COLUMNS: tuple[str, ...] = ("system", "ave", "ave_z", "n", "n_all", "rank", "rank_lo", "rank_hi")


@dataclass
class YearData:
    """One year (campaign) of one language pair and assessment.

    ``systems``: columns :data:`SYSTEM_COLUMNS` (``rank`` = position by Ave z, 1 = best;
    ``rank_lo``/``rank_hi`` = the cluster rank range when known). ``segments``: per-segment
    averages (system, segment, raw, z, n) when judgments are available, else None (no tests).
    ``metrics``: automatic scores (system, metric, score) or None.
    """

    label: str
    lp: str
    assessment: str | None
    systems: pd.DataFrame
    campaign: str | None = None
    segments: pd.DataFrame | None = None
    metrics: pd.DataFrame | None = None
    signature: str | None = None
    extra: dict = field(default_factory=dict)


def segment_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (system, segment) averages of the scoring items, SYSTEM and REPEAT
    (docs/method/standardisation.md#which-items-count)."""
    from .scores import segment_scores
    seg = segment_scores(frame)
    return seg[["system", "segment", "raw", "z", "n"]].reset_index(drop=True)


def _system_table_from_segments(seg: pd.DataFrame) -> pd.DataFrame:
    g = seg.groupby("system", sort=False, observed=True)
    table = g.agg(ave=("raw", "mean"), ave_z=("z", "mean"), n=("segment", "size"), n_all=("n", "sum")).reset_index()
    table["system"] = table["system"].astype(str)
    return table


def _add_positions(table: pd.DataFrame) -> pd.DataFrame:
    """Sort by Ave z (Ave when z is unknown) and number the positions."""
    key = "ave_z" if table["ave_z"].notna().any() else "ave"
    table = table.sort_values([key, "ave"], ascending=False, na_position="last", kind="mergesort")
    table = table.reset_index(drop=True)
    table["rank"] = np.arange(1, len(table) + 1)
    for c in ("rank_lo", "rank_hi"):
        if c not in table.columns:
            table[c] = pd.NA
    return table[list(SYSTEM_COLUMNS)]


def years_from_frame(label: str, frame: pd.DataFrame, *, rank: bool = True,
                     rank_options: Mapping[str, Any] | None = None) -> dict[tuple[str, str | None], YearData]:
    """Split a canonical judgment frame into one :class:`YearData` per (lp, assessment).

    System scores follow docs/method/standardisation.md; rank ranges come from
    :func:`leaderboard.human.ranking.rank_judgments` when ``rank`` is true.
    """
    rankings: dict[tuple[str, str | None], dict] = {}
    if rank:
        from .ranking import rank_judgments
        for r in rank_judgments(frame, **dict(rank_options or {})):
            rankings[(str(r["lp"]), r.get("assessment"))] = r
    out: dict[tuple[str, str | None], YearData] = {}
    for (lp, assessment), part in frame.groupby(["lp", "assessment"], sort=True, observed=True):
        seg = segment_table(part)
        table = _system_table_from_segments(seg)
        ranking = rankings.get((str(lp), assessment)) or rankings.get((str(lp), None))
        signature = None
        if ranking is not None:
            ranks = pd.DataFrame(ranking["systems"])
            keep = [c for c in ("system", "rank_lo", "rank_hi") if c in ranks.columns]
            table = table.merge(ranks[keep], on="system", how="left")
            signature = ranking.get("signature")
        campaigns = sorted(part["campaign"].astype(str).unique())
        out[(str(lp), str(assessment))] = YearData(
            label=label, lp=str(lp), assessment=str(assessment), systems=_add_positions(table),
            campaign=",".join(campaigns), segments=seg, signature=signature)
    return out


def years_from_rankings(label: str, rankings: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str | None], YearData]:
    """:class:`YearData` from ``mtlb rank --json`` output (no segment samples, so no tests)."""
    out: dict[tuple[str, str | None], YearData] = {}
    for r in rankings:
        if "lp" not in r or "systems" not in r:
            raise InputError("a ranking needs 'lp' and 'systems' (a ranking's JSON)", code="not_a_ranking")
        rows = pd.DataFrame(list(r["systems"]))
        if "system" not in rows.columns or not ({"ave", "ave_z"} & set(rows.columns)):
            raise InputError("ranking systems need 'system' and 'ave' or 'ave_z'")
        for c in ("ave", "ave_z", "n", "n_all", "rank_lo", "rank_hi"):
            if c not in rows.columns:
                rows[c] = np.nan
        rows["system"] = rows["system"].astype(str)
        rows["ave"] = pd.to_numeric(rows["ave"], errors="coerce")
        rows["ave_z"] = pd.to_numeric(rows["ave_z"], errors="coerce")
        assessment = r.get("assessment")
        out[(str(r["lp"]), None if assessment is None else str(assessment))] = YearData(
            label=label, lp=str(r["lp"]), assessment=assessment, systems=_add_positions(rows),
            campaign=r.get("campaign"), segments=None, signature=r.get("signature"))
    return out


def metrics_for(metrics: pd.DataFrame | None, lp: str) -> pd.DataFrame | None:
    """The (system, metric, score) rows of ``lp`` (rows without an lp apply to every pair)."""
    if metrics is None or metrics.empty:
        return None
    part = metrics
    if "lp" in metrics.columns:
        lps = metrics["lp"].astype("string")
        part = metrics[lps.isna() | (lps == lp)]
    part = part[["system", "metric", "score"]]
    return part if not part.empty else None


# --------------------------------------------------------------------------------------------------
# comparisons


def _excluded(system: str, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(system, p) or fnmatch.fnmatchcase(base_name(system), p) for p in patterns)


def best_system(year: YearData, *, best_by: str = "z", exclude: Sequence[str] = (),
                skip: Iterable[str] = ()) -> dict[str, Any] | None:
    """The top system of a year: by Ave z (the official WMT19–22 order) or by raw Ave.

    ``exclude`` holds glob patterns (matched against the name with and without its index);
    ``skip`` exact names (the calibration system, which is the benchmark, not a participant).
    """
    if best_by not in SCORES:
        raise InputError(f"unknown score to choose the best system by: {best_by!r} (choose from {', '.join(SCORES)})",
                         code="unknown_best_by", value=best_by)
    skip = set(skip)
    table = year.systems[[not (s in skip or _excluded(s, exclude)) for s in year.systems["system"]]]
    key = "ave_z" if best_by == "z" else "ave"
    table = table[table[key].notna()]
    if table.empty:
        return None
    row = table.sort_values([key, "ave" if key == "ave_z" else "ave_z"], ascending=False,
                            kind="mergesort").iloc[0]
    return _system_entry(row)


def _system_entry(row: pd.Series) -> dict[str, Any]:
    entry = {"system": str(row["system"])}
    for c in SYSTEM_COLUMNS[1:]:
        v = row.get(c)
        entry[c] = None if v is None or pd.isna(v) else (int(v) if c in ("n", "n_all", "rank", "rank_lo", "rank_hi")
                                                           else float(v))
    return entry


def _lookup(year: YearData, system: str) -> pd.Series:
    hit = year.systems[year.systems["system"] == system]
    return hit.iloc[0]


def _sample(year: YearData, system: str, score: str) -> np.ndarray | None:
    if year.segments is None:
        return None
    seg = year.segments
    return seg.loc[seg["system"] == system, score].to_numpy(dtype=float)


def _test(a: YearData, sys_a: str, b: YearData, sys_b: str, score: str, alternative: str) -> dict[str, Any]:
    sa, sb = _sample(a, sys_a, score), _sample(b, sys_b, score)
    if sa is None or sb is None:
        return {"test": None, "p": None, "stars": "", "higher": None,
                "reason": "no segment-level scores (ranking input), so no significance test"}
    return difference_test(sa, sb, alternative)


def _score_of(entry: Mapping[str, Any], score: str) -> float | None:
    return entry["ave"] if score == "raw" else entry["ave_z"]


def _metric_value(metrics: pd.DataFrame | None, metric: str, system: str) -> float | None:
    if metrics is None:
        return None
    rows = metrics[metrics["metric"] == metric]
    names = rows["system"].astype(str)
    hit = rows[names == system]
    if hit.empty:
        hit = rows[names.map(base_name) == base_name(system)]
        if len(hit) != 1:
            return None
    return float(hit["score"].iloc[0])


def _metric_gains(a: YearData, b: YearData, best_a: str | None, best_b: str | None,
                  curr: Match | None) -> dict[str, Any]:
    """Per metric: the best systems' scores (best by the human score, as in Graham et al. 2014), the best
    system by the metric in each year, and the calibrated gain when a calibration system exists."""
    ma, mb = metrics_for(a.metrics, a.lp), metrics_for(b.metrics, b.lp)
    if ma is None or mb is None:
        return {}
    out: dict[str, Any] = {}
    for metric in sorted(set(ma["metric"]) & set(mb["metric"])):
        entry: dict[str, Any] = {}
        va = _metric_value(ma, metric, best_a) if best_a else None
        vb = _metric_value(mb, metric, best_b) if best_b else None
        entry["best_from"], entry["best_to"] = va, vb
        entry["best_difference"] = None if va is None or vb is None else vb - va
        for side, frame in (("top_from", ma), ("top_to", mb)):
            rows = frame[frame["metric"] == metric].sort_values("score", ascending=False, kind="mergesort")
            entry[side] = {"system": str(rows["system"].iloc[0]), "score": float(rows["score"].iloc[0])}
        entry["calibration"] = None
        if curr is not None:
            ca, cb = _metric_value(ma, metric, curr.source), _metric_value(mb, metric, curr.target)
            if None not in (ca, cb, va, vb):
                entry["calibration"] = {"curr_from": ca, "curr_to": cb, **calibrated_gain(va, vb, ca, cb)}
        out[metric] = entry
    return out


def compare_years(
    a: YearData,
    b: YearData,
    *,
    calibration: str | None = None,
    overrides: Mapping[str, str] | None = None,
    best_by: str = "z",
    alternative: str = "one-sided",
    exclude: Sequence[str] = (),
    strict: bool = True,
) -> dict[str, Any]:
    """Compare one language pair from year ``a`` to year ``b``.

    Reports each year's best system, the systems present in both years (scores, ranks, raw
    difference with its significance, and the gain each would imply if it were a fixed benchmark),
    and the calibrated gain (docs/method/longitudinal.md#the-gain) when ``calibration`` names a system judged in both
    years (a base name, an exact name, or ``FROM=TO``).
    """
    same_campaign = bool(a.campaign) and a.campaign == b.campaign
    score_names = ["raw", "z"] if same_campaign else ["raw"]
    matches = match_systems(a.systems["system"], b.systems["system"], overrides, strict=strict)
    missing_calibration = None
    try:
        curr = _calibration_match(calibration, a, b, matches)
    except InputError as exc:
        if strict:
            raise
        curr, missing_calibration = None, exc.message
    best_a = best_system(a, best_by=best_by, exclude=exclude, skip=[curr.source] if curr else [])
    best_b = best_system(b, best_by=best_by, exclude=exclude, skip=[curr.target] if curr else [])

    best: dict[str, Any] = {"from": best_a, "to": best_b, "by": "Ave z" if best_by == "z" else "Ave (raw)"}
    if curr is not None:
        best["not_considered"] = {"from": curr.source, "to": curr.target, "reason": "calibration system"}
    if best_a and best_b:
        for score in score_names:
            va, vb = _score_of(best_a, score), _score_of(best_b, score)
            best[score] = {"difference": None if va is None or vb is None else vb - va,
                           **_test(a, best_a["system"], b, best_b["system"], score, alternative)}

    shared = []
    for m in matches:
        ea, eb = _system_entry(_lookup(a, m.source)), _system_entry(_lookup(b, m.target))
        item: dict[str, Any] = {"name": m.name, "via": m.via, "from": ea, "to": eb}
        for score in score_names:
            va, vb = _score_of(ea, score), _score_of(eb, score)
            item[score] = {"difference": None if va is None or vb is None else vb - va,
                           **_test(a, m.source, b, m.target, score, alternative)}
        if best_a and best_b and ea["ave"] is not None and eb["ave"] is not None:
            item["gain_if_benchmark"] = calibrated_gain(best_a["ave"], best_b["ave"], ea["ave"], eb["ave"])["gain"]
        shared.append(item)

    result: dict[str, Any] = {
        "lp": a.lp, "assessment": a.assessment if a.assessment is not None else b.assessment,
        "from": a.label, "to": b.label,
        "campaigns": {"from": a.campaign, "to": b.campaign}, "same_campaign": same_campaign,
        "n_systems": {"from": int(len(a.systems)), "to": int(len(b.systems))},
        "best": best,
        "shared_systems": shared,
        "unmatched": {
            "from": [s for s in a.systems["system"] if s not in {m.source for m in matches}],
            "to": [s for s in b.systems["system"] if s not in {m.target for m in matches}],
        },
        "ambiguous_names": ambiguous_bases(a.systems["system"], b.systems["system"]),
    }
    if curr is None:
        result["calibration"] = None
        result["statement"] = NO_CALIBRATION_STATEMENT
        if missing_calibration:
            result["statement"] += " (" + missing_calibration + ")"
    else:
        result["calibration"] = _calibration(a, b, best_a, best_b, curr, score_names, alternative, same_campaign)
        result["statement"] = (
            f"Calibrated with {curr.source} ({a.label}) = {curr.target} ({b.label}) as the fixed benchmark."
            + ("" if same_campaign else " " + CROSS_CAMPAIGN_CAVEAT))
    warnings = [f"{y.label} ({y.lp}) has no raw scores (for the WMT release pass the worker mean/sd file): "
                "raw differences and gains are null" for y in (a, b) if not y.systems["ave"].notna().any()]
    if warnings:
        result["warnings"] = warnings
    metrics = _metric_gains(a, b, best_a and best_a["system"], best_b and best_b["system"], curr)
    if metrics:
        result["metrics"] = metrics
    result["anchors"] = anchor_gains(a, b, overrides=overrides, best_by=best_by, exclude=exclude, strict=strict,
                                     used=curr)
    return result


def _sign(value: float) -> str:
    return "positive" if value > 0 else "negative" if value < 0 else "zero"


def anchor_gains(
    a: YearData,
    b: YearData,
    *,
    overrides: Mapping[str, str] | None = None,
    best_by: str = "z",
    exclude: Sequence[str] = (),
    strict: bool = True,
    used: Match | str | None = None,
) -> dict[str, Any]:
    """The calibrated gain (raw Ave) with each possible anchor, and whether their signs disagree.

    Every machine-translation system judged in both years (matched as :func:`match_systems` does,
    human translations and ``exclude`` left out) is taken in turn as the calibration system, exactly
    as ``compare_years(calibration=...)`` would: it is left out of the candidates for each year's best
    system, Δ = its score in ``a`` − its score in ``b``, gain = (BEST(b) − BEST(a)) + Δ.

    Returns ``{"score": "raw", "anchors": [{"anchor", "from", "to", "curr_from", "curr_to",
    "best_from_system", "best_to_system", "best_from", "best_to", "delta", "best_difference", "gain",
    "sign"}, ...], "positive": [...], "negative": [...], "zero": [...], "signs_disagree": bool,
    "used": anchor name or None, "used_gain": float or None, "statement": str or None}``; ``anchors``
    are ordered by gain (largest first); ``statement`` says in words when the sign of the gain (did the
    best system improve?) depends on the anchor.
    """
    from ..naming import is_human
    matches = match_systems(a.systems["system"], b.systems["system"], overrides, strict=strict)
    if isinstance(used, str):
        used = _calibration_match(used, a, b, matches) if used else None
    rows: list[dict[str, Any]] = []
    for m in matches:
        if is_human(m.source) or is_human(m.target) or _excluded(m.source, exclude) or _excluded(m.target, exclude):
            continue
        ca, cb = _system_entry(_lookup(a, m.source)), _system_entry(_lookup(b, m.target))
        best_a = best_system(a, best_by=best_by, exclude=exclude, skip=[m.source])
        best_b = best_system(b, best_by=best_by, exclude=exclude, skip=[m.target])
        if None in (ca["ave"], cb["ave"]) or not best_a or not best_b or None in (best_a["ave"], best_b["ave"]):
            continue
        gain = calibrated_gain(best_a["ave"], best_b["ave"], ca["ave"], cb["ave"])
        rows.append({"anchor": m.name, "from": m.source, "to": m.target, "curr_from": ca["ave"],
                     "curr_to": cb["ave"], "best_from_system": best_a["system"], "best_to_system": best_b["system"],
                     "best_from": best_a["ave"], "best_to": best_b["ave"], **gain, "sign": _sign(gain["gain"])})
    rows.sort(key=lambda r: -r["gain"])
    by_sign = {sign: [r["anchor"] for r in rows if r["sign"] == sign] for sign in ("positive", "negative", "zero")}
    disagree = sum(bool(v) for v in by_sign.values()) > 1
    chosen = next((r for r in rows if used is not None and r["from"] == used.source and r["to"] == used.target),
                  None)
    out: dict[str, Any] = {"score": "raw", "anchors": rows, **by_sign, "signs_disagree": disagree,
                           "used": used.name if used is not None else None,
                           "used_gain": chosen["gain"] if chosen else None, "statement": None}
    if disagree:
        out["statement"] = anchor_statement(rows, a.label, b.label, chosen)
    return out


def anchor_statement(rows: Sequence[Mapping[str, Any]], first: str, second: str,
                     chosen: Mapping[str, Any] | None = None) -> str:
    """Plain words for gains of different signs: the conclusion depends on which system is the anchor."""
    def listed(sign: str) -> str:
        return ", ".join(f"{r['anchor']} ({r['gain']:+.2f})" for r in rows if r["sign"] == sign)

    parts = [f"{word} with {listed(sign)}" for sign, word in
             (("positive", "an improvement"), ("negative", "a decline"), ("zero", "no change")) if listed(sign)]
    text = (f"From {first} to {second}, whether the best system improved depends on which system is assumed "
            f"to be unchanged between the two years (the anchor): the calibrated gain shows "
            + "; ".join(parts) + ".")
    if chosen is not None:
        text += (f" This comparison uses {chosen['anchor']} ({chosen['gain']:+.2f}); "
                 "another anchor reverses its conclusion, so read the gain as uncertain.")
    else:
        text += " Read any single gain as uncertain."
    return text


def _calibration_match(calibration: str | None, a: YearData, b: YearData, matches: list[Match]) -> Match | None:
    if not calibration:
        return None
    if "=" in calibration:
        left, right = calibration.split("=", 1)
        return Match(_resolve(left, list(a.systems["system"]), f"{a.label} ({a.lp})"),
                     _resolve(right, list(b.systems["system"]), f"{b.label} ({b.lp})"), "override")
    for m in matches:
        if calibration in (m.source, m.target, base_name(m.source), base_name(m.target)):
            return m
    raise InputError(
        f"calibration system {calibration!r} was not judged in both {a.label} and {b.label} ({a.lp}); "
        f"systems in both: {', '.join(m.name for m in matches) or 'none'}")


def _calibration(a: YearData, b: YearData, best_a: dict | None, best_b: dict | None, curr: Match,
                 score_names: list[str], alternative: str, same_campaign: bool) -> dict[str, Any]:
    ca, cb = _system_entry(_lookup(a, curr.source)), _system_entry(_lookup(b, curr.target))
    out: dict[str, Any] = {"system": {"from": ca, "to": cb}, "shared_campaign": same_campaign}
    for score in score_names:
        vca, vcb = _score_of(ca, score), _score_of(cb, score)
        if not (best_a and best_b) or None in (vca, vcb, _score_of(best_a, score), _score_of(best_b, score)):
            out[score] = None
            continue
        gain = calibrated_gain(_score_of(best_a, score), _score_of(best_b, score), vca, vcb)
        delta_test = _test(a, curr.source, b, curr.target, score, alternative)
        best_test = _test(a, best_a["system"], b, best_b["system"], score, alternative)
        out[score] = {
            "curr_from": vca, "curr_to": vcb, "best_from": _score_of(best_a, score),
            "best_to": _score_of(best_b, score), **gain,
            "delta_p": delta_test["p"], "delta_stars": delta_test["stars"],
            "best_difference_p": best_test["p"], "best_difference_stars": best_test["stars"],
        }
    if not same_campaign:
        out["z"] = None
        out["z_note"] = "z gains need both years in one campaign (z is standardised per campaign)"
    return out


def longitudinal(
    years: Sequence[tuple[str, Mapping[tuple[str, str | None], YearData]]],
    *,
    lps: Sequence[str] | None = None,
    calibration: str | None = None,
    overrides: Mapping[str, str] | None = None,
    best_by: str = "z",
    alternative: str = "one-sided",
    exclude: Sequence[str] = (),
) -> dict[str, Any]:
    """Tracks and consecutive-year comparisons for every (lp, assessment) found in ≥ 2 years.

    ``years`` is ordered (earliest first): ``[(label, {(lp, assessment): YearData})]``.
    Tracks list each year's best system (the plain best-per-year view, no calibration needed);
    comparisons run between consecutive years holding the same pair.
    """
    if len(years) < 2:
        raise InputError("a longitudinal comparison needs at least two years", code="one_year")
    keys: list[tuple[str, str | None]] = []
    for _, data in years:
        for key in data:
            if key not in keys:
                keys.append(key)
    if lps:
        missing = [lp for lp in lps if not any(k[0] == lp for k in keys)]
        if missing:
            raise InputError(f"no data for language pair(s) {', '.join(missing)}")
        keys = [k for k in keys if k[0] in lps]
    named = {k[0] for k in keys if k[1] is not None}
    keys = [k for k in keys if k[1] is not None or k[0] not in named]
    tracks, comparisons = [], []
    for lp, assessment in sorted(keys, key=lambda k: (k[0], str(k[1]))):
        present = [(label, _find(data, lp, assessment)) for label, data in years]
        present = [(label, y) for label, y in present if y is not None]
        if len(present) < 2:
            continue
        tracks.append({
            "lp": lp, "assessment": assessment,
            "years": [{"label": label, "campaign": y.campaign, "n_systems": int(len(y.systems)),
                       "best": best_system(y, best_by=best_by, exclude=exclude)} for label, y in present],
        })
        for (_, ya), (_, yb) in zip(present, present[1:]):
            comparisons.append(compare_years(ya, yb, calibration=calibration, overrides=overrides,
                                             best_by=best_by, alternative=alternative, exclude=exclude,
                                             strict=False))
    if not comparisons:
        raise InputError("no language pair / assessment is present in two of the years")
    if calibration and all(c["calibration"] is None for c in comparisons):
        raise InputError(f"calibration system {calibration!r} was not judged in both years of any compared pair; "
                         + "; ".join(c["statement"].rpartition("(")[2].rstrip(")") for c in comparisons))
    earlier = {m["from"]["system"] for c in comparisons for m in c["shared_systems"]}
    earlier |= {s for c in comparisons for s in c["unmatched"]["from"]}
    for name in overrides or {}:
        if not any(base_name(s) == base_name(name) for s in earlier):
            raise InputError(f"a system match names {name!r}, which no earlier year of the compared pairs holds",
                             code="match_unknown", value=name)
    return {"method": "Graham et al. 2014 (docs/method/longitudinal.md)", "score": "raw", "best_by": best_by,
            "alternative": alternative, "tracks": tracks, "comparisons": comparisons, "notes": list(NOTES)}


def _find(data: Mapping[tuple[str, str | None], YearData], lp: str, assessment: str | None) -> YearData | None:
    if (lp, assessment) in data:
        return data[(lp, assessment)]
    # a ranking without an assessment field pairs with any assessment of the same lp
    if (lp, None) in data:
        return data[(lp, None)]
    if assessment is None:
        cands = [v for k, v in data.items() if k[0] == lp]
        return cands[0] if len(cands) == 1 else None
    return None


# --------------------------------------------------------------------------------------------------
# which published campaigns to compare by default

_YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")
_WMT_YEAR = re.compile(r"\bWMT[-_ ]?(\d\d)(?!\d)", re.IGNORECASE)


def campaign_kind(name: str, notes: Iterable[str] = ()) -> str:
    """``"simulated"`` for a campaign of simulated workers (its name or a publication note says
    so, as the demo's simulated crowd does), else ``"real"``: the two kinds are not compared by default."""
    text = " ".join([str(name), *(str(n) for n in notes if n is not None and not pd.isna(n))])
    return "simulated" if re.search(r"simulat", text, re.IGNORECASE) else "real"


def campaign_year(name: str) -> int | None:
    """The year a campaign's name gives (``WMT22 cs-en`` → 2022, ``Y2021`` → 2021), else None."""
    found = _YEAR.search(str(name))
    if found:
        return int(found.group(1))
    found = _WMT_YEAR.search(str(name))
    return 2000 + int(found.group(1)) if found else None


def campaigns_in_time_order(snaps: pd.DataFrame) -> list[str]:
    """The campaigns of a list of published versions (``Store.snapshots()``: campaign, published_at),
    oldest first: by the year in the name, else the year of their first publication, then by first
    publication and name."""
    if snaps.empty:
        return []
    first = pd.to_datetime(snaps["published_at"], utc=True, errors="coerce") if "published_at" in snaps \
        else pd.Series(pd.NaT, index=snaps.index)
    when = first.groupby(snaps["campaign"]).min()

    def key(name: str) -> tuple:
        t = when.get(name)
        year = campaign_year(name)
        if year is None:
            year = t.year if t is not None and not pd.isna(t) else 9999
        return (year, t.value if t is not None and not pd.isna(t) else 0, name)

    return sorted(map(str, snaps["campaign"].unique()), key=key)


def default_campaign_pairs(snaps: pd.DataFrame) -> list[dict[str, Any]]:
    """Pairs of published campaigns worth comparing, the preferred first: ``[{"from", "to", "kind",
    "shared": [(lp, assessment), ...]}]``.

    Both campaigns of a pair are of one kind (:func:`campaign_kind`: real releases with real ones,
    simulated with simulated) and published a language pair and assessment in common; ``from`` is
    the older (:func:`campaigns_in_time_order`). Real campaigns come first, then pairs whose later
    campaign is newer, then closer ones. Pairs mixing the kinds follow, in the same order, for stores
    where no two campaigns of one kind share a pair."""
    if snaps.empty:
        return []
    order = campaigns_in_time_order(snaps)
    notes = snaps["note"] if "note" in snaps else pd.Series("", index=snaps.index)
    kinds = {c: campaign_kind(c, notes[snaps["campaign"] == c]) for c in order}
    held = {c: set(zip(snaps.loc[snaps["campaign"] == c, "lp"].astype(str),
                       snaps.loc[snaps["campaign"] == c, "assessment"].astype(str))) for c in order}
    same, mixed = [], []
    for j, later in enumerate(order):
        for i, earlier in enumerate(order[:j]):
            shared = sorted(held[earlier] & held[later])
            if not shared:
                continue
            kind = kinds[earlier] if kinds[earlier] == kinds[later] else "mixed"
            item = {"from": earlier, "to": later, "kind": kind, "shared": shared, "_key": (-j, j - i)}
            (same if kind != "mixed" else mixed).append(item)
    same.sort(key=lambda p: (p["kind"] != "real", p["_key"]))
    mixed.sort(key=lambda p: p["_key"])
    return [{k: v for k, v in p.items() if k != "_key"} for p in same + mixed]
