"""Metrics: evaluation package download, metric score upload (private until published), and results."""

from __future__ import annotations

import io
import zipfile

import pandas as pd
import streamlit as st

from leaderboard.errors import InputError
from leaderboard.webapp import charts, common, state
from leaderboard.webapp.pages.organiser import MAX_UPLOAD_MB, uploaded_path
from leaderboard.webapp.pages.system import text_name

BASELINES = ("bleu", "chrf")


@st.cache_data(show_spinner="Building the evaluation package…", max_entries=8)
def evaluation_package(url: str, campaign: str, lps: tuple[str, ...], token: str) -> bytes:
    """A zip in the WMT metrics-task layout: sources/, references/, system-outputs/<lp>/, segment ids."""
    testset = common.slug(campaign)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for lp in lps:
            texts = state.texts(url, campaign, lp, token)
            if texts.empty:
                continue
            src, tgt = lp.split("-", 1)
            for (kind, name), part in texts.groupby(["kind", "name"], sort=True):
                body = "\n".join(part.sort_values("line")["text"]) + "\n"
                if kind == "source":
                    path = f"{testset}/sources/{testset}.{lp}.src.{src}"
                elif kind == "reference":
                    path = f"{testset}/references/{testset}.{lp}.ref.{name}.{tgt}"
                else:
                    path = f"{testset}/system-outputs/{lp}/{testset}.{lp}.hyp.{name}.{tgt}"
                zf.writestr(path, body)
            n = int(texts["line"].max())
            zf.writestr(f"{testset}/segment-ids/{testset}.{lp}.ids", "\n".join(map(str, range(1, n + 1))) + "\n")
        zf.writestr(f"{testset}/README.txt",
                    "Score every system output against the references; upload one line per system (system level)\n"
                    "or per system and segment id (segment level), e.g. a CSV with the header\n"
                    "metric,lp,system,score  or  metric,lp,system,segment,score\n")
    return buf.getvalue()


@st.cache_data(show_spinner="Scoring the baselines (BLEU, chrF)…", max_entries=16)
def baseline_scores(url: str, campaign: str, lp: str, token: str, judged: tuple[str, ...]) -> pd.DataFrame:
    """System-level BLEU and chrF (sacrebleu, via metrics.scoring) of the judged systems with stored outputs."""
    from metrics.scoring import score_systems
    texts = state.texts(url, campaign, lp, token)
    hyps_all = texts[texts["kind"] == "hypothesis"]
    refs = texts[texts["kind"] == "reference"]
    if hyps_all.empty or refs.empty:
        return pd.DataFrame(columns=["metric", "lp", "system", "score"])
    ref_names = sorted(refs["name"].unique())
    hyp_names = sorted(hyps_all["name"].unique())
    hyps, used_refs = {}, set()
    for system in judged:
        name = text_name(system, hyp_names)
        if name:
            hyps[system] = hyps_all[hyps_all["name"] == name].sort_values("line")["text"].tolist()
    ref_for_humans = [system for system in judged if system not in hyps and text_name(system, ref_names)]
    for system in ref_for_humans:
        used_refs.add(text_name(system, ref_names))
    streams = [refs[refs["name"] == r].sort_values("line")["text"].tolist() for r in ref_names if r not in used_refs]
    if not hyps or not streams:
        return pd.DataFrame(columns=["metric", "lp", "system", "score"])
    rows = []
    for metric in BASELINES:
        result = score_systems(hyps, streams, metric)
        rows += [{"metric": metric.upper() if metric == "bleu" else "chrF", "lp": lp, "system": s, "score": v}
                 for s, v in result["systems"].items()]
    return pd.DataFrame(rows)


def render() -> None:
    st.title("Metrics")
    view = common.require_view()
    if view is None:
        return
    user = common.current_user()
    url = state.store_url()
    token = state.data_token(url, view.campaign)
    st.subheader(f"{view.campaign} · {view.lp} · {view.assessment}")
    tabs = st.tabs(["Results", "Evaluation package", "Upload scores"])
    with tabs[1]:
        if common.require_role("metric-developer", "organiser", action="download the evaluation package"):
            snaps = state.snapshots(url)
            lps = tuple(sorted(snaps.loc[snaps["campaign"] == view.campaign, "lp"].unique()))
            data = evaluation_package(url, view.campaign, lps, token)
            st.download_button("Download the evaluation package (zip)", data,
                               file_name=f"{common.slug(view.campaign)}-evaluation-package.zip",
                               mime="application/zip", key="dl-package", on_click="ignore")
            st.caption("Sources, references and system outputs of every language pair, one segment per line, "
                       "in the WMT metrics-task layout; segment ids are the line numbers.")
    with tabs[2]:
        if common.require_role("metric-developer", "organiser", action="upload metric scores"):
            _upload(view, user, token)
    with tabs[0]:
        _results(view, user, token)


def _campaign_systems(url: str, campaign: str, token: str) -> dict[str, set[str]]:
    frame = state.judgments(url, campaign, None, None, token)
    return {lp: set(part["system"].astype(str)) for lp, part in frame.groupby("lp", observed=True)}


