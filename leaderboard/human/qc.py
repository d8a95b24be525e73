"""Worker quality control without expert gold (docs/method/quality-control.md,
docs/method/protocols.md).

Every quality-control item is paired with the genuine output it copies: a ``BAD_REF``, ``REPEAT``
or ``REF`` row pairs with the ``SYSTEM`` row of the same worker, HIT, system and segment (when a
key holds several ``SYSTEM`` rows, the earliest one in the HIT). In the WMT release a bad
reference shares HIT, system and segment (``sid``) with its original, and in an Appraise export
the HIT is the annotator, so the same key covers Appraise's own pairing rule.

Assumption A, the filter, offers four one-sided tests per worker (``METHODS``):

* ``"paired-t"`` (the default, :data:`DEFAULT_METHOD`): paired Student t-test of the originals'
  scores against their degraded copies, H1 originals higher. This is what the WMT organisers ran
  (Graham's scripts; the release's ``ad-trk-stats.csv`` p-values) and Graham et al. 2014.
* ``"bad-ref-vs-repeat"`` (Graham et al. 2017): Wilcoxon rank-sum (Mann-Whitney U) of the bad-reference
  differences (original - degraded) against the repeat differences (first - second showing),
  H1 bad-reference differences larger.
* ``"welch"`` / ``"mwu"``: unpaired Welch t-test / Mann-Whitney U of the originals against the
  degraded scores, H1 originals higher. ``"mwu"`` gives exactly Appraise's p-value
  (``mannwhitneyu(bad, tgt, alternative="less")``): it follows scipy's choice of the exact null
  distribution for small samples without ties and the tie- and continuity-corrected normal
  approximation otherwise. (Graham et al. 2013 applied Welch / Mann-Whitney to the two difference
  samples instead; that is the ``"bad-ref-vs-repeat"`` comparison with another test.)

Assumption B, a check reported per worker: two-sided paired t-test of the first against the
second showing of every ``REPEAT`` pair (``p_repeat``; a worker whose repeat differences are all
zero gets 1). ``require_b=True`` also removes workers with ``p_repeat < alpha``.

Scores: raw scores (0-100) when every row of the worker group has one, else the z column.
Groups: by default one verdict per (assessment, worker) pooled over language pairs, as WMT did;
``pool_lps=False`` judges each (lp, assessment, worker) separately. All tests are vectorised
over workers (no per-worker Python loop).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd
from scipy import special, stats

from .qc_methods import DEFAULT_METHOD, DEFAULT_MIN_PAIRS, METHODS  # noqa: F401  (re-exported)

PAIR_COLUMNS = ("lp", "assessment", "worker", "hit", "system", "segment")


@dataclass(frozen=True)
class FlagThresholds:
    """Thresholds of the payment flags ("aggressive optimisers"; separate from the filter).

    ``scores``: mean SYSTEM minus mean BAD_REF at most ``near_equal`` raw points (WMT flags a
    worker whose degraded copies score at least as high as the originals: ``near_equal=0``).
    ``low-ref``: mean REF score below ``low_ref`` (the reference is identical to the text shown).
    ``constant-run``: a run of more than ``const_run`` identical consecutive scores in a HIT (the
    WMT releases flag runs of 11 or more). ``fast``: the fastest HIT took less than
    ``fast_seconds`` per item. ``low-ref`` and ``scores`` apply to raw scores only.
    """

    near_equal: float = 0.0
    low_ref: float = 50.0
    const_run: int = 10
    fast_seconds: float = 3.0


# --------------------------------------------------------------------------- pairing


def _scores(frame: pd.DataFrame, keys: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Per-row score (raw, or z for groups lacking a raw score) and a per-row 'uses raw' flag."""
    raw = frame["raw"].to_numpy(dtype=float)
    has_raw = pd.Series(np.isfinite(raw), index=frame.index)
    group_raw = has_raw.groupby([frame[k] for k in keys], sort=False).transform("all").to_numpy()
    z = frame["z"].to_numpy(dtype=float) if "z" in frame.columns else np.full(len(frame), np.nan)
    return np.where(group_raw, raw, z), group_raw


