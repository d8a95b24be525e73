"""``mtlb qc``: worker quality control (docs/method/quality-control.md) with a per-worker report."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..errors import InputError
from ..ingest import FORMATS, read_judgments
from ._common import add_json_flag, print_json, print_table

if TYPE_CHECKING:  # annotations only: pandas loads inside the functions
    import pandas as pd

SHOWN = ["worker", "assessment", "lp", "n", "n_pairs", "mean_ref", "mean_system", "mean_bad_ref",
         "p_value", "p_repeat", "passed", "reason", "flags"]


def add_input_arguments(p: argparse.ArgumentParser) -> None:
    """--input / --worker-stats / --input-format, shared by qc, agreement and power."""
    p.add_argument("--input", nargs="+", action="extend", required=True, metavar="FILE",
                   help="judgment file(s); several files are pooled (e.g. all language pairs)")
    p.add_argument("--worker-stats", nargs="+", action="extend", metavar="FILE",
                   help="WMT release per-worker mean/sd file(s) (raw = z*sd + mean): one for all "
                        "inputs or one per input, in the same order")
    p.add_argument("--input-format", choices=FORMATS, help="skip format detection")


def load_inputs(args: argparse.Namespace) -> pd.DataFrame:
    """Read and pool the --input files."""
    from ..schema import concat_judgments
    frames = [read_judgments(path, args.input_format, worker_stats=ws)
              for path, ws in zip(args.input, worker_stats_per_input(args))]
    return concat_judgments(frames) if len(frames) > 1 else frames[0]


def worker_stats_per_input(args: argparse.Namespace) -> list[str | None]:
    """The --worker-stats file of each --input (one for all, one each, or none)."""
    stats = args.worker_stats or []
    if len(stats) not in (0, 1, len(args.input)):
        raise InputError(f"give one --worker-stats file for all inputs or one per input "
                         f"({len(args.input)}), not {len(stats)}", column="worker-stats")
    return [stats[0] if len(stats) == 1 else (stats[i] if stats else None) for i in range(len(args.input))]


def add_qc_arguments(p: argparse.ArgumentParser, default: str | None) -> None:
    from ..human.qc_methods import DEFAULT_MIN_PAIRS, METHODS
    p.add_argument("--method", choices=METHODS, default=default,
                   help="Assumption A test: paired-t (WMT organisers, default), bad-ref-vs-repeat "
                        "(Graham et al. 2017), welch / mwu (unpaired; mwu = Appraise's check)")
    p.add_argument("--alpha", type=float, default=0.05, help="a worker passes when p < alpha (default 0.05)")
    p.add_argument("--per-lp", action="store_true",
                   help="judge each (lp, worker) separately instead of pooling a worker's language pairs")
    p.add_argument("--min-pairs", type=int, default=DEFAULT_MIN_PAIRS,
                   help=f"fewest bad-reference pairs a passing worker needs (default {DEFAULT_MIN_PAIRS})")
    p.add_argument("--require-b", action="store_true",
                   help="also remove workers whose repeat scores differ significantly (Assumption B)")


def apply_qc(frame: pd.DataFrame, args: argparse.Namespace) -> tuple[pd.DataFrame, pd.DataFrame]:
    from ..human.qc import filter_judgments
    if not 0 < args.alpha < 1:
        raise InputError("--alpha must lie strictly between 0 and 1", column="alpha")
    return filter_judgments(frame, args.method, args.alpha, pool_lps=not args.per_lp,
                            min_pairs=args.min_pairs, require_b=args.require_b)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("qc", help="worker quality control: per-worker tests, report and filtering",
                       description="Test every worker's consistency on degraded (BAD_REF) and "
                                   "repeated items (docs/method/quality-control.md#the-filter), print the "
                                   "per-worker report and how many workers and judgments pass.")
    add_input_arguments(p)
    from ..human.qc_methods import DEFAULT_METHOD
    add_qc_arguments(p, DEFAULT_METHOD)
    p.add_argument("--out-kept", metavar="FILE.csv", help="write the judgments of passing workers here")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..human.qc import qc_summary
    frame = load_inputs(args)
    kept, report = apply_qc(frame, args)
    summary = qc_summary(report)
    caveat = release_caveat(args)
    if caveat:
        summary["caveat"] = caveat
    if args.out_kept:
        kept.to_csv(args.out_kept, index=False)
        summary["out_kept"] = args.out_kept
    if args.json:
        print_json({"summary": summary, "workers": report})
        return 0
    print_table(report[SHOWN], floatfmt="{:.4g}")
    print()
    print(f"method {summary['method']}, alpha {summary['alpha']:g}: "
          f"{summary['workers_kept']} of {summary['workers_total']} workers pass; "
          f"{summary['judgments_kept']:,} of {summary['judgments_total']:,} judgments kept; "
          f"{summary['flagged_workers']} workers flagged for payment review")
    if caveat:
        print(f"note: {caveat}")
    return 0


def release_caveat(args: argparse.Namespace) -> str | None:
    """What the Quality control page says of re-testing a WMT release, when an input is one (else None)."""
    from ..ingest import detect_format
    if not any((args.input_format or detect_format(path, str(path))) == "wmt-stnd" for path in args.input):
        return None
    return ("a what-if, not the published QC: a WMT release holds only the workers who passed the organisers' "
            "test over all their HITs (a ranking of it keeps them all, qc:release); this re-test sees only the "
            "judgments of the language pair(s) given here, so it loses power and released workers can fail it")
