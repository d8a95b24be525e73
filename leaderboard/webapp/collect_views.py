"""The Organiser page's **Human evaluation** tab: annotation campaigns run in the service.

Create one from the primary submissions (files: ``mtlb collect create``), follow it (HITs done and
needed, per annotator HITs and items done, median seconds per item, the QC verdict with its p-value;
judgments per system), stop or reopen it, approve or reject annotators, reset an annotator's HIT,
and make invitation links in bulk. Every figure comes from :mod:`leaderboard.collect.status`, as in
``mtlb collect status``; every action is audited.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ..collect import campaigns as collect_campaigns
from ..collect.links import crowd_link, invitation_links
from ..collect.allocation_api import DEFAULT_RULE, RULES
from ..collect.status import hold_reason, overview
from ..errors import InputError
from ..storage import collect as db
from ..usecases.collect import reset_hit
from . import common, state
from .markdown import md_escape


def _base_url() -> str:
    """The app's own address (scheme, host and the configured base path), never the address of this page: an
    annotator's link opens the annotation page, not the Organiser page."""
    from urllib.parse import urlsplit

    from streamlit import config
    try:
        url = str(st.context.url or "")
    except Exception:  # no browser connection (tests)
        url = ""
    parts = urlsplit(url)
    if not parts.scheme or not parts.netloc:
        return "http://localhost:8501"
    base_path = str(config.get_option("server.baseUrlPath") or "").strip("/")
    return f"{parts.scheme}://{parts.netloc}" + (f"/{base_path}" if base_path else "")


def _create(user: dict, names: list[str]) -> None:
    with st.expander("New annotation campaign from the primary submissions", expanded=False):
        st.caption("DA: HITs exactly as **Build HITs** makes them (100 items; smaller multiples of 20 for pilots). "
                   "ESA: documents of about the HIT size, with degraded copies as attention checks and three "
                   "practice items first.")
        with st.form("collect_new"):
            cols = st.columns(4)
            campaign = cols[0].selectbox("Campaign", names, key="collect_new_campaign") if names else \
                cols[0].text_input("Campaign", key="collect_new_campaign_text")
            lp = cols[1].text_input("Language pair", key="collect_new_lp", placeholder="e.g. cs-en").strip()
            protocol = cols[2].selectbox("Protocol", ["da", "esa", "cesa"], key="collect_new_protocol",
                                         help="cesa: contrastive ESA, several translations of a segment side by side")
            source_based = cols[3].checkbox("DA: show the source", key="collect_new_source")
            cols = st.columns(4)
            hits = cols[0].number_input("HITs (0: every output about once)", 0, 100000, 0, key="collect_new_hits")
            size = cols[1].number_input("HIT size", 10, 1000, 100, key="collect_new_size")
            redundancy = cols[2].number_input("Annotators per HIT", 1, 50, 1, key="collect_new_redundancy")
            seed = cols[3].number_input("Seed", 0, 2**31 - 1, 0, key="collect_new_seed")
            cols = st.columns(4)
            assignment = cols[0].selectbox("cESA: assignment", ["dynamic", "fixed"], key="collect_new_assignment",
                                           help="dynamic: an allocation rule picks each annotator's next document "
                                                "and its models; fixed: HITs made in advance")
            k = cols[1].number_input("cESA: translations side by side", 2, 4, 3, key="collect_new_k")
            rule = cols[2].selectbox("cESA: allocation rule", sorted(RULES), index=sorted(RULES).index(DEFAULT_RULE),
                                     key="collect_new_rule")
            prob = cols[3].number_input("cESA: attention-check chance", 0.0, 1.0, 0.2, step=0.05,
                                        key="collect_new_prob")
            if st.form_submit_button("Create", type="primary"):
                try:
                    if not lp:
                        raise InputError("the language pair is empty: type one, such as cs-en or eng_Latn-ces_Latn",
                                         column="Language pair", code="empty_lp")
                    store = state.get_store()
                    sources = collect_campaigns.sources_from_primaries(store, str(campaign), lp)
                    if protocol == "cesa":
                        from ..collect.plan import from_sources
                        plan = from_sources(sources, models_per_item=int(k), rule=rule, check_prob=float(prob))
                        made = collect_campaigns.create_cesa(store, str(campaign), lp, plan, assignment=assignment,
                                                             redundancy=int(redundancy), seed=int(seed),
                                                             created_by=user["name"])
                    else:
                        made = collect_campaigns.create(
                            store, str(campaign), lp, sources, protocol=protocol, source_based=source_based,
                            hits=int(hits) or None, hit_size=int(size), redundancy=int(redundancy), seed=int(seed),
                            created_by=user["name"])
                except InputError as exc:
                    common.show_input_error(exc)
                else:
                    state.invalidate()
                    st.success(md_escape(f"Created: {made.get('documents', made['hits'])} "
                                         f"{'documents' if protocol == 'cesa' else 'HITs'}, {made['items']:,} items."))


