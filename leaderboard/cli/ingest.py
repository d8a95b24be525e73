"""``mtlb ingest``: validate judgment files and store them, all files in one transaction."""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

from ..ingest import FORMATS, detect_format, read_judgments
from ._common import add_json_flag, print_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ingest", help="load judgment files into the store (one transaction)",
                       description="Validate DA judgment files and store them. Every file is checked "
                                   "before anything is written; on any error nothing is stored.")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--input-format", choices=FORMATS, help="skip format detection")
    p.add_argument("--worker-stats", metavar="FILE",
                   help="per-worker mean/sd print-out of the WMT release (raw = z*sd + mean)")
    p.add_argument("--campaign", help="campaign name (default: the file's folder name)")
    p.add_argument("--lp", help="keep only this language pair (or set it when the file has none)")
    p.add_argument("--assessment", help="assessment type when the file does not say (default adequacy)")
    p.add_argument("--database-url", help="override DATABASE_URL")
    add_json_flag(p)
    p.set_defaults(func=run)


def sha256_of(paths: list[str]) -> str:
    digest = hashlib.sha256()
    for path in paths:
        digest.update(Path(path).read_bytes())
    return digest.hexdigest()


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm
    from ..schema import concat_judgments
    from ..storage import Store

    frames, formats = [], []
    for path in args.files:
        fmt = args.input_format or detect_format(path)
        formats.append(fmt)
        frames.append(read_judgments(path, fmt, worker_stats=args.worker_stats, campaign=args.campaign,
                                     lp=args.lp, assessment=args.assessment))
    left_out = sum(int(f.attrs.get("rows_of_other_lps", 0)) for f in frames)
    frame = concat_judgments(frames)
    store = Store(args.database_url)
    bar = tqdm(total=len(frame), unit="judgment", desc="storing", disable=None, file=sys.stderr)
    try:
        summary = store.load_judgments(frame, file_name=", ".join(Path(p).name for p in args.files),
                                       input_format=",".join(sorted(set(formats))),
                                       sha256=sha256_of(args.files), progress=bar.update)
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
    }
    if args.json:
        print_json(result)
    else:
        print(f"stored {result['judgments']:,} judgments of {result['workers']} workers and "
              f"{result['systems']} systems into campaign {result['campaign']} ({result['lp']})")
        if left_out:
            print(f"left out {left_out:,} judgments of other language pairs (--lp {args.lp})")
    return 0
