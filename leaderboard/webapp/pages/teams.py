"""Teams: sign up, sign in with a token, submit system outputs, see scores and rank, compare outputs."""

from __future__ import annotations

import streamlit as st

from leaderboard.errors import InputError
from leaderboard.webapp import common, outputs_views as ov, session, state
from leaderboard.webapp.markdown import md_escape
from leaderboard.webapp.pages.login import _client as client_address
from leaderboard.webapp.pages.organiser import uploaded_path

MAX_UPLOAD_MB = 50


def render() -> None:
    st.title("Teams")
    user = common.current_user()
    if user is None or user.get("role") != "team":
        if user is not None:
            st.info(f"You are logged in as {md_escape(user['name'])} ({user['role'].replace('-', ' ')}); "
                    "this page is for participating teams.")
        _sign_up_or_in()
        return
    team = ov.outputs_store().team(user["name"])
    if team is None:
        st.error("This team no longer exists.")
        return
    st.subheader(f"Team {md_escape(team['name'])}")
    if not team["verified"]:
        st.warning("Your team is waiting for an organiser's verification; you can submit once it is verified.")
    tabs = st.tabs(["Submit", "My submissions", "Compare outputs"])
    with tabs[0]:
        _submit(team)
    with tabs[1]:
        _my_submissions(team)
    with tabs[2]:
        _compare(team)


# ---- sign up / sign in ----------------------------------------------------------------------------
def _sign_up_or_in() -> None:
    flash = st.session_state.get("team_new_token")
    if flash:
        st.success(f"Team {md_escape(flash['name'])} signed up. Keep this sign-in token: it is shown only "
                   "once (only its hash is stored). An organiser must verify the team before it can submit.")
        st.code(flash["token"], language=None)
    sign_in, sign_up = st.tabs(["Sign in with a token", "Sign up a new team"])
    with sign_in, st.form("team_sign_in", clear_on_submit=True):
        token = st.text_input("Team token", type="password", key="team_token")
        go = st.form_submit_button("Sign in", type="primary")
    if go:
        from leaderboard.accounts.auth import LoginThrottled, authenticate_token
        try:
            found = authenticate_token(state.get_store(), token, client=client_address())
        except LoginThrottled as exc:
            st.error(f"Too many failed sign-ins. Try again in {int(exc.retry_after) + 1} seconds.")
            return
        if found is None or found["role"] != "team":
            st.error("Unknown or revoked team token.")
            return
        session.start(found)
        st.session_state.pop("team_new_token", None)
        st.rerun()
    with sign_up, st.form("team_sign_up"):
        name = st.text_input("Team name", key="signup_name", max_chars=100)
        contact = st.text_input("Contact e-mail", key="signup_contact", max_chars=300)
        institution = st.text_input("Institution", key="signup_institution", max_chars=300)
        description = st.text_area("System description", key="signup_description", max_chars=5000)
        submitted = st.form_submit_button("Sign up")
    if submitted:
        from leaderboard.outputs.service import add_team
        if "@" not in contact:
            st.error("Give a contact e-mail address.")
            return
        try:
            result = add_team(state.get_store(), name.strip(), contact=contact.strip(),
                              institution=institution.strip(), description=description.strip(), token=True)
        except InputError as exc:
            common.show_input_error(exc)
            return
        st.session_state["team_new_token"] = {"name": result["name"], "token": result["token"]}
        st.rerun()


# ---- submitting --------------------------------------------------------------------------------------
def _open_testsets():
    sets = ov.testsets()
    return sets


def _submit(team: dict) -> None:
    from leaderboard.outputs.service import iso, submit
    sets = _open_testsets()
    if sets.empty:
        st.info("No test set has been released yet.")
        return
    labels = [ov.testset_label(c, lp) for c, lp in zip(sets["campaign"], sets["lp"])]
    choice = st.selectbox("Test set", labels, key="sub_testset")
    row = sets.iloc[labels.index(choice)]
    st.caption(f"{int(row['segments'])} segments · deadline {iso(row['deadline']) or 'none'} · at most "
               f"{int(row['max_submissions'])} submissions per team. Upload plain text, one translation per line "
               "in the order of the source (UTF-8; .gz accepted).")
    upload = st.file_uploader("System output", key="sub_file", max_upload_size=MAX_UPLOAD_MB)
    cols = st.columns(4)
    from leaderboard.outputs.service import default_system_name
    default = default_system_name(upload.name if upload is not None else "", team["name"])
    system = cols[0].text_input("System name", key="sub_system", max_chars=200,
                                placeholder=f"default: {default}",
                                help="left empty: the <system> part of a WMT file name "
                                     "(<testset>.<lp>.hyp.<system>.<lang>), else the team's name — the same "
                                     "rule as mtlb outputs submit")
    primary = cols[1].checkbox("Primary", key="sub_primary", help="the system the human evaluation should use")
    constrained = cols[2].checkbox("Constrained", key="sub_constrained")
    open_source = cols[3].checkbox("Open source", key="sub_open_source")
    errors = st.container()
    if st.button("Validate and submit", key="sub_go", type="primary", disabled=upload is None or not team["verified"]):
        try:
            with st.spinner("Validating and scoring with sacrebleu…"), uploaded_path(upload) as path:
                result = submit(state.get_store(), path, campaign=str(row["campaign"]), lp=str(row["lp"]),
                                team=team["name"], system=system.strip() or None, label=upload.name, primary=primary,
                                constrained=constrained, open_source=open_source, created_by=team["name"])
        except InputError as exc:
            common.show_input_error(exc, errors)
            st.session_state.pop("sub_result", None)
            return
        st.session_state["sub_result"] = result
        state.invalidate()
    result = st.session_state.get("sub_result")
    if result:
        _show_result(result, team)


