"""Organiser: create campaigns, upload judgments and texts, QC, preview and publish rankings, build HITs,
run human evaluations in the service."""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pandas as pd
import streamlit as st

from leaderboard.errors import InputError
from leaderboard.webapp import common, state
from leaderboard.webapp.markdown import md_escape

MAX_UPLOAD_MB = 200
NO_QC = "none"


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
    tabs = st.tabs(["Campaign", "Upload judgments", "Upload texts", "QC, preview and publish", "Build HITs",
                    "Metric submissions", "Imports", "Human evaluation"])
    with tabs[0]:
        _campaign_tab()
    with tabs[1]:
        _judgments_tab(user)
    with tabs[2]:
        _texts_tab(user)
    with tabs[3]:
        _publish_tab(user)
    with tabs[4]:
        _hits_tab(user)
    with tabs[5]:
        _submissions_tab(user)
    with tabs[6]:
        _imports_tab(user)
    with tabs[7]:
        from leaderboard.webapp import collect_views
        collect_views.render(user, campaign_names())


def _campaign_tab() -> None:
    flash = st.session_state.pop("campaign_flash", None)
    if flash:
        st.success(flash, icon=":material/check_circle:")
    names = campaign_names()
    st.markdown(f"**{len(names)} campaign(s)**")
    camps = state.campaigns(state.store_url())
    if not camps.empty:
        common.table(camps)
    with st.form("new_campaign"):
        name = st.text_input("New campaign name", key="new_campaign_name", max_chars=200)
        description = st.text_input("Description", key="new_campaign_description", max_chars=1000)
        lines = st.checkbox(SEGMENTS_ARE_LINES, value=False, key="new_campaign_lines", help=SEGMENTS_HELP)
        if st.form_submit_button("Create campaign"):
            try:
                state.get_store().create_campaign(name.strip(), description, segments_are_lines=lines)
            except InputError as exc:
                common.show_input_error(exc)
            else:
                state.invalidate()
                # run again so that the list above (drawn before the form) shows the new campaign
                st.session_state["campaign_flash"] = f"Created campaign {md_escape(name.strip())}."
                st.rerun()
    if names:
        _campaign_settings(names)


SEGMENTS_ARE_LINES = "Segment ids are line numbers of the stored test-set texts"
SEGMENTS_HELP = ("Only when judgment segment id N is line N of the source / reference / output files: then the "
                 "System page shows the texts next to the scores and segment-level metric scores are paired with "
                 "human scores. Off by default: a WMT release numbers segments its own way, and a wrong 'yes' pairs "
                 "texts with the wrong scores. 'Verify from the data' checks it.")


def _campaign_settings(names: list[str]) -> None:
    """The segments-are-lines setting of an existing campaign, with a check from the data."""
    from leaderboard.usecases.campaigns import check_segments_are_lines

    st.markdown("**Campaign settings**")
    campaign = st.selectbox("Campaign", names, key="set_campaign")
    current = bool(state.get_store().campaign_info(campaign)["segments_are_lines"])
    cols = st.columns([3, 1, 1])
    wanted = cols[0].checkbox(SEGMENTS_ARE_LINES, value=current, key=f"set_lines_{campaign}", help=SEGMENTS_HELP)
    if cols[1].button("Save", key="set_lines_save", disabled=wanted == current):
        state.get_store().set_segments_are_lines(campaign, wanted)
        state.invalidate()
        st.rerun()
    if cols[2].button("Verify from the data", key="set_lines_verify"):
        with st.spinner("Scoring sentence chrF of the judged outputs at line offsets −5…+5…"):
            try:
                st.session_state["lines_check"] = (campaign, check_segments_are_lines(state.get_store(), campaign))
            except InputError as exc:
                common.show_input_error(exc)
    found = st.session_state.get("lines_check")
    if found and found[0] == campaign:
        for result in found[1]:
            verdict = "segment ids are line numbers" if result["verified"] else "segment ids are NOT line numbers"
            (st.success if result["verified"] else st.warning)(f"{result['lp']}: {verdict} — "
                                                               f"{md_escape(result['reason'])}")
        table = pd.DataFrame([{"Language pair": r["lp"], "Offset": o, "Pearson r": v}
                              for r in found[1] for o, v in r["r"].items()])
        common.table(table.pivot(index="Language pair", columns="Offset", values="Pearson r").round(3),
                     hide_index=False)
        st.caption("Pearson r of human segment scores with the sentence chrF of the output at line = segment id + "
                   "offset. Offset 0 must reach r ≥ 0.1 and beat every other offset by 0.05.")


