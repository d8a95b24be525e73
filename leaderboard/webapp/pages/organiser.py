"""Organiser: create campaigns, upload judgments and texts, inspect QC, preview and publish rankings."""

from __future__ import annotations

import hashlib
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pandas as pd
import streamlit as st

from leaderboard.errors import InputError
from leaderboard.webapp import common, state

MAX_UPLOAD_MB = 200
NO_QC = "none (stored judgments as they are)"


@contextmanager
def uploaded_path(uploaded) -> Iterator[Path]:
    """The upload written to a private temporary file (keeps the file's extension for format detection)."""
    suffix = "".join(Path(uploaded.name).suffixes[-2:]) if uploaded.name else ""
    fd, name = tempfile.mkstemp(suffix=suffix[:20], prefix="mtlb-upload-")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(uploaded.getbuffer())
        yield Path(name)
    finally:
        os.unlink(name)


def campaign_names() -> list[str]:
    camps = state.campaigns(state.store_url())
    return sorted(camps["campaign"].unique()) if not camps.empty else []


def render() -> None:
    st.title("Organiser")
    user = common.require_role("organiser", action="create campaigns, upload data and publish rankings")
    if user is None:
        return
    tabs = st.tabs(["Campaign", "Upload judgments", "Upload texts", "QC, preview and publish", "Metric submissions"])
    with tabs[0]:
        _campaign_tab()
    with tabs[1]:
        _judgments_tab(user)
    with tabs[2]:
        _texts_tab(user)
    with tabs[3]:
        _publish_tab(user)
    with tabs[4]:
        _submissions_tab(user)


def _campaign_tab() -> None:
    names = campaign_names()
    st.markdown(f"**{len(names)} campaign(s)**")
    camps = state.campaigns(state.store_url())
    if not camps.empty:
        st.dataframe(camps, hide_index=True)
    with st.form("new_campaign"):
        name = st.text_input("New campaign name", key="new_campaign_name", max_chars=200)
        description = st.text_input("Description", key="new_campaign_description", max_chars=1000)
        if st.form_submit_button("Create campaign"):
            try:
                state.get_store().create_campaign(name.strip(), description)
            except InputError as exc:
                common.show_input_error(exc)
            else:
                state.invalidate()
                st.success(f"Created campaign {common.md_escape(name.strip())}.")


def _target_campaign(key: str) -> str | None:
    names = campaign_names()
    if not names:
        st.info("Create a campaign first (or give a new name below).")
    choice = st.selectbox("Campaign", names + ["(new campaign…)"], key=key)
    if choice == "(new campaign…)":
        choice = st.text_input("New campaign name", key=key + "_new").strip() or None
    return choice


def _judgments_tab(user: dict) -> None:
    from leaderboard.ingest import FORMATS, detect_format, read_judgments

    campaign = _target_campaign("up_campaign")
    upload = st.file_uploader(f"Judgments file (CSV / TSV / Parquet / WMT release; at most {MAX_UPLOAD_MB} MB)",
                              key="up_judgments", max_upload_size=MAX_UPLOAD_MB)
    cols = st.columns(3)
    fmt = cols[0].selectbox("Format", ["detect"] + list(FORMATS), key="up_format")
    lp = cols[1].text_input("Language pair (when the file has none, e.g. cs-en)", key="up_lp").strip() or None
    assessment = cols[2].text_input("Assessment (default adequacy)", key="up_assessment").strip() or None
    stats = st.file_uploader("Worker mean/sd file of a WMT release (only for wmt-stnd files)", key="up_stats",
                             max_upload_size=10)
    errors = st.container()
    if not st.button("Validate and store", key="up_go", type="primary", disabled=upload is None):
        return
    if not campaign:
        errors.error("Choose a campaign or type a new campaign name.")
        return
    progress = st.progress(0.0, text="Validating…")
    try:
        with uploaded_path(upload) as path:
            stats_ctx = uploaded_path(stats) if stats is not None else None
            stats_path = stats_ctx.__enter__() if stats_ctx else None
            try:
                chosen = detect_format(path, name=upload.name) if fmt == "detect" else fmt
                frame = read_judgments(path, chosen, worker_stats=stats_path, campaign=campaign, lp=lp,
                                       assessment=assessment, name=upload.name)
            finally:
                if stats_ctx:
                    stats_ctx.__exit__(None, None, None)
        total = max(len(frame), 1)
        done = [0]

        def tick(n: int) -> None:
            done[0] += n
            progress.progress(min(done[0] / total, 1.0), text=f"Storing {done[0]:,} of {total:,} judgments…")

        summary = state.get_store().load_judgments(
            frame, file_name=upload.name, input_format=chosen,
            sha256=hashlib.sha256(upload.getvalue()).hexdigest(), created_by=user["name"], progress=tick)
    except InputError as exc:
        progress.empty()
        common.show_input_error(exc.with_file(upload.name), errors)
        return
    progress.progress(1.0, text="Stored.")
    state.invalidate()
    st.success(f"Stored {summary['judgments']:,} judgments of {frame['worker'].nunique()} workers and "
               f"{frame['system'].nunique()} systems into {common.md_escape(campaign)} "
               f"({', '.join(sorted(set(summary['lps'])))}).")


