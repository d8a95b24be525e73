"""``mtlb correlate``: system-level correlation of metrics with human scores, Williams tests, clusters."""

from __future__ import annotations

import argparse

from ..errors import InputError
from ._common import add_json_flag, print_json, print_table


#: the published bootstrap (metrics.validation.N_RESAMPLES, SEED; literal here so that `mtlb --help` loads no
#: statistics module — tests/test_metrics_page_basis.py checks that the two agree)
N_RESAMPLES, SEED = 1000, 12345


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "correlate", help="system-level metric–human correlation (Pearson, Spearman, Kendall) with "
                          "bootstrap CIs, Williams tests and metric clusters",
        description="Correlate the system-level scores of every metric in a WMT metric-score file with "
                    "human system scores of one language pair. Systems match by exact name first, then "
                    "by name without a trailing '.N'. Human translations the metric scores do not cover are "
                    "left out and reported (--include-human keeps them); a metric lacking any other "
                    "system is left out and reported. CIs resample systems (the segment-resampling CI needs segment scores: "
                    "Python API metrics.bootstrap.segment_bootstrap_ci).")
    p.add_argument("--human", required=True, metavar="FILE",
                   help="mtlb rank --json output, or a WMT ad-sys-scores table (RAW.SCR Z.SCR N SYS N.ALL)")
    p.add_argument("--metric-scores", metavar="FILE",
                   help="WMT TSV without header: metric lp testset [refset] system score (this, "
                        "--segment-scores or both)")
    p.add_argument("--segment-scores", metavar="FILE",
                   help="segment-level metric scores as uploaded on the Metrics page (WMT segment TSV, or CSV "
                        "metric,lp,system,segment,score; higher = better): each metric's system score is the mean of "
                        "its segment scores; with --human-segments the segment-level correlations are added")
    p.add_argument("--human-segments", metavar="FILE",
                   help="the ranking's per-segment human scores (mtlb published --format segments): adds the "
                        "segment-level correlations of --segment-scores as the Metrics page computes them (DARR tau, "
                        "Pearson over all cells against z, Kendall tau-b within segments; CIs resample segments)")
    p.add_argument("--lp", required=True, help="language pair, e.g. cs-en")
    p.add_argument("--assessment", help="with rank JSON holding several assessments (adequacy, fluency): which one")
    p.add_argument("--human-score", choices=["z", "raw"], default="z",
                   help="correlate with Ave z (default) or raw Ave")
    p.add_argument("--exclude", nargs="+", action="extend", default=[], metavar="SYSTEM",
                   help="human systems to leave out (e.g. a human translation: Human-A.0)")
    p.add_argument("--include-human", action="store_true",
                   help="keep human translations (marked \"human\" in the rank JSON, else named HUMAN-*, Human-*, "
                        "ref-*, ref.*) that a metric does not score; by default they are left out and reported "
                        "under 'excluded', and a missing score of any other system skips the metric")
    p.add_argument("--exclude-outliers", action="store_true",
                   help="leave out systems whose human score is a MAD outlier (robust z > 2.5, Mathur et al. 2020)")
    p.add_argument("--outlier-threshold", type=float, default=2.5, help="robust z cut-off (default 2.5)")
    p.add_argument("--human-raw-metric", nargs="?", const="HUMAN_RAW", default=None, metavar="NAME",
                   help="also correlate the raw human score as if it were a metric (name default HUMAN_RAW)")
    p.add_argument("--testset", help="use only rows of this test set")
    p.add_argument("--refset", help="use only rows of this reference set (6-column files)")
    p.add_argument("--resamples", type=int, default=N_RESAMPLES,
                   help=f"bootstrap resamples (default {N_RESAMPLES}; 0 = no CIs)")
    p.add_argument("--seed", type=int, default=SEED, help=f"random seed (default {SEED})")
    p.add_argument("--alpha", type=float, default=0.05, help="1 − confidence level and cluster significance level")
    p.add_argument("--permutation", action="store_true",
                   help="add PERM-BOTH permutation p-values over systems (key 'permutation')")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import pandas as pd
    from metrics.validation import correlate_lp
    from metrics.sysscores_tsv import read_human_sys_scores, read_metric_sys_scores

    human = read_human_sys_scores(args.human)
    if not args.metric_scores and not args.segment_scores:
        raise InputError("give --metric-scores, --segment-scores or both")
    if args.human_segments and not args.segment_scores:
        raise InputError("--human-segments needs --segment-scores")
    frames, segments = [], None
    if args.metric_scores:
        frames.append(read_metric_sys_scores(args.metric_scores))
    if args.segment_scores:
        segments, system_level = _segment_scores(args.segment_scores, args.lp)
        frames.append(system_level)
    metric_scores = pd.concat(frames, ignore_index=True)
    if not (metric_scores["lp"] == args.lp).any():
        found = ", ".join(sorted(metric_scores["lp"].unique()))
        raise InputError(f"no metric scores for language pair {args.lp} (found: {found})",
                         file=args.metric_scores or args.segment_scores, column="lp")
    if args.resamples < 0:
        raise InputError("--resamples must be 0 or more")
    if not 0 < args.alpha < 1:
        raise InputError("--alpha must be between 0 and 1")
    result = correlate_lp(
        human, metric_scores, args.lp, args.human_score, exclude=args.exclude,
        exclude_outliers=args.exclude_outliers, outlier_threshold=args.outlier_threshold,
        human_raw_metric=args.human_raw_metric, testset=args.testset, refset=args.refset,
        n_resamples=args.resamples, seed=args.seed, alpha=args.alpha, permutation=args.permutation,
        assessment=args.assessment, include_human=args.include_human)
    if args.human_segments:
        from metrics.sysscores_tsv import read_human_segment_scores
        from ..publish.metric_eval import segment_level
        table = segment_level(read_human_segment_scores(args.human_segments), segments, result["systems"],
                              n_resamples=args.resamples, seed=args.seed)
        result["segment_level"] = table.to_dict(orient="records")
    if args.json:
        print_json(result)
        return 0
    print(f"{result['lp']}: {result['n_systems']} systems, human score {result['human_score']}")
    if result["excluded"]:
        print("excluded: " + ", ".join(f"{e['system']} ({e['reason']})" for e in result["excluded"]))
    from metrics.validation import HUMAN_UNSCORED
    humans = [e["system"] for e in result["excluded"] if e["reason"] == HUMAN_UNSCORED]
    if humans:
        print(f"note: {', '.join(humans)} {'is a human translation' if len(humans) == 1 else 'are human translations'} "
              "that the metric scores do not cover, left out of every correlation (--include-human keeps "
              f"{'it' if len(humans) == 1 else 'them'})")
    clusters = {c["metric"]: c["cluster"] for c in result["clusters"]}
    rows = []
    for m in result["metrics"]:
        row = {"cluster": clusters.get(m["metric"]), "metric": m["metric"], "pearson": m["pearson"]}
        if "pearson_ci" in m:
            row["pearson_lo"], row["pearson_hi"] = m["pearson_ci"]
        row["spearman"] = m["spearman"]
        row["kendall"] = m["kendall"]
        row["n"] = m["n_systems"]
        rows.append(row)
    print_table(pd.DataFrame(rows), floatfmt="{:.3f}")
    if "segment_level" in result:
        print("segment level (DARR tau, Pearson r over all cells against human z, Kendall tau-b within segments):")
        print_table(pd.DataFrame(result["segment_level"])[["metric", "darr_tau", "darr_pairs", "pearson", "kendall_item",
                                                         "cells"]], floatfmt="{:.3f}")
    for s in result["skipped"]:
        print(f"skipped {s['metric']}: no score for {', '.join(s['missing'])}")
    if result["skipped"]:
        missing = sorted({name for s in result["skipped"] for name in s["missing"]})
        print(f"(to correlate over the other systems: --exclude {' '.join(missing)})")
    return 0


def _segment_scores(path: str, lp: str):
    """(segment scores of ``lp``: metric, system, segment, score; their per-system means as system-level
    rows) of a metric submission file, read as the Metrics page's upload reads it."""
    from metrics.submissions import read_submission
    frame = read_submission(path, level="segment")
    part = frame[frame["lp"].astype(str) == lp]
    seg = part[["metric", "system", "segment", "score"]].reset_index(drop=True)
    means = seg.groupby(["metric", "system"], as_index=False, sort=False)["score"].mean()
    return seg, means.assign(lp=lp, testset=None, refset=None)