def _target_campaign(key: str) -> str | None:
    names = campaign_names()
    if not names:
        st.info("Create a campaign first (or give a new name below).")
    choice = st.selectbox("Campaign", names + ["(new campaign…)"], key=key)
    if choice == "(new campaign…)":
        choice = st.text_input("New campaign name", key=key + "_new").strip() or None
    return choice


def _judgments_tab(user: dict) -> None:
    from contextlib import ExitStack

    from leaderboard.ingest import FORMATS
    from leaderboard.usecases.store_files import InputFile, read_files, store_read

    campaign = _target_campaign("up_campaign")
    upload = st.file_uploader(f"Judgments file (CSV / TSV / Parquet / WMT release / Appraise / MQM / Pearmut log; "
                              f"at most {MAX_UPLOAD_MB} MB)", key="up_judgments", max_upload_size=MAX_UPLOAD_MB)
    cols = st.columns(3)
    fmt = cols[0].selectbox("Format", ["detect"] + list(FORMATS), key="up_format")
    lp = cols[1].text_input("Language pair (when the file has none, e.g. cs-en)", key="up_lp").strip() or None
    assessment = cols[2].text_input("Assessment (default adequacy)", key="up_assessment").strip() or None
    stats = st.file_uploader("Worker mean/sd file of a WMT release (only for wmt-stnd files)", key="up_stats",
                             max_upload_size=10)
    allow_no_raw = st.checkbox("Store even if raw scores are missing (Ave stays empty)", key="up_allow_no_raw",
                               help="A WMT release (wmt-stnd) holds z-scores only; its raw scores come from the "
                                    "worker mean/sd file (ad-<lp>-trk-mean-sd.txt).")
    errors = st.container()
    if not st.button("Validate and store", key="up_go", type="primary", disabled=upload is None):
        return
    if not campaign:
        errors.error("Choose a campaign or type a new campaign name.")
        return
    progress = st.progress(0.0, text="Validating…")
    try:
        with ExitStack() as stack:
            path = stack.enter_context(uploaded_path(upload))
            stats_file = (InputFile(stack.enter_context(uploaded_path(stats)), stats.name)
                          if stats is not None else None)
            read = read_files([InputFile(path, upload.name)], input_format=None if fmt == "detect" else fmt,
                              worker_stats=stats_file, campaign=campaign, lp=lp, assessment=assessment)
        if read.warnings and not allow_no_raw:
            progress.empty()
            for warning in read.warnings:
                errors.warning(f"Not stored: {md_escape(warning)}. Add the worker mean/sd file above, or "
                               "tick 'Store even if raw scores are missing'.", icon=":material/warning:")
            return
        total = max(len(read.frame), 1)
        done = [0]

        def tick(n: int) -> None:
            done[0] += n
            progress.progress(min(done[0] / total, 1.0), text=f"Storing {done[0]:,} of {total:,} rows…")

        result = store_read(state.get_store(), read, created_by=user["name"], progress=tick)
    except InputError as exc:
        progress.empty()
        common.show_input_error(exc.with_file(upload.name), errors)
        return
    progress.progress(1.0, text="Stored.")
    state.invalidate()
    lps = result["lp"] if isinstance(result["lp"], str) else ", ".join(result["lp"])
    if read.kind == "mqm":
        st.success(md_escape(f"Stored {result['annotations']:,} MQM annotations of {result['raters']} raters on "
                             f"{result['outputs']:,} outputs of {result['systems']} systems into {campaign} "
                             f"({lps})."))
        return
    spans = f", with {result['error_spans']:,} error spans" if result["error_spans"] else ""
    st.success(md_escape(f"Stored {result['judgments']:,} judgments of {result['workers']} workers "
                         f"and {result['systems']} systems into {campaign} ({lps}){spans}."))
    for warning in result["warnings"]:
        st.warning(common.lower_text(warning), icon=":material/warning:")


