"""``mtlb meta-eval``: metric meta-evaluation as the WMT23-25 Metrics tasks do it (acc_eq, SPA,
significance clusters, global ranking over language pairs)."""

from __future__ import annotations

import argparse
import sys

from ..errors import InputError
from ._common import add_json_flag, print_json, print_table


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "meta-eval", help="rank segment-level metrics against human segment scores (acc_eq, SPA, clusters)",
        description="Meta-evaluate segment-level metric scores against human segment scores the way the WMT23-25 "
                    "Metrics tasks do: tie-calibrated pairwise accuracy grouped by segment (acc_eq, with its tie "
                    "threshold epsilon), soft pairwise accuracy (SPA), system-level accuracy and Pearson, "
                    "metric-vs-metric significance clusters, and with several --lp a global ranking. Human MQM "
                    "scores are negated (higher = better).")
    p.add_argument("--human", metavar="FILE",
                   help="human scores: MQM annotations (TSV) or a judgment file (canonical CSV, Appraise, ...)")
    p.add_argument("--human-format", metavar="FORMAT",
                   help="mqm | canonical (or another judgment format of `mtlb ingest`); default: from the content")
    p.add_argument("--human-score", choices=("raw", "z"), default="raw",
                   help="judgment files: average raw scores (default) or z-scores per (system, segment)")
    p.add_argument("--human-rating", metavar="RULE",
                   help="items rated more than once: mean (default for judgment files), first (the first rating, "
                        "mt-metrics-eval's esa-human1; default for the WMT25 release), or wave:W (WMT25 release, "
                        ".jsonl)")
    p.add_argument("--weights", default="google-mqm", metavar="SCHEME", help="MQM weight scheme (default google-mqm)")
    p.add_argument("--metric-scores", metavar="SEG.tsv",
                   help="WMT segment-level TSV: metric lp testset system seg-id score (no header)")
    p.add_argument("--mtme", metavar="DIR",
                   help="instead of --human and --metric-scores: an mt-metrics-eval test-set folder (sources/, "
                        "human-scores/<lp>.<gold>.seg.score, metric-scores/<lp>/<metric>-<ref>.seg.score, …); the "
                        "references the metrics name are never compared as systems")
    p.add_argument("--mtme-gold", metavar="NAME",
                   help="with --mtme: which human scores are gold (e.g. mqm, esa-human1; default: mqm, else "
                        "esa-human1, else the only one)")
    p.add_argument("--lp", required=True, nargs="+", action="extend",
                   help="language pair(s); several give a global ranking across them")
    p.add_argument("--draws", type=int, default=1000,
                   help="significance draws per metric pair, exactly this many (default 1000)")
    p.add_argument("--early-stop", type=int, metavar="BLOCK",
                   help="stop a pair's test after a block of BLOCK draws once p < 0.02 or p > 0.5 (off by default)")
    p.add_argument("--seed", type=int, default=12345, help="seed of the significance draws (default 12345)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level of the clusters (default 0.05)")
    p.add_argument("--task-set", choices=("wmt24", "wmt25", "wmt23"), default="wmt24",
                   help="tasks of the global ranking: wmt24/wmt25 = SPA and acc_eq per pair (default); wmt23 = "
                        "system and segment Pearson and acc_eq per pair plus system accuracy pooled over pairs")
    p.add_argument("--reference", nargs="+", default=[], metavar="SYSTEM",
                   help="the reference(s) the metrics used: never compared as a system")
    p.add_argument("--human-translations", nargs="+", default=[], metavar="SYSTEM",
                   help="systems that are human translations: left out unless --include-human")
    p.add_argument("--include-human", action="store_true", help="compare the declared human translations too")
    p.add_argument("--baselines", nargs="+", default=[], metavar="METRIC",
                   help="metrics to mark as baselines (WMT's baselines and sentinel-* are marked anyway)")
    p.add_argument("--second-human", metavar="FILE",
                   help="a second human rating of the same outputs (same format), ranked as a metric: the human "
                        "ceiling")
    p.add_argument("--second-human-name", default="human-2", metavar="NAME",
                   help="name of the second rating in the tables (default human-2)")
    add_json_flag(p)
    p.set_defaults(func=run)