def _show_result(result: dict, team: dict) -> None:
    scores = result["scores"]
    if "chrf" in scores:
        st.success(f"Stored submission #{result['id']} ({md_escape(result['system'])}): "
                   f"BLEU {scores['bleu']:.2f}, chrF {scores['chrf']:.2f}.")
    else:
        st.success(f"Stored submission #{result['id']}; it will be scored when the references are released.")
    for flag, count in result["flags"].items():
        st.warning(f"Note: {md_escape(ov.flag_text(flag, count))}.")
    _rank_note(result["campaign"], result["lp"], team["name"])


def _rank_note(campaign: str, lp: str, team: str) -> None:
    from leaderboard.outputs.service import leaderboard_hidden
    ts = ov.outputs_store().testset(campaign, lp)
    if leaderboard_hidden(ts):
        st.info("The automatic leaderboard of this test set is hidden until the deadline.")
        return
    board = ov.board(state.store_url(), campaign, lp, ov.revision(campaign))
    sentence = ov.rank_sentence(board, team, campaign, lp)
    if sentence:
        st.info(md_escape(sentence))


# ---- own submissions ---------------------------------------------------------------------------------
def _my_submissions(team: dict) -> None:
    subs = ov.outputs_store().submissions(team=team["name"])
    if subs.empty:
        st.info("No submissions yet.")
        return
    common.table(ov.submissions_frame(subs))
    ids = subs["id"].tolist()
    labels = {int(r.id): f"#{r.id} {r.campaign} {r.lp} {r.system}" for r in subs.itertuples()}
    sid = st.selectbox("Submission", ids, format_func=lambda i: labels[int(i)], key="my_sub")
    sub = subs.set_index("id").loc[sid]
    cols = st.columns(3)
    if cols[0].button("Mark primary", key="my_primary", disabled=bool(sub["primary"]) or bool(sub["withdrawn"])):
        ov.outputs_store().set_primary(int(sid), True)
        state.invalidate()
        st.session_state["my_flash"] = f"Submission #{sid} is now your primary submission for {sub['lp']}."
        st.rerun()
    if cols[1].button("Withdraw", key="my_withdraw", disabled=bool(sub["withdrawn"])):
        ov.outputs_store().withdraw(int(sid))
        state.invalidate()
        st.session_state["my_flash"] = f"Submission #{sid} is withdrawn."
        st.rerun()
    flash = st.session_state.pop("my_flash", None)
    if flash:
        st.success(flash)
    _rank_note(str(sub["campaign"]), str(sub["lp"]), team["name"])
    with st.expander("Segments beside source and references"):
        from leaderboard.outputs.viewer import segments_frame
        common.table(segments_frame(state.get_store(), int(sid)))


# ---- comparing two outputs -------------------------------------------------------------------------
def _compare(team: dict) -> None:
    subs = ov.outputs_store().submissions(team=team["name"])
    if len(subs) < 2:
        st.info("Compare two of your submissions side by side once you have made two.")
        return
    compare_view(subs, key="team_cmp")


def compare_view(subs, key: str) -> None:
    """Two submissions of one test set side by side, word-level differences highlighted (escaped)."""
    from leaderboard.outputs.diffview import side_by_side_html
    from leaderboard.languages import target_language, word_split_by_character
    from leaderboard.outputs.viewer import segments_frame
    labels = {int(r.id): f"#{r.id} {r.campaign} {r.lp} {r.team}/{r.system}" for r in subs.itertuples()}
    ids = list(labels)
    cols = st.columns(2)
    a = cols[0].selectbox("Left", ids, format_func=lambda i: labels[int(i)], key=f"{key}_a")
    rest = [i for i in ids if i != a and subs.set_index("id").loc[i, "testset_id"] ==
            subs.set_index("id").loc[a, "testset_id"]]
    if not rest:
        st.info("No other submission for the same test set.")
        return
    b = cols[1].selectbox("Right", rest, format_func=lambda i: labels[int(i)], key=f"{key}_b")
    only_diff = st.checkbox("Only segments that differ", value=True, key=f"{key}_only")
    frame = segments_frame(state.get_store(), int(a), int(b))
    ref_cols = [c for c in frame.columns if c.startswith("ref ")]
    out_a, out_b = [c for c in frame.columns if c.startswith("#")][:2]
    if only_diff:
        frame = frame[~frame["same"]]
    st.caption(f"{len(frame)} segment(s) shown; removed words are struck through on the left, added words "
               "highlighted on the right.")
    limit = 200
    rows = [{"line": r["line"], "source": r["source"], "reference": r[ref_cols[0]] if ref_cols else "",
             "a": r[out_a], "b": r[out_b]} for r in frame.head(limit).to_dict(orient="records")]
    lp = str(subs.set_index("id").loc[a, "lp"])
    st.html(side_by_side_html(rows, out_a, out_b, by_character=word_split_by_character(target_language(lp))))
    if len(frame) > limit:
        st.caption(f"The first {limit} differing segments are shown.")


if __name__ == "__main__":
    render()
