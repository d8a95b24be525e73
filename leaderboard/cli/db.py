"""``mtlb db``: show or upgrade the store's schema revision (for deployments that migrate once)."""

from __future__ import annotations

import argparse

from ._common import add_json_flag, print_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("db", help="database schema: show the revision or upgrade it",
                       description="Show the schema revision of the store or upgrade it to the newest. "
                                   "Uses DATABASE_URL (or the local SQLite file) unless --database-url.")
    actions = p.add_subparsers(dest="db_action", metavar="ACTION", required=True)
    up = actions.add_parser("upgrade", help="apply pending migrations (safe while other processes start)")
    cur = actions.add_parser("current", help="print the schema revision without changing anything")
    for q in (up, cur):
        q.add_argument("--database-url", help="override DATABASE_URL")
        add_json_flag(q)
    up.set_defaults(func=run_upgrade)
    cur.set_defaults(func=run_current)


def _engine(args: argparse.Namespace):
    from ..storage.db import default_url, make_engine
    url = args.database_url or default_url()
    return make_engine(url), url


def _shown(url: str) -> str:
    from sqlalchemy.engine import make_url
    return make_url(url).render_as_string(hide_password=True)


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
    from ..storage.db import current_revision, default_url, head_revision, sqlite_path
    url = args.database_url or default_url()
    path = sqlite_path(url)
    if path is not None and not path.exists():
        found = None  # no database file yet: nothing to open (and nothing is created)
    else:
        engine, url = _engine(args)
        try:
            found = current_revision(engine)
        finally:
            engine.dispose()
    head = head_revision()
    result = {"database": _shown(url), "revision": found, "head": head, "current": found == head}
    if args.json:
        print_json(result)
    elif found == head:
        print(f"schema at revision {found} (the newest)")
    else:
        print(f"schema at revision {found or 'none (empty database)'}; the newest is {head}: "
              "run `mtlb db upgrade`")
    return 0
