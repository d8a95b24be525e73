"""``mtlb span-eval``: error-span detection scored against human error spans (WMT25's character-level
measure, or partial overlap with partial credit), with intervals, paired tests and clusters."""

from __future__ import annotations

import argparse

from ..errors import InputError
from ._common import add_json_flag, print_json, print_table


def add_gold_options(p: argparse.ArgumentParser) -> None:
    """The gold: a task TSV, or a stored campaign's pair (shared with ``mtlb error-free-eval``)."""
    p.add_argument("--gold", metavar="GOLD.tsv",
                   help="gold annotations in the WMT25 task TSV layout, or the WMT25 human-evaluation release "
                        "(.jsonl: every rating of each segment, waves by their order)")
    p.add_argument("--gold-campaign", metavar="C", help="take the gold from this stored campaign (with --lp)")
    p.add_argument("--lp", help="the language pair: of the stored campaign (with --gold-campaign, required) or of "
                               "the gold file (only that pair is evaluated)")
    p.add_argument("--gold-assessment", metavar="NAME",
                   help="with --gold-campaign: which stored evaluation (esa, mqm, …; default: MQM if present, "
                        "else the one with error spans)")
    p.add_argument("--gold-rating", default="first", metavar="RULE",
                   help="items rated more than once: first (default), mean, or wave:W")
    p.add_argument("--predictions", nargs="+", action="extend", required=True, metavar="NAME=FILE",
                   help="submissions in the WMT25 task TSV layout, each named")
    p.add_argument("--end-inclusive", action="store_true",
                   help="the files' end offsets point at a span's last character (default: one past it)")
    p.add_argument("--draws", type=int, default=0,
                   help="bootstrap draws over segments for intervals, paired tests and clusters (default 0: none)")
    p.add_argument("--seed", type=int, default=12345, help="seed of the bootstrap draws (default 12345)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level and 1 − interval level (default 0.05)")
    p.add_argument("--database-url", help="override DATABASE_URL (with --gold-campaign)")
    add_json_flag(p)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "span-eval", help="score error-span predictions against human error spans (WMT25 task)",
        description="Score error-span detection as the WMT25 MT-evaluation task does: per submission and language "
                    "pair precision, recall and F1 (wmt25: the organisers' character-level measure with half credit "
                    "for the wrong severity; mpp: partial overlap with partial credit, span by span, micro or macro), "
                    "and their mean over pairs under \"all\". Gold and submissions are WMT25 task TSV files; the gold "
                    "may also be a stored ESA, MQM or contrastive-ESA campaign.")
    add_gold_options(p)
    p.add_argument("--measure", choices=("wmt25", "mpp"), default="wmt25", help="the span measure (default wmt25)")
    p.add_argument("--average", choices=("micro", "macro"), default="micro",
                   help="mpp: pool spans over segments (micro, default) or average per segment (macro)")
    p.set_defaults(func=run)


def parse_predictions(items: list[str]) -> dict[str, str]:
    """``["A=a.tsv", "B=b.tsv"]`` → ``{"A": "a.tsv", "B": "b.tsv"}``; names must be distinct."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, path = item.partition("=")
        if not sep or not name.strip() or not path.strip():
            raise InputError(f"{item!r} is not NAME=FILE", column="predictions")
        if name.strip() in out:
            raise InputError(f"the submission name {name.strip()!r} is given twice", column="predictions")
        out[name.strip()] = path.strip()
    return out


def check_common(args: argparse.Namespace) -> None:
    if bool(args.gold) == bool(args.gold_campaign):
        raise InputError("give either --gold FILE or --gold-campaign C --lp LP")
    if args.gold_campaign and not args.lp:
        raise InputError("--gold-campaign needs --lp (the language pair)")
    if args.draws < 0:
        raise InputError("--draws must be 0 or more", column="draws")
    if args.seed < 0:
        raise InputError("--seed must be 0 or more", column="seed")
    if not 0 < args.alpha < 1:
        raise InputError("--alpha must lie strictly between 0 and 1", column="alpha")


def load_gold(args: argparse.Namespace):
    from ..outputs.mteval import campaign_gold, read_gold
    if args.gold:
        return read_gold(args.gold, rule=args.gold_rating, lp=args.lp, end_inclusive=args.end_inclusive)
    from ..storage import Store
    return campaign_gold(Store(args.database_url), args.gold_campaign, args.lp, assessment=args.gold_assessment,
                         rule=args.gold_rating)


def print_result(result, keys: tuple[str, ...]) -> None:
    import pandas as pd
    rows = []
    for name, scopes in result.values.items():
        for scope, row in scopes.items():
            rows.append({"submission": name, "pair": scope, **{k: row[k] for k in keys},
                         **{f"{k} CI": "" if row.get(f"{k}_ci") is None else
                            f"[{row[f'{k}_ci'][0]:.4f}, {row[f'{k}_ci'][1]:.4f}]" for k in keys[-1:]
                            if f"{k}_ci" in row},
                         **({"cluster": row.get(f"{keys[-1]}_cluster")} if f"{keys[-1]}_cluster" in row else {}),
                         "segments": row["segments"]})
    print_table(pd.DataFrame(rows))
    print(result.signature)


def run(args: argparse.Namespace) -> int:
    from ..outputs.mteval import read_annotations, span_eval
    check_common(args)
    files = parse_predictions(args.predictions)
    gold = load_gold(args)
    predictions = {name: read_annotations(path, kind="spans", end_inclusive=args.end_inclusive)
                   for name, path in files.items()}
    result = span_eval(gold, predictions, measure=args.measure, average=args.average, draws=args.draws,
                       seed=args.seed, alpha=args.alpha)
    if args.json:
        print_json(result.to_json())
        return 0
    print_result(result, ("precision", "recall", "f1"))
    return 0
