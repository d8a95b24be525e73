"""``mtlb user``: add accounts of the web app (organisers, metric developers) and list them."""

from __future__ import annotations

import argparse
import getpass
import sys

import pandas as pd

from ..errors import InputError
from ._common import add_json_flag, print_json, print_table


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("user", help="manage web-app accounts (organisers, metric developers)",
                       description="Passwords are stored as argon2 hashes only.")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = actions.add_parser("add", help="add an account")
    add.add_argument("name")
    add.add_argument("--role", required=True, choices=("organiser", "metric-developer"))
    add.add_argument("--password-stdin", action="store_true",
                     help="read the password from the first line of standard input")
    add.add_argument("--database-url", help="override DATABASE_URL")
    add_json_flag(add)
    add.set_defaults(func=run_add)
    ls = actions.add_parser("list", help="list accounts (names and roles, never hashes)")
    ls.add_argument("--database-url", help="override DATABASE_URL")
    add_json_flag(ls)
    ls.set_defaults(func=run_list)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _read_password(from_stdin: bool) -> str:
    if from_stdin:
        line = sys.stdin.readline()
        return line.rstrip("\r\n")
    if not sys.stdin.isatty():
        raise InputError("no terminal to prompt for the password; use --password-stdin")
    first = getpass.getpass("password: ")
    if getpass.getpass("again: ") != first:
        raise InputError("the two passwords differ")
    return first


def run_add(args: argparse.Namespace) -> int:
    from ..auth import create_user
    from ..storage import Store

    password = _read_password(args.password_stdin)
    try:
        create_user(Store(args.database_url), args.name, password, args.role)
    except ValueError as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(str(exc)) from None
    if args.json:
        print_json({"name": args.name, "role": args.role, "created": True})
    else:
        print(f"added {args.role} {args.name!r}")
    return 0


def list_users(store) -> pd.DataFrame:
    """Names, roles and creation times of every account."""
    from sqlalchemy import select

    from ..storage import models as m
    with store.engine.connect() as conn:
        rows = conn.execute(select(m.users.c.name, m.users.c.role, m.users.c.created_at)
                            .order_by(m.users.c.name)).all()
    return pd.DataFrame(rows, columns=["name", "role", "created_at"])


def run_list(args: argparse.Namespace) -> int:
    from ..storage import Store

    users = list_users(Store(args.database_url))
    if args.json:
        print_json([{**r, "created_at": str(r["created_at"])} for r in users.to_dict(orient="records")])
    else:
        print_table(users)
    return 0