def _texts_tab(user: dict) -> None:
    from contextlib import ExitStack

    from leaderboard.usecases.store_files import InputFile, read_texts, store_texts

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
        with ExitStack() as stack:
            uploads = [InputFile(stack.enter_context(uploaded_path(up)), up.name) for up in files]
            parsed = read_texts(uploads, progress=lambda done, name: progress.progress(
                done / (len(files) + 1), text=f"Read {name}"))
        stored = store_texts(state.get_store(), campaign, parsed, created_by=user["name"])
    except InputError as exc:
        progress.empty()
        common.show_input_error(exc, errors)
        return
    progress.progress(1.0, text="Stored.")
    state.invalidate()
    st.success(f"Stored {sum(f['lines'] for f in stored):,} lines from {len(stored)} file(s) into "
               f"{md_escape(campaign)}.")


def _ranking_options() -> tuple[list[str], list[str]]:
    from leaderboard.human.clusters import CLUSTER_RULES
    from leaderboard.human.ranking import PROTOCOLS
    # every protocol that ranks stored judgments (wmt25 ranks two-wave rating tables, not judgments)
    protocols = [name for name, p in PROTOCOLS.items() if p.test != "wave-signed-rank-greater"]
    return protocols, [PROTOCOL_OWN] + list(CLUSTER_RULES)


# choices that filter nothing; "release" records that the stored data holds only workers who passed
RELEASE_QC = "release (already filtered)"
QC_FIXED = {NO_QC: "none", RELEASE_QC: "release"}
PROTOCOL_OWN = "the protocol's own"


def _publish_options(campaign: str, lp: str, assessment: str) -> tuple:
    """The controls of every publish option (those of ``mtlb publish``); returns the options and the
    documents uploads."""
    from leaderboard.usecases.publish import PublishOptions
    protocols, rules = _ranking_options()
    methods = list(QC_FIXED)
    from leaderboard.webapp.pages.qc import qc_methods
    methods += qc_methods()
    # the default is what `mtlb publish` / `mtlb rank` do (--qc auto), so the same data gets the same label
    from leaderboard.human.ranking import resolve_qc
    auto = resolve_qc("auto", state.judgment_formats(state.store_url(), campaign))
    default = RELEASE_QC if auto == "release" else (methods[len(QC_FIXED)] if len(methods) > len(QC_FIXED) else NO_QC)
    if st.session_state.get("_pub_qc_campaign") != campaign or st.session_state.get("pub_qc") not in methods:
        st.session_state["pub_qc"] = default  # a new campaign starts from its own default
        st.session_state["_pub_qc_campaign"] = campaign
    cols = st.columns(4)
    method = cols[0].selectbox("Worker QC", methods, key="pub_qc",
                               help="Workers failing the test are removed (all their judgments) before ranking; "
                                    "the signature records the method and threshold. 'release (already filtered)': "
                                    "the stored data holds only workers who passed, as in the WMT releases.")
    qc = QC_FIXED.get(method, method)
    qc_alpha = cols[1].select_slider("QC threshold p <", [0.01, 0.05, 0.1], value=0.05, key="pub_qc_alpha",
                                     disabled=qc in QC_FIXED.values())
    protocol = cols[2].selectbox("Protocol", protocols, key="pub_protocol")
    rule = cols[3].selectbox("Cluster rule", rules, key="pub_rule")
    with st.expander("More options: significance level, left-out systems, intervals, documents"):
        cols = st.columns(4)
        alpha = cols[0].number_input("Significance level (empty: the protocol's own)", min_value=0.001,
                                     max_value=0.5, value=None, step=0.005, format="%.3f", key="pub_alpha")
        resamples = cols[1].number_input("Bootstrap resamples (0 = no intervals)", min_value=0, max_value=100000,
                                         value=1000, step=100, key="pub_resamples")
        seed = cols[2].number_input("Seed of the resamples", min_value=0, max_value=2**31 - 1, value=12345,
                                    step=1, key="pub_seed")
        exclude = cols[3].text_input("Leave out systems (shell patterns, comma-separated)", key="pub_exclude",
                                     placeholder="ende-tutorial*", max_chars=1000)
        documents = st.file_uploader("Documents list of the test set (domain<TAB>doc_id; named <lp>.docs)",
                                     accept_multiple_files=True, key="pub_documents", max_upload_size=MAX_UPLOAD_MB)
    options = PublishOptions(
        lp=lp, assessment=assessment, protocol=protocol, alpha=None if alpha is None else float(alpha),
        cluster_rule=None if rule == PROTOCOL_OWN else rule, qc=qc,
        qc_alpha=0.05 if qc in QC_FIXED.values() else float(qc_alpha),
        exclude_systems=tuple(p.strip() for p in exclude.split(",") if p.strip()),
        n_resamples=int(resamples), seed=int(seed))
    return options, documents or []


