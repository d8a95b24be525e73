"""Log in (organisers and metric developers); participants need no account."""

from __future__ import annotations

import streamlit as st

from leaderboard.accounts.auth import LoginThrottled, authenticate, authenticate_token
from leaderboard.webapp import common, navigation, session, state
from leaderboard.webapp.markdown import md_escape


def _client() -> str:
    try:
        return st.context.ip_address or ""
    except Exception:  # not available in every runtime (e.g. tests)
        return ""


def _demo_accounts() -> None:
    """The demo store's accounts with their passwords, when this store has them (made on the command line
    for a store holding only the demo); else, on a demo the app loaded itself, how a demo gets them."""
    accounts = state.demo_accounts()
    if not accounts:
        if state.is_demo_store():
            st.info("This is the demo. A demo loaded from the command line (make run) gets an organiser and a "
                    "metric-developer account, and this page then shows their passwords; this one was loaded by "
                    "the app itself, which makes no accounts.", icon=":material/info:")
        return
    roles = {"organiser": "Organiser", "metric-developer": "Metric developer"}
    lines = [f"- {roles.get(a['role'], md_escape(a['role']))}: user name **{md_escape(a['name'])}**, "
             f"password **{md_escape(a['password'])}**" for a in accounts]
    st.info("**Demo accounts.** This store is a demo: these accounts exist only in it, with passwords made for it "
            "when the demo was loaded.\n\n" + "\n".join(lines), icon=":material/key:")


def render() -> None:
    user = common.current_user()
    st.title("Account" if user else "Log in")
    if user:
        st.success(f"You are logged in as {md_escape(user['name'])} ({user['role'].replace('-', ' ')}).")
        if st.button("Log out", key="logout-page"):
            session.end()
            st.rerun()
        return
    _demo_accounts()
    st.caption("Accounts (organiser or metric developer) are created by an administrator on the command line (the "
               "README's Publishing section says how). Metric developers may instead log in with the upload token "
               "an administrator gives them, on the **Upload token** tab.")
    with_password, with_token = st.tabs(["Password", "Upload token"])
    with with_password, st.form("login", clear_on_submit=False):
        name = st.text_input("User name", key="login_name", autocomplete="username")
        password = st.text_input("Password", type="password", key="login_password", autocomplete="current-password")
        submitted = st.form_submit_button("Log in", type="primary")
    with with_token, st.form("token_login", clear_on_submit=True):
        token = st.text_input("Upload token", type="password", key="login_token")
        token_submitted = st.form_submit_button("Use token")
    if not (submitted or token_submitted):
        return
    try:
        if submitted:
            found = authenticate(state.get_store(), name, password, client=_client())
        else:
            found = authenticate_token(state.get_store(), token, client=_client())
    except LoginThrottled as exc:
        st.error(f"Too many failed logins. Try again in {int(exc.retry_after) + 1} seconds.")
        return
    if found is None:
        st.error("Wrong user name or password." if submitted else "Unknown or revoked upload token.")
        return
    session.start(found)
    target = {"organiser": "organiser", "team": "teams"}.get(found["role"], "metrics")
    st.switch_page(navigation.page(target))


if __name__ == "__main__":
    render()
