"""Document-level HITs for Error Span Annotation (ESA; Kocmi et al. 2024).

An ESA annotator sees every segment of a document on one screen, in order, marks error spans in
each translation and scores it. A HIT therefore holds whole documents of system outputs (about
``hit_size`` segments) instead of single sentences, and its quality-control items are documents
too: degraded copies of some of the HIT's own segments, shown as a document of their own later or
earlier in the HIT (as the WMT24 campaign did with its ``#bad`` documents). They pair with their
originals exactly as the crowd-DA bad references do (same HIT, system and segment), so the worker
test of :mod:`leaderboard.human.qc` applies unchanged.

Layout of a HIT of ``hit_size`` items:

* ``n_bad = max(2, round(hit_size / 10))`` ``BAD_REF`` items: degraded copies (adequacy rule of
  :mod:`leaderboard.hits.degrade`) of segments long enough to degrade, taken document by document;
* up to ``hit_size - n_bad`` genuine segments (``SYSTEM``), in whole documents. A document longer
  than that is cut into consecutive parts, each shown as a document.

Documents are (system, document) units drawn from a seeded permutation and packed greedily into
HITs; a HIT never holds the same unit twice. Without document ids every run of
:data:`LINES_PER_DOCUMENT` consecutive lines is a document. Units are shuffled within the HIT, and
a degraded copy is kept away from its original where the HIT has room. Everything is drawn from
one ``numpy`` generator seeded with ``seed``.

:func:`tutorial_items` makes the few practice items an ESA annotator sees first (they do not count).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import InputError
from .builder import Sources
from .degrade import can_degrade, degrade, target_language

#: lines per document when the test set has no document ids
LINES_PER_DOCUMENT = 10
#: fewest degraded copies per HIT (the worker test needs at least two pairs)
MIN_BAD = 2
#: smallest document-level HIT
MIN_HIT_SIZE = 10
DOCUMENT_COLUMNS: tuple[str, ...] = ("hit", "position", "item_type", "system", "segment", "doc", "pair_id",
                                     "text", "reference", "source")


@dataclass(frozen=True)
class Unit:
    """One (system, document part): its name and the 0-based lines it shows, in order."""

    system: str
    doc: str
    lines: tuple[int, ...]


def document_layout(hit_size: int) -> tuple[int, int]:
    """(genuine segments, degraded copies) of an ESA HIT of ``hit_size`` items; refuses a size too small."""
    if isinstance(hit_size, bool) or not isinstance(hit_size, (int, np.integer)) or hit_size < MIN_HIT_SIZE:
        raise InputError(
            f"an ESA HIT of {hit_size} items cannot hold its quality-control items: it needs at least {MIN_BAD} "
            f"degraded copies of its own segments (about 10% of the HIT) besides the segments themselves, so the "
            f"smallest ESA HIT has {MIN_HIT_SIZE} items", column="hit size")
    n_bad = max(MIN_BAD, round(int(hit_size) / 10))
    return int(hit_size) - n_bad, n_bad


def document_ids(sources: Sources) -> list[str]:
    """The document id of every line: the test set's, else runs of :data:`LINES_PER_DOCUMENT` lines."""
    n = len(sources.reference)
    if sources.docs is not None and any(str(d or "").strip() for d in sources.docs):
        return [str(d or "").strip() or "(no document)" for d in sources.docs]
    return [f"lines{k + 1}-{min(k + LINES_PER_DOCUMENT, n)}" for k in range(0, n, LINES_PER_DOCUMENT)
            for _ in range(min(LINES_PER_DOCUMENT, n - k))]


def _units(sources: Sources, shown: list[str], max_lines: int) -> list[Unit]:
    """Every (system, document part) with at least one usable line (output, reference and context non-empty)."""
    docs = document_ids(sources)
    order: dict[str, list[int]] = {}
    for line, doc in enumerate(docs):
        order.setdefault(doc, []).append(line)
    units = []
    for system in sorted(sources.systems):
        out = sources.systems[system]
        for doc, lines in order.items():
            usable = [g for g in lines if out[g].strip() and sources.reference[g].strip() and shown[g].strip()]
            for k in range(0, len(usable), max_lines):
                part = tuple(usable[k:k + max_lines])
                label = doc if len(usable) <= max_lines else f"{doc}#part{k // max_lines + 1}"
                units.append(Unit(system, label, part))
    return units


