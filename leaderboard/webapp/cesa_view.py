"""The annotator's contrastive-ESA page: one document at a time, K translations per segment side by side.

Asks :mod:`leaderboard.collect.cesa` for the annotator's page, shows it through the page component
(:mod:`leaderboard.webapp.cesa_widget`) with the campaign's HTML cleaned by the allow-list sanitiser
(:mod:`leaderboard.collect.html`) and its media served from the asset folder, stores scores as they are
given (drafts) and the page when it is submitted. The completion code shows as soon as the last page is
stored.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from ..collect import cesa
from ..collect.html import clean
from ..errors import InputError
from ..languages import script_direction
from . import state
from .completion import completion_code, platform_return
from .cesa_widget import asset_address, cesa_page
from .markdown import md_escape

KEY = "cesa_answer"


def _labels(src: str, tgt: str) -> dict[str, str]:
    return {
        "translation": "Translation {label}", "source": f"Source ({src}) · segment {{n}} of {{total}}",
        "tokens_aria": "Words of translation {label}, segment {n}: arrows move, Shift selects, 1 minor, 2 major, 0 clear",
        "score_aria": "Score of translation {label}, segment {n} (0 to 100)",
        "minor": "Minor (1)", "major": "Major (2)", "clear": "Clear (0)", "score": "score", "unset": "score: not set yet",
        "submit": "Submit this document ⏎", "submit_anyway": "Submit anyway ⏎", "instructions": "Instructions",
        "missing_score": "Translation {label} of segment {n} has no score yet: set it on its slider (click, or Tab to "
                         "it and use ← →), then submit.",
        "reminder": "Please check before you submit:",
        "low_no_span": "{label} of segment {n} scores {score} but has no error marked (mark what is wrong, or "
                       "[missing] / [instructions fault])",
        "high_major": "{label} of segment {n} has a major error but scores {score}",
        "refused": "Some answers on this page do not match what was expected; see the notes at the translations, "
                   "change them and submit again.",
        "keys": "Keys: Tab moves through each translation's words and score · words: ← → (Shift selects), 1 minor, "
                "2 major, 0 clear · score: ← → (Shift: by 10) · Enter: submit. Everything on this page can be "
                "changed until you submit it.",
        "target": tgt,
    }


def _progress(person, page: cesa.Page) -> str:
    if page.kind == "tutorial":
        return "Practice document (it does not count): your answers are checked and you are told what to change"
    if page.total:
        return f"Document {page.number} of {page.total} in this HIT"
    cap = cesa.settings_of(person.collect).get("docs_per_user")
    done = cesa.pages_done(state.get_store(), person)
    return f"Document {done + 1}" + (f" (at most {cap})" if cap else "")


def _args(person, page: cesa.Page) -> dict[str, Any]:
    info = person.collect
    settings = cesa.settings_of(info)
    address = asset_address(settings.get("assets"))
    src, tgt = person.languages
    view = cesa.public(page)
    for seg in view["segments"]:
        seg["source"] = clean(seg["source"], assets=settings.get("assets"), address=address)
        seg["note"] = clean(seg["note"], assets=settings.get("assets"), address=address) if seg.get("note") else ""
    return {"page": view, "labels": _labels(src, tgt), "progress": _progress(person, page),
            "instructions": clean(settings.get("instructions") or "", assets=settings.get("assets"), address=address),
            "special": list(settings.get("special_tokens") or []), "low": cesa.LOW_SCORE,
            "dir": {"source": script_direction(src), "target": script_direction(tgt)},
            "lang": {"source": src, "target": tgt},
            "epoch": st.session_state.get("_cesa_epoch", 0), "response": st.session_state.get("_cesa_response", 0)}


def _on_value() -> None:
    value = st.session_state.get(KEY)
    person = st.session_state.get("_ann")
    if not isinstance(value, dict) or person is None or value.get("nonce") == st.session_state.get("_cesa_nonce"):
        return
    st.session_state["_cesa_nonce"] = value.get("nonce")
    store = state.get_store()
    try:
        if value.get("kind") == "submit":
            page = cesa.submit_page(store, person, value.get("assignment"), value.get("answers"))
            st.session_state["_cesa_page"] = page
            st.session_state["_cesa_response"] = st.session_state.get("_cesa_response", 0) + 1
        else:
            cesa.save_drafts(store, person, value.get("assignment"), value.get("answers"))
    except InputError as exc:
        st.session_state["_ann_error"] = str(exc)
        st.session_state.pop("_cesa_page", None)
        st.session_state["_cesa_epoch"] = st.session_state.get("_cesa_epoch", 0) + 1


def _next_hit() -> None:
    st.session_state["_cesa_page"] = None
    st.session_state["_cesa_new_hit"] = True


def render(person) -> None:
    """The page of a cESA annotator (called by :mod:`leaderboard.webapp.annotate_view`)."""
    page = st.session_state.get("_cesa_page")
    if page is None or page.state != "page":
        page = cesa.next_page(state.get_store(), person, new_hit=bool(st.session_state.pop("_cesa_new_hit", False)))
        st.session_state["_cesa_page"] = page
    if page.state == "none":
        st.info(md_escape(page.message))
        return
    if page.state == "complete":
        st.success("Thank you: your work is complete and every answer is stored.")
        completion_code(page.code)
        if not platform_return(page.code, person.origin) and person.collect.get("assignment") != "dynamic":
            st.caption("Keep this code: the organisers may ask for it.")
            st.button("Start another HIT", on_click=_next_hit, key="cesa_next_hit", type="primary")
        return
    cesa_page(_args(person, page), key=KEY, on_change=_on_value)