def _publish_tab(user: dict) -> None:
    from leaderboard.usecases import publish as uc
    from leaderboard.usecases.store_files import InputFile

    flash = st.session_state.pop("pub_flash", None)
    if flash:
        st.success(flash, icon=":material/check_circle:")
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
    options, documents = _publish_options(campaign, lp, assessment)
    url = state.store_url()
    token = state.data_token(url, campaign)
    frame = state.judgments(url, campaign, lp, assessment, token)
    st.caption(md_escape(f"{len(frame):,} stored judgments of {frame['worker'].nunique():,} workers for "
                         f"{lp} {assessment}."))
    marks = _human_marks(campaign, lp, frame, user)
    key = (campaign, token, options, marks, tuple((d.name, d.size) for d in documents))
    if st.button("Preview ranking", key="pub_preview"):
        try:
            with st.spinner("Ranking (worker QC, standardisation, pairwise tests)…"), \
                    uploads_in_folder(documents) as (folder, _):
                files = tuple(InputFile(folder / Path(d.name).name, d.name) for d in documents)
                preview = uc.preview(state.get_store(), campaign,
                                     uc.PublishOptions(**{**options.__dict__, "documents": files}))
        except InputError as exc:
            common.show_input_error(exc)
            return
        st.session_state["preview"] = {"key": key, "preview": preview}
    found = st.session_state.get("preview")
    if not found or found["key"] != key:
        st.info("Preview the ranking to check it before publishing.")
        return
    preview = found["preview"]
    _preview_qc(preview)
    from leaderboard.publish.render import ranking_table
    from leaderboard.webapp.pages.leaderboard import table_markup
    ranking = preview.rankings[0]
    st.markdown(f"**Preview** · signature {common.code(ranking.get('signature', ''))}")
    st.html(table_markup(ranking_table(ranking)))
    snaps = state.snapshots(url)
    existing = snaps[(snaps["campaign"] == campaign) & (snaps["lp"] == lp) & (snaps["assessment"] == assessment)]
    next_version = int(existing["version"].max()) + 1 if not existing.empty else 1
    note = st.text_input("Note for this version (e.g. what it corrects)", key="pub_note", max_chars=500)
    release_files = _release_qc_uploads() if options.qc == "release" else None
    if st.button(f"Publish as version v{next_version}", key="pub_go", type="primary"):
        # exactly the previewed ranking becomes the snapshot, with what its pages show computed from the
        # judgments and the QC it was ranked with
        try:
            release_qc = _read_release_qc(release_files)
            with st.spinner("Computing what the pages of this version show (per-segment scores, QC, baselines)…"):
                published = uc.commit(state.get_store(), preview, user["name"], note=note, release_qc=release_qc)
        except InputError as exc:
            common.show_input_error(exc)
            return
        state.invalidate()
        st.session_state.pop("preview", None)
        st.session_state["pub_flash"] = (md_escape(f"Published {campaign} {lp} {assessment} as version "
                                                   f"v{published[0]['version']}.") + " Participants now see it "
                                         "on the Leaderboard.")
        st.rerun()