def render(user: dict, names: list[str]) -> None:
    """The tab (``names``: the campaigns, for creating a new annotation campaign)."""
    store = state.get_store()
    _create(user, names)
    found = db.collections(store)
    if found.empty:
        st.info("No annotation campaign yet.")
        return
    labels = [f"{r.campaign} · {r.lp} · {r.protocol}" for r in found.itertuples()]
    pick = st.selectbox("Annotation campaign", range(len(found)), format_func=lambda i: labels[i], key="collect_pick")
    campaign, lp = str(found["campaign"].iloc[pick]), str(found["lp"].iloc[pick])
    view = overview(store, campaign, lp)
    info, progress = view["settings"], view["progress"]
    cols = st.columns(4)
    cols[0].metric("HITs done", f"{progress['slots_done']} of {progress['slots']}",
                   help=f"{progress['hits']} HITs × {info['redundancy']} annotators each")
    cols[1].metric("Status", info["status"])
    cols[2].metric("Completion code: passed", info["code_pass"])
    cols[3].metric("Completion code: failed", info["code_fail"])
    st.caption(md_escape(f"{info['protocol'].upper()} ({info['assessment']}), shown against the {info['context']}; "
                         f"HIT size {info['hit_size']}, seed {info['seed']}; a HIT is held from the moment its link "
                         f"shows the first item and returns to the pool after {info['timeout_seconds'] // 60} minutes "
                         "without an answer (each answer renews the hold)."))
    if info["protocol"] == "cesa":
        _cesa(view)
    if st.button("Stop: hand out no new HIT" if info["status"] == db.OPEN else "Reopen", key="collect_status"):
        db.set_status(store, info["id"], db.STOPPED if info["status"] == db.OPEN else db.OPEN, user["name"])
        st.rerun()
    people = view["annotators"]
    st.markdown("**Annotators**")
    if people.empty:
        st.caption("Nobody has an invitation or has arrived through the crowd link yet.")
    else:
        table = pd.DataFrame({
            "Annotator": people["name"], "From": people["origin"], "HITs done": people["hits_done"],
            "Working on one": people["hits_active"].astype(bool),
            "Holds (why, until when)": [hold_reason(r) or "" for r in people.itertuples()],
            "Items done": people["items_done"],
            "Median s per item": people["seconds_per_item"].round(1),
            "QC": people["qc_pass"].map({True: "passed", False: "failed"}).fillna("not tested yet"),
            "QC p-value": people["qc_p"], "Why": people["qc_reason"].fillna(""),
            "Decision": people["decision"].fillna("")})
        common.table(table, formats={"QC p-value": "%.3g"})
        common.csv_download(table, f"annotators-{campaign}-{lp}", "Download annotators (CSV)", key="dl-collect-annotators")
        _decisions(user, info, people)
    st.markdown("**Judgments per system** (system outputs; all items including quality-control copies)")
    common.table(view["systems"], {"system": "System", "judgments": "Outputs judged", "all_items": "All items"})
    _links(store, campaign, lp)


