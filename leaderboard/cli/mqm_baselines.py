"""``mtlb mqm-baselines``: sentence BLEU / chrF of an MQM file's outputs, as a WMT segment-level TSV."""

from __future__ import annotations

import argparse

from ._common import add_json_flag, print_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("mqm-baselines", help="sentence BLEU and chrF of an MQM file's outputs (segment-level TSV)",
                       description="Score every rated output of an MQM file against the human reference rated "
                                   "with it (sacrebleu sentence BLEU and chrF) and write the WMT segment-level "
                                   "TSV (metric lp testset system seg-id score) that `mtlb meta-eval` reads.")
    p.add_argument("--input", required=True, metavar="FILE", help="MQM annotations (TSV)")
    p.add_argument("--lp", help="language pair (default: from the file name)")
    p.add_argument("--reference", help="the system whose targets are the reference (default: the human one)")
    p.add_argument("--testset", default="mqm", help="test-set name written into the TSV (default mqm)")
    p.add_argument("--output", required=True, metavar="SEG.tsv")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..expert.baselines import sentence_scores
    from ..ingest.mqm import read_mqm
    frame = sentence_scores(read_mqm(args.input, lp=args.lp), args.reference, args.testset)
    frame.to_csv(args.output, sep="\t", header=False, index=False, float_format="%.6f")
    summary = {"output": args.output, "rows": len(frame), "metrics": sorted(frame["metric"].unique()),
               "systems": int(frame["system"].nunique()), "segments": int(frame["segment"].nunique())}
    if args.json:
        print_json(summary)
    else:
        print(f"wrote {summary['rows']:,} scores ({', '.join(summary['metrics'])}) of {summary['systems']} systems "
              f"on {summary['segments']} segments to {args.output}")
    return 0
