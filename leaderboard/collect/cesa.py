"""The annotator's side of a contrastive-ESA (cESA) campaign: pages, drafts, submits, checks, codes.

A *page* is one document (its segments in order) with ``k`` translations of each segment side by side,
shown in an order shuffled per annotator and segment, model names hidden. :func:`next_page` gives the
annotator's page now:

1. a tutorial or attention check they hold; else the tutorial documents they have not done (first);
2. the page they are in the middle of (a reload or another browser resumes there, drafts included);
3. before a new page, with the campaign's probability, an attention check they have not had (never one
   built from the document that comes next);
4. a new page: fixed HITs continue the HIT they hold or take a free one; dynamic assignment takes over a
   page whose holder's time ran out, or asks the allocation rule for a document and ``k`` models (the
   least-annotated first, caps applied) and takes its cells in one transaction;
5. when nothing is left for them (or their cap is reached): the completion code, chosen by the stated
   threshold on their attention checks.

:func:`save_drafts` stores answers as they are given (changeable until the page is submitted);
:func:`submit_page` needs a score for every translation (the error names the missing one), checks the
page's rules (a loud check that fails is refused with its warning and the annotator redoes it; a silent
one is only logged) and stores the page's final answers with their judgments in one transaction.
"""

from __future__ import annotations

import math
import threading
import zlib
from functools import lru_cache
from dataclasses import dataclass, field, fields, replace
from datetime import datetime, timezone
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError
from ..human.adaptive_tests import CampaignPairs, advance_campaign_pairs
from ..storage import Store
from ..storage import collect as db
from ..storage import collect_cesa as cdb
from .allocation_api import DEFAULT_RULE, AllocationRule, AllocationState, get_rule
from .checks import evaluate, verdict
from .service import Annotator, client_time
from .spans import to_offsets, to_tokens, tokens

LETTERS = "ABCD"
#: judgments re-read below the last one seen, for pages committed out of id order (PostgreSQL; SQLite
#: commits one writer at a time, so the ids it shows are always every id up to the largest and it needs none)
PAIRS_MARGIN = 500
#: a low score: a translation scored below this with no error marked gets a reminder
LOW_SCORE = 66
DECISION_ATTEMPTS = 6


@dataclass
class Page:
    """What the annotator sees: ``state`` ``"page"`` (``segments``), ``"complete"`` (``code``) or ``"none"``."""

    state: str
    kind: str | None = None
    assignment_id: int | None = None
    hit: str | None = None
    page: str | None = None
    doc: str | None = None
    segments: list[dict] = field(default_factory=list)
    number: int = 0
    total: int | None = None
    warnings: list[dict] = field(default_factory=list)
    code: str | None = None
    passed: bool | None = None
    message: str = ""
    stored: bool | None = None

    @property
    def item_ids(self) -> list[int]:
        return [t["item"] for s in self.segments for t in s["translations"]]


def settings(annotator: Annotator) -> dict:
    """The annotator's campaign settings (parsed once per process; read them, do not change them)."""
    return _parsed_settings(annotator.collect.get("settings") or "")


@lru_cache(maxsize=256)
def _parsed_settings(text: str) -> dict:
    return cdb.settings({"settings": text})


def pages_done(store: Store, annotator: Annotator) -> int:
    """Documents the annotator has submitted (dynamic pages)."""
    return _pages(cdb.annotator_assignments(store, annotator.id))["done"]


def _pages(hist: list[dict]) -> dict[str, Any]:
    """How many main pages (dynamic) the annotator was given and submitted, and the documents they had."""
    pages = [r for r in hist if r["hit_kind"] == "page"]
    return {"pages": len(pages), "done": sum(r["status"] == db.DONE for r in pages),
            "docs": {int(r["doc_index"]) for r in pages}}


def _newest(hist: list[dict], extra: bool, status: str | None = db.ACTIVE) -> dict | None:
    """The annotator's newest assignment (main when ``extra`` is false, else a tutorial or check) of ``status``
    (None: any)."""
    return next((r for r in reversed(hist) if bool(r["extra"]) == extra and status in (None, r["status"])), None)


