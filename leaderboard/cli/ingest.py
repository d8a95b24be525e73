"""``mtlb ingest``: validate judgment files and store them, all files in one transaction."""

from __future__ import annotations

import argparse
import sys

from ..ingest import FORMATS
from ._common import add_store_flags, pearmut_flags, print_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ingest", help="load judgment files into the store (one transaction)",
                       description="Validate DA judgment files and store them. Every file is checked "
                                   "before anything is written; on any error nothing is stored. Options win over "
                                   "the files: --campaign relabels, --lp / --assessment keep only matching "
                                   "judgments (the rest is reported; a file with none is refused).",
                       epilog="Example: mtlb ingest wmt22-toen-da/ad-csen-good-stnd.csv "
                              "--worker-stats wmt22-toen-da/ad-csen-trk-mean-sd.txt --campaign wmt22")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--input-format", choices=FORMATS, help="skip format detection")
    p.add_argument("--worker-stats", metavar="FILE",
                   help="per-worker mean/sd print-out of the WMT release (raw = z*sd + mean)")
    p.add_argument("--campaign", help="store every judgment into this campaign, replacing campaign labels in the "
                                      "file (default: the file's labels, else its folder name)")
    p.add_argument("--lp", help="keep only this language pair (or set it when the file has none; a Pearmut log's "
                                "pair, default: the one its WMT26 campaign id names, eng_Latn---isl_Latn v3)")
    p.add_argument("--assessment", help="keep only this assessment (or set it when the file has none; "
                                        "default adequacy)")
    add_store_flags(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm
    from ..storage import Store
    from ..usecases.store_files import InputFile, read_files, store_read

    with pearmut_flags():
        read = read_files([InputFile.of(p) for p in args.files], input_format=args.input_format,
                          worker_stats=InputFile.of(args.worker_stats) if args.worker_stats else None,
                          campaign=args.campaign, lp=args.lp, assessment=args.assessment)
    store = Store(args.database_url)
    if read.kind == "mqm":
        result = store_read(store, read)
        if args.json:
            print_json(result)
        else:
            print(f"stored {result['annotations']:,} MQM annotations of {result['raters']} raters on "
                  f"{result['outputs']:,} outputs of {result['systems']} systems into campaign "
                  f"{read.campaign} ({result['lp']})")
        return 0
    bar = tqdm(total=len(read.frame), unit="judgment", desc="storing", disable=None, file=sys.stderr)
    try:
        result = store_read(store, read, progress=bar.update)
    finally:
        bar.close()
    for warning in result["warnings"]:
        print(f"mtlb ingest: warning: {warning}", file=sys.stderr)
    if args.json:
        print_json(result)
    else:
        print(f"stored {result['judgments']:,} judgments of {result['workers']} workers and "
              f"{result['systems']} systems into campaign {_names(result['campaign'])} ({_names(result['lp'])})")
        if result["rows_of_other_lps_left_out"]:
            print(f"left out {result['rows_of_other_lps_left_out']:,} judgments of other language pairs "
                  f"(--lp {args.lp})")
        if result["rows_of_other_assessments_left_out"]:
            print(f"left out {result['rows_of_other_assessments_left_out']:,} judgments of other assessments "
                  f"(--assessment {args.assessment})")
        if result["campaign_labels_replaced"]:
            print(f"the file's campaign label(s) {', '.join(result['campaign_labels_replaced'])} replaced by "
                  f"--campaign {args.campaign}")
        for report in read.pearmut_reports:
            print(pearmut_summary(report))
    return 0


def pearmut_summary(report: dict) -> str:
    """One paragraph on what a Pearmut log held and what of it was left out."""
    kinds = report["lines_by_kind"]
    left = {k: v for k, v in report["segments_left_out"].items() if v}
    text = (f"Pearmut log {report['campaign']}: {report['lines']} lines, {kinds['reset']} reset(s) voiding "
            f"{report['voided_lines']} earlier line(s); left out: {kinds['tutorial']} tutorial, "
            f"{kinds['attention_check']} attention-check, {kinds['goodbye']} goodbye page(s) and "
            f"{kinds['no_item_id']} without item ids; {report['counted_lines']} page(s) counted, "
            f"{report['error_spans']:,} error spans ({report['special_token_spans']} on special tokens)")
    if left:
        text += "; segments left out: " + ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in left.items())
    return text


def _names(value: str | list[str]) -> str:
    return value if isinstance(value, str) else ", ".join(value)
