"""``mtlb campaigns``: what the store holds; create a campaign; its segment-ids-are-line-numbers setting."""

from __future__ import annotations

import argparse

from ._common import add_store_flags, print_json, print_table

_YES_NO = {"yes": True, "no": False}


def _flag(text: str) -> bool:
    value = _YES_NO.get(text.strip().lower())
    if value is None:
        raise argparse.ArgumentTypeError("expected yes or no")
    return value


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("campaigns", help="list stored campaigns; create one; set or verify segments-are-lines",
                       description="Without an action: one row per campaign and language pair with counts. "
                                   "segments-are-lines says whether the judgments' segment ids are 1-based line "
                                   "numbers of the campaign's stored texts (then the System page shows the texts "
                                   "and segment-level metric scores are paired with human scores); it is off "
                                   "unless set, and `verify-lines` checks it from the data.")
    add_store_flags(p)
    p.set_defaults(func=run_list)
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    create = actions.add_parser("create", help="create an empty campaign")
    create.add_argument("name")
    create.add_argument("--description", default="")
    create.add_argument("--segments-are-lines", type=_flag, default=False, metavar="yes|no",
                        help="segment ids are line numbers of the texts (default no)")
    add_store_flags(create)
    create.set_defaults(func=run_create)
    setp = actions.add_parser("set", help="change a campaign's settings")
    setp.add_argument("--campaign", required=True)
    setp.add_argument("--segments-are-lines", type=_flag, required=True, metavar="yes|no")
    add_store_flags(setp)
    setp.set_defaults(func=run_set)
    human = actions.add_parser(
        "human", help="list or set which systems are human translations (setting: organiser login needed)",
        description="Without --system: every system of the campaign and whether it counts as a human translation "
                    "(source: organiser when marked, else WMT naming: HUMAN-*, Human-*, ref-*, ref.*). With --system "
                    "and --set: mark them human translations (yes), MT systems (no) or drop the mark (auto); needs "
                    "an organiser account; recorded in the audit log. Marks show from the next published version "
                    "on (rank, tables, charts, LaTeX; mtlb correlate leaves out unscored human translations).")
    human.add_argument("--campaign", required=True)
    human.add_argument("--system", nargs="+", action="extend", default=[], metavar="NAME")
    human.add_argument("--set", dest="mark", choices=("yes", "no", "auto"), metavar="yes|no|auto")
    human.add_argument("--user", help="organiser account name (needed with --set)")
    from .user import add_password_option
    add_password_option(human)
    add_store_flags(human)
    human.set_defaults(func=run_human)
    verify = actions.add_parser("verify-lines",
                                help="check from the data whether segment ids are line numbers of the texts",
                                description="Correlates human segment scores with the sentence chrF of the judged "
                                            "outputs at line = segment id + offset (offsets -5..5): the ids are line "
                                            "numbers when offset 0 correlates clearly (r >= 0.1) and beats every "
                                            "other offset by 0.05. --set stores the verdict.")
    verify.add_argument("--campaign", required=True)
    verify.add_argument("--lp", help="only this language pair (default: every pair with stored texts)")
    verify.add_argument("--set", action="store_true", help="store the verdict as the campaign's setting")
    add_store_flags(verify)
    verify.set_defaults(func=run_verify)


def run_list(args: argparse.Namespace) -> int:
    from ..storage import Store

    frame = Store(args.database_url).campaigns()
    if args.json:
        print_json(frame)
    else:
        print_table(frame.fillna({"lp": "", "assessment": ""}))
    return 0


def run_create(args: argparse.Namespace) -> int:
    from ..storage import Store

    store = Store(args.database_url)
    store.create_campaign(args.name, args.description, segments_are_lines=args.segments_are_lines)
    info = store.campaign_info(args.name)
    result = {"campaign": info["name"], "description": info["description"],
              "segments_are_lines": bool(info["segments_are_lines"])}
    if args.json:
        print_json(result)
    else:
        print(f"created campaign {args.name!r} (segments are lines: "
              f"{'yes' if result['segments_are_lines'] else 'no'})")
    return 0


def run_set(args: argparse.Namespace) -> int:
    from ..storage import Store

    store = Store(args.database_url)
    store.set_segments_are_lines(args.campaign, args.segments_are_lines)
    value = bool(store.campaign_info(args.campaign)["segments_are_lines"])
    if args.json:
        print_json({"campaign": args.campaign, "segments_are_lines": value})
    else:
        print(f"campaign {args.campaign!r}: segments are lines: {'yes' if value else 'no'}")
    return 0


def run_human(args: argparse.Namespace) -> int:
    from ..errors import InputError
    from ..storage import Store
    from ..storage.marks import mark_human, system_kinds
    from .user import login_organiser

    store = Store(args.database_url)
    if bool(args.system) != bool(args.mark):
        raise InputError("give --system and --set together (or neither, to list)", column="set")
    if args.mark:
        if not args.user:
            raise InputError("setting a mark needs --user (an organiser account)", column="user")
        user = login_organiser(store, args.user, args.password_stdin, "mark human translations")
        mark_human(store, args.campaign, args.system, {"yes": True, "no": False, "auto": None}[args.mark],
                   actor=user["name"])
    kinds = system_kinds(store, args.campaign)
    if args.json:
        print_json({"campaign": args.campaign, "systems": kinds.to_dict(orient="records")})
    else:
        print_table(kinds)
    return 0


def run_verify(args: argparse.Namespace) -> int:
    from ..usecases.campaigns import check_segments_are_lines

    from ..storage import Store

    store = Store(args.database_url)
    results = check_segments_are_lines(store, args.campaign, args.lp)
    verified = all(r["verified"] for r in results)
    if args.set:
        store.set_segments_are_lines(args.campaign, verified)
    if args.json:
        print_json({"campaign": args.campaign, "verified": verified, "stored": verified if args.set else None,
                    "lps": results})
        return 0
    for r in results:
        shown = "  ".join(f"{o:+d}:{v:.3f}" for o, v in r["r"].items())
        print(f"{r['lp']}: {'line numbers' if r['verified'] else 'NOT line numbers'} — {r['reason']}")
        print(f"  r by offset ({r['cells']:,} segment cells, {len(r['systems'])} systems): {shown}")
    if args.set:
        print(f"stored: segments are lines: {'yes' if verified else 'no'}")
    return 0
