"""``mtlb correlate``: system-level correlation of metrics with human scores, Williams tests, clusters."""

from __future__ import annotations

import argparse

from ..errors import InputError
from ._common import add_json_flag, print_json, print_table


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
    p.add_argument("--metric-scores", required=True, metavar="FILE",
                   help="WMT TSV without header: metric lp testset [refset] system score")
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
    p.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default 1000; 0 = no CIs)")
    p.add_argument("--seed", type=int, default=12345, help="random seed (default 12345)")
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
    metric_scores = read_metric_sys_scores(args.metric_scores)
    if not (metric_scores["lp"] == args.lp).any():
        found = ", ".join(sorted(metric_scores["lp"].unique()))
        raise InputError(f"no metric scores for language pair {args.lp} (found: {found})",
                         file=args.metric_scores, column="lp")
    if args.resamples < 0:
        raise InputError("--resamples must be 0 or more")
    if not 0 < args.alpha < 1:
        raise InputError("--alpha must be between 0 and 1")
    try:
        result = correlate_lp(
            human, metric_scores, args.lp, args.human_score, exclude=args.exclude,
            exclude_outliers=args.exclude_outliers, outlier_threshold=args.outlier_threshold,
            human_raw_metric=args.human_raw_metric, testset=args.testset, refset=args.refset,
            n_resamples=args.resamples, seed=args.seed, alpha=args.alpha, permutation=args.permutation,
            assessment=args.assessment, include_human=args.include_human)
    except InputError:
        raise
    except ValueError as exc:
        raise InputError(str(exc)) from None
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
    for s in result["skipped"]:
        print(f"skipped {s['metric']}: no score for {', '.join(s['missing'])}")
    if result["skipped"]:
        missing = sorted({name for s in result["skipped"] for name in s["missing"]})
        print(f"(to correlate over the other systems: --exclude {' '.join(missing)})")
    return 0
