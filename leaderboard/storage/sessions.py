"""Web-app login sessions that survive a reload: a random id in the browser, its hash in the store.

The browser keeps only a random 256-bit session id; the store keeps its SHA-256, the user, the
expiry time and a revoked flag. So a stolen database does not yield usable sessions, logging out
revokes the session on the server (a copied cookie stops working at once), and every session ends
at its expiry time whatever the browser does.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from datetime import datetime, timedelta, timezone

from sqlalchemy import and_, delete, insert, select, update

from . import models as m

#: how long a login lasts (``MTLB_SESSION_HOURS`` overrides)
DEFAULT_HOURS = 12.0


def session_hours() -> float:
    """The session lifetime in hours: ``MTLB_SESSION_HOURS`` or :data:`DEFAULT_HOURS`."""
    try:
        hours = float(os.environ.get("MTLB_SESSION_HOURS", DEFAULT_HOURS))
    except ValueError:
        hours = DEFAULT_HOURS
    return hours if hours > 0 else DEFAULT_HOURS


def _hash(session_id: str) -> str:
    return hashlib.sha256(session_id.encode("utf-8")).hexdigest()


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value


def create_session(store, user_name: str, hours: float | None = None) -> tuple[str, datetime]:
    """A new session for ``user_name``: (the id to give the browser, its expiry time). Expired
    sessions of every user are deleted on the way."""
    session_id = secrets.token_urlsafe(32)
    now = m.now()
    expires = now + timedelta(hours=hours or session_hours())
    with store.engine.begin() as conn:
        uid = conn.execute(select(m.users.c.id).where(m.users.c.name == user_name)).scalar()
        if uid is None:
            raise ValueError(f"no user named {user_name!r}")
        conn.execute(delete(m.web_sessions).where(m.web_sessions.c.expires_at < now))
        conn.execute(insert(m.web_sessions).values(token_hash=_hash(session_id), user_id=uid, created_at=now,
                                                   expires_at=expires))
    return session_id, expires


def session_user(store, session_id: str) -> dict | None:
    """The user ``{"name", "role"}`` of a live session (known, not revoked, not expired), else None."""
    if not session_id or len(session_id) > 200:
        return None
    s, u = m.web_sessions, m.users
    with store.engine.connect() as conn:
        row = conn.execute(select(u.c.name, u.c.role, s.c.expires_at).join(s, s.c.user_id == u.c.id)
                           .where(and_(s.c.token_hash == _hash(session_id), s.c.revoked.is_(False)))).first()
    if row is None or _utc(row.expires_at) <= m.now():
        return None
    return {"name": row.name, "role": row.role}


def revoke_session(store, session_id: str) -> bool:
    """End one session (logout); True when it was live."""
    with store.engine.begin() as conn:
        return conn.execute(update(m.web_sessions).where(and_(
            m.web_sessions.c.token_hash == _hash(session_id), m.web_sessions.c.revoked.is_(False)))
            .values(revoked=True)).rowcount > 0