def settings_of(info: dict) -> dict:
    """A campaign's cESA settings (models per item, caps, checks, special tokens, instructions, assets)."""
    return cdb.settings(info)


def unit_lang(annotator: Annotator) -> str:
    """The language the spans are cut by: the target's, or characters everywhere when word snapping is off."""
    return annotator.languages[1] if settings(annotator).get("word_level", True) else "zh"


def _order(annotator: Annotator, segment: str, n: int) -> list[int]:
    """The display order of a segment's translations: shuffled per annotator and segment, the same on every
    reload."""
    rng = np.random.default_rng([int(annotator.id), zlib.crc32(str(segment).encode("utf-8"))])
    return [int(i) for i in rng.permutation(n)]


@dataclass(frozen=True)
class _Layout:
    """A HIT's pages as plain rows, made once per HIT (its items never change): per page key its item ids, its
    document, and its segments ``(segment, source, note, rules, ((item id, text, model), …))`` in order."""

    pages: tuple[str, ...]
    ids: dict[str, frozenset[int]]
    docs: dict[str, str]
    segments: dict[str, tuple[tuple[str, Any, str | None, bool, tuple[tuple[int, str, str], ...]], ...]]


@lru_cache(maxsize=2048)
def _layout(store: Store, hit_id: int) -> _Layout:
    pages: dict[str, dict[str, list]] = {}
    docs: dict[str, str] = {}
    for item in cdb.page_items(store, hit_id):
        docs.setdefault(item["page"], str(item["doc"]))
        pages.setdefault(item["page"], {}).setdefault(item["segment"], []).append(item)
    segments = {}
    for page, by_segment in pages.items():
        out = []
        for segment, rows in by_segment.items():
            first = rows[0]
            note = first["note"] if isinstance(first["note"], str) and first["note"] else None
            out.append((str(segment), first["source"], note, bool(first["meta"].get("rules")),
                        tuple((int(r["id"]), r["text"], r["system"]) for r in rows)))
        segments[page] = tuple(out)
    return _Layout(tuple(pages), {p: frozenset(t[0] for seg in segs for t in seg[4]) for p, segs in segments.items()},
                   docs, segments)


def _page_view(store: Store, annotator: Annotator, assignment: dict, kind: str, new: bool = False) -> Page | None:
    """The first page of an assignment with an answer still open (None: all final); ``new``: an assignment just
    made (it has no answer yet)."""
    layout = _layout(store, int(assignment["hit_id"]))
    given = {} if new else {r[0]: r for r in cdb.answer_rows(store, int(assignment["id"]))}
    final = {item for item, r in given.items() if r[3]}
    page = next((p for p in layout.pages if not layout.ids[p] <= final), None)
    if page is None:
        return None
    lang = unit_lang(annotator)
    segments = []
    for segment, source, note, rules, rows in layout.segments[page]:
        translations = []
        for slot, i in enumerate(_order(annotator, segment, len(rows))):
            item, text, model = rows[i]
            old = given.get(item)
            translations.append({
                "item": item, "label": LETTERS[slot], "text": text,
                "tokens": tokens(text, lang),
                "given": None if old is None else {"score": float(old[1]), "spans": to_tokens(old[2], text, lang)},
                "_model": model})
        segments.append({"segment": segment, "source": source, "note": note, "rules": rules,
                         "translations": translations})
    number = layout.pages.index(page) + 1
    return Page("page", kind, int(assignment["id"]), assignment["hit"], page, layout.docs[page], segments,
                number=number, total=len(layout.pages) if kind == "task" else None)


def _check_results(hist: list[dict]) -> list[bool]:
    """Each attention check's first attempt in the annotator's assignments: passed or not."""
    first: dict[str, bool] = {}
    for row in hist:
        for c in row["checks"] if row["hit_kind"] == "check" else ():
            first.setdefault(c["item_id"], bool(c["passed"]))
    return list(first.values())


