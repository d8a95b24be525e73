"""``mtlb score``: BLEU / chrF / chrF++ / TER of system outputs with sacrebleu, with signatures."""

from __future__ import annotations

import argparse
import sys

from ..errors import InputError
from ._common import add_json_flag, print_json, print_table


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "score", help="automatic scores (BLEU, chrF, chrF++, TER) of system outputs with sacrebleu",
        description="Score aligned plain-text system outputs (one segment per line) against one or more "
                    "references with sacrebleu's default settings. Hypothesis files named "
                    "<testset>.<lp>.hyp.<system>.<lang> give the system name (else the file stem); a "
                    "directory stands for its files containing '.<lp>.hyp.' ('.<lp>.ref.' for --ref). "
                    "Several --ref files are scored as multiple references.")
    p.add_argument("--lp", help="language pair, e.g. cs-en (selects files in directories, checked against names)")
    p.add_argument("--hyp", nargs="+", action="extend", required=True, metavar="FILE_OR_DIR",
                   help="system output files or directories")
    p.add_argument("--ref", nargs="+", action="extend", required=True, metavar="FILE_OR_DIR",
                   help="reference file(s); several = multi-reference")
    p.add_argument("--metric", nargs="+", action="extend", metavar="NAME",
                   help="bleu, chrf, chrf++, ter (default: bleu chrf)")
    p.add_argument("--segments", action="store_true", help="also output per-segment scores")
    p.add_argument("--decimals", type=int, default=3,
                   help="round scores in the output to this many decimals (default 3; -1 = no rounding)")
    add_json_flag(p)
    p.set_defaults(func=run)


def _round(value: float, decimals: int) -> float:
    return value if decimals < 0 else round(value, decimals)


def run(args: argparse.Namespace) -> int:
    import pandas as pd
    from metrics.scoring import METRICS, score_systems
    from metrics.textfiles import expand_paths, lp_of_name, read_aligned, system_name

    metrics = [m.lower() for m in (args.metric or ["bleu", "chrf"])]
    for m in metrics:
        if m not in METRICS:
            raise InputError(f"unknown metric {m!r} (choose from {', '.join(METRICS)})", column="metric")
    hyp_files = expand_paths(args.hyp, args.lp, "hyp")
    ref_files = expand_paths(args.ref, args.lp, "ref")
    lp = args.lp
    for path, kind in [(f, "hyp") for f in hyp_files] + [(f, "ref") for f in ref_files]:
        named = lp_of_name(path, kind)
        if named and lp and named != lp:
            raise InputError(f"the file name says language pair {named}, but --lp is {lp}", file=str(path))
        lp = lp or named
    systems: dict[str, str] = {}
    for path in hyp_files:
        name = system_name(path)
        if name in systems:
            raise InputError(f"system {name!r} is given twice (also {systems[name]})", file=str(path))
        systems[name] = str(path)

    texts = read_aligned([*ref_files, *hyp_files])
    refs = texts[:len(ref_files)]
    hyps = dict(zip(systems, texts[len(ref_files):]))

    results = []
    for metric in metrics:
        res = score_systems(hyps, refs, metric, segments=args.segments, progress=True, lp=lp)
        out = {"lp": lp, "metric": metric, "signature": res["signature"],
               "systems": {s: _round(v, args.decimals) for s, v in res["systems"].items()}}
        if args.segments:
            out["segments"] = {s: [_round(v, args.decimals) for v in vals] for s, vals in res["segments"].items()}
            out["segment_signature"] = res["segment_signature"]
        results.append(out)

    if args.json:
        print_json(results[0] if len(results) == 1 else results)
        return 0
    table = pd.DataFrame({"system": list(hyps)})
    for res in results:
        table[res["metric"]] = [res["systems"][s] for s in hyps]
    print(f"language pair: {lp or '?'}; references: {', '.join(str(f) for f in ref_files)}")
    print_table(table, floatfmt="{:.%df}" % (args.decimals if args.decimals >= 0 else 4))
    for res in results:
        print(f"{res['metric']}: {res['signature']}")
        if args.segments:
            print(f"{res['metric']} (segments): {res['segment_signature']}")
    if args.segments:
        print("(per-segment scores are printed with --json)", file=sys.stderr)
    return 0