def _texts_tab(user: dict) -> None:
    from leaderboard.ingest.texts import check_aligned, parse_text_name, read_lines

    campaign = _target_campaign("tx_campaign")
    st.caption("Files named `<testset>.<lp>.<src|ref|hyp>.<name>.<lang>` (optionally .gz), e.g. "
               "`generaltest2022.cs-en.hyp.Online-B.en`; the line counts of one language pair must agree.")
    files = st.file_uploader("Sources, references and system outputs", accept_multiple_files=True, key="tx_files",
                             max_upload_size=MAX_UPLOAD_MB)
    errors = st.container()
    if not st.button("Validate and store texts", key="tx_go", disabled=not files or not campaign):
        return
    progress = st.progress(0.0, text="Validating…")
    try:
        parsed = []
        for i, up in enumerate(files):
            info = parse_text_name(up.name)
            with uploaded_path(up) as path:
                parsed.append((info, read_lines(path, name=up.name), up.name))
            progress.progress((i + 1) / (len(files) + 1), text=f"Read {up.name}")
        check_aligned(parsed)
        stored = state.get_store().load_texts(campaign, [(i.lp, i.kind, i.name, lines, name)
                                                         for i, lines, name in parsed], created_by=user["name"])
    except InputError as exc:
        progress.empty()
        common.show_input_error(exc, errors)
        return
    progress.progress(1.0, text="Stored.")
    state.invalidate()
    st.success(f"Stored {stored:,} lines from {len(parsed)} file(s) into {common.md_escape(campaign)}.")


def _ranking_options() -> tuple[list[str], list[str]]:
    from leaderboard import ranking
    protocols = getattr(ranking, "PROTOCOLS", None) or ("wmt-da",)
    rules = getattr(ranking, "CLUSTER_RULES", None) or ("organisers", "strict")
    return list(protocols), list(rules)


