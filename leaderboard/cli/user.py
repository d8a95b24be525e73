"""``mtlb user``: add accounts of the web app (organisers, metric developers) and list them."""

from __future__ import annotations

import argparse
import getpass
import os
import sys

from ..errors import InputError
from ._common import add_store_flags, print_json, print_table, token_command


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("user", help="manage web-app accounts (organisers, metric developers)",
                       description="Passwords are stored as argon2 hashes only.")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = actions.add_parser("add", help="add an account")
    add.add_argument("name")
    add.add_argument("--role", required=True, choices=("organiser", "metric-developer"))
    add_password_option(add)
    add_store_flags(add)
    add.set_defaults(func=run_add)
    rm = actions.add_parser("remove", help="remove an organiser or metric-developer account",
                            description="Remove the account with its sessions and upload tokens, e.g. a demo "
                                        "account before a demo store is put to real use. Teams are not removed "
                                        "here (their submissions would go with them).")
    rm.add_argument("name")
    add_store_flags(rm)
    rm.set_defaults(func=run_remove)
    ls = actions.add_parser("list", help="list accounts (names, roles, demo accounts; never hashes)")
    add_store_flags(ls)
    ls.set_defaults(func=run_list)
    tok = actions.add_parser("token", help="issue an upload token (shown once) or revoke a user's tokens",
                             description="Metric developers can sign in to the app with an upload token "
                                         "instead of a password. Only the token's SHA-256 is stored.")
    tok.add_argument("name")
    tok.add_argument("--label", default="", help="what the token is for (kept with it)")
    tok.add_argument("--revoke", action="store_true", help="revoke every token of the user instead")
    add_store_flags(tok)
    tok.set_defaults(func=run_token)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


PASSWORD_ENV = "MTLB_PASSWORD"
PASSWORD_HELP = ("the password comes from --password-stdin (first line of standard input), else the "
                 f"{PASSWORD_ENV} environment variable, else standard input when it is not a terminal "
                 "(e.g. piped), else a prompt at the terminal")


def add_password_option(parser: argparse.ArgumentParser) -> None:
    """``--password-stdin`` for every command that needs a password (see :func:`read_password`)."""
    parser.add_argument("--password-stdin", action="store_true",
                        help=f"read the password from the first line of standard input ({PASSWORD_HELP})")


def read_password(from_stdin: bool, *, confirm: bool = False) -> str:
    """The password of a command, from the first source that applies (the same for every command).

    1. ``--password-stdin``: the first line of standard input;
    2. the ``MTLB_PASSWORD`` environment variable;
    3. standard input when it is not a terminal (a pipe or a file);
    4. a prompt at the terminal (asked twice when ``confirm``, e.g. for a new account).
    """
    if not from_stdin:
        env = os.environ.get(PASSWORD_ENV)
        if env is not None:
            return env
    if from_stdin or not sys.stdin.isatty():
        line = sys.stdin.readline()
        if not line:
            raise InputError("no password: standard input is empty (pipe the password in, set "
                             f"{PASSWORD_ENV}, or run the command at a terminal)")
        return line.rstrip("\r\n")
    first = getpass.getpass("password: ")
    if confirm and getpass.getpass("again: ") != first:
        raise InputError("the two passwords differ")
    return first


def login_organiser(store, name: str, password_stdin: bool, action: str) -> dict:
    """Check an organiser's password for a CLI action (``MTLB_PASSWORD``, ``--password-stdin`` or a prompt).

    Returns the user ``{"name", "role"}``; wrong passwords, throttled logins and other roles are
    refused with an InputError naming the action.
    """
    import os

    from ..accounts.auth import LoginThrottled, authenticate

    password = os.environ.get("MTLB_PASSWORD") if not password_stdin else None
    if password is None:
        password = read_password(password_stdin)
    try:
        user = authenticate(store, name, password)  # no address: the account's own key counts
    except LoginThrottled as exc:
        raise InputError(f"too many failed logins; try again in {exc.retry_after:.0f} s") from None
    if user is None:
        raise InputError(f"wrong user name or password for {name!r}")
    if user["role"] != "organiser":
        raise InputError(f"user {name!r} is a {user['role']}; only organisers can {action}")
    return user


def run_add(args: argparse.Namespace) -> int:
    from ..accounts.auth import create_user
    from ..storage import Store

    password = read_password(args.password_stdin, confirm=True)
    create_user(Store(args.database_url), args.name, password, args.role)
    if args.json:
        print_json({"name": args.name, "role": args.role, "created": True})
    else:
        print(f"added {args.role} {args.name!r}")
    return 0


def run_remove(args: argparse.Namespace) -> int:
    from ..storage import Store

    role = Store(args.database_url).remove_user(args.name)
    if args.json:
        print_json({"name": args.name, "role": role, "removed": True})
    else:
        print(f"removed {role} {args.name!r}")
    return 0


def run_list(args: argparse.Namespace) -> int:
    from ..storage import Store

    users = Store(args.database_url).users()
    if args.json:
        print_json([{**r, "created_at": str(r["created_at"])} for r in users.to_dict(orient="records")])
    else:  # a demo account's password is printed by `mtlb demo` and shown on that store's Log in page
        print_table(users.assign(demo=users["demo"].map({True: "yes", False: ""})).rename(
            columns={"demo": "demo account"}))
    return 0


def run_token(args: argparse.Namespace) -> int:
    from ..storage import Store

    store = Store(args.database_url)
    if store.user(args.name) is None:
        raise InputError(f"no user named {args.name!r}")
    return token_command(args, store, args.label, repr(args.name))