def qc_pairs(frame: pd.DataFrame, score: np.ndarray | None = None) -> pd.DataFrame:
    """All quality-control pairs of ``frame``.

    Returns one row per ``BAD_REF`` / ``REPEAT`` / ``REF`` item that has a ``SYSTEM`` partner:
    the key columns, ``kind`` (the QC item type) and ``first`` / ``second`` scores: for BAD_REF
    the original then the degraded copy, for REF the system output then the reference, for
    REPEAT the earlier then the later showing. ``row_first`` / ``row_second`` are positions in
    ``frame`` (0-based). ``score`` overrides the raw column (same length as ``frame``).
    """
    values = frame["raw"].to_numpy(dtype=float) if score is None else np.asarray(score, dtype=float)
    base = frame[list(PAIR_COLUMNS)].copy()
    base["_row"] = np.arange(len(frame))
    base["_pos"] = frame["position"].to_numpy()
    item = frame["item_type"].to_numpy()
    system = base[item == "SYSTEM"].sort_values("_pos", kind="stable")
    system = system.drop_duplicates(list(PAIR_COLUMNS), keep="first")
    qc = base[np.isin(item, ("BAD_REF", "REPEAT", "REF"))].copy()
    qc["kind"] = item[qc["_row"].to_numpy()]
    merged = qc.merge(system[[*PAIR_COLUMNS, "_row", "_pos"]], on=list(PAIR_COLUMNS),
                      suffixes=("_qc", "_sys"), how="inner")
    sys_row = merged["_row_sys"].to_numpy()
    qc_row = merged["_row_qc"].to_numpy()
    is_repeat = merged["kind"].to_numpy() == "REPEAT"
    later_sys = merged["_pos_sys"].to_numpy() > merged["_pos_qc"].to_numpy()
    swap = is_repeat & later_sys
    row_first = np.where(swap, qc_row, sys_row)
    row_second = np.where(swap, sys_row, qc_row)
    out = merged[list(PAIR_COLUMNS) + ["kind"]].copy()
    out["first"] = values[row_first]
    out["second"] = values[row_second]
    out["row_first"] = row_first
    out["row_second"] = row_second
    return out.sort_values(["row_second"], kind="stable").reset_index(drop=True)


# --------------------------------------------------------------------------- grouped tests


def grouped_paired_t(codes: np.ndarray, d: np.ndarray, n_groups: int,
                     alternative: str = "greater") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One-sample t-test of differences ``d`` per group (= paired t-test), vectorised.

    Returns (t, p, n) per group; ``alternative`` is "greater" (mean > 0), "less" or
    "two-sided". Groups with fewer than 2 values, or zero variance and zero mean, get NaN;
    zero variance with a non-zero mean gives t = +-inf as the limit.
    """
    n = np.bincount(codes, minlength=n_groups).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.bincount(codes, d, minlength=n_groups) / n
        ss = np.bincount(codes, (d - mean[codes]) ** 2, minlength=n_groups)
        var = ss / (n - 1)
        # relative tolerance: float rounding of a constant sample leaves a tiny variance
        var = np.where(var <= (1e-14 * np.maximum(1.0, np.abs(mean))) ** 2, 0.0, var)
        t = mean / np.sqrt(var / n)
    t = np.where(n < 2, np.nan, t)
    return t, _t_pvalue(t, n - 1, alternative), n.astype(int)


def _t_pvalue(t: np.ndarray, df: np.ndarray, alternative: str) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        if alternative == "greater":
            p = stats.t.sf(t, df)
        elif alternative == "less":
            p = stats.t.cdf(t, df)
        else:
            p = np.minimum(1.0, 2 * stats.t.sf(np.abs(t), df))
    return np.where(np.isnan(t), np.nan, p)


def grouped_welch(x_codes: np.ndarray, x: np.ndarray, y_codes: np.ndarray, y: np.ndarray,
                  n_groups: int, alternative: str = "greater") -> tuple[np.ndarray, np.ndarray]:
    """Welch's unequal-variance t-test of x against y per group, vectorised: (t, p)."""
    nx = np.bincount(x_codes, minlength=n_groups).astype(float)
    ny = np.bincount(y_codes, minlength=n_groups).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        mx = np.bincount(x_codes, x, minlength=n_groups) / nx
        my = np.bincount(y_codes, y, minlength=n_groups) / ny
        vx = np.bincount(x_codes, (x - mx[x_codes]) ** 2, minlength=n_groups) / (nx - 1)
        vy = np.bincount(y_codes, (y - my[y_codes]) ** 2, minlength=n_groups) / (ny - 1)
        ax, ay = vx / nx, vy / ny
        se2 = ax + ay
        t = (mx - my) / np.sqrt(se2)
        df = se2 ** 2 / (ax ** 2 / (nx - 1) + ay ** 2 / (ny - 1))
        limit = np.where(mx == my, np.nan, np.sign(mx - my) * np.inf)
    t = np.where(se2 == 0, limit, t)
    t = np.where((nx < 2) | (ny < 2), np.nan, t)
    df = np.where(np.isfinite(df), df, np.maximum(nx + ny - 2, 1))
    return t, _t_pvalue(t, df, alternative)


