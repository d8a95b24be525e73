"""``mtlb ingest``: validate judgment files and store them, all files in one transaction."""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

from ..errors import InputError
from ..ingest import FORMATS, detect_format, raw_score_warnings, read_judgments
from ._common import add_json_flag, pearmut_flags, print_json


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
    p.add_argument("--database-url", help="override DATABASE_URL")
    add_json_flag(p)
    p.set_defaults(func=run)


def sha256_of(paths: list[str]) -> str:
    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as fh:  # in blocks: a second copy of a large file in memory costs time
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def run_mqm(args: argparse.Namespace) -> int:
    """MQM annotation files: validated, then stored with their outputs in one transaction."""
    import pandas as pd
    from ..ingest.mqm import read_mqm
    from ..storage import Store
    from ..storage.expert import save_mqm
    frames = [read_mqm(path, lp=args.lp) for path in args.files]
    errors = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    campaign = args.campaign or Path(args.files[0]).resolve().parent.name or "campaign"
    summary = save_mqm(Store(args.database_url), campaign, errors,
                       file_name=", ".join(Path(p).name for p in args.files), sha256=sha256_of(args.files))
    result = {"campaign": campaign, "lp": summary["lps"][0] if len(summary["lps"]) == 1 else summary["lps"],
              "annotations": summary["annotations"], "outputs": summary["outputs"], "files": list(args.files),
              "input_format": "mqm", "systems": int(errors["system"].nunique()),
              "raters": int(errors["rater"].nunique()), "segments": int(errors["segment"].nunique())}
    if args.json:
        print_json(result)
    else:
        print(f"stored {result['annotations']:,} MQM annotations of {result['raters']} raters on "
              f"{result['outputs']:,} outputs of {result['systems']} systems into campaign {campaign} ({result['lp']})")
    return 0


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm
    from ..schema import concat_judgments
    from ..storage import Store

    detected = [args.input_format or detect_format(path) for path in args.files]
    if "mqm" in detected:
        if set(detected) != {"mqm"}:
            raise InputError("MQM annotation files cannot be stored together with DA judgment files; "
                             "ingest them separately")
        return run_mqm(args)
    frames, formats, logs = [], [], []
    for path in args.files:
        fmt = args.input_format or detect_format(path)
        formats.append(fmt)
        if fmt == "pearmut":  # judgments, and the error spans and texts they were given on
            from ..ingest.pearmut_log import DEFAULT_ASSESSMENT, read_pearmut_log
            if args.worker_stats:
                raise InputError("--worker-stats applies only to the WMT release format (wmt-stnd)", file=path)
            with pearmut_flags():
                logs.append(read_pearmut_log(path, campaign=args.campaign, lp=args.lp,
                                             assessment=args.assessment or DEFAULT_ASSESSMENT))
            frames.append(logs[-1].judgments)
            continue
        frames.append(read_judgments(path, fmt, worker_stats=args.worker_stats, campaign=args.campaign,
                                     lp=args.lp, assessment=args.assessment))
    left_out = sum(int(f.attrs.get("rows_of_other_lps", 0)) for f in frames)
    other_assessments = sum(int(f.attrs.get("rows_of_other_assessments", 0)) for f in frames)
    replaced = sorted({c for f in frames for c in f.attrs.get("campaigns_replaced", [])})
    frame = concat_judgments(frames) if len(frames) > 1 else frames[0]  # one file: its keys are checked
    warnings = [w for f, fmt in zip(frames, formats) for w in raw_score_warnings(f, fmt)]
    also, n_spans = None, 0
    if "appraise" in formats:
        import pandas as pd
        from ..ingest.esa import read_esa_spans
        from ..storage.expert import esa_span_writer
        spans = pd.concat([read_esa_spans(path, str(f["campaign"].iloc[0])) for path, f, fmt
                           in zip(args.files, frames, formats) if fmt == "appraise"], ignore_index=True)
        if args.lp:
            spans = spans[spans["lp"] == args.lp]
        n_spans = len(spans)
        also = esa_span_writer(spans) if n_spans else None
    if logs:
        import pandas as pd
        from ..storage.expert import esa_span_writer
        if also is not None:
            raise InputError("Appraise exports and Pearmut logs cannot be stored in one call; ingest them separately")
        spans = pd.concat([log.spans for log in logs], ignore_index=True)
        texts = pd.concat([log.items.assign(campaign=log.campaign, lp=log.lp) for log in logs], ignore_index=True)
        n_spans = len(spans)
        also = esa_span_writer(spans, assessment=str(frames[0]["assessment"].iloc[0]), outputs=texts)
    store = Store(args.database_url)
    bar = tqdm(total=len(frame), unit="judgment", desc="storing", disable=None, file=sys.stderr)
    try:
        summary = store.load_judgments(frame, file_name=", ".join(Path(p).name for p in args.files),
                                       input_format=",".join(sorted(set(formats))),
                                       sha256=sha256_of(args.files), progress=bar.update, also=also)
    finally:
        bar.close()
    result = {
        "campaign": summary["campaigns"][0] if len(summary["campaigns"]) == 1 else summary["campaigns"],
        "lp": summary["lps"][0] if len(set(summary["lps"])) == 1 else sorted(set(summary["lps"])),
        "judgments": summary["judgments"],
        "files": list(args.files),
        "input_format": formats[0] if len(set(formats)) == 1 else formats,
        "workers": int(frame["worker"].nunique()),
        "systems": int(frame["system"].nunique()),
        "item_types": {k: int(v) for k, v in frame["item_type"].value_counts().sort_index().items()},
        "raw_scores": int(frame["raw"].notna().sum()),
        "rows_of_other_lps_left_out": left_out,
        "warnings": warnings,
        "error_spans": n_spans,
        "rows_of_other_assessments_left_out": other_assessments,
        "campaign_labels_replaced": replaced,
    }
    if logs:  # what each Pearmut log held, counted and left out (resets, tutorials, attention checks)
        result["pearmut"] = [log.report for log in logs] if len(logs) > 1 else logs[0].report
    for warning in warnings:
        print(f"mtlb ingest: warning: {warning}", file=sys.stderr)
    if args.json:
        print_json(result)
    else:
        print(f"stored {result['judgments']:,} judgments of {result['workers']} workers and "
              f"{result['systems']} systems into campaign {_names(result['campaign'])} ({_names(result['lp'])})")
        if left_out:
            print(f"left out {left_out:,} judgments of other language pairs (--lp {args.lp})")
        if other_assessments:
            print(f"left out {other_assessments:,} judgments of other assessments (--assessment {args.assessment})")
        if replaced:
            print(f"the file's campaign label(s) {', '.join(replaced)} replaced by --campaign {args.campaign}")
        for log in logs:
            print(pearmut_summary(log.report))
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
