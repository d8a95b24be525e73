"""``mtlb allocation-sim``: compare allocation rules for dynamic assignment on simulated cESA campaigns."""

from __future__ import annotations

import argparse
import sys

from ._common import add_json_flag, print_json, print_table


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "allocation-sim",
        help="judgments each allocation rule needs to find the true top cluster, and its false claims",
        description="Simulate contrastive-ESA campaigns fitted to WMT24 ESA data (docs/method/allocation.md) "
                    "under each allocation rule, many runs at once, and report per rule the judgments "
                    "needed until the ranking test recovers the true top cluster in 95% of runs "
                    "(judgments_95) and the share of truly equal system pairs it declares different "
                    "(false_claim_rate), under the test the rule is reported with; the WMT26 rule, its "
                    "calibrated yardstick and the anytime paired test are all given under by_test.")
    p.add_argument("--rules", nargs="+", default=["uniform", "running-rank", "race"], metavar="RULE",
                   help="allocation rules (uniform, running-rank, race; default all three)")
    p.add_argument("--systems", type=int, default=20, metavar="N", help="systems per campaign (default 20)")
    p.add_argument("--runs", type=int, default=100, metavar="N", help="simulated campaigns per rule (default 100)")
    p.add_argument("--seed", type=int, default=1, metavar="S", help="seed of the campaign design and the runs")
    p.add_argument("--max-judgments", type=int, metavar="N",
                   help="stop a rule's runs at this many judgments (default 1,500 per system)")
    p.add_argument("--top-gap", type=float, default=3.0, metavar="POINTS",
                   help="the true best system stands this far above the runner-up (default 3)")
    p.add_argument("--tie-pairs", type=int, metavar="N", help="truly equal pairs below the top (default systems/5)")
    p.add_argument("--docs", type=int, default=600, metavar="N", help="documents in the test set (default 600)")
    p.add_argument("--pool-docs", type=int, default=40, metavar="N",
                   help="shortest documents handed out first, the cold-start pool (default 40)")
    p.add_argument("--careless-share", type=float, default=0.1, metavar="P",
                   help="share of careless annotators (default 0.1)")
    p.add_argument("--check-prob", type=float, default=0.2, metavar="P",
                   help="chance of an attention check before a page (default 0.2)")
    p.add_argument("--session-pages", type=int, default=20, metavar="N", help="pages per annotator (default 20)")
    p.add_argument("--slot-cap", type=int, default=2, metavar="N",
                   help="annotations an item x model slot takes before it is full (default 2)")
    p.add_argument("--coldstart", type=int, default=20, metavar="N",
                   help="running-rank's cold start: items per model (WMT26: 20)")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from ..errors import InputError
    from ..human.allocation import RULES
    from ..human.allocation_sim import compare_rules

    unknown = [r for r in args.rules if r not in RULES]
    if unknown:
        raise InputError(f"unknown rule(s) {', '.join(unknown)}; choose from {', '.join(RULES)}", column="rules")
    for name in ("runs", "docs", "session_pages", "slot_cap"):
        if getattr(args, name) < 1:
            raise InputError(f"--{name.replace('_', '-')} must be at least 1", column=name)
    for name in ("careless_share", "check_prob"):
        if not 0.0 <= getattr(args, name) <= 1.0:
            raise InputError(f"--{name.replace('_', '-')} must be between 0 and 1", column=name)
    scenario_args = {"n_docs": args.docs, "pool_docs": min(args.pool_docs, args.docs), "top_gap": args.top_gap,
                     "careless_share": args.careless_share, "check_prob": args.check_prob,
                     "session_pages": args.session_pages, "slot_cap": args.slot_cap}
    if args.tie_pairs is not None:
        scenario_args["tie_pairs"] = args.tie_pairs
    bars: dict[str, tqdm] = {}

    def progress(rule: str, pages: int) -> None:
        bar = bars.get(rule)
        if bar is None:
            bar = bars[rule] = tqdm(desc=f"{rule}", unit=" pages", disable=None, file=sys.stderr, leave=False)
        bar.update(pages - bar.n)

    try:
        out = compare_rules(args.rules, args.systems, args.runs, args.seed, max_judgments=args.max_judgments,
                            rule_params={"running-rank": {"coldstart": args.coldstart}}, progress=progress,
                            **scenario_args)
    finally:
        for bar in bars.values():
            bar.close()
    if args.json:
        print_json(out)
        return 0
    import pandas as pd
    rows = []
    for name, res in out["rules"].items():
        for test, s in res["by_test"].items():
            rows.append({"rule": name, "test": test, "reported": "yes" if test == res["test"] else "",
                         "alpha": s["alpha"], "judgments_95": s["judgments_95"],
                         "false_claim_rate": s["false_claim_rate"], "recovered_at_end": s["recovered_share_end"]})
    sc = out["scenario"]
    print(f"{sc['systems']} systems, {sc['documents']} documents, {out['runs']} runs, seed {out['seed']}; "
          f"true top cluster {', '.join(sc['top_cluster'])} ({sc['top_gap']} points ahead); "
          f"{len(sc['tied_pairs'])} truly equal pairs")
    print_table(pd.DataFrame(rows), floatfmt="{:.4g}")
    return 0
