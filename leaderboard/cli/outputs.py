"""``mtlb outputs``: teams' system outputs — submit, list, primary, withdraw, show, leaderboard, export."""

from __future__ import annotations

import argparse
import sys

from ..errors import InputError
from ._common import add_store_flags, print_json


def _common_args(p: argparse.ArgumentParser) -> None:
    add_store_flags(p)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("outputs", help="teams' system outputs: submit, list, primary, leaderboard, export",
                       description="The submissions stage. A submission is a plain-text file (one segment per "
                                   "line, UTF-8, gzip accepted) validated against the test set and scored at once "
                                   "with sacrebleu: BLEU and chrF against all references together and each one.")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    s = actions.add_parser("submit", help="validate, score and store a system output",
                           description="Refused, with nothing stored (exit status 2): a wrong number of lines, "
                                       "invalid UTF-8, an empty file, an output identical to the source or a "
                                       "reference, after the deadline, over the team's limit, an unverified team.")
    s.add_argument("file", metavar="FILE")
    s.add_argument("--campaign", required=True)
    s.add_argument("--lp", required=True)
    s.add_argument("--team", required=True)
    s.add_argument("--system", help="system name (default: <system> of a WMT file name, else the team name)")
    s.add_argument("--primary", action="store_true", help="mark it the team's primary submission")
    s.add_argument("--constrained", dest="constrained", action="store_true", default=None)
    s.add_argument("--unconstrained", dest="constrained", action="store_false")
    s.add_argument("--open-source", action="store_true", default=None)
    s.add_argument("--ter", action="store_true", help="also compute TER")
    _common_args(s)
    s.set_defaults(func=run_submit)

    ls = actions.add_parser("list", help="list submissions with their scores")
    ls.add_argument("--campaign", required=True)
    ls.add_argument("--lp")
    ls.add_argument("--team")
    _common_args(ls)
    ls.set_defaults(func=run_list)

    pr = actions.add_parser("primary", help="mark a submission primary (one per team and test set)")
    pr.add_argument("id", type=int)
    pr.add_argument("--unset", action="store_true", help="make it contrastive again")
    pr.add_argument("--team", help="refuse unless the submission belongs to this team")
    _common_args(pr)
    pr.set_defaults(func=run_primary)

    wd = actions.add_parser("withdraw", help="withdraw a submission (kept for the record, off the leaderboard)")
    wd.add_argument("id", type=int)
    wd.add_argument("--team", help="refuse unless the submission belongs to this team")
    _common_args(wd)
    wd.set_defaults(func=run_withdraw)

    show = actions.add_parser("show", help="a submission segment by segment beside source and references")
    show.add_argument("id", type=int)
    show.add_argument("--compare", type=int, metavar="ID", help="a second submission, side by side")
    _common_args(show)
    show.set_defaults(func=run_show)

    lb = actions.add_parser("leaderboard", help="the automatic leaderboard (sorted by chrF, with clusters)",
                            description="One entry per team: its primary submission, else its best. BLEU and chrF "
                                        "with 95% bootstrap intervals; sacrebleu's paired bootstrap between every "
                                        "pair (seeded) grouped into clusters like the human leaderboard.")
    lb.add_argument("--campaign", required=True)
    lb.add_argument("--lp", required=True)
    lb.add_argument("--format", choices=["table", "csv", "latex"], default="table",
                    help="output without --json (default table)")
    lb.add_argument("--resamples", type=int, default=1000)
    lb.add_argument("--seed", type=int, default=12345)
    lb.add_argument("--alpha", type=float, default=0.05)
    _common_args(lb)
    lb.set_defaults(func=run_leaderboard)

    ex = actions.add_parser("export", help="every test set and submission of a campaign as a zip")
    ex.add_argument("--campaign", required=True)
    ex.add_argument("--out", required=True, metavar="FILE.zip")
    _common_args(ex)
    ex.set_defaults(func=run_export)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def run_submit(args: argparse.Namespace) -> int:
    from ..outputs.service import submit
    from ..storage import Store

    result = submit(Store(args.database_url), args.file, campaign=args.campaign, lp=args.lp, team=args.team,
                    system=args.system, ter=args.ter, primary=args.primary, constrained=args.constrained,
                    open_source=args.open_source)
    if args.json:
        print_json(result)
        return 0
    scores = result["scores"]
    print(f"stored submission #{result['id']} of {result['team']} ({result['system']}): "
          + (f"BLEU {scores['bleu']:.2f}, chrF {scores['chrf']:.2f}" if "bleu" in scores else "no reference yet"))
    for key in ("bleu", "chrf"):
        if key in result["signatures"]:
            print(f"  {result['signatures'][key]}")
    for flag, count in result["flags"].items():
        print(f"  note: {count} {flag.replace('_', ' ')}", file=sys.stderr)
    return 0


