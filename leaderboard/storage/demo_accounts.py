"""The demo store's accounts: users that ``mtlb demo`` made together with their generated passwords.

A demo account is an ordinary user (its password argon2-hashed in ``users``) plus a ``demo_accounts``
row keeping the password itself, so that ``mtlb demo`` can print it again and the Log in page of that
store can show it. Only :mod:`leaderboard.publish.demo` creates them, and only in a store that holds
nothing but the demo. Removing the user removes the row.
"""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import Engine, insert, select
from sqlalchemy.exc import IntegrityError

from . import models as m


def add(engine: Engine, name: str, role: str, password_hash: str, password: str) -> bool:
    """Create the user and its demo row in one transaction; False (nothing written) when the name is taken."""
    now = datetime.now(timezone.utc)
    try:
        with engine.begin() as conn:
            if conn.execute(select(m.users.c.id).where(m.users.c.name == name)).first() is not None:
                return False
            user_id = conn.execute(insert(m.users).values(name=name, password_hash=password_hash, role=role,
                                                          created_at=now).returning(m.users.c.id)).scalar_one()
            conn.execute(insert(m.demo_accounts).values(user_id=user_id, password=password, created_at=now))
    except IntegrityError:  # the same name, created by another process in the meantime
        return False
    return True


def accounts(engine: Engine) -> list[dict]:
    """Every demo account: ``{"name", "role", "password", "password_hash"}``, organisers first."""
    u, d = m.users, m.demo_accounts
    with engine.connect() as conn:
        rows = conn.execute(select(u.c.name, u.c.role, d.c.password, u.c.password_hash)
                            .join(d, d.c.user_id == u.c.id).order_by(u.c.role.desc(), u.c.name)).mappings().all()
    return [dict(r) for r in rows]


def names(engine: Engine) -> set[str]:
    """The user names of the demo accounts."""
    with engine.connect() as conn:
        return set(conn.execute(select(m.users.c.name).join(m.demo_accounts,
                                                             m.demo_accounts.c.user_id == m.users.c.id)).scalars())


def contents(engine: Engine) -> dict[str, list[str]]:
    """What the store holds beyond its schema, by name: ``{"campaigns": [...], "users": [...]}``."""
    with engine.connect() as conn:
        campaigns = list(conn.execute(select(m.campaigns.c.name).order_by(m.campaigns.c.name)).scalars())
        users = list(conn.execute(select(m.users.c.name).order_by(m.users.c.name)).scalars())
    return {"campaigns": campaigns, "users": users}