def _publish_tab(user: dict) -> None:
    camps = state.campaigns(state.store_url())
    camps = camps[camps["judgments"] > 0] if not camps.empty else camps
    if camps.empty:
        st.info("No stored judgments yet: upload some first.")
        return
    cols = st.columns(3)
    campaign = cols[0].selectbox("Campaign", sorted(camps["campaign"].unique()), key="pub_campaign")
    part = camps[camps["campaign"] == campaign]
    lp = cols[1].selectbox("Language pair", sorted(part["lp"].dropna().unique()), key="pub_lp")
    assessment = cols[2].selectbox("Assessment", sorted(part.loc[part["lp"] == lp, "assessment"].dropna().unique()),
                                   key="pub_assessment")
    if not state.has_module("leaderboard.ranking"):
        st.warning("Ranking (leaderboard.ranking) is not available in this installation.")
        return
    protocols, rules = _ranking_options()
    methods = [NO_QC]
    if state.has_module("leaderboard.qc"):
        from leaderboard.webapp.pages.qc import qc_methods
        methods += qc_methods()
    cols = st.columns(4)
    method = cols[0].selectbox("Worker QC", methods, key="pub_qc")
    qc_alpha = cols[1].select_slider("QC threshold p <", [0.01, 0.05, 0.1], value=0.05, key="pub_qc_alpha")
    protocol = cols[2].selectbox("Protocol", protocols, key="pub_protocol")
    rule = cols[3].selectbox("Cluster rule", rules, key="pub_rule")
    url = state.store_url()
    token = state.data_token(url, campaign)
    frame = state.judgments(url, campaign, lp, assessment, token)
    st.caption(f"{len(frame):,} stored judgments of {frame['worker'].nunique():,} workers for {lp} {assessment}.")
    qc_info = None
    if method != NO_QC:
        # QC pools each worker over the campaign's language pairs (WMT practice), then keeps this pair
        kept, report, summary, _ = state.qc(url, campaign, None, assessment, token, method, float(qc_alpha))
        kept = kept[kept["lp"] == lp]
        from leaderboard.webapp.pages.qc import summary_frame
        counts = summary_frame(summary)
        st.markdown("**Worker QC report**")
        if not counts.empty:
            st.dataframe(counts, hide_index=True)
        if isinstance(report, pd.DataFrame):
            st.dataframe(report, hide_index=True, height=240)
        frame = kept
        qc_info = {"method": method, "alpha": float(qc_alpha), "summary": summary}
    options = {"protocol": protocol, "cluster_rule": rule}
    key = (campaign, lp, assessment, token, method, float(qc_alpha), protocol, rule)
    if st.button("Preview ranking", key="pub_preview"):
        from leaderboard.publish import rank
        from leaderboard.storage.store import frame_hash
        rankings = rank(frame, **options)
        ranking = next(r for r in rankings if r["lp"] == lp)
        if qc_info:
            ranking = {**ranking, "qc": common.to_jsonable(qc_info)}
        st.session_state["preview"] = {"key": key, "ranking": ranking, "data_hash": frame_hash(frame)}
    preview = st.session_state.get("preview")
    if not preview or preview["key"] != key:
        st.info("Preview the ranking to check it before publishing.")
        return
    from leaderboard.publish import ranking_table
    from leaderboard.webapp.pages.leaderboard import styled_table
    st.markdown(f"**Preview** · signature `{preview['ranking'].get('signature', '')}`")
    st.table(styled_table(ranking_table(preview["ranking"])))
    snaps = state.snapshots(url)
    existing = snaps[(snaps["campaign"] == campaign) & (snaps["lp"] == lp) & (snaps["assessment"] == assessment)]
    next_version = int(existing["version"].max()) + 1 if not existing.empty else 1
    note = st.text_input("Note for this version (e.g. what it corrects)", key="pub_note", max_chars=500)
    if st.button(f"Publish as version v{next_version}", key="pub_go", type="primary"):
        version = state.get_store().publish(campaign, lp, assessment, preview["ranking"],
                                            data_hash=preview["data_hash"], publisher=user["name"], note=note)
        state.invalidate()
        st.session_state.pop("preview", None)
        st.success(f"Published {common.md_escape(campaign)} {lp} {assessment} as version v{version}. "
                   "Participants now see it on the Leaderboard.")


def _submissions_tab(user: dict) -> None:
    names = campaign_names()
    if not names:
        st.info("No campaigns yet.")
        return
    campaign = st.selectbox("Campaign", names, key="sub_campaign")
    subs = state.get_store().metric_submissions(campaign, viewer=user["name"], include_private=True)
    if subs.empty:
        st.info("No metric submissions for this campaign.")
        return
    st.dataframe(subs, hide_index=True)
    cols = st.columns(2)
    sid = cols[0].selectbox("Submission", subs["id"].tolist(), key="sub_id",
                            format_func=lambda i: f"#{i} {subs.set_index('id').loc[i, 'metric']}")
    public = bool(subs.set_index("id").loc[sid, "public"])
    if cols[1].button("Hide" if public else "Publish", key="sub_toggle"):
        state.get_store().set_submission_public(int(sid), not public, user["name"], user["role"])
        st.rerun()


if __name__ == "__main__":
    render()
