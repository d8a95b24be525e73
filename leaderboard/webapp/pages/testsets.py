"""Test sets (organisers): release test sets, verify teams, manage submissions, export them, build HITs
from the primary submissions."""

from __future__ import annotations

from datetime import datetime, time, timezone
from pathlib import Path

import streamlit as st

from leaderboard.errors import InputError
from leaderboard.webapp import common, outputs_views as ov, state
from leaderboard.webapp.markdown import md_escape
from leaderboard.webapp.pages.organiser import MAX_UPLOAD_MB, uploads_in_folder


def render() -> None:
    st.title("Test sets")
    user = common.require_role("organiser", action="release test sets, verify teams and manage submissions")
    if user is None:
        return
    tabs = st.tabs(["Test sets", "Teams", "Submissions", "HITs from primaries"])
    with tabs[0]:
        _testsets(user)
    with tabs[1]:
        _teams(user)
    with tabs[2]:
        _submissions()
    with tabs[3]:
        _hits()


# ---- test sets --------------------------------------------------------------------------------------
DEFAULT_TOKENISER = "by target language"
TOKENISERS = ("13a", "intl", "char", "zh", "ja-mecab", "ko-mecab", "flores101", "flores200", "none")

def _testsets(user: dict) -> None:
    from leaderboard.outputs.service import iso
    sets = ov.testsets()
    if not sets.empty:
        shown = sets.drop(columns=["id", "created_by"]).assign(
            **{c: [(iso(v) or "")[:16].replace("T", " ") for v in sets[c]] for c in ("starts_at", "deadline",
                                                                                      "created_at")})
        common.table(shown)
    st.markdown("**Release a test set**")
    with st.form("new_testset"):
        cols = st.columns(2)
        campaign = cols[0].text_input("Campaign (created when new)", key="ts_campaign", max_chars=200)
        lp = cols[1].text_input("Language pair", key="ts_lp", placeholder="e.g. cs-en", max_chars=40,
                                help="two language codes joined by a hyphen, source first, such as cs-en")
        source = st.file_uploader("Source (one segment per line)", key="ts_source", max_upload_size=MAX_UPLOAD_MB)
        refs = st.file_uploader("References (optional until the deadline; several = multi-reference)",
                                key="ts_refs", accept_multiple_files=True, max_upload_size=MAX_UPLOAD_MB)
        cols = st.columns(4)
        has_deadline = cols[0].checkbox("Deadline", key="ts_has_deadline")
        day = cols[1].date_input("Deadline date (UTC)", key="ts_deadline_day")
        hour = cols[2].time_input("Deadline time (UTC)", value=time(23, 59), key="ts_deadline_time")
        limit = cols[3].number_input("Submissions per team", min_value=1, max_value=1000, value=20, key="ts_limit")
        hidden = st.checkbox("Hide the automatic leaderboard from participants until the deadline", key="ts_hidden")
        tokenise = st.selectbox("BLEU tokeniser", [DEFAULT_TOKENISER, *TOKENISERS], key="ts_bleu_tokenize",
                                help="sacrebleu's -tok for every BLEU score of this test set; by default zh, "
                                     "ja-mecab or ko-mecab for Chinese, Japanese and Korean, char for Thai-like "
                                     "scripts, 13a otherwise")
        go = st.form_submit_button("Validate and store the test set", type="primary")
    if not go:
        return
    if not campaign.strip() or not lp.strip() or source is None:
        st.error("Give a campaign, a language pair and the source file.")
        return
    from leaderboard.languages import split_lp
    try:
        split_lp(lp)
    except InputError as exc:
        st.error(md_escape(exc.message))
        return
    from leaderboard.outputs.service import add_testset
    deadline = datetime.combine(day, hour, tzinfo=timezone.utc) if has_deadline else None
    try:
        with uploads_in_folder([source] + list(refs or [])) as (folder, names):
            path = lambda up: folder / Path(up.name).name  # noqa: E731 (where uploads_in_folder wrote it)
            result = add_testset(state.get_store(), campaign.strip(), lp.strip(), path(source),
                                 [path(r) for r in refs or []], deadline=deadline, public_before_deadline=not hidden,
                                 max_submissions=int(limit), labels=names, created_by=user["name"],
                                 bleu_tokenize=None if tokenise == DEFAULT_TOKENISER else tokenise)
    except InputError as exc:
        common.show_input_error(exc)
        return
    state.invalidate()
    st.success(f"Stored test set {md_escape(result['testset'])} for {md_escape(campaign.strip())} "
               f"{md_escape(lp.strip())}: {result['segments']} segments, "
               f"{len(result['references'])} reference(s).")


# ---- teams ------------------------------------------------------------------------------------------
def _teams(user: dict) -> None:
    teams = ov.outputs_store().teams()
    if teams.empty:
        st.info("No team has signed up yet.")
        return
    common.table(teams.drop(columns=["id"]), {"name": "Team"})
    waiting = teams[~teams["verified"]]["name"].tolist()
    flash = st.session_state.pop("teams_flash", None)
    if flash:
        st.success(flash)
    if waiting:
        cols = st.columns([3, 1])
        name = cols[0].selectbox("Team waiting for verification", waiting, key="verify_team")
        if cols[1].button("Verify", key="verify_go", type="primary"):
            ov.outputs_store().set_verified(name, True, user["name"])
            st.session_state["teams_flash"] = f"Team {md_escape(name)} is verified and may submit."
            st.rerun()
    else:
        st.caption("Every team is verified.")
    verified = teams[teams["verified"]]["name"].tolist()
    if verified:
        cols = st.columns([3, 1])
        name = cols[0].selectbox("Revoke a team's tokens (it signs in again with a new token)", verified,
                                 key="revoke_team")
        if cols[1].button("Revoke tokens", key="revoke_go"):
            n = state.get_store().revoke_upload_tokens(name)
            st.session_state["teams_flash"] = f"Revoked {n} token(s) of {md_escape(name)}."
            st.rerun()


