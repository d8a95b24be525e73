"""``mtlb error-free-eval``: error-free detection (WMT26) scored against human scores and spans."""

from __future__ import annotations

import argparse

from ..errors import InputError
from ._common import print_json
from .span_eval import add_gold_options, check_common, load_gold, parse_predictions, print_result


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "error-free-eval", help="score error-free labels (or spans, or scores) against human gold (WMT26 task)",
        description="Score error-free detection as the WMT26 MT-evaluation task defines it: a segment is error-free "
                    "when its human score is at least --threshold and no error span was marked. Submissions give a "
                    "label (0/1), error spans (none: error-free) or a score (score >= t: error-free, t chosen on a "
                    "dev split of the documents, never on the segments reported). Per submission and language pair: "
                    "precision, recall and F1 of the error-free class and the Matthews correlation, and their mean "
                    "over pairs under \"all\".")
    add_gold_options(p)
    p.add_argument("--threshold", type=float, default=85.0,
                   help="human score from which a segment without spans is error-free (default 85)")
    p.add_argument("--kind", choices=("label", "spans", "score"),
                   help="what to read from the submissions (default: label, else spans, else score)")
    p.add_argument("--dev-fraction", type=float, default=0.2,
                   help="share of documents (by a stable hash of their ids) in the dev split on which score "
                        "thresholds are chosen (default 0.2)")
    p.add_argument("--dev-docs", metavar="FILE", help="the dev split's document ids, one per line")
    p.add_argument("--score-threshold", nargs="+", action="extend", default=[], metavar="NAME=T",
                   help="a fixed score threshold for a submission (no dev split needed for it)")
    p.add_argument("--lower-is-better", nargs="+", action="extend", default=[], metavar="NAME",
                   help="score submissions whose lower scores mean better translations")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import math
    from ..ingest.textio import read_text
    from ..outputs.mteval import error_free_eval, read_annotations
    check_common(args)
    files = parse_predictions(args.predictions)
    unknown = [n for n in args.lower_is_better if n not in files]
    if unknown:
        raise InputError(f"--lower-is-better names {unknown[0]!r}, which is no submission", column="lower-is-better")
    fixed = {}
    for name, value in parse_predictions(args.score_threshold).items():
        try:
            fixed[name] = float(value)
        except ValueError:
            fixed[name] = math.nan
        if not math.isfinite(fixed[name]) or name not in files:
            raise InputError(f"--score-threshold {name}={value}: needs a submission name and a finite number",
                             column="score-threshold")
    if not math.isfinite(args.threshold):
        raise InputError("--threshold must be a finite number", column="threshold")
    docs = None
    if args.dev_docs:
        docs = [line.strip() for line in read_text(args.dev_docs, args.dev_docs).splitlines() if line.strip()]
        if not docs:
            raise InputError("the dev documents file is empty", file=args.dev_docs)
    gold = load_gold(args)
    predictions = {name: read_annotations(path, kind=args.kind, end_inclusive=args.end_inclusive)
                   for name, path in files.items()}
    result = error_free_eval(gold, predictions, threshold=args.threshold, dev_fraction=args.dev_fraction,
                             dev_documents=docs, score_thresholds=fixed, lower_is_better=args.lower_is_better,
                             draws=args.draws, seed=args.seed, alpha=args.alpha)
    if args.json:
        print_json(result.to_json())
        return 0
    print_result(result, ("precision", "recall", "f1", "mcc"))
    s = result.settings
    print(f"gold: score >= {s['threshold']:g} and no span; dev split: {s['dev']} ({s['dev_segments']} segments); "
          f"evaluated on {s['test_segments']} segments")
    return 0
