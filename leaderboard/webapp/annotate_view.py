"""The annotator's page: one task, nothing else (no menu, no results, no other annotator's work).

Opened by an invitation link (``?t=TOKEN``) or a crowd link (``?c=KEY`` plus the platform's worker
id). The page asks :mod:`leaderboard.collect.service` for the annotator's task, shows "Item K of N"
with a progress bar and the item (:mod:`leaderboard.webapp.annotate_widget`), and stores each answer
as it is given; a reload, a closed tab or another browser continues at the first unanswered item.
At the end of a HIT it shows the completion code. User text is shown only as plain text.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import streamlit as st

from ..collect import service
from ..collect.links import CROWD_PARAM, TOKEN_PARAM
from ..collect.spans import tokens
from ..errors import InputError
from . import state
from .annotate_widget import annotate_item
from .completion import completion_code, platform_return
from .markdown import md_escape

KEY = "annotate_answer"
LANGUAGE_NAMES = {"cs": "Czech", "de": "German", "en": "English", "ja": "Japanese", "zh": "Chinese", "ru": "Russian",
                  "uk": "Ukrainian", "fr": "French", "es": "Spanish", "ar": "Arabic", "he": "Hebrew", "hi": "Hindi",
                  "is": "Icelandic", "ko": "Korean", "pl": "Polish", "it": "Italian", "pt": "Portuguese",
                  "fa": "Persian", "ur": "Urdu", "tr": "Turkish", "lv": "Latvian", "et": "Estonian", "fi": "Finnish",
                  "eng": "English", "ces": "Czech", "deu": "German", "jpn": "Japanese", "zho": "Chinese",
                  "rus": "Russian", "ukr": "Ukrainian", "ara": "Arabic", "arz": "Egyptian Arabic", "isl": "Icelandic",
                  "kor": "Korean", "pol": "Polish", "ita": "Italian", "hin": "Hindi", "heb": "Hebrew", "spa": "Spanish",
                  "fra": "French", "est": "Estonian", "sme": "Northern Sami", "tha": "Thai"}


def requested() -> bool:
    """True when the address is an annotator's link (the app then shows only this page)."""
    params = st.query_params
    return TOKEN_PARAM in params or CROWD_PARAM in params


def _language(code: str) -> str:
    return LANGUAGE_NAMES.get(code, LANGUAGE_NAMES.get(str(code).split("_")[0].lower(), code))


def _link() -> dict[str, str]:
    """The link's parameters (an invitation token, or a crowd key and the platform's worker id)."""
    return {k: st.query_params.get(k) for k in st.query_params}


def _annotator() -> service.Annotator:
    """The annotator of this browser tab's link (looked up once per tab)."""
    params = _link()
    ident = tuple(sorted(params.items()))
    if st.session_state.get("_ann_ident") != ident:
        for key in ("_ann", "_ann_task", "_ann_error"):
            st.session_state.pop(key, None)
        store = state.get_store()
        person = service.open_link(store, params)
        if person is None:  # a preview (no worker id yet): show the task, hold nothing
            st.session_state["_ann_preview"] = service.crowd_campaign(store, params.get(CROWD_PARAM))
        st.session_state["_ann"] = person
        st.session_state["_ann_ident"] = ident
    return st.session_state["_ann"]


def _preview() -> None:
    """What a crowd worker sees before accepting the task (MTurk's preview sends no worker id): the task
    described, nothing held, nothing stored."""
    info = st.session_state.get("_ann_preview") or {}
    src, tgt = (info.get("lp") or "-").split("-", 1) if "-" in (info.get("lp") or "") else ("?", "?")
    st.markdown(f"#### Translation quality · {md_escape(_language(src.split('_')[0]))} → "
                f"{md_escape(_language(tgt.split('_')[0]))}")
    st.info("This is a preview of the task: accept it on the crowd platform to start. Nothing is held for you "
            "and nothing is stored until you do.")
    what = {"da": "read a translation and say on a 0–100 scale how well it expresses the meaning",
            "esa": "mark the errors in each translation of a document (minor or major) and score it from 0 to 100",
            "cesa": "compare several translations of each segment of a document side by side: mark their errors "
                    "(minor or major) and score each from 0 to 100"}.get(info.get("protocol"), "")
    if what:
        st.markdown(md_escape(f"In this task you {what}. A short practice comes first; a completion code is "
                              "shown at the end."))


