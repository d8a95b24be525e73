"""Build 100-item crowd DA HITs from aligned system outputs (docs/method/hits.md;
Graham et al. 2017, §3.4; Graham et al. 2014, Table 2).

Every HIT holds 70 genuine system outputs and 30 quality-control copies, in 10 blocks of 10:

* 10 ``BAD_REF`` items: degraded copies (:mod:`leaderboard.hits.degrade`) of 10 of the 70 outputs;
* 10 ``REF`` items: the reference translation of 10 other outputs' segments, judged as if it were
  a translation;
* 10 ``REPEAT`` items: exact second showings of 10 further outputs;
* 40 plain outputs.

Layout (:func:`hit_template`): blocks i and i+5 (i = 1..5) hold each other's pair members. Block
i holds one ``BAD_REF`` whose original is in block i+5 and the original of another pair whose
``BAD_REF`` is in block i+5; the same for ``REF`` pairs; the first showings of two repeat pairs
(whose ``REPEAT`` items are in block i+5); and 4 plain outputs. Every block thus has 2 members of
bad-reference pairs, 2 of repeat pairs, 2 of reference pairs and 4 plain outputs, and at least 40
items lie between the two members of any pair. Items are shuffled inside their block only.
Both showings of a repeat are the same text, so the earlier one is the ``SYSTEM`` item and the
later one the ``REPEAT`` (the table of Graham et al. 2014 puts one repeat "in reverse"; with identical texts only
the label would differ).

Smaller HITs for pilots (``hit_size``): the same design with fewer blocks. A HIT of ``hit_size``
items has ``hit_size / 10`` blocks of 10 (an even number, so that every block has a partner), 7
genuine outputs and one bad reference, one reference and one repeat pair member of each kind per
block: 20 items is the smallest HIT that holds its quality-control pairs (2 of each kind, the
fewest the worker test accepts), and 100 is the design above. :func:`layout` checks a size.

Pairing convention (what QC relies on, :func:`leaderboard.human.qc.qc_pairs`): a QC item carries the
system and segment of the genuine output it pairs with, so the two members of a pair share (hit,
system, segment). A ``REF`` item is labelled with the system of its paired output (as in the WMT
release), its text is the reference of that segment. Within a HIT each (system, segment) occurs
as one genuine output only, and segments are kept distinct across systems when there are enough
of them, so the key identifies the pair; the ``pair_id`` column names it explicitly.

Sampling: genuine slots are dealt to systems from one cyclic stream over a seeded permutation of
the systems, so every HIT holds ⌊70/S⌋ or ⌈70/S⌉ outputs of each of S systems and the totals per
system over the batch differ by at most one. Each system walks through seeded permutations of
its usable segments (non-empty output and non-empty reference), so its segments are covered
evenly. Bad-reference originals are drawn only from outputs long enough to degrade. Everything
is drawn from one ``numpy`` generator seeded with ``seed``: the same inputs and seed give the
same batch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputError
from ..ingest.texts import parse_text_name, read_lines
from .degrade import ASSESSMENTS, can_degrade, degrade, target_language

HIT_SIZE = 100
BLOCK_SIZE = 10
N_GENUINE = 70
#: genuine outputs per block (the other 3 are one quality-control copy of each kind)
GENUINE_PER_BLOCK = 7
#: hits.csv columns, in order.
HIT_COLUMNS: tuple[str, ...] = ("hit", "position", "block", "item_type", "system", "segment",
                                "pair_id", "text", "reference")


@dataclass(frozen=True)
class Template:
    """The fixed layout of a HIT before the in-block shuffle (100 entries, block-major).

    ``slot``: which of the 70 genuine outputs the entry shows or copies (slots 0-9 are the
    bad-reference originals, 10-19 the reference originals, 20-29 the repeat originals, 30-69
    plain); ``item_type``; ``block`` (0-based); ``pair`` ("bad3", "ref0", ... or "" for plain).
    """

    slot: np.ndarray
    item_type: np.ndarray
    block: np.ndarray
    pair: np.ndarray


def layout(hit_size: int = HIT_SIZE) -> tuple[int, int, int]:
    """(blocks, genuine outputs, pairs of each quality-control kind) of a HIT of ``hit_size`` items.

    Refuses a size that cannot hold the design: blocks come in partner pairs and each block holds
    one copy of each kind, so the size is a multiple of 20, and 20 is the smallest (2 pairs of
    each kind, the fewest the worker test accepts).
    """
    step = 2 * BLOCK_SIZE
    if isinstance(hit_size, bool) or not isinstance(hit_size, (int, np.integer)) or hit_size < step \
            or hit_size % step:
        why = "is too small for" if isinstance(hit_size, (int, np.integer)) and hit_size < step else "cannot hold"
        raise InputError(
            f"a HIT of {hit_size} items {why} its quality-control items: HITs are made of 10-item blocks in "
            f"partner pairs (each block: 7 outputs, 1 bad reference, 1 reference, 1 repeat), so the HIT size "
            f"must be a multiple of {step}, at least {step} (2 pairs of each kind)", column="hit size")
    n_blocks = int(hit_size) // BLOCK_SIZE
    return n_blocks, GENUINE_PER_BLOCK * n_blocks, n_blocks


def hit_template(hit_size: int = HIT_SIZE) -> Template:
    """The block layout shared by the builder and the simulator (see the module docstring)."""
    n_blocks, n_genuine, per_kind = layout(hit_size)
    rows: list[tuple[int, str, int, str]] = []
    by_block: list[list[tuple[int, str, int, str]]] = [[] for _ in range(n_blocks)]
    half = n_blocks // 2
    rep0, plain0 = 2 * per_kind, 3 * per_kind          # first slots of the repeat and plain roles
    plain_per_block = GENUINE_PER_BLOCK - 3
    for i in range(half):
        j = i + half
        a, b = 2 * i, 2 * i + 1
        # bad references: a's copy early, b's copy late
        by_block[i] += [(a, "BAD_REF", i, f"bad{a}"), (b, "SYSTEM", i, f"bad{b}")]
        by_block[j] += [(a, "SYSTEM", j, f"bad{a}"), (b, "BAD_REF", j, f"bad{b}")]
        # references: the same, the next per_kind slots
        by_block[i] += [(per_kind + a, "REF", i, f"ref{a}"), (per_kind + b, "SYSTEM", i, f"ref{b}")]
        by_block[j] += [(per_kind + a, "SYSTEM", j, f"ref{a}"), (per_kind + b, "REF", j, f"ref{b}")]
        # repeats: first showings early, second showings late
        by_block[i] += [(rep0 + a, "SYSTEM", i, f"rep{a}"), (rep0 + b, "SYSTEM", i, f"rep{b}")]
        by_block[j] += [(rep0 + a, "REPEAT", j, f"rep{a}"), (rep0 + b, "REPEAT", j, f"rep{b}")]
    for blk in range(n_blocks):
        by_block[blk] += [(plain0 + plain_per_block * blk + t, "SYSTEM", blk, "") for t in range(plain_per_block)]
        rows += by_block[blk]
    slot, item_type, block, pair = zip(*rows)
    return Template(np.array(slot), np.array(item_type), np.array(block), np.array(pair))


def block_shuffle(rng: np.random.Generator, n_hits: int, hit_size: int = HIT_SIZE) -> np.ndarray:
    """0-based positions (n_hits × hit_size) of the template entries: a random order inside each block."""
    n_blocks = hit_size // BLOCK_SIZE
    keys = rng.random((n_hits, n_blocks, BLOCK_SIZE))
    order = np.argsort(keys, axis=2)              # order[h, b, r] = entry shown at rank r
    rank = np.argsort(order, axis=2)              # rank[h, b, e] = rank of entry e
    return (rank + BLOCK_SIZE * np.arange(n_blocks)[None, :, None]).reshape(n_hits, hit_size)


def system_slots(n_systems: int, n_hits: int, rng: np.random.Generator, n_genuine: int = N_GENUINE) -> np.ndarray:
    """System index of each genuine slot (n_hits × 70 for 100-item HITs): one cyclic stream over a permutation.

    Consecutive runs of 70 of the stream ⌊70/S⌋ or ⌈70/S⌉ of each system; over the batch the
    totals per system differ by at most one.
    """
    perm = rng.permutation(n_systems)
    stream = np.arange(n_hits * n_genuine).reshape(n_hits, n_genuine)
    return perm[stream % n_systems]


# --------------------------------------------------------------------------- inputs


@dataclass
class Sources:
    """Aligned texts of one language pair: reference lines and each system's output lines.

    ``source`` (the source lines) and ``docs`` (a document id per line) are optional: source-based
    and document-level annotation need them; DA HITs against the reference do not.
    """

    lp: str
    reference: list[str]
    systems: dict[str, list[str]]
    files: dict[str, str] = field(default_factory=dict)  # system name -> file label
    source: list[str] | None = None
    docs: list[str] | None = None
    #: the lines are those of the campaign's stored test set (so segment ids index the stored texts)
    testset_lines: bool = False


def read_sources(hyp_paths: list[str], ref_path: str, lp: str | None = None) -> Sources:
    """Read system-output files named ``<testset>.<lp>.hyp.<system>.<lang>`` and one reference.

    Refuses (InputError with file and line): names that do not follow the pattern, a language
    pair other than ``lp``, two files of one system, empty or non-UTF-8 files, and files whose
    line count differs from the reference's.
    """
    if not hyp_paths:
        raise InputError("no system-output files given", code="no_outputs")
    reference = read_lines(ref_path)
    systems: dict[str, list[str]] = {}
    files: dict[str, str] = {}
    for path in hyp_paths:
        info = parse_text_name(str(path))
        if info.kind != "hypothesis":
            raise InputError(f"expected a system output (<testset>.<lp>.hyp.<system>.<lang>), got a {info.kind} file",
                             file=str(path))
        if lp is None:
            lp = info.lp
        elif info.lp != lp:
            raise InputError(f"file is for language pair {info.lp}, not {lp}", file=str(path))
        if info.name in systems:
            raise InputError(f"system {info.name} is given twice (also {files[info.name]})", file=str(path))
        lines = read_lines(path)
        if len(lines) != len(reference):
            raise InputError(
                f"has {len(lines)} lines but the reference {Path(ref_path).name} has {len(reference)}; "
                "outputs must be aligned with the reference line by line",
                file=str(path), line=min(len(lines), len(reference)) + 1)
        systems[info.name] = lines
        files[info.name] = str(path)
    return Sources(lp=str(lp), reference=reference, systems=systems, files=files)


# --------------------------------------------------------------------------- sampling


class _SegmentQueue:
    """A system's walk through repeated permutations of its usable segments (stored reversed)."""

    def __init__(self, segments: np.ndarray, rng: np.random.Generator) -> None:
        self.segments = segments
        self.rng = rng
        self.stack: list[int] = []

    def _refill(self) -> None:
        self.stack[:0] = [int(s) for s in self.rng.permutation(self.segments)[::-1]]

    def take(self, avoid_any: set[int], avoid_own: set[int], ok=None) -> int | None:
        """Next segment not in ``avoid_own`` (preferably not in ``avoid_any``) passing ``ok``."""
        for attempt in range(2):
            fallback = None
            for idx in range(len(self.stack) - 1, -1, -1):
                seg = self.stack[idx]
                if seg in avoid_own or (ok is not None and not ok(seg)):
                    continue
                if seg not in avoid_any:
                    return self.stack.pop(idx)
                if fallback is None:
                    fallback = idx
            if attempt == 0 and ok is None:
                self._refill()  # a filtered search (ok) only looks at the current cycle
        return self.stack.pop(fallback) if fallback is not None else None

    def put_back(self, seg: int) -> None:
        self.stack.append(seg)  # next in line again, so its coverage is not lost


