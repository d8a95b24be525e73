"""``mtlb meta-eval``: WMT23-24 metric meta-evaluation (acc_eq, SPA, system accuracy, clusters)."""

from __future__ import annotations

import argparse
import sys

from ..errors import InputError
from ._common import add_json_flag, print_json, print_table


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "meta-eval", help="rank segment-level metrics against human segment scores (acc_eq, SPA, clusters)",
        description="Meta-evaluate segment-level metric scores against human segment scores the way WMT23-24 "
                    "do: tie-calibrated pairwise accuracy grouped by segment (acc_eq, with its tie threshold "
                    "epsilon), soft pairwise accuracy (SPA), system-level pairwise accuracy, and PERM-BOTH "
                    "significance clusters among the metrics. Human MQM scores are negated (higher = better).")
    p.add_argument("--human", required=True, metavar="FILE",
                   help="human scores: MQM annotations (TSV) or a judgment file (canonical CSV, Appraise, ...)")
    p.add_argument("--human-format", metavar="FORMAT",
                   help="mqm | canonical (or another judgment format of `mtlb ingest`); default: from the content")
    p.add_argument("--human-score", choices=("raw", "z"), default="raw",
                   help="judgment files: average raw scores (default) or z-scores per (system, segment)")
    p.add_argument("--weights", default="google-mqm", metavar="SCHEME", help="MQM weight scheme (default google-mqm)")
    p.add_argument("--metric-scores", required=True, metavar="SEG.tsv",
                   help="WMT segment-level TSV: metric lp testset system seg-id score (no header)")
    p.add_argument("--lp", required=True, nargs="+", action="extend",
                   help="language pair(s); several give a global ranking across them")
    p.add_argument("--draws", type=int, default=1000, help="permutation draws for SPA and the clusters (default 1000)")
    p.add_argument("--seed", type=int, default=12345, help="seed of the permutations (default 12345)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level of the clusters (default 0.05)")
    add_json_flag(p)
    p.set_defaults(func=run)


def human_scores(args: argparse.Namespace, lp: str):
    """(system, segment, score) of the human file for one language pair."""
    from ..ingest import FORMATS, detect_format, read_judgments
    from metrics.metaeval.inputs import human_from_judgments, human_from_mqm
    fmt = args.human_format or detect_format(args.human)
    if fmt not in FORMATS:
        raise InputError(f"unknown human format {fmt!r} (choose from {', '.join(FORMATS)})", column="human-format")
    if fmt == "mqm":
        from ..ingest.mqm import read_mqm
        return human_from_mqm(read_mqm(args.human, lp=lp), lp, args.weights)
    frame = read_judgments(args.human, fmt, lp=lp)
    return human_from_judgments(frame, lp, args.human_score)


def evaluate_lp(args: argparse.Namespace, scores, lp: str) -> dict:
    from tqdm import tqdm
    from metrics.metaeval.evaluate import meta_evaluate
    from metrics.metaeval.inputs import build
    data = build(human_scores(args, lp), scores, lp, file=args.metric_scores)
    bar = tqdm(total=len(data.metrics), unit="metric", desc=f"meta-eval {lp}", disable=None, file=sys.stderr)
    try:
        result = meta_evaluate(data.human, data.metrics, lp=lp, draws=args.draws, seed=args.seed,
                               alpha=args.alpha, progress=lambda _name: bar.update())
    finally:
        bar.close()
    result["unmatched_systems"] = data.unmatched_systems
    result["unused_metric_scores"] = data.unused_scores
    return result


def run(args: argparse.Namespace) -> int:
    import pandas as pd
    from metrics.submissions import read_submission
    if args.draws < 1:
        raise InputError("draws must be positive", column="draws")
    if not 0 < args.alpha < 1:
        raise InputError("alpha must lie strictly between 0 and 1", column="alpha")
    scores = read_submission(args.metric_scores, level="segment")
    results = [evaluate_lp(args, scores, lp) for lp in dict.fromkeys(args.lp)]
    if len(results) == 1:
        out = results[0]
    else:
        from metrics.metaeval.global_rank import global_ranking
        tasks = {f"{r['lp']}/{stat}": r["clusters"][stat] for r in results for stat in ("acc_eq", "spa")}
        out = {"lps": results, "global_ranking": global_ranking(tasks).to_dict(orient="records")}
    if args.json:
        print_json(out)
        return 0
    for r in results:
        print(f"{r['lp']}: {r['n_systems']} systems, {r['n_segments']} segments, {r['draws']} permutation draws")
        print_table(pd.DataFrame(r["metrics"])[["metric", "acc_eq", "epsilon", "acc_eq_cluster", "spa",
                                                "spa_cluster", "sys_accuracy"]])
        print()
    if len(results) > 1:
        print("global ranking (average over language pairs and statistics)")
        print_table(pd.DataFrame(out["global_ranking"]))
    return 0
