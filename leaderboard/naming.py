"""System names: the per-campaign ``.N`` index of WMT DA ids, name matching, human translations.

One place for the naming rules every stage shares, so ``correlate``, ``submit``, the longitudinal
comparison and the app agree on which names denote the same system.
"""

from __future__ import annotations

import re
from typing import Iterable

_INDEX = re.compile(r"\.\d+$")
# WMT names human translations HUMAN-B, Human-A.0, HUMAN.0, ref-A, ref.A (MQM releases: "ref"; WMT23-25:
# refA, refB, Human-refA)
_HUMAN = re.compile(r"^(?:[Hh][Uu][Mm][Aa][Nn]|[Rr][Ee][Ff])(?:[-_.].*|[A-Z])?$")


def strip_index(name: str) -> str:
    """``Online-W.2`` → ``Online-W``: the per-campaign index of WMT DA system ids removed."""
    return _INDEX.sub("", str(name))


def is_human(name: str) -> bool:
    """True when WMT naming marks ``name`` as a human translation (``HUMAN-*``, ``Human-*``, ``ref-*``, ``ref.*``,
    ``refA``)."""
    return bool(_HUMAN.match(str(name).strip()))


def match_systems(wanted: Iterable[str], available: Iterable[str]) -> dict[str, str]:
    """Map each name of ``wanted`` to one of ``available``: exact names first, then by stripped ``.N``.

    Only names without an exact match take part in the second round, and a stripped name is used
    only when it identifies exactly one system on each side (``A.1`` and ``A.2`` are never merged).
    Names that find no partner are absent from the result.
    """
    wanted = list(wanted)
    available_set = set(available)
    mapping = {w: w for w in wanted if w in available_set}
    taken = set(mapping.values())
    by_w: dict[str, list[str]] = {}
    for w in wanted:
        if w not in mapping:
            by_w.setdefault(strip_index(w), []).append(w)
    by_a: dict[str, list[str]] = {}
    for a in available_set - taken:
        by_a.setdefault(strip_index(a), []).append(a)
    for key, ws in by_w.items():
        partners = by_a.get(key, [])
        if len(ws) == 1 and len(partners) == 1:
            mapping[ws[0]] = partners[0]
    return mapping


#: characters refused in names and ids (campaigns, teams, systems, workers, segments, language codes…):
#: C0 and C1 control characters (NUL, BEL, ESC, newline, tab…), DEL, and the invisible characters that
#: change how text around them is shown (direction overrides like U+202E, zero-width marks, BOM)
UNSAFE_NAME_CHARS = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")


def unsafe_char(text: str) -> str | None:
    """A description of the first character of ``text`` that a name may not hold (None: none)."""
    found = UNSAFE_NAME_CHARS.search(str(text))
    if found is None:
        return None
    import unicodedata
    ch = found.group()
    label = unicodedata.name(ch, None) or {"\x00": "NUL", "\x07": "BEL", "\x1b": "ESC", "\n": "newline",
                                           "\r": "carriage return", "\t": "tab", "\x7f": "DEL"}.get(ch, "control")
    return f"U+{ord(ch):04X} ({label})"


def check_name(value: str, what: str, **where) -> str:
    """Refuse a name holding a control or text-direction character (:data:`UNSAFE_NAME_CHARS`); returns it.

    ``where``: ``file``, ``line``, ``column`` of the :class:`~leaderboard.errors.InputError`."""
    bad = unsafe_char(value)
    if bad is not None:
        from .errors import InputError
        where.setdefault("column", what)
        raise InputError(f"the {what} holds the character {bad}; names may hold no control or "
                         "text-direction characters", **where)
    return value