def _verdict(store: Store, annotator: Annotator) -> tuple[bool, str, list[bool]]:
    """Pass / fail on the attention checks (each check's first attempt), with a reason."""
    results = _check_results(cdb.annotator_assignments(store, annotator.id))
    threshold = settings(annotator).get("threshold", 0)
    ok = verdict(results, threshold)
    failed = sum(not r for r in results)
    reason = (f"{failed} of {len(results)} attention checks failed (threshold {threshold})" if results
              else "no attention check yet")
    return ok, reason, results


def _complete(store: Store, annotator: Annotator, assignment_id: int | None = None) -> Page:
    ok, reason, results = _verdict(store, annotator)
    db.record_qc(store, annotator.id, passed=ok, p_value=None, reason=reason, assignment_id=assignment_id)
    code = annotator.collect["code_pass"] if ok else annotator.collect["code_fail"]
    return Page("complete", code=code, passed=ok, message=reason)


@lru_cache(maxsize=256)
def _extra_hits(store: Store, collect_id: int) -> tuple[tuple[int, str], ...]:
    """The campaign's tutorial and check HITs ``(id, kind)`` in order (made with the campaign, never changed)."""
    hits = cdb.hit_kinds(store, collect_id)
    return tuple((int(i), str(k)) for i, k in zip(hits["id"], hits["kind"]) if k in ("tutorial", "check"))


def _extra(store: Store, annotator: Annotator, kind: str, hist: list[dict], exclude_doc: str | None = None):
    """Hold the next tutorial (in order) or a random attention check the annotator has not had."""
    hits = _extra_hits(store, int(annotator.collect["id"]))
    mine = {r["hit_id"] for r in hist}
    todo = [i for i, k in hits if k == kind and i not in mine]
    if not todo:
        return None
    if kind == "check":
        rng = np.random.default_rng([int(annotator.collect["seed"]), int(annotator.id), len(hist), 7])
        for hit_id in [todo[i] for i in rng.permutation(len(todo))]:
            origin = [r["segment"] for r in cdb.page_items(store, hit_id)]
            if exclude_doc is not None and any(str(exclude_doc) in str(s) for s in origin):
                continue
            held = cdb.claim_extra(store, annotator.id, hit_id)
            if held is not None:
                return held
        return None
    return cdb.claim_extra(store, annotator.id, todo[0])


def _roll_check(annotator: Annotator, hist: list[dict]) -> bool:
    p = float(settings(annotator).get("check_prob", 0) or 0)
    rng = np.random.default_rng([int(annotator.collect["seed"]), int(annotator.id), len(hist), 3])
    return p > 0 and rng.random() < p


_PAIRS: dict[tuple[str, int], dict] = {}
_PAIRS_LOCK = threading.Lock()


_PAGE_COLUMNS = ("page", "order", "doc", "model", "score", "random_item", "worker_id")


def _page_columns(table: pd.DataFrame) -> dict[str, np.ndarray]:
    """The submitted-pages table as plain arrays (a decision filters them: numpy is cheaper than pandas here)."""
    return {c: table[c].to_numpy() for c in _PAGE_COLUMNS}


def _pairs_from(t: dict[str, np.ndarray], models: tuple[str, ...], excluded: frozenset, start: CampaignPairs
                ) -> CampaignPairs:
    col = {name: i for i, name in enumerate(models)}
    model = np.fromiter((col.get(x, -1) for x in t["model"]), np.int64, len(t["model"]))
    keep = model >= 0
    return advance_campaign_pairs(start, t["page"][keep], t["order"][keep], t["doc"][keep], model[keep],
                                  t["score"][keep].astype(float), t["random_item"][keep].astype(bool),
                                  ~np.isin(t["worker_id"][keep], np.array(sorted(excluded), np.int64)))


