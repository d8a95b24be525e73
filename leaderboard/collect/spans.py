"""ESA error spans: the translation as markable tokens, and marked token ranges as character offsets.

The annotator marks whole tokens: words (runs of non-space characters), or single characters (with
their combining marks) for languages written without spaces (:func:`leaderboard.hits.degrade.uses_characters`).
One more token, after the last one, is the *missing content* marker. A span is given as token
indices ``{"start": i, "end": j, "severity": "minor" | "major"}`` (``end`` exclusive); the
marker is ``{"missing": true, "severity": ...}``. Stored spans are character offsets into the
translation (end exclusive), ``None`` for missing content, as the Appraise reader stores them.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..errors import InputError
from ..hits.degrade import uses_characters
from ..hits.rotation import units

SEVERITIES: tuple[str, ...] = ("minor", "major")
MAX_SPANS = 200


def tokens(text: str, lang: str) -> tuple[tuple[int, int], ...]:
    """Character (start, end) of every markable token of ``text``: the units a rotation moves (words, or
    characters with their combining marks). Kept per process and shared: read it, never change it (tuples of
    numbers also stay out of the garbage collector's scans, which matters with hundreds of pages held)."""
    return _tokens(text, _by_character(lang))


@lru_cache(maxsize=4096)
def _by_character(lang: str) -> bool:
    return uses_characters(lang)


@lru_cache(maxsize=8192)
def _tokens(text: str, by_character: bool) -> tuple[tuple[int, int], ...]:
    """A text's tokens, kept per process: a page shows, validates and re-reads the same texts on every request."""
    return tuple(units(text, by_character))


def to_offsets(spans: Any, text: str, lang: str, special_tokens: list[str] | None = None) -> list[dict[str, Any]]:
    """Validated token spans → ``[{"start", "end", "severity"}]`` in characters (None, None: missing content).

    Refuses anything but a list of well-formed spans inside the text; overlapping spans are kept
    as marked (the annotator's choice), an identical span given twice once. ``special_tokens`` (cESA): a
    span ``{"token": name, "severity"}`` marks one of them (stored with ``"token"`` and no offsets).
    """
    if spans is None:
        return []
    if not isinstance(spans, list) or len(spans) > MAX_SPANS:
        raise InputError(f"error spans must be a list of at most {MAX_SPANS} spans; nothing was stored", column="spans")
    bounds = tokens(text, lang)
    out: list[dict[str, Any]] = []
    for span in spans:
        if not isinstance(span, dict):
            raise InputError("an error span must be an object; nothing was stored", column="spans")
        severity = span.get("severity")
        if severity not in SEVERITIES:
            raise InputError(f"an error span's severity must be minor or major, got {severity!r}; nothing was stored",
                             column="spans")
        if span.get("missing") is True:
            item = {"start": None, "end": None, "severity": severity}
        elif special_tokens and "token" in span:
            token = span.get("token")
            if token not in special_tokens:
                raise InputError(f"{token!r} is not one of this campaign's special tokens "
                                 f"({', '.join(special_tokens)}); nothing was stored", column="spans")
            item = {"start": None, "end": None, "severity": severity, "token": token}
        else:
            start, end = span.get("start"), span.get("end")
            if any(isinstance(v, bool) or not isinstance(v, int) for v in (start, end)) \
                    or not 0 <= start < end <= len(bounds):
                raise InputError(f"error span {start!r}..{end!r} does not lie within the translation's "
                                 f"{len(bounds)} words; nothing was stored", column="spans")
            item = {"start": bounds[start][0], "end": bounds[end - 1][1], "severity": severity}
        if item not in out:
            out.append(item)
    return out


def to_tokens(spans: list[dict[str, Any]], text: str, lang: str) -> list[dict[str, Any]]:
    """Stored character spans back to token spans (to show an answered segment's marks)."""
    bounds = tokens(text, lang)
    out = []
    for span in spans or []:
        if span.get("start") is None:
            out.append({"token": span["token"], "severity": span["severity"]} if span.get("token")
                       else {"missing": True, "severity": span["severity"]})
            continue
        inside = [k for k, (a, b) in enumerate(bounds) if a >= span["start"] and b <= span["end"]]
        if inside:
            out.append({"start": inside[0], "end": inside[-1] + 1, "severity": span["severity"]})
    return out
