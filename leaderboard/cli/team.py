"""``mtlb team``: the teams of the submissions stage (add, list, verify, sign-in tokens)."""

from __future__ import annotations

import argparse
import sys

from ..errors import InputError
from ._common import add_store_flags, print_json, token_command


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("team", help="teams that submit system outputs (add, list, verify, tokens)",
                       description="A team is an account that signs in to the app with a token (no password). "
                                   "Teams sign up in the app themselves; an organiser verifies them before "
                                   "they can submit. The command line has direct database access.")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = actions.add_parser("add", help="add a team (an existing team is kept; --verified verifies it)")
    add.add_argument("name")
    add.add_argument("--verified", action="store_true", help="verified at once (may submit)")
    add.add_argument("--contact", default="", help="contact e-mail")
    add.add_argument("--institution", default="")
    add.add_argument("--description", default="", help="system description")
    add.add_argument("--token", action="store_true", help="also issue a sign-in token (printed once)")
    add.add_argument("--user", help="organiser recorded as the verifier")
    add_store_flags(add)
    add.set_defaults(func=run_add)

    ls = actions.add_parser("list", help="list teams")
    add_store_flags(ls)
    ls.set_defaults(func=run_list)

    verify = actions.add_parser("verify", help="verify a team (it may then submit)")
    verify.add_argument("name")
    verify.add_argument("--undo", action="store_true", help="withdraw the verification")
    verify.add_argument("--user", help="organiser recorded as the verifier")
    add_store_flags(verify)
    verify.set_defaults(func=run_verify)

    tok = actions.add_parser("token", help="issue a sign-in token (shown once) or revoke the team's tokens")
    tok.add_argument("name")
    tok.add_argument("--revoke", action="store_true")
    add_store_flags(tok)
    tok.set_defaults(func=run_token)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def run_add(args: argparse.Namespace) -> int:
    from ..outputs.service import add_team
    from ..storage import Store

    result = add_team(Store(args.database_url), args.name, verified=args.verified, contact=args.contact,
                      institution=args.institution, description=args.description,
                      verified_by=args.user or ("command line" if args.verified else None), token=args.token,
                      exist_ok=True)
    if args.json:
        print_json(result)
    else:
        print(("added" if result["created"] else "kept") + f" team {args.name!r}"
              + (" (verified)" if result["verified"] else " (not verified yet)"))
        if args.token:
            print(result["token"])
            print("(the token is shown once: only its hash is stored)", file=sys.stderr)
    return 0


def _team(store, name: str) -> dict:
    from ..storage.outputs import OutputStore
    team = OutputStore(store).team(name)
    if team is None:
        raise InputError(f"no team named {name!r}")
    return team


def run_list(args: argparse.Namespace) -> int:
    from ..outputs.service import iso
    from ..storage import Store
    from ..storage.outputs import OutputStore
    from ._common import print_table

    frame = OutputStore(Store(args.database_url)).teams()
    for col in ("verified_at", "created_at"):
        frame[col] = [iso(v) for v in frame[col]]
    if args.json:
        print_json(frame.drop(columns=["id"]))
    else:
        print_table(frame.drop(columns=["id", "description"]))
    return 0


def run_verify(args: argparse.Namespace) -> int:
    from ..outputs.service import team_json
    from ..storage import Store
    from ..storage.outputs import OutputStore

    store = Store(args.database_url)
    _team(store, args.name)
    out = OutputStore(store)
    out.set_verified(args.name, not args.undo, args.user or "command line")
    result = team_json(out.team(args.name))
    print_json(result) if args.json else print(f"team {args.name!r} is {'verified' if result['verified'] else 'not verified'}")
    return 0


def run_token(args: argparse.Namespace) -> int:
    from ..storage import Store

    store = Store(args.database_url)
    _team(store, args.name)
    return token_command(args, store, "team sign-in", f"team {args.name!r}")