@lru_cache(maxsize=512)
def _u_null_counts(m: int, n: int) -> tuple[int, ...]:
    """Exact counts of the Mann-Whitney U statistic under H0 for sample sizes m and n.

    The counts are the coefficients of the Gaussian binomial [m+n choose m]_q, built as
    prod_{k=1..m} (1 - q^(n+k)) / (1 - q^k) in exact integer arithmetic.
    """
    m, n = min(m, n), max(m, n)
    poly = np.zeros(m * n + 1, dtype=object)
    poly[0] = 1
    for k in range(1, m + 1):
        shift = n + k
        if shift < poly.size:
            poly[shift:] = poly[shift:] - poly[:-shift].copy()
        # divide by (1 - q^k): running sums along each residue class mod k
        pad = (-poly.size) % k
        block = np.concatenate([poly, np.zeros(pad, dtype=object)]).reshape(-1, k)
        poly = np.cumsum(block, axis=0).reshape(-1)[: m * n + 1]
    return tuple(int(v) for v in poly)


def mwu_exact_sf(u: np.ndarray, m: np.ndarray, n: np.ndarray) -> np.ndarray:
    """P(U >= u) under H0 (no ties), exact, for arrays of statistics and sample sizes."""
    u = np.asarray(u, dtype=float)
    out = np.full(u.shape, np.nan)
    sizes = np.stack([np.asarray(m, dtype=int), np.asarray(n, dtype=int)], axis=-1)
    for mm, nn in {tuple(s) for s in sizes.reshape(-1, 2).tolist()}:  # distinct size pairs only
        counts = _u_null_counts(mm, nn)
        total = sum(counts)
        tail = np.cumsum(np.array(counts[::-1], dtype=object))[::-1]  # tail[k] = #(U >= k)
        sel = (sizes[..., 0] == mm) & (sizes[..., 1] == nn)
        k = np.clip(np.ceil(u[sel] - 1e-9).astype(int), 0, len(counts))
        tail_ext = np.append(tail, 0)
        out[sel] = [float(tail_ext[i]) / total for i in k]
    return out


