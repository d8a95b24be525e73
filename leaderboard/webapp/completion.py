"""The completion code at the end of an annotator's work and the way back to the crowd platform (DA / ESA and
contrastive-ESA pages)."""

from __future__ import annotations

import re

import streamlit as st

from .markdown import md_escape

_PLAIN_CODE = re.compile(r"[A-Za-z0-9_.-]+")  # shown as inline code; anything else as escaped text


def completion_code(code: str) -> None:
    """The completion code, large and selectable, drawn as Markdown with the rest of the page: ``st.code``
    loads its renderer (a syntax highlighter) only when first used, which kept the code off the screen
    for 0.4 s (seconds on a busy machine) after everything else of the page was there (issue 42.9;
    bench/bench_collect.py ``last_answer``)."""
    with st.container(key="completion-code"):
        st.markdown("**Your completion code**")
        shown = f"`{code}`" if _PLAIN_CODE.fullmatch(str(code)) else md_escape(str(code))
        st.markdown(f"### {shown}")


def platform_return(code: str, origin: str | None) -> bool:
    """How to hand ``code`` back to the crowd platform the annotator came from (a Prolific return link, the
    Mechanical Turk form); False when they came from neither (the page says what else to do)."""
    if origin == "prolific":
        st.link_button("Return to Prolific with this code",
                       f"https://app.prolific.com/submissions/complete?cc={code}")
        return True
    if origin == "mturk":
        st.caption("Copy the code into the Mechanical Turk task's form and submit it there.")
        return True
    return False
