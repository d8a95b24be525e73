"""``mtlb campaigns``: what the store holds."""

from __future__ import annotations

import argparse

from ._common import add_json_flag, print_json, print_table


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("campaigns", help="list stored campaigns with judgment counts")
    p.add_argument("--database-url", help="override DATABASE_URL")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..storage import Store

    frame = Store(args.database_url).campaigns()
    if args.json:
        print_json(frame)
    else:
        print_table(frame.fillna({"lp": "", "assessment": ""}))
    return 0
