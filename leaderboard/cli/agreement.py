"""``mtlb agreement``: intra-/inter-annotator agreement on repeat pairs (Graham et al. 2013;
docs/method/agreement.md)."""

from __future__ import annotations

import argparse

from ._common import add_json_flag, print_json, print_table
from .qc import add_input_arguments, add_qc_arguments, apply_qc, load_inputs


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("agreement", help="annotator agreement (kappa on 5/4/2 categories, score differences)",
                       description="Kappa over same-worker repeat pairs (intra) and different-worker "
                                   "judgments of the same translation (inter), raw and standardised, "
                                   "plus mean / sd of absolute score differences. kappa uses "
                                   "Pr(e) = 1/k as in Graham et al. (2013); kappa_cohen uses the raters' marginals.")
    add_input_arguments(p)
    p.add_argument("--categories", nargs="+", type=int, default=[5, 4, 2], metavar="K",
                   help="numbers of categories (default 5 4 2)")
    add_qc_arguments(p, None)
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..human.agreement import agreement_table, difference_table
    frame = load_inputs(args)
    if args.method:
        frame, _ = apply_qc(frame, args)
    kappa = agreement_table(frame, args.categories)
    diff = difference_table(frame)
    if args.json:
        print_json({"qc_method": args.method, "judgments": len(frame), "kappa": kappa, "differences": diff})
        return 0
    print_table(kappa)
    print()
    print_table(diff, floatfmt="{:.3f}")
    return 0
