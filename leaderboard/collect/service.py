"""The annotator's side: what the web page calls, and what the simulated annotators call too.

1. :func:`open_invitation` / :func:`open_crowd` turn a link into an :class:`Annotator`;
2. :func:`start` gives their task: the HIT they hold (resumed at its first unanswered item), the
   code of the HIT they finished, or a new HIT (one at a time; never one they had before);
3. :func:`submit_answer` validates and stores one answer (a judgment at once) and returns the next
   task; the answer that completes a HIT runs the worker test (:mod:`.quality`) and the task then
   carries the completion code.

Every answer is stored when it is given, so a reload, a closed tab or another browser resumes at the
first unanswered item. Errors are :class:`leaderboard.errors.InputError` with a message for the
annotator; nothing is stored when one is raised.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import lru_cache
from typing import Any, Mapping

import pandas as pd

from ..errors import InputError
from ..languages import script_direction, split_lp
from ..storage import Store
from ..storage import collect as db
from .links import CROWD_PARAM, TOKEN_PARAM, crowd_identity, crowd_preview, token_hash, valid_token


def cdb_settings(info: dict) -> dict:
    return json.loads(info.get("settings") or "{}")
from .quality import check_annotator
from .spans import to_offsets, to_tokens


def client_time(value: Any, fallback: datetime) -> datetime:
    """A time the browser measured (ms since the epoch), when it is plausible (within a day of
    ``fallback``, the server's); else ``fallback``."""
    if isinstance(value, datetime):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        when = datetime.fromtimestamp(value / 1000, tz=timezone.utc)
        if abs((when - fallback).total_seconds()) < 86400:
            return when
    return fallback


@dataclass(frozen=True)
class Annotator:
    """Who is annotating, in which annotation campaign (``collect``: its stored settings and codes)."""

    id: int
    name: str
    origin: str
    collect: dict
    platform_assignment: str | None = None

    @property
    def protocol(self) -> str:
        return str(self.collect["protocol"])

    @property
    def languages(self) -> tuple[str, str]:
        return split_lp(self.collect["lp"])

    @property
    def crowd(self) -> bool:
        """True for annotators sent by a crowd platform (they finish one HIT per platform task)."""
        return self.origin in ("mturk", "prolific")


@dataclass
class Task:
    """What the annotator sees now.

    ``state``: ``"item"`` (``items.iloc[index]`` is the next to answer), ``"complete"`` (the HIT is
    done: ``code``), ``"none"`` (no HIT is free for them; ``message`` says why).
    """

    state: str
    hit: str | None = None
    assignment_id: int | None = None
    items: pd.DataFrame | None = None
    answered: dict[int, dict] = field(default_factory=dict)
    index: int | None = None
    code: str | None = None
    passed: bool | None = None
    message: str = ""
    stored: bool | None = None  # after a submit: False when the answer had been stored before (a double submit)
    rows: tuple[dict[str, Any], ...] | None = None  # ``items`` as plain rows (the same for every task of a HIT)

    def _rows(self) -> tuple[dict[str, Any], ...]:
        if self.rows is None:
            self.rows = () if self.items is None else tuple(self.items.to_dict("records"))
        return self.rows

    @property
    def current(self) -> dict[str, Any] | None:
        return None if self.index is None else dict(self._rows()[self.index])

    @property
    def tutorial(self) -> bool:
        return self.index is not None and pd.isna(self._rows()[self.index]["position"])

    @property
    def total(self) -> int:
        """Items that count (tutorial items excluded)."""
        return sum(not pd.isna(r["position"]) for r in self._rows())

    @property
    def done(self) -> int:
        """Counted items answered."""
        return sum(not pd.isna(r["position"]) and int(r["id"]) in self.answered for r in self._rows())

    @property
    def number(self) -> int:
        """K of "Item K of N" (the tutorial's own number while a tutorial item is shown)."""
        if self.index is None:
            return self.total
        if self.tutorial:
            return int(self.items["position"].iloc[: self.index + 1].isna().sum())
        return self.done + 1

    @property
    def tutorial_total(self) -> int:
        return int(self.items["position"].isna().sum()) if self.items is not None else 0

    def document(self) -> pd.DataFrame:
        """The rows shown with the current one: its whole document (consecutive items of one ``doc``)."""
        if self.index is None:
            return self.items.iloc[0:0]
        doc = self.items["doc"].to_numpy()
        lo = hi = self.index
        while lo > 0 and doc[lo - 1] == doc[self.index] and doc[self.index] is not None:
            lo -= 1
        while hi + 1 < len(doc) and doc[hi + 1] == doc[self.index] and doc[self.index] is not None:
            hi += 1
        return self.items.iloc[lo: hi + 1]


def open_invitation(store: Store, token: str | None) -> Annotator:
    """The annotator an invitation link belongs to; refuses a malformed or unknown (forged) token."""
    if not valid_token(token):
        raise InputError("this invitation link is not valid: the token is missing or damaged (copy the whole link)")
    row = db.annotator(store, token_hash=token_hash(str(token)))
    if row is None:
        raise InputError("this invitation link is not valid: no annotator has this token (copy the whole link, "
                         "or ask the organisers for a new one)")
    return Annotator(row["id"], row["name"], row["origin"], db.collection_by_id(store, row["collect_id"]))


def crowd_campaign(store: Store, key: str | None) -> dict:
    """The annotation campaign of a crowd link (refuses an unknown key)."""
    info = db.collection_by_crowd_key(store, str(key)) if key else None
    if info is None:
        raise InputError("this link does not belong to any annotation campaign")
    return info


def open_crowd(store: Store, key: str | None, params: Mapping[str, str]) -> Annotator | None:
    """The crowd annotator named by the link's worker id (created on first arrival); None for a preview (no
    worker id, or Mechanical Turk's preview): nothing is created or held."""
    info = crowd_campaign(store, key)
    if crowd_preview(params):
        return None
    name, origin, platform_assignment = crowd_identity(params)
    cap = cdb_settings(info).get("max_annotators")
    if cap is not None and db.annotator(store, collect_id=info["id"], name=name) is None \
            and db.annotator_count(store, info["id"]) >= int(cap):
        raise InputError(f"this campaign has all the annotators it needs ({cap}); thank you for your interest")
    row = db.crowd_annotator(store, info["id"], name, origin)
    return Annotator(row["id"], row["name"], row["origin"], info, platform_assignment)


def open_link(store: Store, params: Mapping[str, str]) -> Annotator | None:
    """The annotator of a link's parameters: an invitation (``t``) or a crowd link (``c`` and the platform's worker
    id); None for a crowd preview. The annotation page and the annotation endpoint both ask this."""
    if params.get(TOKEN_PARAM):
        return open_invitation(store, params[TOKEN_PARAM])
    return open_crowd(store, params.get(CROWD_PARAM), params)


@lru_cache(maxsize=512)
def _items(store: Store, hit_id: int) -> pd.DataFrame:
    return db.hit_items(store, hit_id)  # a HIT's items never change


@lru_cache(maxsize=512)
def _rows(store: Store, hit_id: int) -> tuple[dict[str, Any], ...]:
    return tuple(_items(store, hit_id).to_dict("records"))


def _code(annotator: Annotator, passed: bool | None) -> str:
    return annotator.collect["code_pass"] if passed else annotator.collect["code_fail"]


def task(store: Store, annotator: Annotator, assignment: dict[str, Any],
         given: list[tuple[int, float, str | None]] | None = None) -> Task:
    """The task of one of the annotator's assignments: its next item, or its completion code. ``given``: its
    answers (:func:`leaderboard.storage.collect.answer_rows`) when the caller has them."""
    hit_id = int(assignment["hit_id"])
    items, rows = _items(store, hit_id), _rows(store, hit_id)
    if assignment["status"] == db.DONE:
        passed = assignment["qc_pass"]
        if passed is None:  # the verdict of this completion was never stored (e.g. the process stopped)
            passed = check_annotator(store, annotator.id, assignment["id"])["passed"]
        return Task("complete", assignment["hit"], assignment["id"], items, passed=passed,
                    code=_code(annotator, passed), rows=rows)
    answered = {item: {"raw": raw, "spans": json.loads(spans) if spans else []}
                for item, raw, spans in (db.answer_rows(store, int(assignment["id"])) if given is None else given)}
    index = next((k for k, r in enumerate(rows) if int(r["id"]) not in answered), None)
    return Task("item", assignment["hit"], int(assignment["id"]), items, answered, index=index, rows=rows)


def start(store: Store, annotator: Annotator, *, new_hit: bool = False) -> Task:
    """The annotator's task now: the HIT they hold, else their finished HIT's code, else a new HIT.

    ``new_hit``: after a finished HIT, take the next one (the page's "next HIT" button). A crowd
    annotator arriving with a new platform task id also gets a new HIT.
    """
    latest = db.latest_assignment(store, annotator.id)
    finished = latest is not None and latest["status"] == db.DONE
    new_platform_task = annotator.platform_assignment is not None and latest is not None \
        and latest["platform_assignment"] != annotator.platform_assignment
    if finished and not new_hit and not new_platform_task:
        return task(store, annotator, latest)
    held = db.claim(store, annotator.id, platform_assignment=annotator.platform_assignment)
    if held is None:
        return Task("none", message="There is no HIT left for you in this campaign: every HIT is done or being "
                                    "done by others. Thank you!")
    return task(store, annotator, held)


def _score(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(float(value)) \
            or not 0 <= float(value) <= 100:
        raise InputError(f"the score must be a number from 0 to 100, got {value!r}; nothing was stored",
                         column="score")
    return float(value)


def _checked_answer(store: Store, annotator: Annotator, item_id: Any, score: Any,
                    spans: Any) -> tuple[float, list[dict[str, Any]] | None]:
    """The score and (ESA) span offsets of an answer to ``item_id``; refuses a score outside 0–100, an item
    not in the annotator's annotation campaign and spans on a DA item."""
    raw = _score(score)
    if isinstance(item_id, bool) or not isinstance(item_id, int):
        raise InputError(f"item {item_id!r} is not part of a HIT assigned to you; nothing was stored", column="item")
    found = db.item(store, item_id)
    if found is None or found["collect_id"] != annotator.collect["id"]:
        raise InputError(f"item {item_id} is not part of a HIT assigned to you; nothing was stored", column="item")
    if annotator.protocol == "esa":
        return raw, to_offsets(spans, found["text"], annotator.languages[1])
    if spans:
        raise InputError("DA answers have no error spans; nothing was stored", column="spans")
    return raw, None


def submit_answer(store: Store, annotator: Annotator, item_id: Any, score: Any, spans: Any = None, *,
                  started_at: datetime | None = None, ended_at: datetime | None = None) -> Task:
    """Store one answer and return the task that follows (the next item, or the completion code).

    ``spans`` (ESA only): token spans (:mod:`.spans`). Refuses a score outside 0–100, spans on a DA
    item, and an item that is not part of the annotator's HIT. A second submit of an answered item
    stores nothing and returns the same next task.
    """
    raw, offsets = _checked_answer(store, annotator, item_id, score, spans)
    now = datetime.now(timezone.utc)
    result = db.submit(store, annotator.id, item_id, raw=raw, spans=offsets, started_at=started_at or now,
                       ended_at=ended_at or now)
    if result["complete"] and result["stored"]:
        check_annotator(store, annotator.id, result["assignment_id"])
    if "assignment" in result:  # read with the answer, in its transaction
        after = task(store, annotator, result["assignment"], result["answers"])
    else:
        after = task(store, annotator, db.assignment(store, result["assignment_id"]))
    after.stored = result["stored"]
    return after


def revise_answer(store: Store, annotator: Annotator, item_id: Any, score: Any, spans: Any = None, *,
                  ended_at: datetime | None = None) -> Task:
    """Change an answer of the document the annotator is in (ESA: until its last segment is answered, the
    document is open); the stored answer, its judgment and its spans become the new ones. Returns the task."""
    raw, offsets = _checked_answer(store, annotator, item_id, score, spans)
    result = db.revise(store, annotator.id, item_id, raw=raw, spans=offsets,
                       ended_at=ended_at or datetime.now(timezone.utc))
    return task(store, annotator, db.assignment(store, result["assignment_id"]))


def practice_feedback(item: Mapping[str, Any], raw: float, spans: list[dict] | None) -> str | None:
    """What an ESA practice item's answer shows, in words (None for a counted item): the careful human
    translation should score high with no major error, the one with words left out should have its missing
    content marked, a machine translation is compared with the annotator's own marks."""
    doc = str(item.get("doc") or "")
    if not doc.startswith("tutorial") or pd.notna(item.get("position")):
        return None
    spans = spans or []
    major = sum(s.get("severity") == "major" for s in spans)
    missing = any(s.get("missing") or s.get("start") is None for s in spans)
    if doc == "tutorial1":
        if raw >= 70 and not major:
            return f"Practice item: well done — a careful human translation, and you gave it {raw:.0f} without a major error."
        return (f"Practice item: this was a careful human translation; a score of 70 or more with at most minor marks "
                f"fits it (you gave {raw:.0f}{f' and {major} major error(s)' if major else ''}).")
    if doc == "tutorial2":
        if missing:
            return "Practice item: well done — words were left out, and you marked the missing content."
        return ("Practice item: words of the original were left out of this translation; mark [missing content] at "
                "its end (major when the meaning suffers) and score it lower.")
    return (f"Practice item: a machine translation; you marked {len(spans)} error(s) ({major} major) and gave "
            f"{raw:.0f}. There is no single right answer: mark every error you see, then score by how much meaning "
            "is kept.")


def shown_spans(annotator: Annotator, text: str, stored: list[dict]) -> list[dict]:
    """An answered item's stored spans as token spans, to show them again."""
    return to_tokens(stored, text, annotator.languages[1])


def directions(annotator: Annotator) -> dict[str, str]:
    """The ``dir`` of the translation and of the text shown with it (source or reference)."""
    src, tgt = annotator.languages
    context_lang = src if annotator.collect["context"] == "source" else tgt
    return {"text": script_direction(tgt), "context": script_direction(context_lang),
            "text_lang": tgt, "context_lang": context_lang}
