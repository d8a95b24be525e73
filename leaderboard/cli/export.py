"""``mtlb export``: write a campaign's stored judgments in the canonical format."""

from __future__ import annotations

import argparse
import sys

from ..errors import InputError
from ._common import add_store_flags, print_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export", help="write stored judgments as canonical CSV/TSV/Parquet")
    p.add_argument("--campaign", required=True)
    p.add_argument("--lp")
    p.add_argument("--assessment")
    p.add_argument("--out", help="output file (.csv, .tsv or .parquet); default: CSV on stdout")
    add_store_flags(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..storage import Store
    from ..tables import write_table

    frame = Store(args.database_url).judgments(args.campaign, args.lp, args.assessment)
    if frame.empty:
        raise InputError(f"no stored judgments for campaign {args.campaign!r}"
                         + (f" lp {args.lp}" if args.lp else ""))
    if args.out:
        write_table(frame, args.out)
        if args.json:
            print_json({"campaign": args.campaign, "lp": args.lp, "judgments": len(frame), "out": args.out})
        else:
            print(f"wrote {len(frame):,} judgments to {args.out}", file=sys.stderr)
    else:
        write_table(frame, sys.stdout)
    return 0
