"""``mtlb testset``: add a shared task's test set (source, references, deadline) and list test sets."""

from __future__ import annotations

import argparse

from ..errors import InputError
from ._common import add_store_flags, print_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("testset", help="test sets that teams submit translations of (submissions stage)",
                       description="A test set belongs to a campaign and a language pair: its source, its "
                                   "references (optional until the deadline), a start and a deadline, whether "
                                   "the automatic leaderboard is shown before the deadline, and the number of "
                                   "valid submissions each team may make.")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = actions.add_parser("add", help="add a test set (the campaign is created when missing)")
    add.add_argument("--campaign", required=True)
    add.add_argument("--lp", required=True, help="language pair, e.g. cs-en (the target picks BLEU's tokeniser)")
    add.add_argument("--source", required=True, metavar="FILE", help="the source, one segment per line")
    add.add_argument("--ref", nargs="+", action="extend", default=[], metavar="FILE",
                     help="reference(s), aligned with the source; several = multi-reference scoring")
    add.add_argument("--docs", metavar="FILE", help="document id of every source line (optional)")
    add.add_argument("--name", help="test set name (default: from a WMT file name, else the campaign)")
    add.add_argument("--starts", metavar="ISO", help="submissions open at (default: now)")
    add.add_argument("--deadline", metavar="ISO", help="submissions close at (UTC unless a zone is given)")
    add.add_argument("--hidden-until-deadline", action="store_true",
                     help="hide the automatic leaderboard from participants until the deadline")
    add.add_argument("--max-submissions", type=int, default=20, metavar="N",
                     help="valid submissions per team (default 20)")
    add.add_argument("--bleu-tokenize", metavar="NAME",
                     help="sacrebleu's BLEU tokeniser for this test set (13a, intl, char, zh, ja-mecab, ko-mecab, "
                          "flores200, none...; default: by target language, zh / ja-mecab / ko-mecab / char / 13a)")
    add.add_argument("--user", help="organiser name recorded with the test set")
    add_store_flags(add)
    add.set_defaults(func=run_add)

    refs = actions.add_parser("refs", help="add references to a test set and rescore every submission")
    refs.add_argument("paths", nargs="+", metavar="REF")
    refs.add_argument("--campaign", required=True)
    refs.add_argument("--lp", required=True)
    add_store_flags(refs)
    refs.set_defaults(func=run_refs)

    change = actions.add_parser("set", help="change a test set's start, deadline, visibility or limit")
    change.add_argument("--campaign", required=True)
    change.add_argument("--lp", required=True)
    change.add_argument("--starts", metavar="ISO", help="new start ('none' removes it)")
    change.add_argument("--deadline", metavar="ISO", help="new deadline ('none' removes it)")
    change.add_argument("--leaderboard", choices=["public", "hidden-until-deadline"],
                        help="whether participants see the automatic leaderboard before the deadline")
    change.add_argument("--max-submissions", type=int, metavar="N")
    change.add_argument("--bleu-tokenize", metavar="NAME",
                        help="BLEU tokeniser ('default': by target language); every submission is rescored")
    add_store_flags(change)
    change.set_defaults(func=run_set)

    ls = actions.add_parser("list", help="list test sets with their submission counts")
    ls.add_argument("--campaign")
    add_store_flags(ls)
    ls.set_defaults(func=run_list)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def run_add(args: argparse.Namespace) -> int:
    from ..outputs.service import add_testset, parse_time
    from ..storage import Store

    result = add_testset(Store(args.database_url), args.campaign, args.lp, args.source, args.ref, docs=args.docs,
                         starts_at=parse_time(args.starts, "starts"), deadline=parse_time(args.deadline, "deadline"),
                         public_before_deadline=not args.hidden_until_deadline,
                         max_submissions=args.max_submissions, name=args.name, created_by=args.user,
                         bleu_tokenize=args.bleu_tokenize)
    if args.json:
        print_json(result)
    else:
        print(f"stored test set {result['testset']} for {args.campaign} {args.lp}: {result['segments']} segments, "
              f"references {', '.join(result['references']) or '(none yet)'}; deadline {result['deadline'] or 'none'}; "
              f"BLEU tokeniser {result['bleu_tokenize']}")
    return 0


def run_refs(args: argparse.Namespace) -> int:
    from ..outputs.service import add_references
    from ..storage import Store

    result = add_references(Store(args.database_url), args.campaign, args.lp, args.paths)
    if args.json:
        print_json(result)
    else:
        print(f"added references {', '.join(result['added'])}; rescored {result['rescored']} submission(s)")
    return 0


def run_set(args: argparse.Namespace) -> int:
    from ..outputs.service import parse_time, testset_json
    from ..storage import Store
    from ..storage.outputs import OutputStore

    store = Store(args.database_url)
    out = OutputStore(store)
    ts = out.testset(args.campaign, args.lp)
    values = {}
    for key, attr in (("starts_at", "starts"), ("deadline", "deadline")):
        text = getattr(args, attr)
        if text is not None:
            values[key] = None if text.strip().lower() == "none" else parse_time(text, attr)
    if args.leaderboard:
        values["public_before_deadline"] = args.leaderboard == "public"
    if args.max_submissions is not None:
        if args.max_submissions < 1:
            raise InputError(f"the submission limit must be at least 1, got {args.max_submissions}")
        values["max_submissions"] = args.max_submissions
    rescored = None
    if args.bleu_tokenize is not None:  # the new tokeniser, the rescored submissions and the rest at once
        from ..outputs.service import set_bleu_tokenize
        name = None if args.bleu_tokenize.strip().lower() == "default" else args.bleu_tokenize
        rescored = set_bleu_tokenize(store, args.campaign, args.lp, name, **values)["rescored"]
    else:
        out.update_testset(ts["id"], **values)
    result = testset_json(out.testset(args.campaign, args.lp))
    if rescored is not None:
        result["rescored"] = rescored
    print_json(result) if args.json else print(f"updated {args.campaign} {args.lp}: {result}")
    return 0


def run_list(args: argparse.Namespace) -> int:
    from ..outputs.service import iso
    from ..storage import Store
    from ..storage.outputs import OutputStore
    from ._common import print_table

    frame = OutputStore(Store(args.database_url)).testsets(args.campaign)
    for col in ("starts_at", "deadline", "created_at"):
        frame[col] = [iso(v) for v in frame[col]]
    if args.json:
        print_json(frame)
    else:
        print_table(frame.drop(columns=["created_at", "created_by"]))
    return 0