def grouped_mwu(x_codes: np.ndarray, x: np.ndarray, y_codes: np.ndarray, y: np.ndarray,
                n_groups: int, alternative: str = "greater",
                method: str = "auto") -> tuple[np.ndarray, np.ndarray]:
    """Mann-Whitney U test of x against y per group, vectorised; returns (U1, p).

    Matches ``scipy.stats.mannwhitneyu(x, y, alternative=..., method=method)`` group by group:
    with ``method="auto"`` the exact null distribution is used when a group has no ties and one
    sample has at most 8 values, otherwise the normal approximation with tie and continuity
    correction. Groups with an empty sample get NaN.
    """
    codes = np.concatenate([x_codes, y_codes]).astype(np.int64)
    values = np.concatenate([x, y]).astype(float)
    is_x = np.r_[np.ones(len(x), bool), np.zeros(len(y), bool)]
    n1 = np.bincount(x_codes, minlength=n_groups).astype(float)
    n2 = np.bincount(y_codes, minlength=n_groups).astype(float)
    ranks = pd.Series(values).groupby(codes).rank(method="average").to_numpy()
    r1 = np.bincount(codes[is_x], ranks[is_x], minlength=n_groups)
    u1 = r1 - n1 * (n1 + 1) / 2
    tie_counts = pd.DataFrame({"g": codes, "v": values}).groupby(["g", "v"]).size()
    t = tie_counts.to_numpy(dtype=float)
    g_of_tie = tie_counts.index.get_level_values("g").to_numpy()
    tie_term = np.bincount(g_of_tie, t ** 3 - t, minlength=n_groups)
    has_ties = np.bincount(g_of_tie, t > 1, minlength=n_groups) > 0
    if alternative == "greater":
        u, factor = u1, 1.0
    elif alternative == "less":
        u, factor = n1 * n2 - u1, 1.0
    else:
        u, factor = np.maximum(u1, n1 * n2 - u1), 2.0
    n = n1 + n2
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.sqrt(n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1))))
        z = (u - n1 * n2 / 2 - 0.5) / s
    p = special.ndtr(-z)
    if method == "exact" or method == "auto":
        exact = (n1 > 0) & (n2 > 0) & ~has_ties & ((n1 <= 8) | (n2 <= 8))
        if method == "exact":
            exact = (n1 > 0) & (n2 > 0)
        if exact.any():
            p[exact] = mwu_exact_sf(u[exact], n1[exact], n2[exact])
    p = np.clip(p * factor, 0.0, 1.0)
    empty = (n1 == 0) | (n2 == 0)
    return np.where(empty, np.nan, u1), np.where(empty, np.nan, p)


# --------------------------------------------------------------------------- the report


def _group_keys(pool_lps: bool) -> list[str]:
    return ["assessment", "worker"] if pool_lps else ["lp", "assessment", "worker"]


