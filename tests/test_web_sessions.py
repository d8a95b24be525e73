"""Server-side login sessions: only the id's hash is stored; revoked and expired sessions are refused."""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta, timezone

from sqlalchemy import text, update

from leaderboard.accounts.auth import create_user
from leaderboard.storage import Store
from leaderboard.storage import models as m
from leaderboard.storage.sessions import create_session, revoke_session, session_user


def test_sessions_live_expire_and_revoke(db_url, monkeypatch):
    store = Store(db_url)
    create_user(store, "olga", "organiser-pass", "organiser")
    create_user(store, "mdev", "developer-pass", "metric-developer")
    sid, expires = create_session(store, "olga")
    now = datetime.now(timezone.utc)
    assert timedelta(hours=11.9) < expires - now <= timedelta(hours=12)
    assert session_user(store, sid) == {"name": "olga", "role": "organiser"}
    with store.engine.connect() as conn:
        stored = conn.execute(text("SELECT token_hash FROM web_sessions")).scalars().all()
    assert stored == [hashlib.sha256(sid.encode()).hexdigest()]  # never the id itself
    assert session_user(store, sid + "x") is None and session_user(store, "") is None
    other, _ = create_session(store, "mdev")
    assert revoke_session(store, sid) and not revoke_session(store, sid)
    assert session_user(store, sid) is None and session_user(store, other)["name"] == "mdev"
    # expiry: a session past its time is refused (and cleaned up at the next login)
    with store.engine.begin() as conn:
        conn.execute(update(m.web_sessions).values(expires_at=now - timedelta(seconds=1)))
    assert session_user(store, other) is None
    create_session(store, "mdev")
    with store.engine.connect() as conn:
        assert conn.execute(text("SELECT COUNT(*) FROM web_sessions")).scalar() == 1
    monkeypatch.setenv("MTLB_SESSION_HOURS", "2")
    _, expires = create_session(store, "mdev")
    assert expires - datetime.now(timezone.utc) <= timedelta(hours=2)