def human_scores(args: argparse.Namespace, lp: str, path: str | None = None):
    """(system, segment, score) of a human file for one language pair."""
    import pandas as pd
    from ..ingest import FORMATS, detect_format, read_judgments
    from metrics.metaeval.inputs import human_from_judgments, human_from_mqm
    path = path or args.human
    rule = getattr(args, "human_rating", None)
    if str(path).lower().endswith((".jsonl", ".jsonl.gz")):
        from metrics.gold import choose_gold
        from metrics.metaeval.inputs import norm_segment
        from ..ingest.humeval_jsonl import read_humeval_jsonl
        release = read_humeval_jsonl(path, lp=lp)
        items = choose_gold(release.ratings, release.spans, rule or "first", source=release.source).items
        items = items[items["score"].notna()]
        return pd.DataFrame({"system": items["system"].astype(str), "segment": items["segment"].map(norm_segment),
                             "score": items["score"].to_numpy(dtype=float)})
    fmt = args.human_format or detect_format(path)
    if fmt not in FORMATS:
        raise InputError(f"unknown human format {fmt!r} (choose from {', '.join(FORMATS)})", column="human-format")
    try:
        if fmt == "mqm":
            if rule not in (None, "mean"):
                raise InputError("an MQM segment score is the mean over its raters; choose mean", column="human-rating")
            from ..ingest.mqm import read_mqm
            return human_from_mqm(read_mqm(path, lp=lp), lp, args.weights)
        return human_from_judgments(read_judgments(path, fmt, lp=lp), lp, args.human_score, rule or "mean")
    except InputError as exc:
        raise exc.with_file(str(path))


def pair_input(args: argparse.Namespace, scores, lp: str):
    import pandas as pd
    from metrics.metaeval.evaluate import PairInput
    from metrics.metaeval.inputs import build
    from metrics.metaeval.reference import metric_kind
    sources, humans = {}, []
    if args.second_human:
        second = human_scores(args, lp, args.second_human)
        name = args.second_human_name
        scores = pd.concat([scores, second.assign(metric=name, lp=lp)], ignore_index=True)
        sources[name], humans = args.second_human, [name]
    data = build(human_scores(args, lp), scores, lp, file=args.metric_scores, human_file=args.human,
                 references=args.reference, human_translations=args.human_translations,
                 include_human=args.include_human, sources=sources)
    kinds = {m: metric_kind(m, args.baselines, humans) for m in data.metrics}
    gold = args.human_rating or ("first" if str(args.human).lower().endswith((".jsonl", ".jsonl.gz")) else "mean")
    extra = {"systems": data.systems, "excluded_systems": data.excluded, "gold_rating": gold,
             "unmatched_systems": data.unmatched_systems, "unused_metric_scores": data.unused_scores}
    return PairInput(lp, data.human, data.metrics, kinds, extra)


