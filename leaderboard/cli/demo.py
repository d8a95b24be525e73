"""``mtlb demo``: load (and publish) the shipped demo campaign."""

from __future__ import annotations

import argparse

from ._common import add_json_flag, print_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="load and publish the shipped demo campaigns (WMT22 cs-en excerpt, simulated crowd)",
                       description="Load and publish the shipped demo campaigns that are not stored yet; when all "
                                   "of them are, say so and change nothing.")
    # the default since the demo can only be loaded once; kept so that existing scripts keep working
    p.add_argument("--if-empty", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--no-publish", action="store_true", help="load without publishing a ranking")
    p.add_argument("--database-url", help="override DATABASE_URL")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..publish.demo import DEMO_CAMPAIGN, SIMULATED_CAMPAIGN, ensure_demo
    from ..storage import Store

    store = Store(args.database_url)
    result = ensure_demo(store, publish=not args.no_publish)
    if result is None:
        result = {"campaigns": [DEMO_CAMPAIGN, SIMULATED_CAMPAIGN], "already_loaded": True}
    if args.json:
        print_json(result)
    elif result.get("already_loaded"):
        print("the demo campaigns are already loaded")
    else:
        print(f"loaded {result['judgments']:,} judgments and {result['text_lines']:,} text lines into "
              f"{', '.join(map(repr, result['campaigns']))}; published {len(result['published'])} ranking(s)")
    return 0
