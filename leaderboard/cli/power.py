"""``mtlb power``: share of significantly different system pairs vs judgments per system."""

from __future__ import annotations

import argparse

from ._common import add_json_flag, print_json, print_table
from .qc import add_input_arguments, add_qc_arguments, apply_qc, load_inputs


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("power", help="power curve: significant system pairs as judgments grow "
                                     "(Graham et al. 2017, Table 6)",
                       description="Take the HITs in collection order (file order), and for growing "
                                   "prefixes test every system pair (one-sided Mann-Whitney on per-segment "
                                   "mean z); print the share of pairs significant at each level.")
    add_input_arguments(p)
    p.add_argument("--steps", type=int, default=10, help="number of prefixes (default 10)")
    p.add_argument("--levels", nargs="+", type=float, default=[0.05, 0.01, 0.001], metavar="ALPHA",
                   help="significance levels (default 0.05 0.01 0.001)")
    add_qc_arguments(p, None)
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..errors import InputError
    from ..human.power import power_curve
    if args.steps < 1:
        raise InputError("--steps must be at least 1", column="steps")
    frame = load_inputs(args)
    if args.method:
        frame, _ = apply_qc(frame, args)
    curve = power_curve(frame, args.steps, alphas=args.levels)
    if args.json:
        print_json({"qc_method": args.method, "curve": curve})
        return 0
    print_table(curve, floatfmt="{:.3f}")
    return 0