def run_list(args: argparse.Namespace) -> int:
    from ..outputs.service import iso
    from ..storage import Store
    from ..storage.outputs import OutputStore
    from ._common import print_table

    frame = OutputStore(Store(args.database_url)).submissions(args.campaign, args.lp, args.team)
    frame = frame.assign(created_at=[iso(t) for t in frame["created_at"]]).drop(columns=["testset_id"])
    if args.json:
        print_json(frame.drop(columns=["stats"], errors="ignore"))
    else:
        print_table(frame[["id", "lp", "team", "system", "primary", "withdrawn", "bleu", "chrf", "created_at"]],
                    floatfmt="{:.2f}")
    return 0


def _owned(args: argparse.Namespace):
    from ..outputs.service import owned
    from ..storage import Store

    store = Store(args.database_url)
    return store, owned(store, args.id, args.team)


def run_primary(args: argparse.Namespace) -> int:
    from ..outputs.service import submission_json
    from ..storage.outputs import OutputStore

    store, _ = _owned(args)
    out = OutputStore(store)
    out.set_primary(args.id, not args.unset)
    result = submission_json(out.submission(args.id))
    print_json(result) if args.json else \
        print(f"submission #{args.id} is {'primary' if result['primary'] else 'contrastive'}")
    return 0


def run_withdraw(args: argparse.Namespace) -> int:
    from ..outputs.service import submission_json
    from ..storage.outputs import OutputStore

    store, _ = _owned(args)
    out = OutputStore(store)
    out.withdraw(args.id)
    result = submission_json(out.submission(args.id))
    print_json(result) if args.json else print(f"withdrew submission #{args.id}")
    return 0


def run_show(args: argparse.Namespace) -> int:
    from ..outputs.viewer import segments_frame
    from ..storage import Store

    frame = segments_frame(Store(args.database_url), args.id, args.compare)
    if args.json:
        print_json(frame)
        return 0
    columns = [c for c in frame.columns if c not in ("line", "same")]
    width = max(len(c) for c in columns)
    for row in frame.to_dict(orient="records"):
        marker = "" if row.get("same", True) else "  (outputs differ)"
        print(f"[{row['line']}]{marker}")
        for col in columns:
            print(f"  {col:<{width}}  {row[col]}")
    return 0


def run_leaderboard(args: argparse.Namespace) -> int:
    from ..outputs.board import board_table, board_to_latex
    from ..outputs.service import leaderboard
    from ..storage import Store
    from ..tables import to_csv_bytes
    from ._common import print_table

    if args.resamples < 1:
        raise InputError(f"--resamples must be at least 1, got {args.resamples}")
    if not 0 < args.alpha < 1:
        raise InputError(f"--alpha must be between 0 and 1, got {args.alpha}")
    board = leaderboard(Store(args.database_url), args.campaign, args.lp, n_samples=args.resamples,
                        seed=args.seed, alpha=args.alpha)
    if args.json:
        print_json(board)
    elif args.format == "csv":
        sys.stdout.write(to_csv_bytes(board_table(board)).decode("utf-8"))
    elif args.format == "latex":
        sys.stdout.write(board_to_latex(board))
    else:
        print(f"{args.campaign} {args.lp} ({board['testset']}): sorted by chrF; "
              + ("hidden from participants until the deadline" if board["hidden"] else "public"))
        print_table(board_table(board).drop(columns=["submission"]), floatfmt="{:.2f}")
        print(board["signature"])
    return 0


def run_export(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..outputs.service import export_zip
    from ..storage import Store

    data = export_zip(Store(args.database_url), args.campaign)
    Path(args.out).write_bytes(data)
    result = {"campaign": args.campaign, "out": args.out, "bytes": len(data)}
    print_json(result) if args.json else print(f"wrote {args.out} ({len(data):,} bytes)")
    return 0