def _decisions(user: dict, info: dict, people: pd.DataFrame) -> None:
    store = state.get_store()
    with st.expander("Approve, reject or reset an annotator"):
        name = st.selectbox("Annotator", list(people["name"]), key="collect_who")
        cols = st.columns(3)
        if cols[0].button("Approve (for payment)", key="collect_approve"):
            db.decide(store, info["id"], name, "approved", user["name"])
            st.rerun()
        if cols[1].button("Reject (no further HIT)", key="collect_reject"):
            db.decide(store, info["id"], name, "rejected", user["name"])
            st.rerun()
        if cols[2].button("Clear the decision", key="collect_undecide"):
            db.decide(store, info["id"], name, None, user["name"])
            st.rerun()
        theirs = db.assignments(store, info["id"])
        theirs = theirs[theirs["annotator"] == name]
        if theirs.empty:
            st.caption("This annotator has had no HIT yet.")
            return
        options = [f"{r.hit} ({r.status}, {r.answers} answers)" for r in theirs.itertuples()]
        pick = st.selectbox("HIT", range(len(theirs)), format_func=lambda i: options[i], key="collect_reset_hit")
        if st.button("Reset this HIT: delete its answers and free it", key="collect_reset"):
            hit = str(theirs["hit"].iloc[pick])
            counts = reset_hit(store, info["id"], name, hit, user["name"])
            state.invalidate()
            st.success(md_escape(f"Reset {hit} of {name}: {counts['answers']} answers deleted."))


def _links(store, campaign: str, lp: str) -> None:
    st.markdown("**Links for annotators**")
    cols = st.columns([3, 1, 1])
    base = cols[0].text_input("The app's address", _base_url(), key="collect_base")
    n = cols[1].number_input("Invitations", 1, 1000, 5, key="collect_n")
    quota = cols[2].number_input("HITs per link (0: no limit)", 0, 1000, 0, key="collect_quota")
    if st.button("Create invitation links", key="collect_make_links", type="primary"):
        try:
            made = invitation_links(store, campaign, lp, int(n), base, int(quota) or None)
        except InputError as exc:
            common.show_input_error(exc)
        else:
            st.session_state["collect_links"] = (campaign, lp, pd.DataFrame(made))
    shown = st.session_state.get("collect_links")
    if shown and shown[:2] == (campaign, lp):
        st.warning("Each link is shown only now (the store keeps a hash of its token): send them or download them.")
        common.table(shown[2])
        common.csv_download(shown[2], f"links-{campaign}-{lp}", "Download invitation links (CSV)", key="dl-collect-links")
    try:
        crowd = crowd_link(store, campaign, lp, base)["url"]
    except InputError:
        return
    st.caption("Crowd link (Mechanical Turk adds workerId / assignmentId / hitId, Prolific PROLIFIC_PID / "
               "STUDY_ID / SESSION_ID; or add worker=ID yourself):")
    st.code(crowd, language=None)


def _cesa(view: dict) -> None:
    """cESA: the assignment's progress and every annotator's check results as they come in."""
    extra = view.get("cesa") or {}
    settings = extra.get("settings") or {}
    cells = extra.get("cells")
    cols = st.columns(4)
    cols[0].metric("Assignment", view["settings"].get("assignment") or "fixed")
    cols[1].metric("Translations side by side", settings.get("models_per_item", "–"))
    if cells:
        cols[2].metric("Document × model cells done", f"{cells['done']} of {cells['cells']}",
                       help=f"{cells['given']} given so far; each cell up to the redundancy")
    cols[3].metric("Attention-check chance", settings.get("check_prob", "–"),
                   help=f"{settings.get('check_mode', 'loud')} checks; the pass code allows "
                        f"{settings.get('threshold', 0)} failed (a share when below 1)")
    checks = view.get("checks")
    st.markdown("**Checks, live** (tutorial and attention checks; a loud check's failed attempt is sent back to "
                "the annotator; the completion code follows each attention check's first attempt)")
    if checks is None or checks.empty:
        st.caption("No check answered yet.")
        return
    table = pd.DataFrame({"Annotator": checks["annotator"],
                          "Kind": checks["kind"].map({"check": "attention check", "tutorial": "tutorial"}),
                          "Item": checks["item_id"], "Attempt": checks["attempt"],
                          "Passed": checks["passed"].map({True: "yes", False: "no"}),
                          "Loud": checks["loud"].map({True: "yes", False: "no"})})
    common.table(table)
    common.csv_download(table, "checks", "Download checks (CSV)", key="dl-collect-checks")