def default_document_hits(sources: Sources, hit_size: int, context: str = "source") -> int:
    """Enough HITs for every usable output to be shown about once."""
    genuine, _ = document_layout(hit_size)
    shown = _shown(sources, context)
    n = sum(len(u.lines) for u in _units(sources, shown, genuine))
    return max(1, math.ceil(n / genuine))


def _shown(sources: Sources, context: str) -> list[str]:
    if context == "source":
        if sources.source is None:
            raise InputError("the source text is needed to show it (give the test set's source)")
        return sources.source
    return sources.reference


def _pack(units: list[Unit], n_hits: int, capacity: int, rng: np.random.Generator) -> list[list[Unit]]:
    """Greedy packing of a seeded stream of units into ``n_hits`` HITs of at most ``capacity`` lines."""
    stream: list[Unit] = []
    hits: list[list[Unit]] = []
    look_ahead = 64
    for _ in range(n_hits):
        chosen: list[Unit] = []
        fill = 0
        while True:
            if len(stream) < look_ahead:
                stream += [units[i] for i in rng.permutation(len(units))]
            pick = next((i for i, u in enumerate(stream[:look_ahead])
                         if fill + len(u.lines) <= capacity and u not in chosen), None)
            if pick is None:
                break
            unit = stream.pop(pick)
            chosen.append(unit)
            fill += len(unit.lines)
            if fill == capacity:
                break
        hits.append(chosen)
    return hits


def _order(n_genuine: int, bad_of: list[int], rng: np.random.Generator) -> list[int]:
    """Display order of a HIT's documents (0..n-1 genuine, then the copies): shuffled, copies away from originals.

    A copy never comes right before its original: when shuffling cannot keep every copy at least one document
    away (small HITs), the genuine documents come first, shuffled, and each copy after them in the order of its
    original, so a copy always follows its original."""
    n = n_genuine + len(bad_of)
    original = {n_genuine + k: g for k, g in enumerate(bad_of)}
    best = list(rng.permutation(n))
    for _ in range(50):
        where = {d: i for i, d in enumerate(best)}
        clash = [c for c, g in original.items() if abs(where[c] - where[g]) <= 1]
        if not clash:
            return [int(d) for d in best]
        i, j = where[clash[0]], int(rng.integers(0, n))
        best[i], best[j] = best[j], best[i]
    genuine = [int(d) for d in rng.permutation(n_genuine)]
    place = {g: i for i, g in enumerate(genuine)}
    copies = sorted(original, key=lambda c: (place[original[c]], c))
    return genuine + [int(c) for c in copies]


