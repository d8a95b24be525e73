"""The app's frame: page config, demo on first start, navigation, the sidebar view picker and login box."""

from __future__ import annotations

import logging
from pathlib import Path

import streamlit as st

from . import annotate_view, common, navigation, session, state
from .markdown import md_escape

# the tab's icon ships with the app: a named Material icon would be fetched from Google's font server
ICON = str(Path(__file__).resolve().parent / "assets" / "icon.png")
# pages that show one published snapshot and therefore get the sidebar picker
VIEW_PAGES = {"leaderboard", "significance", "system", "qc", "metrics", ""}

log = logging.getLogger("mtlb.webapp")


def main() -> None:
    if annotate_view.requested():  # an annotator's link: their task and nothing else of the app
        st.set_page_config(page_title="Annotation", page_icon=ICON, layout="centered",
                           initial_sidebar_state="collapsed")
        _store_or_stop()
        st.navigation([navigation.annotate_page()], position="hidden").run()
        return
    st.set_page_config(page_title="MT leaderboard", page_icon=ICON, layout="wide")
    _store_or_stop()
    state.ensure_demo()
    # the login is restored before the menu is built: the menu's login entry depends on it
    session.restore()
    # a stale or mistyped link gets the app's own not-found page instead of Streamlit's pop-up
    current = st.navigation(navigation.sections(not_found=navigation.unknown_path()))
    st.session_state["_view"] = common.sidebar_view() if current.url_path in VIEW_PAGES else \
        st.session_state.get("_view")
    _login_box()
    session.sync_cookie()
    run_page(current)


def run_page(page) -> None:
    """Run a page. An error no page handled shows one short line and is logged with its traceback; a
    visitor never sees a traceback (refused input shows where it was refused, as on every page)."""
    from ..errors import InputError
    try:
        page.run()
    except InputError as exc:
        common.show_input_error(exc)
    except Exception as exc:  # noqa: BLE001 - the last resort of every page (st.stop / st.rerun are not Exceptions)
        log.exception("unexpected error on page %r", getattr(page, "url_path", page))
        database = type(exc).__module__.startswith(("sqlalchemy", "psycopg", "sqlite3"))
        st.error("The database could not complete this action; nothing was changed. Please try again later."
                 if database else "Something went wrong on this page; nothing was changed. The error was logged "
                 "for the organisers; please try again later.", icon=":material/error:")


def _store_or_stop() -> None:
    """Open the store, or say in one line why it cannot be used (no traceback on the page)."""
    from ..errors import InputError
    try:
        state.get_store()
    except InputError as exc:  # e.g. the schema waits for `mtlb db upgrade` (MTLB_AUTO_MIGRATE=0)
        st.error(str(exc))
        st.stop()
    except Exception as exc:  # the database is down or refuses the connection
        first = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        st.error(f"The database cannot be used right now: {first}")
        st.stop()


def _login_box() -> None:
    user = common.current_user()
    st.sidebar.divider()
    if user:
        st.sidebar.caption(f"Logged in as **{md_escape(user['name'])}** ({user['role'].replace('-', ' ')})")
        if st.sidebar.button("Log out", key="logout", icon=":material/logout:"):
            session.end()
            st.rerun()
    else:
        st.sidebar.caption("Participants need no login. Organisers and metric developers: **Log in**; "
                           "shared-task teams: **Teams**.")