def _on_answer() -> None:
    """Store the answers the browser sent: each queued answer not stored yet, in order (a repeat stores nothing)."""
    value = st.session_state.get(KEY)
    person = st.session_state.get("_ann")
    if not isinstance(value, dict) or person is None:
        return
    answers = value.get("answers")
    if not isinstance(answers, list):
        return
    task = st.session_state.get("_ann_task")
    stored = set(task.answered) if task is not None and task.state == "item" else set()
    revised = st.session_state.setdefault("_ann_revised", [])
    for answer in answers[:200]:
        if not isinstance(answer, dict):
            continue
        rev = answer.get("revision")
        if isinstance(rev, int) and not isinstance(rev, bool):
            if rev in revised:
                continue
            try:  # an answered segment of the current document, changed before the document was submitted
                ended = service.client_time(answer.get("ended"), datetime.now(timezone.utc))
                task = service.revise_answer(state.get_store(), person, answer.get("item"), answer.get("score"),
                                             answer.get("spans"), ended_at=ended)
            except InputError as exc:
                st.session_state["_ann_error"] = str(exc)
                st.session_state.pop("_ann_task", None)
                st.session_state["_ann_epoch"] = st.session_state.get("_ann_epoch", 0) + 1
                return
            revised.append(rev)
            st.session_state["_ann_task"] = task
            continue
        if answer.get("item") in stored:
            continue
        previous = task
        now = datetime.now(timezone.utc)
        ended = service.client_time(answer.get("ended"), now)
        started = min(service.client_time(answer.get("started"), ended), ended)
        try:
            task = service.submit_answer(state.get_store(), person, answer.get("item"), answer.get("score"),
                                         answer.get("spans"), started_at=started, ended_at=ended)
        except InputError as exc:
            st.session_state["_ann_error"] = str(exc)
            st.session_state.pop("_ann_task", None)  # ask again: e.g. the HIT went to someone else
            # the browser drops its queue: what was refused is not sent again
            st.session_state["_ann_epoch"] = st.session_state.get("_ann_epoch", 0) + 1
            return
        stored.add(answer.get("item"))
        if person.protocol == "esa" and previous is not None and previous.items is not None:
            shown = previous.items[previous.items["id"] == answer.get("item")]
            if len(shown):
                note = service.practice_feedback(shown.iloc[0].to_dict(), float(answer.get("score") or 0),
                                                 answer.get("spans"))
                if note:
                    st.session_state["_ann_feedback"] = note
        st.session_state["_ann_task"] = task
    st.session_state.pop("_ann_error", None)


def _next_hit() -> None:
    st.session_state["_ann_task"] = None
    st.session_state["_ann_new_hit"] = True


def _task(person: service.Annotator) -> service.Task:
    task = st.session_state.get("_ann_task")
    if task is None:
        task = service.start(state.get_store(), person, new_hit=bool(st.session_state.pop("_ann_new_hit", False)))
        st.session_state["_ann_task"] = task
    return task


def _labels(person: service.Annotator) -> dict[str, Any]:
    src, tgt = person.languages
    context = person.collect["context"]
    against = f"the source ({_language(src)})" if context == "source" else "the reference"
    common = {"text": f"Translation ({_language(tgt)})", "submit": "Next ⏎", "waiting": "Saving your answers…",
              "unset": "not set yet: press ← or → or click on the scale",
              "context": f"Source ({_language(src)})" if context == "source" else
              f"Reference: the meaning to express ({_language(tgt)})"}
    if person.protocol == "esa":
        return {**common,
                "question": "Your score for this translation (after marking its errors):",
                "low": "0", "high": "100",
                "levels": ["0: no meaning preserved", "33: some meaning preserved",
                           "66: most meaning preserved, few grammar mistakes", "100: perfect meaning and grammar"],
                "pointer": "↑ Set your score on the slider first (← → or click on it), then press Enter.",
                "minor": "Minor error (1)", "major": "Major error (2)", "clear": "Clear (0)",
                "missing": "[missing content]", "given": "your score:",
                "change": "Change", 
                "tokens": "Words of the translation: arrows move, Shift selects, 1 minor, 2 major, 0 clear",
                "legend": "Mark every error: select words (click and drag, or ← → with Shift), then Minor or Major. "
                          "Something left out? Mark [missing content] at the end. Then score the translation. "
                          "Until the document's last segment is answered you can go back and change an earlier "
                          "one (Change).",
                "keys": "Keys: ← → words (Shift: select) · 1 minor · 2 major · 0 clear · Tab: words ↔ score "
                        "(← → move it, Shift: by 10) · Enter: next"}
    return {**common,
            "question": f"The translation adequately expresses the meaning of {against}.",
            "low": "strongly disagree", "high": "strongly agree",
            "pointer": "↑ Set your answer on the slider first (← → or click on the scale), then press Enter.",
            "keys": "Keys: ← → move the slider (Shift: by 10) · Enter: next"}