def mtme_pair_input(args: argparse.Namespace, lp: str):
    """A pair of an mt-metrics-eval folder: its gold human scores and every metric's segment scores."""
    from metrics.metaeval.evaluate import PairInput
    from metrics.metaeval.inputs import build, norm_segment
    from metrics.metaeval.reference import metric_kind
    from ..ingest.mtme import gold_names, read_mtme
    names = gold_names(args.mtme, lp)
    gold = args.mtme_gold or next((g for g in ("mqm", "esa-human1") if g in names), names[0] if len(names) == 1
                                  else None)
    if gold is None:
        raise InputError(f"the folder has several human scores for {lp} ({', '.join(names)}); choose one",
                         file=args.mtme, column="mtme-gold")
    data = read_mtme(args.mtme, lp, golds=[gold])
    if data.metrics.empty:
        raise InputError(f"no metric-scores/{lp}/*.seg.score", file=args.mtme, column="lp")
    human = data.human.assign(segment=data.human["segment"].map(norm_segment))[["system", "segment", "score"]]
    refs = sorted({r for r in data.references.values() if r != "src"} | set(args.reference))
    built = build(human, data.metrics, lp, file=args.mtme, human_file=args.mtme, references=refs,
                  human_translations=args.human_translations, include_human=args.include_human,
                  sources=dict(zip(data.metrics["metric"], data.metrics["file"])))
    kinds = {m: metric_kind(m, args.baselines, []) for m in built.metrics}
    extra = {"systems": built.systems, "excluded_systems": built.excluded, "gold": gold,
             "unmatched_systems": built.unmatched_systems, "unused_metric_scores": built.unused_scores}
    return PairInput(lp, built.human, built.metrics, kinds, extra)


def run(args: argparse.Namespace) -> int:
    import pandas as pd
    from tqdm import tqdm
    from metrics.metaeval.evaluate import evaluate
    from metrics.submissions import read_submission
    if args.mtme and (args.human or args.metric_scores):
        raise InputError("give either --mtme DIR or --human FILE with --metric-scores FILE")
    if not args.mtme and not (args.human and args.metric_scores):
        raise InputError("give --human FILE and --metric-scores FILE (or --mtme DIR)")
    if args.draws < 1:
        raise InputError("draws must be positive", column="draws")
    if args.seed < 0:
        raise InputError("seed must be 0 or more", column="seed")
    if args.early_stop is not None and args.early_stop < 1:
        raise InputError("early-stop must be a positive block size", column="early-stop")
    if not 0 < args.alpha < 1:
        raise InputError("alpha must lie strictly between 0 and 1", column="alpha")
    if args.mtme:
        pairs = [mtme_pair_input(args, lp) for lp in dict.fromkeys(args.lp)]
    else:
        scores = read_submission(args.metric_scores, level="segment")
        pairs = [pair_input(args, scores, lp) for lp in dict.fromkeys(args.lp)]
    bar = tqdm(unit="test", desc="meta-eval significance", disable=None, file=sys.stderr)

    def progress(done: int, total: int) -> None:
        bar.total = total
        bar.update(done - bar.n)

    try:
        out = evaluate(pairs, task_set=args.task_set, draws=args.draws, seed=args.seed, alpha=args.alpha,
                       early_stop=args.early_stop, progress=progress)
    finally:
        bar.close()
    if len(pairs) == 1:
        out = {**out.pop("lps")[0], **out}
    if args.json:
        print_json(out)
        return 0
    for r in out.get("lps", [out]):
        print(f"{r['lp']}: {r['n_systems']} systems, {r['n_segments']} segments, {args.draws} draws per metric pair")
        table = pd.DataFrame(r["metrics"])
        print_table(table[[c for c in ("metric", "kind", "acc_eq", "epsilon", "acc_eq_cluster", "spa", "spa_cluster",
                                       "sys_accuracy") if c in table.columns]])
        chance = r["reference_points"]["chance"]
        print(f"chance: random metric acc_eq {chance['random_metric']['acc_eq']:.4f}, SPA "
              f"{chance['random_metric']['spa']:.4f}; constant metric acc_eq {chance['constant_metric']['acc_eq']:.4f}")
        print()
    weights = ", ".join(f"{t['task']} {t['weight']:.3g}" for t in out["tasks"])
    print(f"global ranking over the {out['task_set']} tasks (weights: {weights})")
    ranking = pd.DataFrame(out["global_ranking"])
    ranking["missing"] = ranking["missing"].map(", ".join)
    print_table(ranking[["metric", "kind", "avg_score", "global_cluster", "avg_rank", "complete", "missing"]])
    return 0