def _longest_runs(frame: pd.DataFrame, score: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
    """Longest run of identical consecutive scores inside one HIT, per group (WMT: 0 if none)."""
    order = np.lexsort((frame["position"].to_numpy(), pd.factorize(frame["hit"])[0], group))
    s = score[order]
    hit = pd.factorize(frame["hit"])[0][order]
    g = group[order]
    same = np.r_[False, (s[1:] == s[:-1]) & (hit[1:] == hit[:-1]) & (g[1:] == g[:-1])]
    run_id = np.cumsum(~same)
    run_len = np.bincount(run_id)[run_id]
    longest = np.zeros(n_groups, dtype=int)
    np.maximum.at(longest, g, run_len)
    return np.where(longest >= 2, longest, 0)


def worker_report(
    frame: pd.DataFrame,
    method: str = DEFAULT_METHOD,
    alpha: float = 0.05,
    *,
    pool_lps: bool = True,
    min_pairs: int = DEFAULT_MIN_PAIRS,
    require_b: bool = False,
    thresholds: FlagThresholds | None = None,
) -> pd.DataFrame:
    """Per-worker quality-control report (one row per (assessment, worker) or (lp, assessment, worker)).

    Columns: worker, assessment, lp (pooled: the worker's language pairs joined by ","), n
    (judgments), n_hits, n_pairs (bad-reference pairs), n_repeat_pairs, n_ref_pairs,
    mean_ref / mean_system / mean_bad_ref / mean_repeat (mean score of each item type),
    statistic and p_value (Assumption A test of ``method``), p_repeat (Assumption B),
    assumption_b, passed, reason (why a worker failed, "" when passed), flags (payment flags,
    comma separated), max_const_run, min_hit_seconds, mean_hit_seconds, score ("raw" or "z").
    ``statistic`` is oriented so that larger means "degraded items scored lower" (t > 0 for a
    good worker; U1 of the originals / bad-reference differences for the rank tests).
    """
    if method not in METHODS:
        raise ValueError(f"unknown QC method {method!r}; choose one of {', '.join(METHODS)}")
    if not 0 < alpha < 1:
        raise ValueError("alpha must lie strictly between 0 and 1")
    thresholds = thresholds or FlagThresholds()
    keys = _group_keys(pool_lps)
    frame = frame.reset_index(drop=True)
    codes = frame.groupby(keys, sort=False).ngroup().to_numpy(dtype=np.int64)
    g = int(codes.max()) + 1 if len(codes) else 0
    first_row = np.full(g, len(codes), dtype=np.int64)
    np.minimum.at(first_row, codes, np.arange(len(codes)))
    uniques = frame.iloc[first_row][keys].reset_index(drop=True)
    score, uses_raw = _scores(frame, keys)

    pairs = qc_pairs(frame, score)
    pair_group = codes[pairs["row_first"].to_numpy()]
    kind = pairs["kind"].to_numpy()
    first = pairs["first"].to_numpy(dtype=float)
    second = pairs["second"].to_numpy(dtype=float)
    ok = np.isfinite(first) & np.isfinite(second)
    bad = (kind == "BAD_REF") & ok
    rep = (kind == "REPEAT") & ok
    ref = (kind == "REF") & ok
    n_bad = np.bincount(pair_group[bad], minlength=g)
    n_rep = np.bincount(pair_group[rep], minlength=g)
    n_ref = np.bincount(pair_group[ref], minlength=g)

    d_bad = first[bad] - second[bad]
    if method == "paired-t":
        statistic, p_value, _ = grouped_paired_t(pair_group[bad], d_bad, g, "greater")
    elif method == "welch":
        statistic, p_value = grouped_welch(pair_group[bad], first[bad], pair_group[bad], second[bad],
                                           g, "greater")
    elif method == "mwu":
        statistic, p_value = grouped_mwu(pair_group[bad], first[bad], pair_group[bad], second[bad],
                                         g, "greater")
    else:  # bad-ref-vs-repeat
        statistic, p_value = grouped_mwu(pair_group[bad], d_bad, pair_group[rep],
                                         first[rep] - second[rep], g, "greater")
    d_rep = first[rep] - second[rep]
    _, p_repeat, _ = grouped_paired_t(pair_group[rep], d_rep, g, "two-sided")
    all_zero = (np.bincount(pair_group[rep], np.abs(d_rep), minlength=g) == 0) & (n_rep >= 1)
    p_repeat = np.where(all_zero, 1.0, p_repeat)

    item = frame["item_type"].to_numpy()
    fin = np.isfinite(score)
    means = {}
    for name, t in (("mean_ref", "REF"), ("mean_system", "SYSTEM"), ("mean_bad_ref", "BAD_REF"),
                    ("mean_repeat", "REPEAT")):
        sel = (item == t) & fin
        with np.errstate(invalid="ignore", divide="ignore"):
            means[name] = (np.bincount(codes[sel], score[sel], minlength=g)
                           / np.bincount(codes[sel], minlength=g))

    hit_key = pd.DataFrame({"g": codes, "hit": frame["hit"].to_numpy(),
                            "sec": frame["seconds"].to_numpy(dtype=float)})
    per_hit = hit_key.groupby(["g", "hit"], sort=False)["sec"].agg(["sum", "count", "size"])
    per_hit = per_hit[per_hit["count"] > 0]
    hit_g = per_hit.index.get_level_values("g").to_numpy()
    n_hits = frame.groupby(codes)["hit"].nunique().reindex(range(g)).to_numpy()
    min_hit = np.full(g, np.nan)
    mean_hit = np.full(g, np.nan)
    min_item_sec = np.full(g, np.nan)
    if len(per_hit):
        agg = pd.DataFrame({"g": hit_g, "s": per_hit["sum"].to_numpy(),
                            "per_item": per_hit["sum"].to_numpy() / per_hit["size"].to_numpy()})
        stats_hit = agg.groupby("g").agg(mn=("s", "min"), mean=("s", "mean"), fast=("per_item", "min"))
        idx = stats_hit.index.to_numpy()
        min_hit[idx] = stats_hit["mn"].to_numpy()
        mean_hit[idx] = stats_hit["mean"].to_numpy()
        min_item_sec[idx] = stats_hit["fast"].to_numpy()
    longest = _longest_runs(frame, score, codes, g)

    group_raw = np.zeros(g, dtype=bool)
    group_raw[codes] = uses_raw

    # verdicts
    enough = n_bad >= max(min_pairs, 1)
    if method == "bad-ref-vs-repeat":
        enough &= n_rep >= 1
    significant = np.nan_to_num(p_value, nan=1.0) < alpha
    b_ok = ~(np.nan_to_num(p_repeat, nan=1.0) < alpha)
    passed = enough & significant & (b_ok if require_b else True)
    reason = np.full(g, "", dtype=object)
    reason[~significant] = [f"not significant (p={p:.3g} >= {alpha:g})" for p in p_value[~significant]]
    undefined = np.isnan(p_value) & enough
    reason[undefined] = "test undefined (no variation in the scores compared)"
    if require_b:
        fail_b = enough & significant & ~b_ok
        reason[fail_b] = [f"assumption B failed (repeat p={p:.3g} < {alpha:g})" for p in p_repeat[fail_b]]
    if method == "bad-ref-vs-repeat":
        reason[(n_rep == 0) & (n_bad >= 1)] = "no repeat pairs"
    few = n_bad < max(min_pairs, 1)
    reason[few] = [f"too few bad-reference pairs ({k} < {max(min_pairs, 1)})" for k in n_bad[few]]

    flags = _flags(means, longest, min_item_sec, group_raw, thresholds)

    report = uniques
    if pool_lps:
        pairs_lp = pd.DataFrame({"g": codes, "lp": frame["lp"].to_numpy()}).drop_duplicates()
        lps = pairs_lp.sort_values("lp").groupby("g")["lp"].agg(",".join)
        report["lp"] = lps.reindex(range(g)).to_numpy()
    report["n"] = np.bincount(codes, minlength=g)
    report["n_hits"] = n_hits
    report["n_pairs"] = n_bad
    report["n_repeat_pairs"] = n_rep
    report["n_ref_pairs"] = n_ref
    for name, values in means.items():
        report[name] = values
    report["statistic"] = statistic
    report["p_value"] = p_value
    report["p_repeat"] = p_repeat
    report["assumption_b"] = np.where(np.isnan(p_repeat), None, b_ok).astype(object)
    report["passed"] = passed
    report["reason"] = reason
    report["flags"] = flags
    report["max_const_run"] = longest
    report["min_hit_seconds"] = min_hit
    report["mean_hit_seconds"] = mean_hit
    report["score"] = np.where(group_raw, "raw", "z")
    first_cols = ["worker", "assessment", "lp"]
    report = report[first_cols + [c for c in report.columns if c not in first_cols]]
    report = report.sort_values(["assessment", "worker"] + ([] if pool_lps else ["lp"]),
                                kind="stable").reset_index(drop=True)
    report.attrs.update(method=method, alpha=alpha, pool_lps=pool_lps, min_pairs=min_pairs,
                        require_b=require_b)
    return report


def _flags(means: dict, longest: np.ndarray, min_item_sec: np.ndarray, group_raw: np.ndarray,
           th: FlagThresholds) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        checks = {
            "scores": group_raw & (means["mean_system"] - means["mean_bad_ref"] <= th.near_equal),
            "low-ref": group_raw & (means["mean_ref"] < th.low_ref),
            "constant-run": longest > th.const_run,
            "fast": min_item_sec < th.fast_seconds,
        }
    names = np.array(list(checks))
    table = np.stack([np.asarray(v, dtype=bool) for v in checks.values()], axis=1)
    return np.array([",".join(names[row]) for row in table], dtype=object)


def filter_judgments(
    frame: pd.DataFrame,
    method: str = DEFAULT_METHOD,
    alpha: float = 0.05,
    *,
    pool_lps: bool = True,
    min_pairs: int = DEFAULT_MIN_PAIRS,
    require_b: bool = False,
    thresholds: FlagThresholds | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Apply worker QC: return (judgments of passing workers, per-worker report).

    All rows (every item type, every HIT) of a passing (assessment, worker) group are kept
    (per (lp, assessment, worker) with ``pool_lps=False``); all rows of failing groups are
    removed. See :func:`worker_report` for the options and the report columns.
    """
    report = worker_report(frame, method, alpha, pool_lps=pool_lps, min_pairs=min_pairs,
                           require_b=require_b, thresholds=thresholds)
    keys = _group_keys(pool_lps)
    good = report.loc[report["passed"], keys]
    mask = pd.MultiIndex.from_frame(frame[keys]).isin(pd.MultiIndex.from_frame(good)) \
        if len(good) else np.zeros(len(frame), dtype=bool)
    kept = frame[np.asarray(mask)].reset_index(drop=True)
    return kept, report


def qc_summary(report: pd.DataFrame) -> dict:
    """Counts of workers and judgments before and after filtering, from a :func:`worker_report`."""
    passed = report["passed"].to_numpy(dtype=bool)
    n = report["n"].to_numpy(dtype=int)
    b = report["assumption_b"]
    out = {
        "method": report.attrs.get("method"),
        "alpha": report.attrs.get("alpha"),
        "workers_total": int(len(report)),
        "workers_kept": int(passed.sum()),
        "judgments_total": int(n.sum()),
        "judgments_kept": int(n[passed].sum()),
        "workers_kept_share": float(passed.mean()) if len(report) else float("nan"),
        "judgments_kept_share": float(n[passed].sum() / n.sum()) if n.sum() else float("nan"),
        "kept_satisfying_b": int((passed & (b == True).to_numpy()).sum()),  # noqa: E712
        "kept_with_repeat_test": int((passed & b.notna().to_numpy()).sum()),
        "flagged_workers": int((report["flags"] != "").sum()),
    }
    return out


def lp_report(report: pd.DataFrame, frame: pd.DataFrame, lp: str) -> pd.DataFrame:
    """The rows of a (pooled) :func:`worker_report` for the workers who judged language pair ``lp`` in
    ``frame``, with ``n`` their judgments of ``lp`` (``n_pooled``: over every pair the verdict pooled)."""
    part = frame[frame["lp"].astype(str) == str(lp)]
    if "lp" in report.columns:  # pooled: the worker's pairs joined by ","; per pair: that pair
        report = report[[str(lp) in str(v).split(",") for v in report["lp"]]]
    keys = [k for k in ("assessment", "worker") if k in report.columns and k in part.columns]
    counts = part.groupby([part[k].astype(str) for k in keys], observed=True).size()
    index = pd.MultiIndex.from_frame(report[keys].astype(str)) if len(keys) > 1 \
        else pd.Index(report[keys[0]].astype(str))
    n_lp = counts.reindex(index).to_numpy()
    keep = ~pd.isna(n_lp)
    out = report[keep].copy()
    out.attrs.update(report.attrs)
    out.insert(out.columns.get_loc("n") + 1 if "n" in out.columns else len(out.columns), "n_pooled",
               out["n"].to_numpy() if "n" in out.columns else n_lp[keep])
    out["n"] = n_lp[keep].astype(int)
    return out.reset_index(drop=True)


def qc_summary_for_lp(report: pd.DataFrame, frame: pd.DataFrame, lp: str) -> dict:
    """:func:`qc_summary` of the workers of one language pair: each worker keeps the verdict of the
    (pooled) report, and only the workers who judged ``lp`` and their judgments of ``lp`` are counted
    (``workers_pooled``: how many workers the pooled verdicts covered)."""
    out = qc_summary(lp_report(report, frame, lp))
    out.update(lp=str(lp), workers_pooled=int(len(report)))
    return out


# --------------------------------------------------------------------------- simulation


def simulate_judgments(
    n_workers: int,
    hits_per_worker: int = 1,
    *,
    random_share: float = 0.0,
    n_systems: int = 10,
    n_segments: int = 500,
    degradation: float = 25.0,
    noise: float = 10.0,
    system_spread: float = 40.0,
    seed: int = 0,
    lp: str = "xx-en",
    assessment: str = "adequacy",
) -> pd.DataFrame:
    """A synthetic crowd campaign in canonical columns, built with numpy (for tests and benchmarks).

    Each HIT has 100 items in random order: 70 SYSTEM outputs, 10 REF, 10 BAD_REF and 10 REPEAT
    items pairing with distinct SYSTEM items of the HIT (docs/method/hits.md). A careful worker scores
    the item's quality (system effect + segment effect) plus their own bias and noise; a BAD_REF
    loses about ``degradation`` points; a REF scores near the top. System effects are evenly
    spaced over ``system_spread`` points, best first (sys0 > sys1 > ...). A share ``random_share`` of
    the workers (the first ones) are random clickers with uniform 0-100 scores.
    """
    rng = np.random.default_rng(seed)
    n_hits = n_workers * hits_per_worker
    per_hit = np.array(["SYSTEM"] * 70 + ["REF"] * 10 + ["BAD_REF"] * 10 + ["REPEAT"] * 10)
    rows = n_hits * 100
    hit = np.repeat(np.arange(n_hits), 100)
    worker = hit // hits_per_worker
    item_type = np.tile(per_hit, n_hits)
    # the 70 genuine items of each HIT; QC items copy items 0-9 (REF), 10-19 (BAD), 20-29 (REPEAT)
    sys_idx = rng.integers(0, n_systems, (n_hits, 70))
    seg_idx = rng.integers(0, n_segments, (n_hits, 70))
    src = np.concatenate([np.arange(70), np.arange(0, 10), np.arange(10, 20), np.arange(20, 30)])
    system = sys_idx[:, src].reshape(-1)
    segment = seg_idx[:, src].reshape(-1)
    sys_effect = np.linspace(system_spread / 2, -system_spread / 2, n_systems)
    seg_effect = rng.normal(0, 10, n_segments)
    bias = rng.normal(0, 8, n_workers)
    quality = 60 + sys_effect[system] + seg_effect[segment] + bias[worker]
    score = quality + rng.normal(0, noise, rows)
    score = np.where(item_type == "BAD_REF", score - degradation, score)
    score = np.where(item_type == "REF", 92 + rng.normal(0, 5, rows), score)
    clicker = np.arange(n_workers) < int(round(random_share * n_workers))
    score = np.where(clicker[worker], rng.uniform(0, 100, rows), score)
    raw = np.clip(np.round(score), 0, 100)
    order = np.argsort(rng.random((n_hits, 100)), axis=1)
    position = np.empty((n_hits, 100), dtype=np.int64)
    np.put_along_axis(position, order, np.arange(1, 101), axis=1)
    return pd.DataFrame({
        "campaign": "simulated", "lp": lp, "assessment": assessment,
        "worker": np.char.add("W", worker.astype(str)), "hit": np.char.add("H", hit.astype(str)),
        "position": position.reshape(-1), "segment": segment.astype(str),
        "system": np.char.add("sys", system.astype(str)), "item_type": item_type,
        "raw": raw, "z": np.nan, "seconds": rng.uniform(3, 30, rows), "doc": pd.NA,
    })