def _plan(sources: Sources, assessment: str, n_hits: int, rng: np.random.Generator, hit_size: int = HIT_SIZE
          ) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Systems, and per HIT the (system, segment) of the genuine slots (n_hits × 70 each for 100 items).

    Slots are ordered by role (see :class:`Template`); returns also the usable-texts mask.
    """
    _, n_genuine, per_kind = layout(hit_size)
    names = sorted(sources.systems)
    lang = target_language(sources.lp)
    ref_ok = np.array([bool(r.strip()) for r in sources.reference])
    usable = np.array([[bool(t.strip()) for t in sources.systems[s]] for s in names]) & ref_ok[None, :]
    degradable = np.array([[can_degrade(t, assessment, lang) for t in sources.systems[s]] for s in names]) & usable
    sys_of_slot = system_slots(len(names), n_hits, rng, n_genuine)
    need = np.bincount(sys_of_slot[0], minlength=len(names)).max() if n_hits else 0
    for i, s in enumerate(names):
        have = int(usable[i].sum())
        if have < min(need, n_genuine):
            raise InputError(f"system {s} has {have} usable lines (non-empty output and reference) but each HIT "
                             f"needs {need} of its outputs; give more segments or more systems",
                             file=sources.files.get(s))
    if int(degradable.sum()) < per_kind:
        raise InputError(f"fewer than {per_kind} outputs are long enough to degrade for {assessment} "
                         "(bad references need at least 2 words for adequacy, 3 for fluency)")
    queues = [_SegmentQueue(np.flatnonzero(usable[i]), rng) for i in range(len(names))]
    seg_of_slot = np.empty((n_hits, n_genuine), dtype=np.int64)
    for h in range(n_hits):
        used_any: set[int] = set()
        used: list[set[int]] = [set() for _ in names]
        segs = np.empty(n_genuine, dtype=np.int64)
        for j in range(n_genuine):
            s = int(sys_of_slot[h, j])
            seg = queues[s].take(used_any, used[s])
            segs[j] = seg
            used_any.add(seg)
            used[s].add(seg)
        # at least per_kind degradable outputs: swap short ones for long ones of the same system
        is_deg = degradable[sys_of_slot[h], segs]
        for j in np.flatnonzero(~is_deg):
            if is_deg.sum() >= per_kind:
                break
            s = int(sys_of_slot[h, j])
            new = queues[s].take(used_any, used[s], ok=lambda g, s=s: bool(degradable[s, g]))
            if new is None:
                continue
            queues[s].put_back(int(segs[j]))
            used[s].discard(int(segs[j]))
            segs[j] = new
            used_any.add(new)
            used[s].add(new)
            is_deg[j] = True
        if is_deg.sum() < per_kind:
            raise InputError(f"cannot find {per_kind} outputs long enough to degrade for HIT {h + 1} "
                             "within the per-system quotas; give longer or more segments")
        # roles: per_kind degradable outputs become bad-reference originals, the rest are dealt at random
        deg_idx = np.flatnonzero(is_deg)
        bad = rng.choice(deg_idx, size=per_kind, replace=False)
        rest = rng.permutation(np.setdiff1d(np.arange(n_genuine), bad))
        order = np.concatenate([bad, rest])
        sys_of_slot[h] = sys_of_slot[h, order]
        seg_of_slot[h] = segs[order]
    return names, sys_of_slot, seg_of_slot, degradable


def default_hits(sources: Sources, hit_size: int = HIT_SIZE) -> int:
    """Enough HITs for every usable output to be shown about once: ⌈outputs / 70⌉ (100-item HITs)."""
    ref_ok = np.array([bool(r.strip()) for r in sources.reference])
    n = sum(int((np.array([bool(t.strip()) for t in lines]) & ref_ok).sum()) for lines in sources.systems.values())
    return max(1, math.ceil(n / layout(hit_size)[1]))


def build_hits(sources: Sources, assessment: str, n_hits: int | None = None, seed: int = 0,
               hit_prefix: str = "H", hit_size: int = HIT_SIZE) -> pd.DataFrame:
    """The batch as one row per item (:data:`HIT_COLUMNS`), sorted by hit and position.

    ``hit_size`` (default 100) makes smaller HITs of the same design for pilots (:func:`layout`).

    ``segment`` is the 1-based line number in the aligned files. ``reference`` is the reference
    of the item's segment for adequacy (shown in grey above the text) and empty for fluency.
    The frame's ``attrs`` carry ``lp``, ``assessment``, ``seed`` and ``systems``.
    """
    if assessment not in ASSESSMENTS:
        raise InputError(f"assessment must be one of {', '.join(ASSESSMENTS)}, got {assessment!r}")
    layout(hit_size)
    if n_hits is None:
        n_hits = default_hits(sources, hit_size)
    if n_hits < 1:
        raise InputError(f"the number of HITs must be at least 1, got {n_hits}")
    rng = np.random.default_rng(seed)
    names, sys_of_slot, seg_of_slot, _ = _plan(sources, assessment, n_hits, rng, hit_size)
    tpl = hit_template(hit_size)
    position = block_shuffle(rng, n_hits, hit_size) + 1
    lang = target_language(sources.lp)
    width = max(3, len(str(n_hits)))
    hit_ids = [f"{hit_prefix}{h + 1:0{width}d}" for h in range(n_hits)]
    sys_idx = sys_of_slot[:, tpl.slot]                       # n_hits × hit_size
    seg_idx = seg_of_slot[:, tpl.slot]
    texts: list[str] = []
    refs: list[str] = []
    pair_ids: list[str] = []
    for h in range(n_hits):
        for e in range(hit_size):
            s, g, kind = names[sys_idx[h, e]], int(seg_idx[h, e]), tpl.item_type[e]
            ref = sources.reference[g]
            if kind == "REF":
                text = ref
            elif kind == "BAD_REF":
                text = degrade(sources.systems[s][g], assessment, rng, lang)
            else:
                text = sources.systems[s][g]
            texts.append(text)
            refs.append(ref if assessment == "adequacy" else "")
            pair_ids.append(f"{hit_ids[h]}-{tpl.pair[e]}" if tpl.pair[e] else "")
    frame = pd.DataFrame({
        "hit": np.repeat(np.array(hit_ids, dtype=object), hit_size),
        "position": position.reshape(-1),
        "block": np.tile(tpl.block + 1, n_hits),
        "item_type": np.tile(tpl.item_type.astype(object), n_hits),
        "system": np.array(names, dtype=object)[sys_idx.reshape(-1)],
        "segment": (seg_idx.reshape(-1) + 1).astype(str).astype(object),
        "pair_id": np.array(pair_ids, dtype=object),
        "text": np.array(texts, dtype=object),
        "reference": np.array(refs, dtype=object),
    })
    frame = frame.sort_values(["hit", "position"], kind="stable").reset_index(drop=True)
    frame.attrs.update({"lp": sources.lp, "assessment": assessment, "seed": seed, "systems": names,
                        "hit_size": hit_size})
    return frame
