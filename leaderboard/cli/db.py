"""``mtlb db``: show or upgrade the store's schema revision (for deployments that migrate once)."""

from __future__ import annotations

import argparse

from ._common import add_store_flags, print_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("db", help="database schema: show the revision or upgrade it",
                       description="Show the schema revision of the store or upgrade it to the newest. "
                                   "Uses DATABASE_URL (or the local SQLite file) unless --database-url.")
    actions = p.add_subparsers(dest="db_action", metavar="ACTION", required=True)
    up = actions.add_parser("upgrade", help="apply pending migrations (safe while other processes start)")
    cur = actions.add_parser("current", help="print the schema revision without changing anything")
    wait = actions.add_parser("wait", help="wait until the database answers with the newest schema "
                                           "(app replicas started with MTLB_AUTO_MIGRATE=0)")
    wait.add_argument("--timeout", type=float, default=120.0, help="give up after this many seconds (default 120)")
    for q in (up, cur, wait):
        add_store_flags(q)
    up.set_defaults(func=run_upgrade)
    cur.set_defaults(func=run_current)
    wait.set_defaults(func=run_wait)


def _engine(args: argparse.Namespace):
    from ..storage.db import default_url, make_engine
    url = args.database_url or default_url()
    return make_engine(url), url


def _shown(url: str) -> str:
    from ..storage.db import shown_url
    return shown_url(url)


def run_upgrade(args: argparse.Namespace) -> int:
    from ..storage.db import upgrade
    engine, url = _engine(args)
    try:
        before, after = upgrade(engine)
    finally:
        engine.dispose()
    result = {"database": _shown(url), "revision": after, "head": after, "previous": before,
              "upgraded": before != after}
    if args.json:
        print_json(result)
    elif before == after:
        print(f"schema at revision {after} (already the newest)")
    else:
        print(f"schema upgraded from revision {before or 'none (empty database)'} to {after}")
    return 0


def run_current(args: argparse.Namespace) -> int:
    from ..storage.db import default_url, head_revision, sqlite_path, stored_revision
    url = args.database_url or default_url()
    path = sqlite_path(url)
    if path is not None and not path.exists():
        found = None  # no database file yet: nothing to open (and nothing is created)
    else:
        found = stored_revision(url)
    head = head_revision()
    result = {"database": _shown(url), "revision": found, "head": head, "current": found == head}
    if args.json:
        print_json(result)
    elif found == head:
        print(f"schema at revision {found} (the newest)")
    elif path is not None and not path.exists():
        print(f"{_missing_file(url)}; the newest schema is {head}: run `mtlb db upgrade` (it creates the file)")
    else:
        print(f"schema at revision {found or 'none (empty database)'}; the newest is {head}: "
              "run `mtlb db upgrade`")
    return 0


def _missing_file(url: str) -> str:
    """Why an SQLite store cannot be read yet: its file, or even its folder, does not exist."""
    from ..storage.db import sqlite_path
    path = sqlite_path(url)
    if path is not None and not path.parent.exists():
        return f"no database file at {path}: its folder {path.parent} does not exist"
    return f"no database file at {path} yet"


def run_wait(args: argparse.Namespace) -> int:
    """Poll the store (once a second) until its schema is the newest; exit 2 with a reason on timeout."""
    import time
    from ..errors import InputError
    from ..storage.db import current_revision, default_url, head_revision, make_engine, sqlite_path
    url = args.database_url or default_url()
    head = head_revision()
    deadline = time.monotonic() + max(0.0, args.timeout)
    engine = make_engine(url) if sqlite_path(url) is None else None  # never create an SQLite file here
    found, reason = None, "no answer yet"
    try:
        while True:
            try:
                if engine is None:
                    path = sqlite_path(url)
                    engine = make_engine(url) if path is not None and path.exists() else None
                found = current_revision(engine) if engine is not None else None
                if found == head:
                    break
                reason = f"{_missing_file(url)} (run `mtlb db upgrade`)" if engine is None else (
                    f"the schema is at revision {found or 'none (empty database)'}, not {head} "
                    "(run `mtlb db upgrade`)")
            except Exception as exc:  # the server is not up yet or refuses the connection
                reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
            if time.monotonic() >= deadline:
                raise InputError(f"gave up waiting for the database schema after {args.timeout:g} s: {reason}")
            time.sleep(1.0)
    finally:
        if engine is not None:
            engine.dispose()
    result = {"database": _shown(url), "revision": found, "head": head, "current": True}
    if args.json:
        print_json(result)
    else:
        print(f"schema at revision {found} (the newest)")
    return 0