def _preview_qc(preview) -> None:
    """The report of exactly the worker QC the previewed ranking ran (pooled over the language pairs)."""
    item = preview.prepared[0] if preview.prepared else None
    qc = getattr(item, "qc", None)
    if qc is None or qc.report is None:
        return
    from leaderboard.human.qc import lp_report, qc_summary_for_lp
    from leaderboard.webapp.pages.qc import summary_frame
    part = item.frame[item.frame["assessment"].astype(str) == item.assessment]
    counts = summary_frame(qc_summary_for_lp(qc.report, part, item.lp))
    st.markdown(f"**Worker QC report** ({md_escape(qc.label)}; workers judged over all language pairs of the "
                "campaign, counted for this language pair)")
    if not counts.empty:
        common.table(counts)
    common.table(lp_report(qc.report, part, item.lp), height=240)


def _release_qc_uploads() -> tuple | None:
    """The release's own QC files, to publish with the version (optional): statistics and verdicts."""
    with st.expander("The release's own worker QC (optional)"):
        st.caption("A WMT release names which workers its organisers kept: attach their per-worker test results "
                   "(ad-trk-stats.csv: worker, p, t, pairs) and, when the release has them, their verdicts "
                   "(ad-trk-stats.class: worker, good or bad). The Quality control page then shows them for this "
                   "version's workers.")
        cols = st.columns(2)
        stats = cols[0].file_uploader("Per-worker statistics (ad-trk-stats.csv)", key="pub_release_stats",
                                      max_upload_size=MAX_UPLOAD_MB)
        verdicts = cols[1].file_uploader("Verdicts (ad-trk-stats.class)", key="pub_release_class",
                                         max_upload_size=MAX_UPLOAD_MB)
    return (stats, verdicts) if stats is not None or verdicts is not None else None


def _read_release_qc(files: tuple | None):
    """The uploaded release QC files, read and validated (InputError when malformed)."""
    if not files:
        return None
    from leaderboard.usecases.publish import read_release_qc
    from leaderboard.usecases.store_files import InputFile
    uploads = [f for f in files if f is not None]
    with uploads_in_folder(uploads) as (folder, _):
        stats, verdicts = (None if f is None else InputFile(folder / Path(f.name).name, f.name) for f in files)
        return read_release_qc(stats, verdicts)


def _human_marks(campaign: str, lp: str, frame: pd.DataFrame, user: dict) -> tuple[tuple[str, bool], ...]:
    """Which systems are human translations (WMT naming unless an organiser marked them); organisers
    change the marks here (stored with an audit entry, as ``mtlb campaigns human``). Returns the
    campaign's marks as sorted (system, human) pairs, for the preview and its cache key."""
    from leaderboard.naming import is_human
    from leaderboard.storage.marks import human_marks, mark_human
    store = state.get_store()
    marks = human_marks(store, campaign)
    systems = sorted(frame["system"].astype(str).unique())
    current = [s for s in systems if marks.get(s, is_human(s))]
    with st.expander(f"Human translations: {len(current)} of {len(systems)} systems"):
        chosen = st.multiselect("Systems that are human translations", systems, default=current,
                                key=f"pub_humans-{campaign}-{lp}")
        st.caption("Without a mark WMT naming decides (" + ", ".join(md_escape(p) for p in
                                                                   ("HUMAN-*", "Human-*", "ref-*", "ref.*"))
                   + "). Marked systems are "
                   "shown as human translations (dagger, grey) from the next published version on; metric "
                   "correlations leave them out when a metric does not score them.")
        if st.button("Save these marks", key="pub_humans_save", disabled=set(chosen) == set(current)):
            added = [s for s in chosen if s not in current]
            removed = [s for s in current if s not in chosen]
            if added:
                mark_human(store, campaign, added, True, actor=user["name"])
            if removed:
                mark_human(store, campaign, removed, False, actor=user["name"])
            st.session_state["pub_flash"] = md_escape(
                f"Saved: {len(added)} system(s) marked as human translations, {len(removed)} as MT systems "
                "(recorded in the audit log); the next preview and published version use them.")
            st.rerun()
    return tuple(sorted(marks.items()))


