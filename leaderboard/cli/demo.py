"""``mtlb demo``: load (and publish) the shipped demo campaigns, and give the demo store its accounts."""

from __future__ import annotations

import argparse

from ._common import add_store_flags, print_json

ROLE_WORDS = {"organiser": "organiser", "metric-developer": "metric developer"}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="load and publish the shipped demo campaigns (WMT22 cs-en excerpt, simulated crowd)",
                       description="Load and publish the shipped demo campaigns that are not stored yet; when all "
                                   "of them are, say so and change nothing. A store that holds nothing but the "
                                   "demo also gets an organiser and a metric-developer account, with passwords "
                                   "made for this store alone; they are printed here (every time) and shown on "
                                   "the app's Log in page.",
                       epilog="The container and compose deployments run `mtlb demo --no-accounts`: an app that "
                              "listens on every address shows no password to its visitors.")
    # the default since the demo can only be loaded once; kept so that existing scripts keep working
    p.add_argument("--if-empty", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--no-publish", action="store_true", help="load without publishing a ranking")
    p.add_argument("--no-accounts", action="store_true",
                   help="add no demo accounts (a deployment whose Log in page must not show passwords)")
    add_store_flags(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..publish.demo import DEMO_CAMPAIGN, SIMULATED_CAMPAIGN, WMT21_CAMPAIGN, ensure_demo, ensure_demo_accounts
    from ..storage import Store

    store = Store(args.database_url)
    result = ensure_demo(store, publish=not args.no_publish)
    if result is None:
        result = {"campaigns": [DEMO_CAMPAIGN, WMT21_CAMPAIGN, SIMULATED_CAMPAIGN], "already_loaded": True}
    accounts = {"accounts": [], "not_created": "not asked for"} if args.no_accounts else ensure_demo_accounts(store)
    result["accounts"] = accounts["accounts"]
    if args.json:
        print_json(result)
        return 0
    if result.get("already_loaded"):
        print("the demo campaigns are already loaded")
    else:
        print(f"loaded {result['judgments']:,} judgments and {result['text_lines']:,} text lines into "
              f"{', '.join(map(repr, result['campaigns']))}; published {len(result['published'])} ranking(s)")
    if accounts["accounts"]:
        print("demo accounts (they exist only in this store; log in on the app's Log in page):")
        width = max(len(a["name"]) for a in accounts["accounts"])
        for account in accounts["accounts"]:
            print(f"  {ROLE_WORDS.get(account['role'], account['role']):<17} user {account['name']:<{width}}  "
                  f"password {account['password']}")
    elif not args.no_accounts:
        print(f"no demo accounts: {accounts['not_created']}; add accounts with "
              "`mtlb user add NAME --role organiser` (or metric-developer)")
    return 0
