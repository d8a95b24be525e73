"""Degraded copies of system outputs for the ``BAD_REF`` quality-control items
(docs/method/hits.md#degradation-for-adequacy, docs/method/hits.md#degradation-for-fluency).

Units: text is cut into words on whitespace and re-joined with single spaces. Languages written
without spaces between words (Chinese, Japanese, Thai, Lao, Khmer, Burmese, Tibetan; see
:data:`CHARACTER_LANGUAGES`) are cut into characters instead (a base character keeps its
combining marks) and re-joined without separator. The rules below then count characters where
they say words; no word segmenter is needed, and a long Chinese sentence still loses a visible
piece (⌊n/5⌋ characters).

* Adequacy: delete one contiguous run of k units, k by length n: 2–3 → 1, 4–5 → 2, 6–8 → 3,
  9–15 → 4, 16–20 → 5, n > 20 → ⌊n/5⌋ (Graham et al. 2017, §4). Texts of fewer than 2 units cannot be
  degraded.
* Fluency: pick two different units at random and insert a copy of each elsewhere, never next
  to its original and never as the first or last unit (Graham et al. 2017, §4; Graham et al. 2013).
  Needs at least 3 units.

Degradation always changes the text (units are removed or added). ``can_degrade`` says whether a
text is long enough; the HIT builder never picks a text that is not as a bad-reference original.
"""

from __future__ import annotations

import unicodedata

import numpy as np

ASSESSMENTS: tuple[str, ...] = ("adequacy", "fluency")
#: Target languages handled by characters rather than whitespace-separated words.
CHARACTER_LANGUAGES: frozenset[str] = frozenset({"zh", "ja", "th", "lo", "km", "my", "bo", "yue",
                                                 "zho", "jpn", "tha", "lao", "khm", "mya", "bod"})
#: Fewest units a text needs to be degraded, per assessment.
MIN_UNITS = {"adequacy": 2, "fluency": 3}


def target_language(lp: str) -> str:
    """The target side of a language pair ``src-tgt`` (``"cs-en"`` → ``"en"``)."""
    return lp.rsplit("-", 1)[-1].strip().lower()


def uses_characters(lang: str) -> bool:
    """True for languages whose words are not separated by spaces (handled by characters); a WMT26 code
    naming its script decides by the script (``zho_Hant_TW``, ``tha_Thai``: yes; ``eng_Latn``: no)."""
    from ..languages import parse_language, word_split_by_character
    try:
        if parse_language(lang).script is not None:
            return word_split_by_character(lang)
    except ValueError:
        pass
    return lang.lower().split("_")[0] in CHARACTER_LANGUAGES


def split_units(text: str, lang: str) -> list[str]:
    """Words (whitespace split), or characters with their combining marks for :func:`uses_characters`."""
    if not uses_characters(lang):
        return text.split()
    units: list[str] = []
    for ch in text:
        if ch.isspace():
            continue
        if units and unicodedata.category(ch).startswith("M"):
            units[-1] += ch  # keep a combining mark (Thai vowels, tone marks) with its base
        else:
            units.append(ch)
    return units


def join_units(units: list[str], lang: str) -> str:
    return ("" if uses_characters(lang) else " ").join(units)


def deletion_length(n: int) -> int:
    """Number of units the adequacy rule removes from a text of ``n`` units (0 when n < 2)."""
    if n < 2:
        return 0
    if n <= 3:
        return 1
    if n <= 5:
        return 2
    if n <= 8:
        return 3
    if n <= 15:
        return 4
    if n <= 20:
        return 5
    return n // 5


def can_degrade(text: str, assessment: str, lang: str = "en") -> bool:
    """Whether ``text`` is long enough to make a bad reference for ``assessment``."""
    return len(split_units(text, lang)) >= MIN_UNITS[_check(assessment)]


def degrade(text: str, assessment: str, rng: np.random.Generator, lang: str = "en") -> str:
    """A degraded copy of ``text`` (adequacy: deletion; fluency: two misplaced duplicates).

    Raises ``ValueError`` when the text is too short (see :func:`can_degrade`).
    """
    units = split_units(text, lang)
    if len(units) < MIN_UNITS[_check(assessment)]:
        raise ValueError(f"text of {len(units)} unit(s) is too short to degrade for {assessment}")
    if assessment == "adequacy":
        k = deletion_length(len(units))
        start = int(rng.integers(0, len(units) - k + 1))
        return join_units(units[:start] + units[start + k:], lang)
    out = list(units)
    n = len(out)
    # a word has a legal spot when some gap is neither an end nor next to it (in 3 words: not the middle)
    movable = [w for w in range(n) if any(g not in (w, w + 1) for g in range(1, n))]
    originals = [int(i) for i in rng.choice(movable, size=2, replace=False)]
    for n_done in range(2):
        word = originals[n_done]
        n = len(out)
        # a gap g means "insert before out[g]"; 0 and n are the string ends, w and w+1 touch the original
        gaps = [g for g in range(1, n) if g not in (word, word + 1)]
        g = int(gaps[int(rng.integers(0, len(gaps)))])
        out.insert(g, out[word])
        if n_done == 0 and originals[1] >= g:
            originals[1] += 1  # the second original moved one place right
    return join_units(out, lang)


def _check(assessment: str) -> str:
    if assessment not in ASSESSMENTS:
        raise ValueError(f"assessment must be one of {', '.join(ASSESSMENTS)}, got {assessment!r}")
    return assessment