def campaign_pairs(store: Store, info: dict, models: tuple[str, ...]) -> CampaignPairs:
    """The campaign's pair statistics and anytime evidence (:class:`CampaignPairs`) from its submitted pages,
    as the simulator keeps them for the rule: pair statistics over every page; the test over the pages of
    annotators whose attention checks (first attempts) meet the campaign's threshold so far. Kept per process
    and campaign: a decision reads only the pages submitted since the last one (the judgments above the last id
    seen, less a margin on PostgreSQL) and adds them; it starts again from every page when a page arrives out of order, a
    submitted page is missing from the table, or an annotator's pages start or stop counting."""
    key = (str(store.engine.url), int(info["id"]))
    threshold = settings_of(info).get("threshold", 0)
    with _PAIRS_LOCK:
        cached = _PAIRS.get(key)
        if cached is not None and cached["models"] != models:
            cached = None
        margin = 0 if store.engine.dialect.name == "sqlite" else PAIRS_MARGIN
        got = cdb.submitted_pages(store, int(info["id"]), 0 if cached is None else max(cached["last"] - margin, 0))
        excluded = frozenset(w for w, results in got["checks"].items() if not verdict(results, threshold))
        t = _page_columns(got["table"])
        if cached is not None:
            new = ~np.isin(t["page"], np.fromiter(cached["seen"], np.int64, len(cached["seen"])))
            t = {c: v[new] for c, v in t.items()}
            in_order = not len(t["page"]) or t["order"].min() > cached["last"]
            if not in_order or excluded != cached["excluded"] or \
                    len(cached["seen"]) + len(np.unique(t["page"])) < got["done"] - cached["missing"]:
                cached = None
                got = cdb.submitted_pages(store, int(info["id"]), 0)
                t = _page_columns(got["table"])
        start = CampaignPairs.empty(len(models)) if cached is None else cached["pairs"]
        fresh = len(t["page"]) > 0
        # no page since the last decision: the evidence and the pages seen stand as they are
        pairs = _pairs_from(t, models, excluded, start) if fresh or cached is None else start
        seen = (set() if cached is None else cached["seen"]) | set(t["page"].tolist()) if fresh or cached is None \
            else cached["seen"]
        last = int(t["order"].max()) if fresh else (0 if cached is None else cached["last"])
        missing = max(got["done"] - len(seen), 0) if cached is None else cached["missing"]
        _PAIRS[key] = {"models": models, "pairs": pairs, "seen": seen, "last": last, "excluded": excluded,
                       "missing": missing}
        return pairs


def _rule(annotator: Annotator) -> AllocationRule:
    """The campaign's allocation rule as the service runs it: a rule with ``random_ties`` breaks ties among
    equally short fresh documents at random unless the campaign's parameters say otherwise, so annotators who
    ask at the same moment spread over them instead of colliding on the first."""
    s = settings(annotator)
    params = dict(s.get("rule_params") or {})
    rule = get_rule(s.get("rule") or DEFAULT_RULE, **params)
    if "random_ties" in {f.name for f in fields(rule)} and "random_ties" not in params:
        rule = replace(rule, random_ties=True)
    return rule