def _pieces(text: str, lang: str) -> list[list[str]]:
    """The text as [token, whitespace after it] pairs: the tokens one can mark, spacing kept."""
    bounds = tokens(text, lang)
    return [[text[a:b], text[b:(bounds[k + 1][0] if k + 1 < len(bounds) else len(text))]]
            for k, (a, b) in enumerate(bounds)]


#: DA items sent ahead of the current one, so the next one shows at once
AHEAD = 4


def _window(person: service.Annotator, task: service.Task):
    """The rows the browser gets: DA, the current item and the next few; ESA, the current document
    (answered segments included) and the next document."""
    items = task.items
    if person.protocol != "esa":
        return items.iloc[task.index: task.index + 1 + AHEAD]
    doc = task.document()
    lo, hi = int(doc.index[0]), int(doc.index[-1])
    labels = items["doc"].to_numpy()
    end = hi + 1
    while end < len(items) and end < hi + 1 + 200 and labels[end] == labels[hi + 1]:
        end += 1
    return items.loc[lo: end - 1]


def _widget_args(person: service.Annotator, task: service.Task) -> dict[str, Any]:
    directions = service.directions(person)
    context_col = "source" if person.collect["context"] == "source" else "reference"
    counted = task.items["position"].notna().to_numpy()
    number = counted.cumsum()  # K of "Item K of N", in display order
    practice = (~counted).cumsum()
    rows = []
    for row in _window(person, task).itertuples():
        k = int(row.Index)
        given = task.answered.get(int(row.id))
        if counted[k]:
            label, fraction = f"Item {int(number[k])} of {task.total}", (int(number[k]) - 1) / max(task.total, 1)
            note = None
        else:
            label = f"Practice item {int(practice[k])} of {task.tutorial_total} (it does not count) · then {task.total} items"
            fraction, note = 0.0, row.note
        entry = {"id": int(row.id), "text": row.text, "context": getattr(row, context_col), "note": note,
                 "label": label, "fraction": fraction, "doc": row.doc,
                 "given": None if not given else {"score": given["raw"], "spans": []}}
        if person.protocol == "esa":
            entry["pieces"] = _pieces(row.text, directions["text_lang"])
            if given:
                entry["given"]["spans"] = service.shown_spans(person, row.text, given["spans"])
        rows.append(entry)
    return {"protocol": person.protocol, "assignment": task.assignment_id, "items": rows,
            "epoch": st.session_state.get("_ann_epoch", 0), "revised": st.session_state.get("_ann_revised", []),
            "answered": sorted(task.answered), "labels": _labels(person),
            "dir": {"text": directions["text"], "context": directions["context"]},
            "lang": {"text": directions["text_lang"], "context": directions["context_lang"]},
            "show_number": person.protocol == "esa"}


def _complete(person: service.Annotator, task: service.Task) -> None:
    st.progress(1.0, text=f"Item {task.total} of {task.total}: done")
    st.success("Thank you: this HIT is complete and every answer is stored.")
    completion_code(task.code)
    if not platform_return(task.code, person.origin):
        st.caption("Keep this code: the organisers may ask for it.")
        st.button("Start another HIT", on_click=_next_hit, key="ann_next_hit", type="primary")


def render() -> None:
    """The annotator page."""
    try:
        person = _annotator()
    except InputError as exc:
        st.error(md_escape(str(exc)))
        return
    if person is None:
        _preview()
        return
    src, tgt = person.languages
    st.markdown(f"#### Translation quality · {md_escape(_language(src))} → {md_escape(_language(tgt))}")
    error = st.session_state.pop("_ann_error", None)
    if error:
        st.error(md_escape(error))
    if person.protocol == "cesa":
        from . import cesa_view
        try:
            cesa_view.render(person, _link())
        except InputError as exc:
            st.warning(md_escape(str(exc)))
        return
    try:
        task = _task(person)
    except InputError as exc:
        st.warning(md_escape(str(exc)))
        return
    if task.state == "none":
        st.info(md_escape(task.message))
        return
    if task.state == "complete" or task.index is None:
        _complete(person, task)
        return
    feedback = st.session_state.get("_ann_feedback")
    if feedback:
        st.info(md_escape(feedback))
        if not task.tutorial:
            st.session_state.pop("_ann_feedback", None)  # shown once after the practice ends
    annotate_item(_widget_args(person, task), key=KEY, on_change=_on_answer)
