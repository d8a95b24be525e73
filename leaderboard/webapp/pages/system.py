"""System: one system's score distribution, per-segment scores with texts, and head-to-head comparisons."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from leaderboard.webapp import charts, common, expert_views, key_figures, snapshot_views, state
from leaderboard.webapp.markdown import md_escape
from leaderboard.webapp.key_figures import Figure
from leaderboard.publish.metric_eval import text_name


def segment_texts(texts: pd.DataFrame, system: str) -> pd.DataFrame:
    """Columns line, source, reference, output for a system (empty when no texts are stored)."""
    if texts.empty:
        return pd.DataFrame(columns=["line", "source", "reference", "output"])
    out = pd.DataFrame({"line": sorted(texts["line"].unique())})
    src = texts[texts["kind"] == "source"]
    if not src.empty:
        out = out.merge(src[["line", "text"]].rename(columns={"text": "source"}), on="line", how="left")
    refs = texts[texts["kind"] == "reference"]
    ref_name = sorted(refs["name"].unique())[0] if not refs.empty else None
    if ref_name:
        out = out.merge(refs.loc[refs["name"] == ref_name, ["line", "text"]].rename(columns={"text": "reference"}),
                        on="line", how="left")
    for kind in ("hypothesis", "reference"):
        part = texts[texts["kind"] == kind]
        name = text_name(system, sorted(part["name"].unique()))
        if name:
            out = out.merge(part.loc[part["name"] == name, ["line", "text"]].rename(columns={"text": "output"}),
                            on="line", how="left")
            break
    return out


def with_texts(seg: pd.DataFrame, texts: pd.DataFrame) -> pd.DataFrame:
    """Attach texts to per-segment scores when segment ids are line numbers of the test set."""
    if texts.empty or seg.empty:
        return seg
    line = pd.to_numeric(seg["segment"], errors="coerce")
    if line.isna().any() or (line.abs() >= 2**31).any() or (line != line.round()).any():
        return seg
    return seg.assign(line=line.astype(int)).merge(texts, on="line", how="left").drop(columns="line")


def _rank_text(row: dict) -> str:
    lo, hi = row.get("rank_lo"), row.get("rank_hi")
    return f"{lo}" if lo == hi else f"{lo}–{hi}"


def shown_score(seg: pd.DataFrame, spec) -> str:
    """The score the ranking compared (its spec's ``score``), or the other one when it is absent."""
    wanted = getattr(spec, "score", None) or "z"
    wanted = wanted if wanted in ("z", "raw") else "z"
    other = "raw" if wanted == "z" else "z"
    return wanted if seg.empty or seg[wanted].notna().any() or not seg[other].notna().any() else other


def domain_figures(ranking: dict, row: dict) -> list[Figure]:
    """One figure per domain: the system's score over its segments of that domain (the ranking's
    ``domain_score``), beside the overall score above."""
    score = str(ranking.get("domain_score") or "ave")
    label, fmt = {"ave_z": ("Ave. z", ".3f")}.get(score, ("Ave.", ".1f"))
    return [Figure(f"{label} · {name}", _number(value, fmt),
                   help=f"Mean {label} of this system's segments of the {name} domain")
            for name, value in sorted((row.get("domains") or {}).items())]


def _number(value, fmt: str) -> str:
    return "–" if value is None or pd.isna(value) else format(value, fmt)


def head_to_head(seg: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """Segments scored for both systems: z_a, z_b, raw_a, raw_b."""
    left = seg[seg["system"] == a][["segment", "z", "raw"]]
    right = seg[seg["system"] == b][["segment", "z", "raw"]]
    return left.merge(right, on="segment", suffixes=("_a", "_b"))


def render() -> None:
    found = common.snapshot_view("System")
    if found is None:
        return
    view, snap = found
    ranking = snap["ranking"]
    systems = [s["system"] for s in ranking["systems"]]
    system = common.pick("System", systems, "system_pick", "system", container=st)
    row = next(s for s in ranking["systems"] if s["system"] == system)
    st.subheader(md_escape(f"{system} · {view.lp} · {view.assessment}"))
    common.snapshot_caption(snap, view)
    if view.assessment == "mqm":
        _mqm(view, system, row)
        return
    key_figures.show([Figure("Rank", _rank_text(row)), Figure("Ave. z", _number(row.get("ave_z"), ".3f")),
                      Figure("Ave.", _number(row.get("ave"), ".1f")), Figure("Segments (N)", f"{row.get('n', 0):,}"),
                      Figure("Judgments", f"{row.get('n_all', 0):,}" if row.get("n_all") is not None else "–")])
    if row.get("domains"):
        key_figures.show(domain_figures(ranking, row))

    token = state.data_token(state.store_url(), view.campaign)
    spec = state.ranking_spec(*view.key)
    seg = snapshot_views.segments_frame(*view.key, token)
    if seg.empty:
        st.info("The judgments behind this snapshot are not stored, so per-segment scores are not available.")
        return
    value = shown_score(seg, spec)
    segments_tab, distribution_tab, h2h_tab = common.lazy_tabs(["Segments", "Distribution", "Head to head"])
    if segments_tab.open:
        with segments_tab:
            _segments(view, seg, system, value, token)
    if distribution_tab.open:
        with distribution_tab:
            common.chart(charts.distribution_figure(seg, system, value), f"distribution-{view.lp}-{system}", "distribution chart")
            from leaderboard.publish.render import describe
            words = describe(spec)
            st.caption(md_escape(
                (f"Per-segment {words['std']}, as the ranking computed them" if value == "z" else
                 "Per-segment raw 0–100 scores, as the ranking compared them") + f"; {words['qc']}. Grey: the "
                "segments of every system; blue: this system's."))
    if h2h_tab.open:
        with h2h_tab:
            _head_to_head(view, ranking, seg, system, systems, value, spec)


def _segments(view: common.View, seg: pd.DataFrame, system: str, value: str, token: str) -> None:
    """This system's per-segment scores, with its texts when the test set is stored; ESA spans."""
    mine = seg[seg["system"] == system].drop(columns="system")
    stored = state.texts(state.store_url(), view.campaign, view.lp, token)
    lines = bool(state.campaign_info(state.store_url(), view.campaign).get("segments_are_lines", True))
    if lines and not stored.empty:
        mine = with_texts(mine, segment_texts(stored, system))
        note = "texts from the stored test set: segment id = line number"
    elif stored.empty:
        note = "no test-set texts are stored for this language pair"
    else:
        note = "texts not shown"
    mine = mine.sort_values(value, ascending=False).reset_index(drop=True)
    st.markdown(f"**Per-segment scores** (mean over the segment's judgments; {note})")
    if not lines and not stored.empty:
        st.info(f"The segment ids of {md_escape(view.campaign)} do not index the stored test-set texts (for "
                "example the WMT release numbers segments its own way), so source, reference and output are not "
                "paired with these scores.", icon=":material/info:")
    common.table(mine, formats={"z": "%.3f", "raw": "%.1f"}, height=320)
    common.csv_download(mine, f"segments-{view.lp}-{system}", "Download segment scores (CSV)", key="dl-segments")
    if view.assessment == "esa":
        _esa_spans(view, system, token, stored if lines else pd.DataFrame())


def _head_to_head(view: common.View, ranking: dict, seg: pd.DataFrame, system: str, systems: list[str],
                  value: str, spec) -> None:
    """This system against another one, on their common segments, with the published p-values."""
    others = [s for s in systems if s != system]
    if not others:
        st.caption("The ranking has no other system.")
        return
    other = common.pick("Against", others, "system_vs", "vs", container=st)
    pairs = head_to_head(seg, system, other).dropna(subset=[f"{value}_a", f"{value}_b"])
    p_ab = (ranking.get("pvalues") or {}).get(system, {}).get(other)
    p_ba = (ranking.get("pvalues") or {}).get(other, {}).get(system)
    diff = (pairs[f"{value}_a"] - pairs[f"{value}_b"]).mean() if len(pairs) else None
    key_figures.show([
        Figure("Common segments", f"{len(pairs):,}"),
        Figure(f"Mean {value} difference", _number(diff, "+.3f" if value == "z" else "+.2f"),
               help=f"Mean over the common segments of {system}'s score minus {other}'s"),
        Figure(f"p ({system} better)", _number(p_ab, ".3g")), Figure(f"p ({other} better)", _number(p_ba, ".3g"))])
    from leaderboard.publish.render import describe
    words = describe(spec)
    st.caption(md_escape(f"p-values are the published ones: {words['test']}; a win needs "
                                f"{words['p_below']}."))
    if len(pairs):
        common.chart(charts.head_to_head_figure(pairs, system, other, value), f"h2h-{view.lp}-{system}-{other}", "head-to-head chart")


def _mqm(view: common.View, system: str, row: dict) -> None:
    """MQM: score, error breakdown by category and severity, and the outputs with their marked errors."""
    from leaderboard.expert.scoring import breakdown
    url = state.store_url()
    token = state.data_token(url, view.campaign)
    key_figures.show([Figure("Rank", _rank_text(row)), Figure("MQM (lower is better)", f"{row['mqm']:.3f}"),
                      Figure("Rated segments (N)", f"{row.get('n', 0):,}")])
    errors = state.mqm_errors(url, view.campaign, view.lp, token)
    if errors.empty:
        st.info("The annotations behind this snapshot are not stored, so the error breakdown is not available.")
        return
    st.markdown("**Errors by category and severity** (count, summed weight, weight per rated segment)")
    parts = breakdown(errors[errors["system"] == system])
    table = parts.drop(columns=["lp", "system"]).sort_values("weight", ascending=False).reset_index(drop=True)
    common.table(table, formats={"weight": "%.1f", "per_segment": "%.3f"})
    common.csv_download(table, f"mqm-breakdown-{view.lp}-{system}", "Download MQM error breakdown (CSV)", key="dl-mqm-breakdown")
    if not parts.empty:
        common.chart(charts.mqm_breakdown_figure(parts), f"mqm-breakdown-{view.lp}-{system}",
                     "MQM breakdown chart")
    seg = expert_views.mqm_segment_table(errors, system)
    st.markdown("**Per-segment MQM** (worst first)")
    common.table(seg, height=280)
    common.csv_download(seg, f"mqm-segments-{view.lp}-{system}", "Download per-segment MQM (CSV)", key="dl-mqm-segments")
    st.markdown("**Outputs with their marked errors** (the 30 worst segments; red: major, yellow: minor)")
    ann = state.expert_annotations(url, view.campaign, view.lp, "mqm", token)
    outs = state.expert_outputs(url, view.campaign, view.lp, token)
    st.html(expert_views.marked_outputs(ann[ann["system"] == system], outs[outs["system"] == system],
                                        seg["segment"].tolist()))


def _esa_spans(view: common.View, system: str, token: str, texts: pd.DataFrame) -> None:
    """ESA: the error spans each annotator marked, on the output text when the test set is stored."""
    url = state.store_url()
    spans = state.expert_annotations(url, view.campaign, view.lp, "esa", token)
    mine = spans[spans["system"] == system]
    st.markdown(f"### Error spans ({len(mine):,} marked by the annotators)")
    if mine.empty:
        st.caption("No error spans are stored for this system.")
        return
    counts = mine.groupby("severity").size().rename("spans").reset_index()
    common.table(counts)
    shown = mine[["segment", "rater", "severity", "category", "span_start", "span_end"]]
    common.table(shown, height=240)
    common.csv_download(shown, f"esa-spans-{view.lp}-{system}", "Download error spans (CSV)", key="dl-esa-spans")
    outputs = segment_texts(texts, system) if not texts.empty else pd.DataFrame()
    if not outputs.empty and "output" in outputs.columns:
        outs = pd.DataFrame({"segment": outputs["line"].astype(str), "target": outputs["output"].fillna(""),
                             "source": outputs.get("source")})
        order = mine.groupby("segment").size().sort_values(ascending=False).index.tolist()
        st.html(expert_views.marked_outputs(mine, outs, order))
    else:
        st.caption("The export holds span offsets but not the output texts; store the test set (mtlb texts) "
                   "to see the spans marked in the outputs.")


if __name__ == "__main__":
    render()