def allocation_state(store: Store, annotator: Annotator, had: set[int], pairs: bool | None = None,
                     flagged: bool | None = None, known: AllocationState | None = None) -> AllocationState:
    """The rule's view: per document × model the annotators given it (``-1``: no such translation; the slot
    takes the campaign's redundancy),
    per model the count, sum and sum of squares of its final scores; documents this annotator may get; whether
    the annotator has failed an attention check so far (first attempts; their pages will probably not count,
    and a rule may keep its scarcest pages from them); per pair of models the submitted pages showing both and
    the sum and sum of squares of their page-level mean differences, the pairs the anytime paired test has
    separated (:func:`campaign_pairs`), and the segments per document. The last three only when ``pairs``
    (default: when the campaign's rule uses them), so the other rules decide without reading every page.
    ``flagged``: the annotator's check verdict when the caller has it (read from the store when None).
    ``known``: a state read moments ago in the same decision; its pair statistics are kept (only the cells, which
    concurrent decisions take, are read again)."""
    info = annotator.collect
    cells = cdb.allocation_inputs(store, info["id"])
    models = cells["models"]
    n_docs = int(cells["doc"].max()) + 1 if len(cells["doc"]) else 0
    counts = np.full((n_docs, len(models)), -1, dtype=np.int64)
    counts[cells["doc"], cells["col"]] = cells["given"]
    n, sums, sumsq = cells["n"], cells["total"], cells["total_sq"]
    pool = settings(annotator).get("coldstart_pool")
    cold = np.zeros(n_docs, dtype=bool)
    cold[: pool or n_docs] = True
    eligible = np.ones(n_docs, dtype=bool)
    eligible[list(had)] = False
    if flagged is None:
        flagged = annotator_flagged(store, annotator)
    base = AllocationState(models, counts, n, sums, sumsq, cold, eligible, slot_cap=int(info["redundancy"]),
                           annotator_flagged=np.array(flagged))
    if not (_rule(annotator).uses_pairs if pairs is None else pairs):
        return base
    if known is not None and known.pair_counts is not None and known.models == models:
        return replace(base, pair_counts=known.pair_counts, pair_sums=known.pair_sums, pair_sumsq=known.pair_sumsq,
                       pair_decided=known.pair_decided, item_sizes=known.item_sizes)
    got = campaign_pairs(store, info, models)
    sizes = np.zeros(n_docs, np.int64)
    known = cdb.document_sizes(store, int(info["id"]))[:n_docs]
    sizes[: len(known)] = known
    return replace(base, pair_counts=got.pair_n, pair_sums=got.pair_sum, pair_sumsq=got.pair_sumsq,
                   pair_decided=got.decided(), item_sizes=sizes)


def annotator_flagged(store: Store, annotator: Annotator) -> bool:
    """Whether the annotator has failed an attention check so far (first attempts)."""
    return not all(_check_results(cdb.annotator_assignments(store, annotator.id)))


def _decide(store: Store, annotator: Annotator, mine: dict[str, Any] | None = None,
            flagged: bool | None = None) -> dict | None:
    """A new dynamic page for the annotator (None: nothing left for them). ``mine`` (their pages) and
    ``flagged`` (their check verdict): as the caller read them, else read here."""
    s = settings(annotator)
    mine = _pages(cdb.annotator_assignments(store, annotator.id)) if mine is None else mine
    rule = _rule(annotator)
    k = int(s.get("models_per_item", 3))
    # the annotator's own history does not change while they wait for a page: read it once, not per attempt
    flagged = annotator_flagged(store, annotator) if flagged is None else flagged
    state = None
    for attempt in range(DECISION_ATTEMPTS):
        # a retry reads the cells again (others took some); the pages' pair statistics of this decision stand
        state = allocation_state(store, annotator, mine["docs"], pairs=rule.uses_pairs, flagged=flagged, known=state)
        rng = np.random.default_rng([int(annotator.collect["seed"]), int(annotator.id), mine["pages"], attempt])
        choice = rule.choose(state, k, rng)
        if choice is None:
            return None
        doc, picked = choice[0], choice[1]
        random_item = bool(choice[2]) if len(choice) > 2 else False
        held = cdb.create_page(store, annotator.id, annotator.collect["id"], int(doc),
                               [state.models[i] for i in picked], redundancy=int(annotator.collect["redundancy"]),
                               random_item=random_item)
        if held is not None:
            return held
    return None


def _check_first(store: Store, annotator: Annotator, page: Page, hist: list[dict] | None = None) -> Page:
    """Before a page nothing has been answered on yet, with the campaign's probability, an attention check the
    annotator has not had (never one built from this page's document). ``hist``: the annotator's history now
    (read here when None, and only when the campaign shows checks)."""
    started = any(t["given"] for seg in page.segments for t in seg["translations"])
    if started or not float(settings(annotator).get("check_prob", 0) or 0) > 0:
        return page
    hist = cdb.annotator_assignments(store, annotator.id) if hist is None else hist
    if _roll_check(annotator, hist):
        check = _extra(store, annotator, "check", hist, exclude_doc=page.doc)
        if check is not None:
            return _page_view(store, annotator, check, "check", new=True)
    return page