@contextmanager
def uploads_in_folder(files) -> Iterator[tuple[Path, dict[str, str]]]:
    """Uploaded files written under their own (base) names into a private temporary folder.

    Yields the folder and a map from each written path to the upload's name (for error messages).
    """
    with tempfile.TemporaryDirectory(prefix="mtlb-upload-") as folder:
        names = {}
        for up in files:
            base = Path(up.name).name or "upload"
            path = Path(folder) / base
            if path.exists():
                raise InputError("two uploaded files have the same name", file=base)
            path.write_bytes(up.getbuffer())
            names[str(path)] = up.name
        yield Path(folder), names


def _hits_tab(user: dict) -> None:
    st.caption("How **Build HITs** makes a batch: each HIT holds 100 items in 10 blocks of 10 — 70 system outputs "
               "balanced over systems, 10 references (REF), 10 degraded outputs (BAD_REF) and 10 repeats — the "
               "quality-control items whose scores the worker filter tests. The MTurk batch results load back "
               "on **Upload judgments** (format mturk).")
    hyps = st.file_uploader("System outputs `<testset>.<lp>.hyp.<system>.<lang>`, one segment per line",
                            accept_multiple_files=True, key="hits_hyps", max_upload_size=MAX_UPLOAD_MB)
    ref = st.file_uploader("Reference (aligned with the outputs line by line)", key="hits_ref",
                           max_upload_size=MAX_UPLOAD_MB)
    cols = st.columns(5)
    lp = cols[0].text_input("Language pair", key="hits_lp", placeholder="cs-en").strip()
    assessment = cols[1].selectbox("Assessment", ["adequacy", "fluency"], key="hits_assessment")
    n_hits = cols[2].number_input("Number of HITs (0 = every output about once)", min_value=0, max_value=10000,
                                  value=0, step=1, key="hits_n")
    seed = cols[3].number_input("Seed", min_value=0, max_value=2**31 - 1, value=0, step=1, key="hits_seed")
    campaign = cols[4].text_input("Campaign (written to the upload CSV)", key="hits_campaign").strip()
    errors = st.container()
    if st.button("Build HITs", key="hits_go", type="primary", disabled=not hyps or ref is None or not lp):
        try:
            batch = build_batch(hyps, ref, lp, assessment, int(n_hits) or None, int(seed), campaign)
        except InputError as exc:
            common.show_input_error(exc, errors)
            st.session_state.pop("hits_batch", None)
        else:
            st.session_state["hits_batch"] = batch
    batch = st.session_state.get("hits_batch")
    if not batch:
        return
    manifest = batch["manifest"]
    st.success(md_escape(
        f"Built {manifest['hits']} HITs ({manifest['items']:,} items) for {manifest['lp']} "
        f"{manifest['assessment']}, seed {manifest['seed']}: {len(manifest['systems'])} systems, "
        f"{min(manifest['systems'].values())}–{max(manifest['systems'].values())} genuine outputs each, "
        f"{manifest['segments_shown']} segments shown."))
    name = common.slug(f"{manifest['lp']}-{manifest['assessment']}-seed{manifest['seed']}")
    cols = st.columns(3)
    cols[0].download_button("Download HITs (hits.csv)", batch["hits.csv"], file_name=f"hits-{name}.csv", mime="text/csv",
                            key="dl-hits", on_click="ignore", icon=":material/download:")
    cols[1].download_button("Download MTurk upload file (CSV)", batch["mturk-upload.csv"], file_name=f"mturk-upload-{name}.csv",
                            mime="text/csv", key="dl-mturk", on_click="ignore", icon=":material/download:")
    cols[2].download_button("Download HIT task pages (zip)", batch["html.zip"], file_name=f"hit-pages-{name}.zip",
                            mime="application/zip", key="dl-hit-pages", on_click="ignore", icon=":material/download:")
    with st.expander("Items of the first HIT"):
        common.table(batch["first_hit"])
    with st.expander("Batch manifest"):
        st.json(manifest)