# ---- submissions ------------------------------------------------------------------------------------
def _submissions() -> None:
    out = ov.outputs_store()
    subs = out.submissions()
    if subs.empty:
        st.info("No submissions yet.")
        return
    common.table(ov.submissions_frame(subs))
    labels = {int(r.id): f"#{r.id} {r.campaign} {r.lp} {r.team}/{r.system}" for r in subs.itertuples()}
    cols = st.columns([3, 1, 1])
    sid = cols[0].selectbox("Submission", list(labels), format_func=lambda i: labels[int(i)], key="org_sub")
    row = subs.set_index("id").loc[sid]
    if cols[1].button("Primary" if not row["primary"] else "Contrastive", key="org_primary",
                      disabled=bool(row["withdrawn"])):
        out.set_primary(int(sid), not bool(row["primary"]))
        state.invalidate()
        st.rerun()
    if cols[2].button("Withdraw", key="org_withdraw", disabled=bool(row["withdrawn"])):
        out.withdraw(int(sid))
        state.invalidate()
        st.rerun()
    campaigns = sorted(subs["campaign"].unique())
    cols = st.columns([3, 1])
    campaign = cols[0].selectbox("Export every output of a campaign", campaigns, key="org_export_campaign")
    from leaderboard.outputs.service import export_zip
    cols[1].download_button("Download all outputs of the campaign (zip)", lambda: export_zip(state.get_store(), campaign),
                            file_name=f"{common.slug(campaign)}-outputs.zip", mime="application/zip",
                            key="org_export", on_click="ignore")
    with st.expander("Compare two submissions"):
        from leaderboard.webapp.pages.teams import compare_view
        compare_view(subs, key="org_cmp")


# ---- HITs from the primary submissions --------------------------------------------------------------
def _hits() -> None:
    sets = ov.testsets()
    if sets.empty:
        st.info("No test sets yet.")
        return
    labels = [ov.testset_label(c, lp) for c, lp in zip(sets["campaign"], sets["lp"])]
    choice = st.selectbox("Test set", labels, key="ph_testset")
    row = sets.iloc[labels.index(choice)]
    campaign, lp = str(row["campaign"]), str(row["lp"])
    primaries = ov.outputs_store().primary_outputs(campaign, lp)
    st.caption(f"{len(primaries)} primary submission(s): "
               f"{', '.join(md_escape(p) for p in sorted(primaries)) or 'none yet'}. "
               "Their system names become the systems of the human evaluation.")
    cols = st.columns(3)
    assessment = cols[0].selectbox("Assessment", ["adequacy", "fluency"], key="ph_assessment")
    n_hits = cols[1].number_input("Number of HITs (0 = every output about once)", min_value=0, max_value=10000,
                                  value=0, step=1, key="ph_n")
    seed = cols[2].number_input("Seed", min_value=0, max_value=2**31 - 1, value=0, step=1, key="ph_seed")
    errors = st.container()
    if st.button("Build HITs from the primaries", key="ph_go", type="primary", disabled=not primaries):
        try:
            st.session_state["ph_batch"] = build_primary_batch(campaign, lp, assessment, int(n_hits) or None,
                                                               int(seed))
        except InputError as exc:
            common.show_input_error(exc, errors)
            st.session_state.pop("ph_batch", None)
    batch = st.session_state.get("ph_batch")
    if not batch:
        return
    manifest = batch["manifest"]
    st.success(f"Built {manifest['hits']} HITs ({manifest['items']:,} items) for {md_escape(campaign)} "
               f"{manifest['lp']} {manifest['assessment']} from {len(manifest['systems'])} primary submissions.")
    name = common.slug(f"{campaign}-{manifest['lp']}-{manifest['assessment']}-seed{manifest['seed']}")
    cols = st.columns(2)
    cols[0].download_button("Download HITs (hits.csv)", batch["hits.csv"], file_name=f"hits-{name}.csv", mime="text/csv",
                            key="ph-dl-hits", on_click="ignore")
    cols[1].download_button("Download MTurk upload file (CSV)", batch["mturk-upload.csv"], file_name=f"mturk-upload-{name}.csv",
                            mime="text/csv", key="ph-dl-mturk", on_click="ignore")


def build_primary_batch(campaign: str, lp: str, assessment: str, n_hits: int | None, seed: int) -> dict:
    """A HIT batch from the primary submissions (what ``mtlb hits build --from-primaries`` writes)."""
    from leaderboard.outputs.service import primary_sources
    from leaderboard.usecases.hits import batch_files
    return batch_files(primary_sources(state.get_store(), campaign, lp), lp=lp, assessment=assessment,
                       n_hits=n_hits, seed=seed, campaign=campaign, html_pages=False)


if __name__ == "__main__":
    render()
