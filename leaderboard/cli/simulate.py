"""``mtlb simulate``: write a simulated crowd DA campaign (canonical CSV) or simulated MTurk answers."""

from __future__ import annotations

import argparse
from pathlib import Path

from ._common import add_json_flag, print_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "simulate", help="simulate crowd workers (canonical judgments, or MTurk results for a built batch)",
        description="Simulated judgments following the 100-item HIT structure; the model (system quality, "
                    "segment difficulty, worker bias/scale, noise; good / lenient / harsh / random workers) "
                    "is documented in leaderboard.human.simulate. With --hits DIR, answer the batch built by "
                    "`mtlb hits build` and write MTurk batch results instead.")
    p.add_argument("--out", required=True, metavar="FILE", help=".csv (optionally .gz) or .parquet")
    p.add_argument("--systems", type=int, default=10, metavar="N")
    p.add_argument("--segments", type=int, default=1000, metavar="N")
    p.add_argument("--good", type=int, default=8, metavar="N", help="consistent workers (per language pair)")
    p.add_argument("--lenient", type=int, default=2, metavar="N", help="workers shifted up and compressed")
    p.add_argument("--harsh", type=int, default=2, metavar="N", help="workers shifted down")
    p.add_argument("--random", type=int, default=3, metavar="N", help="random clickers")
    p.add_argument("--hits-per-worker", type=int, default=2, metavar="N")
    p.add_argument("--lps", nargs="+", default=["xx-en"], metavar="LP")
    p.add_argument("--assessment", default="adequacy")
    p.add_argument("--campaign", default="simulated")
    p.add_argument("--hits", metavar="DIR", help="answer this built batch (DIR/hits.csv, DIR/batch.json) as MTurk results")
    p.add_argument("--assignments", type=int, default=1, metavar="N", help="with --hits: assignments per HIT")
    p.add_argument("--seed", type=int, required=True, metavar="S")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..hits.export import read_batch
    from ..human.simulate import simulate_answers, simulate_campaign

    workers = {"good": args.good, "lenient": args.lenient, "harsh": args.harsh, "random": args.random}
    out = Path(args.out)
    if args.hits:
        hits, meta = read_batch(args.hits)
        frame = simulate_answers(hits, workers, args.seed, assignments=args.assignments, lp=meta.get("lp"),
                                 assessment=meta.get("assessment"), campaign=meta.get("campaign", ""))
        kind = "mturk"
    else:
        frame = simulate_campaign(args.systems, args.segments, workers, args.hits_per_worker, args.seed,
                                  lps=args.lps, assessment=args.assessment, campaign=args.campaign)
        kind = "canonical"
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.suffix.lower() in (".parquet", ".pq"):
        frame.to_parquet(out, index=False)
    else:
        frame.to_csv(out, index=False)
    summary = {"out": str(out), "format": kind, "rows": int(len(frame)), "workers": workers, "seed": args.seed}
    if args.json:
        print_json(summary)
    else:
        what = "assignments (MTurk batch results)" if kind == "mturk" else "judgments (canonical)"
        print(f"wrote {len(frame):,} {what} to {out}")
    return 0
