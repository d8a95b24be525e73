"""Attention-check texts for contrastive ESA: a translation with a few of its words rotated (WMT26's rule).

WMT26 spoils one of three translations of an attention check by picking five words at random and
rotating them among themselves: each chosen word moves to the place of the next chosen one, the
last to the place of the first. For languages written without spaces between words (Chinese,
Japanese, Thai and the others of :func:`leaderboard.languages.word_split_by_character`) ten characters
are rotated instead (a character keeps its combining marks). Whitespace stays where it is, and so
does the structure of a text that is code or data: a word holding a JSON brace or bracket
(``{ } [ ]``) or a backtick (code fences, inline code) is never moved.

The rotation always changes the text: chosen units that are all the same would not, so another
draw is made; a text with fewer than two movable units, or whose movable units are all the same, is
refused (``ValueError``). The choice is drawn from ``numpy.random.default_rng(seed)``, so one seed gives
one result everywhere.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

import numpy as np

from ..languages import word_split_by_character

WORDS = 5
CHARACTERS = 10
#: characters that mark code or data structure; a unit holding one never moves
FIXED_CHARACTERS = frozenset("{}[]`")
_WORD = re.compile(r"\S+")
_MAX_DRAWS = 100


@dataclass(frozen=True)
class Rotation:
    """The spoiled text, and where the moved units now stand (character ``(start, end)``, end exclusive)."""
    text: str
    moved: tuple[tuple[int, int], ...]
    by_character: bool


def units(text: str, by_character: bool) -> list[tuple[int, int]]:
    """Character spans of the rotatable units: words (runs of non-space characters), or single characters
    with their combining marks."""
    if not by_character:
        return [(m.start(), m.end()) for m in _WORD.finditer(text)]
    out: list[tuple[int, int]] = []
    for i, ch in enumerate(text):
        if ch.isspace():
            continue
        if out and out[-1][1] == i and unicodedata.category(ch).startswith("M"):
            out[-1] = (out[-1][0], i + 1)
        else:
            out.append((i, i + 1))
    return out


def rotate_words(text: str, lang: str, seed: int | np.random.Generator | None = None,
                 count: int | None = None) -> Rotation:
    """Rotate ``count`` randomly chosen units of ``text`` among themselves (default: 5 words, or 10
    characters for ``lang`` written without spaces; fewer when the text has fewer movable units)."""
    by_character = word_split_by_character(lang)
    wanted = count if count is not None else (CHARACTERS if by_character else WORDS)
    if wanted < 2:
        raise ValueError("a rotation needs at least two units")
    spans = units(text, by_character)
    movable = [k for k, (a, b) in enumerate(spans) if not FIXED_CHARACTERS.intersection(text[a:b])]
    pieces = [text[a:b] for a, b in spans]
    if len(movable) < 2 or len({pieces[k] for k in movable}) < 2:
        raise ValueError(f"the text has {len(movable)} movable {'character' if by_character else 'word'}(s), "
                         "not two different ones to rotate")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    k = min(wanted, len(movable))
    for _ in range(_MAX_DRAWS):
        chosen = [movable[i] for i in rng.choice(len(movable), size=k, replace=False)]
        if len({pieces[c] for c in chosen}) > 1:
            break
    else:  # pragma: no cover - only when nearly every movable unit is the same
        raise ValueError("no draw of different units was found to rotate")
    new = list(pieces)
    for i, target in enumerate(chosen):
        new[chosen[(i + 1) % k]] = pieces[target]
    out, at, length, positions = [], 0, 0, {}
    for idx, ((a, b), piece) in enumerate(zip(spans, new)):
        out.append(text[at:a])
        length += a - at
        out.append(piece)
        positions[idx] = (length, length + len(piece))
        length += len(piece)
        at = b
    out.append(text[at:])
    return Rotation("".join(out), tuple(sorted(positions[c] for c in chosen)), by_character)
