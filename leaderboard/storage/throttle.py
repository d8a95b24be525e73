"""Failed-login records in the store, so that every app process (and the CLI) counts the same
failures and a restart forgets nothing. The rules live in :class:`leaderboard.accounts.auth.Throttle`; this
module only reads and changes records — (failure times, locked until, number of locks) tuples — one
transaction per call, with the rows locked while they change (``FOR UPDATE`` on PostgreSQL; SQLite's
write lock, taken by the first insert).
"""

from __future__ import annotations

import json
from typing import Callable, Iterable

from sqlalchemy import Engine, delete, select, update

from . import models as m
from .loader import insert_ignore

t = m.login_throttle

Record = tuple  # (failure times, locked until, locks)


def read(engine: Engine, keys: Iterable[str]) -> dict[str, Record]:
    """The stored records of ``keys`` (keys without failures are absent)."""
    with engine.connect() as conn:
        rows = conn.execute(select(t.c.key, t.c.failures, t.c.locked_until, t.c.locks)
                            .where(t.c.key.in_(list(keys)))).all()
    return {r.key: (tuple(json.loads(r.failures)), r.locked_until, r.locks) for r in rows}


def change(engine: Engine, keys: Iterable[str], rule: Callable[[Record, str], Record | None]) -> None:
    """Replace each key's record by ``rule(record, key)`` (None deletes it), all in one transaction."""
    with engine.begin() as conn:
        for key in sorted(set(keys)):  # one lock order for every process
            conn.execute(insert_ignore(conn, t).values(key=key, failures="[]", locked_until=0.0, locks=0))
            row = conn.execute(select(t.c.failures, t.c.locked_until, t.c.locks).where(t.c.key == key)
                               .with_for_update()).one()
            new = rule((tuple(json.loads(row.failures)), row.locked_until, row.locks), key)
            if new is None or (not new[0] and not new[1] and not new[2]):
                conn.execute(delete(t).where(t.c.key == key))
            else:
                failures, locked_until, locks = new
                conn.execute(update(t).where(t.c.key == key).values(
                    failures=json.dumps(list(failures)), locked_until=locked_until, locks=locks))


def forget(engine: Engine, keys: Iterable[str]) -> None:
    """Delete the records of ``keys`` (a successful login)."""
    with engine.begin() as conn:
        conn.execute(delete(t).where(t.c.key.in_(list(keys))))