def next_page(store: Store, annotator: Annotator, *, new_hit: bool = False) -> Page:
    """The annotator's page now (see the module's description), read and handed out on one connection."""
    with db.one_connection(store):
        return _next_page(store, annotator, new_hit)


def _next_page(store: Store, annotator: Annotator, new_hit: bool = False) -> Page:
    hist = cdb.annotator_assignments(store, annotator.id)
    extra = _newest(hist, True)
    if extra is not None:
        page = _page_view(store, annotator, extra, str(extra["hit_kind"]))
        if page is not None:
            return page
    welcome = _extra(store, annotator, "tutorial", hist)
    if welcome is not None:
        return _page_view(store, annotator, welcome, "tutorial", new=True)
    main = _newest(hist, False)
    s = settings(annotator)
    dynamic = annotator.collect.get("assignment") == "dynamic"
    if main is not None:
        page = _page_view(store, annotator, main, "page" if dynamic else "task")
        if page is not None:
            return _check_first(store, annotator, page, hist)
    if not dynamic:
        latest = main or _newest(hist, False, None)
        if latest is not None and latest["status"] == db.DONE and not new_hit:
            return _complete(store, annotator, latest["id"])
        held = db.claim(store, annotator.id, platform_assignment=annotator.platform_assignment)
        if held is None:
            return _complete(store, annotator) if latest is not None else \
                Page("none", message="There is no HIT left for you in this campaign: every HIT is done or being done "
                                     "by others. Thank you!")
        page = _page_view(store, annotator, held, "task")
        return _check_first(store, annotator, page) if page else _next_page(store, annotator)
    mine = _pages(hist)
    cap = s.get("docs_per_user")
    if cap is not None and mine["pages"] >= cap:
        return _complete(store, annotator)
    if annotator.collect["status"] != db.OPEN:
        raise InputError("this annotation campaign is stopped: no new pages are handed out")
    held = cdb.take_over_page(store, annotator.id, annotator.collect["id"]) or \
        _decide(store, annotator, mine, not all(_check_results(hist)))
    if held is None:
        return _complete(store, annotator) if mine["done"] else \
            Page("none", message="There is nothing left to annotate in this campaign. Thank you!")
    page = _page_view(store, annotator, held, "page", new=True)
    return _check_first(store, annotator, page) if page else _next_page(store, annotator)


# --------------------------------------------------------------------------- answers


