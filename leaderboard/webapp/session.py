"""Logins that survive a reload or a new tab: a server-side session whose random id lives in a cookie.

At login :func:`start` creates a session in the store (:mod:`leaderboard.storage.sessions`: only the
id's SHA-256 is stored, with the user and an expiry time) and :func:`sync_cookie` hands the id to
the browser as the cookie ``mtlb_session`` (``Path=/``, ``SameSite=Strict``, ``Max-Age`` = the
session's lifetime, ``Secure`` over https). Every new connection (a reload, a link opened in a new
tab) sends the cookie; :func:`restore` reads it from ``st.context.cookies`` and logs the user back
in while the session is live. :func:`end` (log out) revokes the session in the store and deletes the
cookie, so a copy of the cookie is worthless afterwards; a live session is re-checked against the
store every :data:`RECHECK_SECONDS`, so revoking or expiry also ends open tabs.

A Streamlit script cannot answer an HTTP request itself, so the cookie is written by a tiny
same-origin script (a 1-pixel iframe in the sidebar) and therefore cannot be ``HttpOnly``. What it
holds is only the random id; user text is never rendered as HTML anywhere in the app, which is what
would let a script read it.
"""

from __future__ import annotations

import re
import time

import streamlit as st

from ..storage.sessions import create_session, revoke_session, session_hours, session_user
from . import state

COOKIE = "mtlb_session"
RECHECK_SECONDS = 60
_ID = re.compile(r"^[A-Za-z0-9_-]{20,100}$")  # what secrets.token_urlsafe produces


def _cookie() -> str | None:
    """The session id the browser sent when this connection opened (None in tests / old Streamlit)."""
    try:
        value = st.context.cookies.get(COOKIE)
    except Exception:  # no browser connection (AppTest) or no st.context.cookies
        return None
    return value if isinstance(value, str) and _ID.match(value) else None


def restore() -> None:
    """Log the browser's session back in, or drop a login whose session was revoked or expired."""
    user = st.session_state.get("user")
    own = st.session_state.get("_session_id")
    if user and own:
        if time.monotonic() - st.session_state.get("_session_checked", 0.0) > RECHECK_SECONDS:
            if session_user(state.get_store(), own) is None:
                _forget()
            else:
                st.session_state["_session_checked"] = time.monotonic()
        return
    if user:
        return
    sent = _cookie()
    if not sent or sent == st.session_state.get("_ended_session"):
        return
    found = session_user(state.get_store(), sent)
    if found is None:
        st.session_state["_clear_cookie"] = True
        return
    st.session_state.update(user=found, _session_id=sent, _session_checked=time.monotonic())


def start(user: dict) -> None:
    """Log ``user`` in for this tab and create the session the browser keeps (see :func:`sync_cookie`)."""
    session_id, _ = create_session(state.get_store(), user["name"])
    st.session_state.update(user=user, _session_id=session_id, _session_checked=time.monotonic())
    st.session_state.pop("_clear_cookie", None)


def end() -> None:
    """Log out: revoke the session in the store and delete the browser's cookie."""
    own = st.session_state.get("_session_id") or _cookie()
    if own:
        revoke_session(state.get_store(), own)
        st.session_state["_ended_session"] = own
    _forget()


def _forget() -> None:
    for key in ("user", "_session_id", "_session_checked"):
        st.session_state.pop(key, None)
    st.session_state["_clear_cookie"] = True


def _script(body: str) -> str:
    return ("<script>(function(){try{var d=window.parent.document;var s=window.parent.location.protocol==="
            "'https:'?'; Secure':'';" + body + "}catch(e){}})();</script>")


def sync_cookie() -> None:
    """Write the session cookie after a login, delete it after a logout (renders nothing visible)."""
    own = st.session_state.get("_session_id")
    sent = _cookie()
    if own and own != sent:
        max_age = int(session_hours() * 3600)
        _run(_script(f"d.cookie='{COOKIE}={own}; Path=/; Max-Age={max_age}; SameSite=Strict'+s;"))
    elif not own and st.session_state.get("_clear_cookie"):
        _run(_script(f"d.cookie='{COOKIE}=; Path=/; Max-Age=0; SameSite=Strict'+s;"))


def _run(html: str) -> None:
    """Run a fixed same-origin script (our own code and a random id only; never user text)."""
    with st.sidebar:
        if hasattr(st, "iframe"):
            st.iframe(html, height=1)
        else:  # Streamlit < 1.5x
            import streamlit.components.v1 as components
            components.html(html, height=0)