def build_document_hits(sources: Sources, n_hits: int | None = None, seed: int = 0, hit_size: int = 100,
                        hit_prefix: str = "H", context: str = "source") -> pd.DataFrame:
    """The ESA batch as one row per item (:data:`DOCUMENT_COLUMNS`), sorted by hit and position.

    ``context`` is what the annotator reads the translation against: ``"source"`` (the ESA
    default; needs ``sources.source``) or ``"reference"``. ``reference`` and ``source`` hold the
    segment's reference and source ("" when unknown); ``doc`` names the shown document, unique in
    its HIT: the document id, with ``#bad`` for a degraded copy, ``#partK`` for a part of a long
    document, ``#2``, ``#3``… for the same document of another system. ``attrs``: ``lp``,
    ``seed``, ``systems``, ``hit_size``.
    """
    genuine, n_bad = document_layout(hit_size)
    if context not in ("source", "reference"):
        raise InputError(f"context must be source or reference, got {context!r}")
    shown = _shown(sources, context)
    units = _units(sources, shown, genuine)
    if not units:
        raise InputError("no usable segments: every output, reference or shown text is empty")
    if n_hits is None:
        n_hits = default_document_hits(sources, hit_size, context)
    if n_hits < 1:
        raise InputError(f"the number of HITs must be at least 1, got {n_hits}")
    lang = target_language(sources.lp)
    rng = np.random.default_rng(seed)
    width = max(3, len(str(n_hits)))
    source = sources.source or [""] * len(sources.reference)
    rows: list[tuple] = []
    for h, chosen in enumerate(_pack(units, n_hits, genuine, rng)):
        hit = f"{hit_prefix}{h + 1:0{width}d}"
        # degraded copies: documents of the HIT in random order, their degradable lines, n_bad in all
        copies: list[tuple[int, tuple[int, ...]]] = []
        left = n_bad
        for d in rng.permutation(len(chosen)):
            unit = chosen[int(d)]
            lines = tuple(g for g in unit.lines if can_degrade(sources.systems[unit.system][g], "adequacy", lang))
            if lines and left:
                copies.append((int(d), lines[:left]))
                left -= len(lines[:left])
        if left:
            raise InputError(f"HIT {hit} has too few segments long enough to degrade for its {n_bad} "
                             "quality-control copies; give more or longer segments")
        documents = [(u, u.lines, "SYSTEM") for u in chosen] + \
                    [(chosen[d], lines, "BAD_REF") for d, lines in copies]
        position = 0
        seen: dict[str, int] = {}
        for d in _order(len(chosen), [d for d, _ in copies], rng):
            unit, lines, kind = documents[d]
            label = unit.doc + ("#bad" if kind == "BAD_REF" else "")
            seen[label] = seen.get(label, 0) + 1
            if seen[label] > 1:  # the same document of another system: shown as a document of its own
                label += f"#{seen[label]}"
            for g in lines:
                position += 1
                out = sources.systems[unit.system][g]
                text = degrade(out, "adequacy", rng, lang) if kind == "BAD_REF" else out
                paired = any(g in cl for dd, cl in copies if chosen[dd] == unit)
                rows.append((hit, position, kind, unit.system, str(g + 1), label,
                             f"{hit}-bad-{unit.system}-{g + 1}" if paired else "",
                             text, sources.reference[g], source[g]))
    frame = pd.DataFrame(rows, columns=list(DOCUMENT_COLUMNS))
    frame.attrs.update({"lp": sources.lp, "seed": seed, "systems": sorted(sources.systems), "hit_size": hit_size})
    return frame


def tutorial_items(sources: Sources, seed: int = 0, context: str = "source") -> pd.DataFrame:
    """Three practice items for ESA annotators, from one segment of the test set (they never count).

    1. the reference itself as the translation (nothing to mark, a high score);
    2. the reference with a run of words deleted (mark the missing content);
    3. a system's output of the same segment (mark what you find).

    Columns: those of :func:`build_document_hits` (hit empty; each item a document of its own) plus
    ``note``, the guidance shown with the item.
    """
    shown = _shown(sources, context)
    lang = target_language(sources.lp)
    candidates = [g for g, ref in enumerate(sources.reference)
                  if can_degrade(ref, "adequacy", lang) and shown[g].strip()
                  and any(out[g].strip() for out in sources.systems.values())]
    if not candidates:
        raise InputError("no segment is long enough for the tutorial items")
    rng = np.random.default_rng(seed)
    g = int(candidates[int(rng.integers(0, len(candidates)))])
    system = next(s for s in sorted(sources.systems) if sources.systems[s][g].strip())
    ref = sources.reference[g]
    source = (sources.source or [""] * len(sources.reference))[g]
    rows = [
        (ref, "A careful human translation: if you find no error, mark nothing and give a high score."),
        (degrade(ref, "adequacy", rng, lang),
         "Words of the original are left out here: mark the missing content with the marker at the end of "
         "the translation (major if it matters for the meaning), then score."),
        (sources.systems[system][g], "A machine translation: mark every error you find as minor or major, then score."),
    ]
    return pd.DataFrame([("", k + 1, "SYSTEM", "tutorial", str(g + 1), f"tutorial{k + 1}", "", text, ref, source, note)
                         for k, (text, note) in enumerate(rows)], columns=[*DOCUMENT_COLUMNS, "note"])