def _upload(view: common.View, user: dict, token: str) -> None:
    from metrics.submissions import human_system_scores, read_submission, validate_submission
    url = state.store_url()
    upload = st.file_uploader(f"Metric scores (WMT TSV or CSV with metric,lp,system,[segment],score; at most "
                              f"{MAX_UPLOAD_MB} MB)", key="metric_file", max_upload_size=MAX_UPLOAD_MB)
    direction = st.radio("Higher scores mean", ["better translations", "worse translations"], horizontal=True,
                         key="metric_direction")
    errors = st.container()
    if not st.button("Validate and store (private)", key="metric_go", disabled=upload is None):
        return
    try:
        with uploaded_path(upload) as path:
            frame = read_submission(path, name=upload.name)
        frame.attrs["file"] = upload.name
        judgments = state.judgments(url, view.campaign, None, None, token)
        higher = direction == "better translations"
        validate_submission(frame, _campaign_systems(url, view.campaign, token),
                            higher_is_better=higher, human=human_system_scores(judgments), file=upload.name)
        store = state.get_store()
        ids = []
        for metric, part in frame.groupby("metric", sort=True):
            ids.append(store.save_metric_submission(view.campaign, part[["lp", "system", "segment", "score"]],
                                                    metric=str(metric), level=frame.attrs.get("level", "system"),
                                                    higher_is_better=higher, owner=user["name"], public=False))
    except InputError as exc:
        common.show_input_error(exc.with_file(upload.name), errors)
        return
    st.success(f"Stored {len(ids)} submission(s) (#{', #'.join(map(str, ids))}); they stay private until you or an "
               "organiser publish them.")


def _results(view: common.View, user: dict | None, token: str) -> None:
    url = state.store_url()
    store = state.get_store()
    include_private = bool(user and user["role"] == "organiser")
    subs = store.metric_submissions(view.campaign, viewer=user["name"] if user else None,
                                    include_private=include_private)
    snap = state.snapshot(*view.key)
    human = pd.DataFrame([{"system": s["system"], "human": s["ave_z"]} for s in snap["ranking"]["systems"]])
    judged = tuple(human["system"])
    scores = []
    if state.has_module("metrics.scoring"):
        try:
            scores.append(baseline_scores(url, view.campaign, view.lp, token, judged))
        except InputError as exc:
            st.caption(f"Baselines unavailable: {exc}")
    for row in subs.itertuples():
        part = state.metric_scores(url, int(row.id))
        part = part[part["lp"] == view.lp]
        if part.empty:
            continue
        label = f"{row.metric} (#{row.id}{'' if row.public else ', private'})"
        if part["segment"].notna().any():
            part = part.groupby(["lp", "system"], as_index=False)["score"].mean()
        scores.append(part.assign(metric=label)[["metric", "lp", "system", "score"]])
    scores = [s for s in scores if not s.empty]
    if not scores:
        st.info("No metric scores for this language pair yet. Metric developers upload them on the "
                "**Upload scores** tab; submissions are private until published.")
        return
    allm = pd.concat(scores, ignore_index=True)
    wide = allm.pivot_table(index="system", columns="metric", values="score").reset_index()
    wide = wide.merge(human, on="system", how="inner")
    metric_names = [c for c in wide.columns if c not in ("system", "human")]
    chosen = st.selectbox("Metric", metric_names, key="metric_pick", index=len(metric_names) - 1)
    common.chart(charts.metric_scatter(wide.dropna(subset=[chosen]), chosen, view.lp),
                 f"metric-scatter-{view.lp}-{chosen}")
    if state.has_module("metrics.correlation"):
        from metrics.correlation import correlate_lp
        human_df = human.rename(columns={"human": "z"}).assign(lp=view.lp)
        result = correlate_lp(human_df, allm, view.lp, human_score="z")
        table = pd.DataFrame(result["metrics"])
        st.markdown("**System-level correlation with human Ave z** (95% bootstrap confidence intervals)")
        st.dataframe(table, hide_index=True)
        common.csv_download(table, f"correlations-{view.campaign}-{view.lp}", key="dl-corr")
        if result.get("williams"):
            order = list(table["metric"]) if "metric" in table else None
            common.chart(charts.williams_figure(result["williams"], order), f"williams-{view.lp}")
    else:
        st.info("Correlations and the Williams test need metrics.correlation, which this installation lacks.")
    st.markdown("**Scores**")
    st.dataframe(wide, hide_index=True)
    common.csv_download(wide, f"metric-scores-{view.campaign}-{view.lp}", key="dl-metric-scores")
    if user:
        mine = subs if include_private else subs[subs["owner"] == user["name"]]
        if not mine.empty:
            st.markdown("**Your submissions**" if not include_private else "**All submissions**")
            st.dataframe(mine, hide_index=True)
            sid = st.selectbox("Submission", mine["id"].tolist(), key="my_sub")
            public = bool(mine.set_index("id").loc[sid, "public"])
            if st.button("Make private" if public else "Publish", key="my_sub_toggle"):
                try:
                    store.set_submission_public(int(sid), not public, user["name"], user["role"])
                except PermissionError as exc:
                    st.error(str(exc))
                else:
                    st.rerun()


if __name__ == "__main__":
    render()
