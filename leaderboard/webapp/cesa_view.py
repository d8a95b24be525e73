"""The annotator's contrastive-ESA page: one document at a time, K translations per segment side by side.

Asks :mod:`leaderboard.collect.cesa` for the annotator's page and shows it through the page component
(:mod:`leaderboard.webapp.cesa_widget`), with the campaign's HTML cleaned by the allow-list sanitiser
(:mod:`leaderboard.collect.html`) and its media served from the asset folder. What the annotator then does
(drafts, a submitted page, the next page) goes from the component to the annotation endpoint
(:mod:`leaderboard.webapp.annotation_api`), which answers with :func:`page_args` as this view does, without
a Streamlit rerun. The component asks for a rerun when the work is complete: the completion code shows.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from ..collect import cesa
from ..collect.html import clean
from ..languages import script_direction
from . import state
from .completion import completion_code, platform_return
from .cesa_widget import API_ADDRESS, asset_address, cesa_page
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
        "offline": "The server could not be reached: your answers are still on this page. Submit again in a moment.",
        "target": tgt,
    }


def _progress(store, person, page: cesa.Page) -> str:
    if page.kind == "tutorial":
        return "Practice document (it does not count): your answers are checked and you are told what to change"
    if page.total:
        return f"Document {page.number} of {page.total} in this HIT"
    cap = cesa.settings_of(person.collect).get("docs_per_user")
    done = cesa.pages_done(store, person)
    return f"Document {done + 1}" + (f" (at most {cap})" if cap else "")


def page_args(store, person, page: cesa.Page, link: dict[str, str]) -> dict[str, Any]:
    """What the page component draws for one page (this view's first page and every answer of the annotation
    endpoint): the page without model names, its HTML cleaned, labels, and where to send answers (``api``, a
    relative address on this server, with the annotator's ``link``, which the endpoint checks as the page does)."""
    info = person.collect
    settings = cesa.settings_of(info)
    address = asset_address(settings.get("assets"))
    src, tgt = person.languages
    view = cesa.public(page)
    for seg in view["segments"]:
        seg["source"] = clean(seg["source"], assets=settings.get("assets"), address=address)
        seg["note"] = clean(seg["note"], assets=settings.get("assets"), address=address) if seg.get("note") else ""
    return {"page": view, "labels": _labels(src, tgt), "progress": _progress(store, person, page),
            "instructions": clean(settings.get("instructions") or "", assets=settings.get("assets"), address=address),
            "special": list(settings.get("special_tokens") or []), "low": cesa.LOW_SCORE,
            "dir": {"source": script_direction(src), "target": script_direction(tgt)},
            "lang": {"source": src, "target": tgt}, "api": API_ADDRESS, "link": dict(link)}


def _next_hit() -> None:
    st.session_state["_cesa_new_hit"] = True


def render(person, link: dict[str, str]) -> None:
    """The page of a cESA annotator, opened by ``link`` (called by :mod:`leaderboard.webapp.annotate_view`). The page
    is asked for on every run: the annotation endpoint may have moved the annotator on since the last one."""
    store = state.get_store()
    page = cesa.next_page(store, person, new_hit=bool(st.session_state.pop("_cesa_new_hit", False)))
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
    cesa_page(page_args(store, person, page, link), key=KEY)