def build_batch(hyps, ref, lp: str, assessment: str, n_hits: int | None, seed: int, campaign: str) -> dict:
    """Build a batch from uploads; returns the files' bytes, the manifest and the first HIT's items."""
    from leaderboard.hits.builder import read_sources
    from leaderboard.usecases.hits import batch_files

    with uploads_in_folder(list(hyps) + [ref]) as (folder, names):
        paths = [str(folder / Path(h.name).name) for h in hyps]
        try:
            sources = read_sources(paths, str(folder / Path(ref.name).name), lp)
        except InputError as exc:
            if exc.file in names:  # name the upload, not the temporary copy
                exc.file = names[exc.file]
            raise
    return batch_files(sources, lp=lp, assessment=assessment, n_hits=n_hits, seed=seed, campaign=campaign)


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
    common.table(subs)
    cols = st.columns(2)
    sid = cols[0].selectbox("Submission", subs["id"].tolist(), key="sub_id",
                            format_func=lambda i: f"#{i} {subs.set_index('id').loc[i, 'metric']}")
    public = bool(subs.set_index("id").loc[sid, "public"])
    if cols[1].button("Hide" if public else "Publish", key="sub_toggle"):
        state.get_store().set_submission_public(int(sid), not public, user["name"], user["role"])
        st.rerun()


def _imports_tab(user: dict) -> None:
    """Every import of a campaign; retract one that no published version depends on (audited)."""
    from leaderboard.storage.imports import audit_log, list_imports, retract_import

    flash = st.session_state.pop("imports_flash", None)
    if flash:
        st.success(flash, icon=":material/check_circle:")
    names = campaign_names()
    if not names:
        st.info("No campaigns yet.")
        return
    campaign = st.selectbox("Campaign", names, key="imp_campaign")
    store = state.get_store()
    imports = list_imports(store, campaign)
    if imports.empty:
        st.info("This campaign has no imports.")
    else:
        common.table(imports)
    st.markdown("**Retract an import**")
    st.caption("Deletes the import's judgments or texts so the file can be stored again (e.g. a WMT release "
               "stored without its worker mean/sd file). Refused when a published version of the campaign was "
               "computed while the import was stored: published versions never change. Recorded in the audit "
               "log with your name and reason.")
    open_ = imports[imports["retractable"]] if not imports.empty else imports
    if open_.empty:
        st.info("No import of this campaign can be retracted.")
    else:
        labels = {int(r.id): f"#{r.id} {r.file_name} ({r.kind}, {r.rows:,} rows, {r.lps})" for r in open_.itertuples()}
        with st.form("retract_import"):
            chosen = st.selectbox("Import", list(labels), format_func=labels.get, key="imp_id")
            reason = st.text_input("Reason (kept in the audit log)", key="imp_reason", max_chars=500)
            sure = st.checkbox("I understand that the import's rows are deleted", key="imp_sure")
            submitted = st.form_submit_button("Retract import", type="primary")
        if submitted:
            if not reason.strip() or not sure:
                st.error("Give a reason and tick the confirmation to retract.")
            else:
                try:
                    entry = retract_import(store, campaign, int(chosen), actor=user["name"], reason=reason.strip())
                except InputError as exc:
                    common.show_input_error(exc)
                else:
                    state.invalidate()
                    st.session_state["imports_flash"] = (
                        f"Retracted import #{chosen} ({md_escape(entry['details']['file_name'])}: "
                        f"{entry['details']['rows_deleted']:,} rows); audit entry #{entry['id']}.")
                    st.rerun()
    log = audit_log(store, campaign)
    st.markdown("**Audit log**")
    if log.empty:
        st.caption("Nothing retracted in this campaign.")
    else:
        common.table(log)


if __name__ == "__main__":
    render()