def _score(value: Any, label: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(float(value)) \
            or not 0 <= float(value) <= 100:
        raise InputError(f"translation {label}: the score must be a number from 0 to 100, got {value!r}; nothing was "
                         "stored", column="score")
    return float(value)


def _validated(annotator: Annotator, page: Page, answers: Any, *, complete: bool) -> list[dict]:
    """Answers checked against the page: known items, scores 0–100 (every translation when ``complete``; the
    error names the first missing one), spans inside each text or on a special token."""
    if not isinstance(answers, list):
        raise InputError("answers must be a list; nothing was stored", column="answers")
    by_item = {t["item"]: (s, t) for s in page.segments for t in s["translations"]}
    special = list(settings(annotator).get("special_tokens") or [])
    lang = unit_lang(annotator)
    now = datetime.now(timezone.utc)
    out, seen = [], set()
    for a in answers:
        if not isinstance(a, dict) or a.get("item") not in by_item:
            raise InputError("an answer is for a translation that is not on your page; nothing was stored",
                             column="item")
        seg, t = by_item[a["item"]]
        if a.get("score") is None:
            continue
        label = f"{t['label']} of segment {page.segments.index(seg) + 1}"
        ended = client_time(a.get("ended"), now)
        out.append({"item_id": int(a["item"]), "raw": _score(a.get("score"), label),
                    "spans": to_offsets(a.get("spans") or [], t["text"], lang, special),
                    "started_at": min(client_time(a.get("started"), ended), ended), "ended_at": ended})
        seen.add(a["item"])
    if complete:
        for n, seg in enumerate(page.segments, 1):
            for t in seg["translations"]:
                if t["item"] not in seen:
                    raise InputError(f"translation {t['label']} of segment {n} has no score yet: score every "
                                     "translation before you submit the page; nothing was stored", column="score")
    return out


def _current(store: Store, annotator: Annotator, assignment_id: Any) -> Page:
    """The open page of one of the annotator's active assignments (refused when it is not theirs or not active)."""
    held = db.assignment(store, assignment_id) if isinstance(assignment_id, int) and \
        not isinstance(assignment_id, bool) else None
    page = None
    if held is not None and held["annotator_id"] == annotator.id and held["status"] == db.ACTIVE:
        page = _page_view(store, annotator, held, str(held["hit_kind"]))
    if page is None:
        raise InputError("this page is no longer yours to answer (it was submitted, or it went to another annotator "
                         "after a long pause); nothing was stored", column="page")
    return page


def save_drafts(store: Store, annotator: Annotator, assignment_id: Any, answers: Any) -> int:
    """Store the scores given so far on the current page (each changeable until the page is submitted)."""
    with db.one_connection(store):
        page = _current(store, annotator, assignment_id)
        valid = _validated(annotator, page, answers, complete=False)
        return cdb.save_drafts(store, annotator.id, page.assignment_id, valid) if valid else 0


def submit_page(store: Store, annotator: Annotator, assignment_id: Any, answers: Any) -> Page:
    """Submit the current page (every translation scored); returns the next page, or the same page with the
    warnings of loud checks that failed (its answers kept as drafts)."""
    with db.one_connection(store):
        page = _current(store, annotator, assignment_id)
        valid = _validated(annotator, page, answers, complete=True)
        special = list(settings(annotator).get("special_tokens") or [])
        by_item = {a["item_id"]: a for a in valid}
        logged, warnings = [], []
        if page.kind in ("tutorial", "check"):
            held = next(r for r in cdb.annotator_assignments(store, annotator.id) if r["id"] == page.assignment_id)
            items = {r["id"]: r for r in cdb.page_items(store, int(held["hit_id"]))}
            previous = held["checks"]
            for n, seg in enumerate(page.segments, 1):
                rules = items[seg["translations"][0]["item"]]["meta"].get("rules")
                if not rules:
                    continue
                answers_by_model = {t["_model"]: {"score": by_item[t["item"]]["raw"],
                                                  "spans": by_item[t["item"]]["spans"]} for t in seg["translations"]}
                texts = {t["_model"]: t["text"] for t in seg["translations"]}
                result = evaluate(rules, answers_by_model, texts, special)
                attempt = 1 + sum(1 for c in previous if c["item_id"] == seg["segment"])
                logged.append({"item_id": seg["segment"], "passed": result["passed"], "loud": result["loud"],
                               "attempt": attempt})
                label = {t["_model"]: t["label"] for t in seg["translations"]}
                warnings += [{"segment": n, "label": label[model], "text": _shown_names(text, label)}
                             for model, text in result["warnings"]]
        if warnings:
            cdb.save_drafts(store, annotator.id, page.assignment_id, valid)
            cdb.log_checks(store, annotator.id, page.assignment_id, logged)
            page.warnings = warnings
            page.segments = _page_view(store, annotator, held, page.kind).segments
            page.stored = False
            return page
        result = cdb.finalise_page(store, annotator.id, page.assignment_id, page.page, valid, logged)
        after = next_page(store, annotator)
        after.stored = result["stored"]
        return after


def _shown_names(text: str, labels: dict[str, str]) -> str:
    """A warning with the hidden model names replaced by the letters the annotator sees."""
    for model in sorted(labels, key=len, reverse=True):
        text = text.replace(f"the {model}", f"translation {labels[model]}").replace(model, f"translation "
                                                                                            f"{labels[model]}")
    return text


def public(page: Page) -> dict[str, Any]:
    """The page without what the annotator must not see (model names)."""
    segments = [{**s, "translations": [{k: v for k, v in t.items() if not k.startswith("_")}
                                       for t in s["translations"]]} for s in page.segments]
    return {**page.__dict__, "segments": segments}
