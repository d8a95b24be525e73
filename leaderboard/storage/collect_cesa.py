"""Storage of contrastive-ESA (cESA) campaigns: documents, pages, dynamic cells, drafts and final answers.

A cESA campaign is an ordinary annotation campaign (:mod:`.collect`) whose HITs have a ``kind``:

* ``task`` — a fixed HIT (pages of documents × models), ``redundancy`` slots, as DA and ESA HITs;
* ``doc`` — dynamic assignment: one document with every model's translations (a template: no slots);
  an allocation decision copies its chosen models into a ``page`` HIT held by one annotator;
* ``tutorial`` / ``check`` — a tutorial document or an attention check; each annotator who gets one holds
  a slot of their own (numbered by their id), so it is done once per annotator and never counts.

Rules in the database: each document × model *cell* of a dynamic campaign is given to at most
``redundancy`` annotators — a guarded ``UPDATE … SET given = given + 1 WHERE given < redundancy``, taken
in one order (model name) by every writer, so concurrent decisions never over-give a cell (on
PostgreSQL the second waits and re-checks; SQLite's write lock serialises them). Answers are stored as
given (``final`` false: a draft the annotator may change) and become final, with their judgments and
spans, when the page is submitted, in one transaction.
"""

from __future__ import annotations

import json
import re
import threading
from datetime import datetime, timedelta
from typing import Any

import numpy as np
import pandas as pd
from sqlalchemy import and_, bindparam, func, insert, select, update

from ..errors import InputError
from . import models as m
from .bulk import insert_frame
from .collect import (_ASSIGNMENT, _SUBMIT_DONE, _SUBMIT_HOLD, _SUBMIT_SLOT_DONE, ACTIVE, DONE, EXPIRED, OPEN,
                      _assignment_row, _code, _collection_import, _lp_for_collection, _utc, a_, c_, connect, g_, h_,
                      i_, r_, s_, write_transaction)
from .store import Store

k_ = m.collect_cells
ASSESSMENT = "cesa"
COUNTED_KINDS = ("task", "page")
_DOC_ID = re.compile(r"_###_(.+)_###_")


def doc_id(doc: list[dict], index: int) -> str:
    """A document's id: WMT26's middle part of ``<domain>_###_<doc id>_###_<n>``, else given, else ``doc<n>``."""
    first = doc[0]
    if first.get("_doc"):
        return str(first["_doc"])
    found = _DOC_ID.search(str(first.get("item_id") or ""))
    return found.group(1) if found else f"doc{index + 1}"


def _meta(seg: dict, model: str) -> str:
    rule = (seg.get("validation") or {}).get(model)
    out = {"item_id": seg.get("item_id"), "src_text": seg.get("src_text")}
    if rule is not None:
        out["validation"] = rule
    if seg.get("validation"):
        out["rules"] = seg["validation"]
    return json.dumps(out, ensure_ascii=False, sort_keys=True)


def _rows(docs: list[tuple[int, list[dict], tuple[str, ...] | None, str]], counted: bool) -> list[dict]:
    """Item rows of pages ``(doc index, segments, models or None for all, page key)`` in display order."""
    rows = []
    for d, doc, models, page in docs:
        did = doc_id(doc, d)
        for s, seg in enumerate(doc):
            for model in (models or tuple(seg["tgt"])):
                rows.append({"system": str(model), "segment": str(seg.get("item_id") or f"{did}_{s}"), "doc": did,
                             "pair_id": page, "text": str(seg["tgt"][model]), "source": str(seg.get("src") or ""),
                             "note": seg.get("instructions") if s == 0 else None, "meta": _meta(seg, model),
                             "counted": counted})
    return rows


def create_cesa(store: Store, campaign: str, lp: str, *, assignment: str, settings: dict, documents: list[list[dict]],
                tasks: list[list[tuple[int, tuple[str, ...] | None]]] | None, welcome: list[list[dict]],
                checks: list[list[dict]], redundancy: int, seed: int, timeout_seconds: int,
                created_by: str | None = None) -> dict[str, Any]:
    """Store a cESA campaign in one transaction: fixed HITs (``tasks``: per HIT, (document, models) pages) or
    one ``doc`` template per document with its cells (dynamic), plus tutorial and check documents."""
    import secrets
    with write_transaction(store.engine) as conn:
        cid, lp_id = _lp_for_collection(conn, campaign, lp, column="lp")
        import_id = _collection_import(conn, cid, f"cesa, {lp}", created_by)
        collect_id = conn.execute(insert(c_).values(
            lp_id=lp_id, import_id=import_id, protocol="cesa", assessment=ASSESSMENT, context="source",
            hit_size=int(settings.get("hit_size", 0) or 0), redundancy=redundancy, seed=seed,
            timeout_seconds=timeout_seconds, status=OPEN, crowd_key=secrets.token_urlsafe(18), code_pass=_code(),
            code_fail=_code(), created_at=m.now(), created_by=created_by, assignment=assignment,
            settings=json.dumps(settings, ensure_ascii=False, sort_keys=True)).returning(c_.c.id)).scalar_one()
        hits: list[tuple[str, str, int | None, list[dict]]] = []  # name, kind, doc index, rows
        if assignment == "fixed":
            for t, task in enumerate(tasks or []):
                pages = [(d, documents[d], models, str(p + 1)) for p, (d, models) in enumerate(task)]
                hits.append((f"H{t + 1:04d}", "task", None, _rows(pages, True)))
        else:
            for d, doc in enumerate(documents):
                hits.append((f"D{d + 1:05d}", "doc", d, _rows([(d, doc, None, "1")], True)))
        for w, doc in enumerate(welcome):
            hits.append((f"T{w + 1:03d}", "tutorial", None, _rows([(w, doc, None, "1")], False)))
        for k, doc in enumerate(checks):
            hits.append((f"C{k + 1:03d}", "check", None, _rows([(k, doc, None, "1")], False)))
        conn.execute(insert(h_), [{"collect_id": collect_id, "name": name, "kind": kind, "doc_index": d,
                                   "items": sum(r["counted"] for r in rows) if kind != "doc" else 0}
                                  for name, kind, d, rows in hits])
        hit_ids = dict(conn.execute(select(h_.c.name, h_.c.id).where(h_.c.collect_id == collect_id)).all())
        frame = pd.DataFrame([{**r, "hit": name, "seq": n + 1} for name, _, _, rows in hits
                              for n, r in enumerate(rows)])
        counted = frame[frame["counted"]]
        sys_ids = store.row_ids(conn, m.systems, "lp_id", lp_id, "name", counted["system"])
        seg_ids = store.row_ids(conn, m.segments, "lp_id", lp_id, "key", counted["segment"], extra=counted["doc"])
        position = frame.groupby("hit").cumcount() + 1
        items = pd.DataFrame({
            "hit_id": frame["hit"].map(hit_ids).astype("int64").to_numpy(),
            "seq": frame["seq"].astype("int64").to_numpy(),
            "position": pd.array(np.where(frame["counted"], position, pd.NA), dtype="Int64"),
            "item_type": np.where(frame["counted"], "SYSTEM", "CHECK"),
            "system_id": pd.array(sys_ids.reindex(frame.index).to_numpy(), dtype="Int64"),
            "segment_id": pd.array(seg_ids.reindex(frame.index).to_numpy(), dtype="Int64"),
            "system": frame["system"].to_numpy(), "segment": frame["segment"].to_numpy(),
            "doc": frame["doc"].to_numpy(), "pair_id": frame["pair_id"].to_numpy(),
            "text": frame["text"].to_numpy(), "source": frame["source"].to_numpy(), "reference": "",
            "note": frame["note"].where(frame["note"].notna(), None).to_numpy(), "meta": frame["meta"].to_numpy(),
        })
        insert_frame(conn, "collect_items", items)
        task_ids = [hit_ids[name] for name, kind, _, _ in hits if kind == "task"]
        if task_ids:
            insert_frame(conn, "collect_slots", pd.DataFrame({
                "hit_id": np.repeat(np.array(task_ids, dtype=np.int64), redundancy),
                "slot": np.tile(np.arange(1, redundancy + 1), len(task_ids)), "done": False}))
        if assignment == "dynamic":
            models = list(dict.fromkeys(str(mm) for doc in documents for mm in doc[0]["tgt"]))
            insert_frame(conn, "collect_cells", pd.DataFrame({
                "collect_id": collect_id, "doc_index": np.repeat(np.arange(len(documents)), len(models)),
                "model": np.tile(np.array(models, dtype=object), len(documents)), "given": 0, "done": 0}))
    return {"id": collect_id, "hits": len(task_ids) if assignment == "fixed" else 0, "documents": len(documents),
            "items": int(len(items)), "tutorial": len(welcome), "checks": len(checks)}


def settings(info: dict) -> dict:
    """The stored settings of a campaign row (``{}`` for DA / ESA campaigns)."""
    return json.loads(info.get("settings") or "{}")


# --------------------------------------------------------------------------- reading


def hit_kinds(store: Store, collect_id: int) -> pd.DataFrame:
    """Every HIT of the campaign: id, name, kind, doc_index."""
    with connect(store) as conn:
        rows = conn.execute(select(h_.c.id, h_.c.name, h_.c.kind, h_.c.doc_index)
                            .where(h_.c.collect_id == collect_id).order_by(h_.c.id)).all()
    return pd.DataFrame(rows, columns=["id", "name", "kind", "doc_index"])


class _Kept:
    """Rows that never change once written, kept per process by key (the oldest dropped past ``size``). Keys
    start with the store's engine, not its URL: a database made again at the same URL gets a new engine."""

    def __init__(self, size: int) -> None:
        self.size, self.rows, self.lock = size, {}, threading.Lock()

    def get(self, key: tuple) -> Any:
        return self.rows.get(key)

    def put(self, key: tuple, value: Any) -> Any:
        with self.lock:
            self.rows[key] = value
            while len(self.rows) > self.size:
                del self.rows[next(iter(self.rows))]
        return value


_PAGE_ITEMS = (select(i_.c.id, i_.c.seq, i_.c.position, i_.c.item_type, i_.c.system, i_.c.segment, i_.c.doc,
                      i_.c.pair_id.label("page"), i_.c.text, i_.c.source, i_.c.note, i_.c.meta)
               .where(i_.c.hit_id == bindparam("b_hit")).order_by(i_.c.seq))
_HIT_ITEMS = _Kept(4096)


def _page_item(row: Any) -> dict[str, Any]:
    return {**row, "meta": json.loads(row["meta"]) if isinstance(row["meta"], str) and row["meta"] else {}}


def page_items(store: Store, hit_id: int) -> tuple[dict[str, Any], ...]:
    """A HIT's items in display order: id, seq, position, item_type, system, segment, doc, page (its page key),
    text, source, note, meta (parsed). Read once per process (a HIT's items never change; a page made here is
    known from its making): read them, do not change them."""
    key = (store.engine, hit_id)
    kept = _HIT_ITEMS.get(key)
    if kept is None:
        with connect(store) as conn:
            kept = _HIT_ITEMS.put(key, tuple(_page_item(r) for r in conn.execute(_PAGE_ITEMS, {"b_hit": hit_id})
                                             .mappings()))
    return kept


_ANSWER_ROWS = (select(r_.c.item_id, r_.c.raw, r_.c.spans, r_.c.final)
                .where(r_.c.assignment_id == bindparam("assignment_id")).order_by(r_.c.id))


def answer_rows(store: Store, assignment_id: int) -> list[tuple[int, float, list, bool]]:
    """The answers of an assignment as plain rows ``(item_id, raw, spans (parsed), final)``, in answer order."""
    with connect(store) as conn:
        rows = conn.execute(_ANSWER_ROWS, {"assignment_id": assignment_id}).all()
    return [(int(r[0]), float(r[1]), json.loads(r[2]) if isinstance(r[2], str) and r[2] else [], bool(r[3]))
            for r in rows]


_MY_ASSIGNMENTS = (_ASSIGNMENT.add_columns(g_.c.extra, g_.c.checks, h_.c.doc_index)
                   .where(g_.c.annotator_id == bindparam("b_annotator")).order_by(None).order_by(g_.c.id))


def annotator_assignments(store: Store, annotator_id: int) -> list[dict[str, Any]]:
    """Every assignment of the annotator, oldest first, as :func:`.collect.assignment` reads one, with ``extra``,
    ``checks`` (parsed) and its HIT's ``doc_index``: all that the annotator's next page depends on, in one query."""
    with connect(store) as conn:
        rows = conn.execute(_MY_ASSIGNMENTS, {"b_annotator": annotator_id}).mappings().all()
    return [{**r, "checks": json.loads(r["checks"]) if isinstance(r["checks"], str) and r["checks"] else []}
            for r in rows]


_CELL_INDEX = _Kept(256)


def _cell_index(store: Store, conn, collect_id: int) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """Per cell (in id order) its document index and model column, and the model names — fixed when the campaign
    is created, so read once per process."""
    key = (store.engine, collect_id)
    kept = _CELL_INDEX.get(key)
    if kept is None:
        rows = conn.execute(select(k_.c.doc_index, k_.c.model).where(k_.c.collect_id == collect_id)
                            .order_by(k_.c.id)).all()
        docs = np.fromiter((r[0] for r in rows), np.int64, len(rows))
        models, col = np.unique(np.array([r[1] for r in rows], dtype=object).astype(str), return_inverse=True)
        kept = _CELL_INDEX.put(key, (docs, col.astype(np.int64), tuple(str(x) for x in models)))
    return kept


def allocation_inputs(store: Store, collect_id: int) -> dict[str, Any]:
    """What an allocation rule looks at, read from the campaign's cells (documents × models, whatever the number
    of answers): per cell the annotators given it, and per model the count, sum and sum of squares of its final
    segment scores. Two light queries on one connection (plain cursor rows into numpy)."""
    with connect(store) as conn:
        docs, col, models = _cell_index(store, conn, collect_id)
        cursor = conn.connection.driver_connection.cursor()
        mark = "%s" if conn.dialect.name == "postgresql" else "?"
        if conn.dialect.name == "postgresql":  # one array value: the server sorts and packs, no row per cell
            cursor.execute("SELECT array_agg(given ORDER BY id) FROM collect_cells WHERE collect_id = %s",
                           (collect_id,))
            given = np.asarray(cursor.fetchone()[0] or [], np.int64)
        else:
            cursor.execute("SELECT given FROM collect_cells WHERE collect_id = ? ORDER BY id", (collect_id,))
            given = np.fromiter((r[0] for r in cursor.fetchall()), np.int64, len(docs))
        cursor.execute(f"SELECT model, SUM(n), SUM(total), SUM(total_sq) FROM collect_cells WHERE collect_id = {mark} "
                       "GROUP BY model", (collect_id,))
        stats = {r[0]: r[1:] for r in cursor.fetchall()}
        cursor.close()
    return {"doc": docs, "col": col, "models": models, "given": given,
            "n": np.array([int(stats.get(mm, (0, 0, 0))[0] or 0) for mm in models], np.int64),
            "total": np.array([float(stats.get(mm, (0, 0, 0))[1] or 0) for mm in models]),
            "total_sq": np.array([float(stats.get(mm, (0, 0, 0))[2] or 0) for mm in models])}


_DOC_SIZES = _Kept(256)


def document_sizes(store: Store, collect_id: int) -> np.ndarray:
    """Segments per document of a dynamic campaign (by document index), read once per process (fixed when the
    campaign is created)."""
    key = (store.engine, collect_id)
    sizes = _DOC_SIZES.get(key)
    if sizes is None:
        with connect(store) as conn:
            rows = conn.execute(select(h_.c.doc_index, func.count(func.distinct(i_.c.segment)))
                                .join(i_, i_.c.hit_id == h_.c.id)
                                .where(and_(h_.c.collect_id == collect_id, h_.c.kind == "doc"))
                                .group_by(h_.c.doc_index)).all()
        sizes = np.zeros(max((int(r[0]) for r in rows), default=-1) + 1, np.int64)
        for d, n in rows:
            sizes[int(d)] = int(n)
        _DOC_SIZES.put(key, sizes)
    return sizes


_PAGES_TABLE = (select(h_.c.id, m.judgments.c.worker_id, h_.c.doc_index, h_.c.random_item, m.systems.c.name,
                       func.avg(m.judgments.c.raw), func.count(m.judgments.c.id), func.min(m.judgments.c.id))
                .select_from(m.judgments)
                .join(h_, and_(h_.c.name == m.judgments.c.hit, h_.c.collect_id == bindparam("b_collect")))
                .join(m.systems, m.systems.c.id == m.judgments.c.system_id)
                .where(and_(m.judgments.c.import_id == select(c_.c.import_id)
                            .where(c_.c.id == bindparam("b_collect")).scalar_subquery(),
                            m.judgments.c.id > bindparam("b_after"), h_.c.kind == "page"))
                .group_by(h_.c.id, m.judgments.c.worker_id, h_.c.doc_index, h_.c.random_item, m.systems.c.name))
_PAGES_DONE = (select(func.count()).select_from(g_).join(h_, h_.c.id == g_.c.hit_id)
               .where(and_(h_.c.collect_id == bindparam("b_collect"), h_.c.kind == "page", g_.c.status == DONE)))
_CHECK_LOGS = (select(a_.c.worker_id, g_.c.checks).join(g_, g_.c.annotator_id == a_.c.id)
               .join(h_, h_.c.id == g_.c.hit_id)
               .where(and_(a_.c.collect_id == bindparam("b_collect"), h_.c.kind == "check", g_.c.checks.is_not(None)))
               .order_by(g_.c.id))


def submitted_pages(store: Store, collect_id: int, after: int = 0) -> dict[str, Any]:
    """The page-level table of a dynamic campaign's submitted pages whose judgments have ids above ``after``:
    one row per page × model with ``page`` (the page HIT's id), ``worker_id``, ``doc`` (document index),
    ``random_item``, ``model``, ``score`` (mean over the page's segments), ``n`` (segments) and ``order`` (the
    page × model's smallest judgment id; pages are submitted in one transaction, so this orders them by
    submission). Also ``done``: the campaign's submitted dynamic pages now (read first, so the table holds at
    least those), and ``checks``: per worker, each attention check's first attempt (passed or not). One
    aggregate query for the table, driven by the judgments' primary key."""
    params = {"b_collect": collect_id, "b_after": after}
    with connect(store) as conn:
        done = conn.execute(_PAGES_DONE, params).scalar_one()
        rows = conn.execute(_PAGES_TABLE, params).all()
        checks = conn.execute(_CHECK_LOGS, params).all()
    cols = list(zip(*rows)) if rows else [()] * 8
    frame = pd.DataFrame({  # built from typed arrays: pandas' own conversions cost more than the query here
        "page": np.array(cols[0], np.int64), "worker_id": np.array(cols[1], np.int64),
        "doc": np.array(cols[2], np.int64), "random_item": np.array([bool(x) for x in cols[3]], bool),
        "model": np.array(cols[4], object), "score": np.array(cols[5], float), "n": np.array(cols[6], np.int64),
        "order": np.array(cols[7], np.int64)})
    first: dict[int, dict[str, bool]] = {}
    for worker, logged in checks:
        for c in json.loads(logged):
            first.setdefault(int(worker), {}).setdefault(str(c["item_id"]), bool(c["passed"]))
    return {"table": frame, "done": int(done),
            "checks": {w: list(v.values()) for w, v in first.items()}}


# --------------------------------------------------------------------------- handing out


_NEW_ASSIGNMENT = insert(g_).returning(g_.c.id)
#: the annotator's row with their campaign's status and timeout, the assignments they had and their active main
#: ones (locked on PostgreSQL)
_ANNOTATOR = (select(a_.c.id, a_.c.collect_id, a_.c.decision, c_.c.status, c_.c.timeout_seconds,
                     select(func.count()).where(g_.c.annotator_id == a_.c.id).scalar_subquery().label("had"),
                     select(func.count()).where(and_(g_.c.annotator_id == a_.c.id, g_.c.status == ACTIVE,
                                                     g_.c.extra == False))  # noqa: E712
                     .scalar_subquery().label("active_main"))
              .join(c_, c_.c.id == a_.c.collect_id).where(a_.c.id == bindparam("b_annotator")))
_ANNOTATOR_LOCKED = _ANNOTATOR.with_for_update(of=a_)


def _new_assignment(conn, hit_id: int, slot_id: int, annotator_id: int, extra: bool, now: datetime,
                    hit: tuple[str, int, str] | None = None) -> dict:
    """A new active assignment, as :func:`.collect.assignment` reads one; ``hit``: the name, counted items and kind
    of a HIT the caller has just made (the row is then not read back)."""
    new_id = conn.execute(_NEW_ASSIGNMENT, {"hit_id": hit_id, "slot_id": slot_id, "annotator_id": annotator_id,
                                            "status": ACTIVE, "started_at": now, "extra": extra}).scalar_one()
    if hit is None:
        return _assignment_row(conn, "id", b_id=new_id)
    row = dict.fromkeys(_ASSIGNMENT.selected_columns.keys())  # the read row's columns, nothing beside them
    row.update(id=new_id, hit_id=hit_id, slot_id=slot_id, annotator_id=annotator_id, status=ACTIVE, started_at=now,
               hit=hit[0], hit_items=hit[1], hit_kind=hit[2])
    return row


def _check_annotator(conn, annotator_id: int, *, new: bool) -> Any:
    """The annotator's row (locked for the transaction) with their campaign's ``status`` and
    ``timeout_seconds``; refuses an unknown or rejected annotator and, for ``new`` work, a stopped campaign."""
    ann = conn.execute(_ANNOTATOR_LOCKED if conn.dialect.name == "postgresql" else _ANNOTATOR,
                       {"b_annotator": annotator_id}).first()
    if ann is None:
        raise InputError("unknown annotator")
    if ann.decision == "rejected":
        raise InputError("the organisers have ended your participation in this campaign")
    if new and ann.status != OPEN:
        raise InputError("this annotation campaign is stopped: no new pages are handed out")
    return ann


def claim_extra(store: Store, annotator_id: int, hit_id: int, *, now: datetime | None = None) -> dict | None:
    """Hold a tutorial or check HIT for the annotator (a slot of their own); None when they had it before."""
    now = now or m.now()
    with write_transaction(store.engine) as conn:
        _check_annotator(conn, annotator_id, new=False)
        if conn.execute(select(g_.c.id).where(and_(g_.c.hit_id == hit_id, g_.c.annotator_id == annotator_id))).first():
            return None
        timeout = conn.execute(select(c_.c.timeout_seconds).join(h_, h_.c.collect_id == c_.c.id)
                               .where(h_.c.id == hit_id)).scalar_one()
        slot_id = conn.execute(insert(s_).values(hit_id=hit_id, slot=annotator_id, holder_id=annotator_id,
                                                 held_until=now + timedelta(seconds=timeout), done=False)
                               .returning(s_.c.id)).scalar_one()
        return _new_assignment(conn, hit_id, slot_id, annotator_id, True, now)


def take_over_page(store: Store, annotator_id: int, collect_id: int, *, now: datetime | None = None) -> dict | None:
    """A dynamic page whose holder let its time run out, for another annotator (its cells stay given); None if
    there is none they may take (not a document they had)."""
    now = now or m.now()
    had = (select(h_.c.doc_index).join(g_, g_.c.hit_id == h_.c.id)
           .where(and_(g_.c.annotator_id == annotator_id, h_.c.kind == "page")))
    free = (select(s_.c.id, s_.c.hit_id).join(h_, h_.c.id == s_.c.hit_id)
            .where(and_(h_.c.collect_id == collect_id, h_.c.kind == "page", s_.c.done == False,  # noqa: E712
                        s_.c.held_until < now, h_.c.doc_index.not_in(had))).order_by(s_.c.id).limit(1))
    with connect(store) as conn:  # usually there is none: look without a lock (or a write transaction) first
        if conn.execute(free).first() is None:
            return None
    with write_transaction(store.engine) as conn:
        _check_annotator(conn, annotator_id, new=True)
        if conn.dialect.name == "postgresql":
            free = free.with_for_update(skip_locked=True, of=s_)
        slot = conn.execute(free).first()
        if slot is None:
            return None
        timeout = conn.execute(select(c_.c.timeout_seconds).where(c_.c.id == collect_id)).scalar_one()
        conn.execute(update(g_).where(and_(g_.c.slot_id == slot.id, g_.c.status == ACTIVE)).values(status=EXPIRED))
        conn.execute(update(s_).where(s_.c.id == slot.id).values(holder_id=annotator_id,
                                                                   held_until=now + timedelta(seconds=timeout)))
        return _new_assignment(conn, slot.hit_id, slot.id, annotator_id, False, now)


_TAKE_CELL = (update(k_).where(and_(k_.c.collect_id == bindparam("b_collect"), k_.c.doc_index == bindparam("b_doc"),
                                    k_.c.model == bindparam("b_model"), k_.c.given < bindparam("b_cap")))
              .values(given=k_.c.given + 1))
_TEMPLATE_ITEMS = (select(i_).join(h_, h_.c.id == i_.c.hit_id)
                   .where(and_(h_.c.collect_id == bindparam("b_collect"), h_.c.kind == "doc",
                               h_.c.doc_index == bindparam("b_doc"))).order_by(i_.c.seq))
_TEMPLATES = _Kept(4096)
_NEW_ITEMS = insert(i_).returning(i_.c.id, sort_by_parameter_order=True)
_NEW_HIT = insert(h_).returning(h_.c.id)
_NEW_SLOT = insert(s_).returning(s_.c.id)


def create_page(store: Store, annotator_id: int, collect_id: int, doc_index: int, models: list[str], *,
                redundancy: int, random_item: bool = False, now: datetime | None = None) -> dict | None:
    """Give the annotator a page: document ``doc_index`` with ``models``, in one transaction. Each
    document × model cell is taken by a guarded increment (never beyond ``redundancy``); a model whose cell is
    full is left off the page, and when fewer than two remain nothing is written and None is returned (the
    caller decides again)."""
    now = now or m.now()
    with write_transaction(store.engine) as conn:
        ann = _check_annotator(conn, annotator_id, new=True)
        if ann.active_main:
            return None
        taken_models = []
        for model in sorted(models):  # one lock order for every writer
            taken = conn.execute(_TAKE_CELL, {"b_collect": collect_id, "b_doc": doc_index, "b_model": model,
                                              "b_cap": redundancy})
            if taken.rowcount == 1:
                taken_models.append(model)
        if len(taken_models) < min(2, len(models)):  # a contrast needs two: decide again (nothing written)
            conn.rollback()
            return None
        key = (store.engine, collect_id, doc_index)  # a document's template never changes
        template = _TEMPLATES.get(key) or _TEMPLATES.put(key, tuple(
            dict(r) for r in conn.execute(_TEMPLATE_ITEMS, {"b_collect": collect_id, "b_doc": doc_index}).mappings()))
        name = f"P{annotator_id}-{doc_index + 1}-{ann.had + 1}"
        rows = [{**{k: v for k, v in r.items() if k not in ("id", "hit_id")}, "seq": q + 1, "position": q + 1}
                for q, r in enumerate(r for r in template if r["system"] in taken_models)]
        hit_id = conn.execute(_NEW_HIT, {"collect_id": collect_id, "name": name, "items": len(rows), "kind": "page",
                                         "doc_index": doc_index, "random_item": bool(random_item)}).scalar_one()
        ids = conn.execute(_NEW_ITEMS, [{**r, "hit_id": hit_id} for r in rows]).scalars().all()
        slot_id = conn.execute(_NEW_SLOT, {"hit_id": hit_id, "slot": 1, "holder_id": annotator_id,
                                           "held_until": now + timedelta(seconds=ann.timeout_seconds),
                                           "done": False}).scalar_one()
        held = _new_assignment(conn, hit_id, slot_id, annotator_id, False, now, (name, len(rows), "page"))
    # the page's items as page_items reads them, kept once they are committed
    _HIT_ITEMS.put((store.engine, hit_id), tuple(_page_item({**{c: r[c] for c in (
        "seq", "position", "item_type", "system", "segment", "doc", "text", "source", "note", "meta")},
        "id": i, "page": r["pair_id"]}) for i, r in zip(ids, rows)))
    return held


# --------------------------------------------------------------------------- answers


_MINE = (select(g_.c.id, g_.c.slot_id, g_.c.status, g_.c.hit_id, g_.c.checks)
         .where(and_(g_.c.id == bindparam("b_assignment"), g_.c.annotator_id == bindparam("b_annotator"))))
_MINE_LOCKED = _MINE.with_for_update()
_LOCK_SLOT = select(s_.c.id).where(s_.c.id == bindparam("b_slot")).with_for_update()


def _mine(conn, annotator_id: int, assignment_id: int):
    """The annotator's assignment ``assignment_id``, its slot and then itself locked (PostgreSQL; SQLite's write
    lock covers both); refuses one that is not theirs or whose time ran out."""
    params = {"b_assignment": assignment_id, "b_annotator": annotator_id}
    asg = conn.execute(_MINE, params).first()
    if asg is None:
        raise InputError("this page is not assigned to you; nothing was stored")
    if conn.dialect.name == "postgresql":
        conn.execute(_LOCK_SLOT, {"b_slot": asg.slot_id})  # slot, then assignment
        asg = conn.execute(_MINE_LOCKED, params).first()
    if asg.status == EXPIRED:
        raise InputError("your time on this page ran out and it went to another annotator; nothing was stored")
    return asg


def save_drafts(store: Store, annotator_id: int, assignment_id: int, answers: list[dict]) -> int:
    """Store answers as given (``{item_id, raw, spans, started_at, ended_at}``), changeable until final.
    Answers to items of a page already submitted are refused. Returns the answers written."""
    written = 0
    with write_transaction(store.engine) as conn:
        ann = conn.execute(select(a_.c.decision).where(a_.c.id == annotator_id)).first()
        if ann is None or ann.decision == "rejected":
            raise InputError("the organisers have ended your participation in this campaign; nothing was stored")
        asg = _mine(conn, annotator_id, assignment_id)
        if asg.status != ACTIVE:
            raise InputError("this page was submitted; nothing was stored")
        have = {r.item_id: r for r in conn.execute(select(r_.c.id, r_.c.item_id, r_.c.final)
                                                   .where(r_.c.assignment_id == asg.id)).all()}
        for a in answers:
            spans = json.dumps(a["spans"], sort_keys=True, ensure_ascii=False)
            old = have.get(a["item_id"])
            if old is not None and old.final:
                raise InputError("this page was submitted: its answers are final; nothing was stored")
            if old is None:
                conn.execute(insert(r_).values(assignment_id=asg.id, item_id=a["item_id"], raw=a["raw"], spans=spans,
                                               started_at=a["started_at"], ended_at=a["ended_at"], final=False))
            else:
                conn.execute(update(r_).where(r_.c.id == old.id).values(raw=a["raw"], spans=spans,
                                                                        ended_at=a["ended_at"],
                                                                        revisions=r_.c.revisions + 1))
            written += 1
        timeout = conn.execute(select(c_.c.timeout_seconds).join(h_, h_.c.collect_id == c_.c.id)
                               .where(h_.c.id == asg.hit_id)).scalar_one()
        conn.execute(update(s_).where(and_(s_.c.id == asg.slot_id, s_.c.holder_id == annotator_id))
                     .values(held_until=m.now() + timedelta(seconds=timeout)))
    return written


#: several rows in one statement, their ids in the order of the rows given
_FINAL_ANSWERS = insert(r_).returning(r_.c.id, sort_by_parameter_order=True)
_FINAL_JUDGMENTS = insert(m.judgments).returning(m.judgments.c.id, sort_by_parameter_order=True)
#: the annotator with their campaign's import, pair, assessment and timeout (``id``: the campaign's)
_FINAL_ANNOTATOR = (select(a_.c.collect_id, a_.c.worker_id, a_.c.name, a_.c.decision, c_.c.import_id, c_.c.lp_id,
                           c_.c.assessment, c_.c.redundancy, c_.c.id, c_.c.timeout_seconds)
                    .join(c_, c_.c.id == a_.c.collect_id).where(a_.c.id == bindparam("b_annotator")))
_FINAL_ITEMS = (select(i_.c.id, i_.c.position, i_.c.item_type, i_.c.system_id, i_.c.segment_id, i_.c.system,
                       i_.c.pair_id, h_.c.name.label("hit"), h_.c.kind, h_.c.doc_index)
                .join(h_, h_.c.id == i_.c.hit_id).where(i_.c.hit_id == bindparam("b_hit")))
_FINAL_HAVE = select(r_.c.id, r_.c.item_id, r_.c.final, r_.c.started_at).where(
    r_.c.assignment_id == bindparam("b_assignment"))
_FINAL_CELL = (update(k_).where(and_(k_.c.collect_id == bindparam("b_collect"), k_.c.doc_index == bindparam("b_doc"),
                                     k_.c.model == bindparam("b_model")))
               .values(done=k_.c.done + 1, n=k_.c.n + bindparam("b_n"), total=k_.c.total + bindparam("b_total"),
                       total_sq=k_.c.total_sq + bindparam("b_total_sq")))
_FINALISE_ANSWER = (update(r_).where(r_.c.id == bindparam("b_answer"))
                    .values(raw=bindparam("b_raw"), spans=bindparam("b_spans"), ended_at=bindparam("b_ended"),
                            final=True, revisions=r_.c.revisions + bindparam("b_more"),
                            judgment_id=bindparam("b_judgment")))


def finalise_page(store: Store, annotator_id: int, assignment_id: int, page: str, answers: list[dict],
                  checks: list[dict] | None = None) -> dict[str, Any]:
    """Submit one page: its answers (every item of the page, validated by the caller) become final with their
    judgments and spans, in one transaction; ``checks`` (results of tutorial / attention rules) are logged on
    the assignment. Returns ``{"stored", "complete", "assignment_id"}``; a repeated submit stores nothing."""
    with write_transaction(store.engine) as conn:
        asg = _mine(conn, annotator_id, assignment_id)
        ann = info = conn.execute(_FINAL_ANNOTATOR, {"b_annotator": annotator_id}).one()
        if ann.decision == "rejected":
            raise InputError("the organisers have ended your participation in this campaign; nothing was stored")
        items = conn.execute(_FINAL_ITEMS, {"b_hit": asg.hit_id}).all()
        mine = [it for it in items if it.pair_id == page]
        have = {r.item_id: r for r in conn.execute(_FINAL_HAVE, {"b_assignment": asg.id}).all()}
        if mine and all(have.get(it.id) is not None and have[it.id].final for it in mine):
            return {"stored": False, "complete": asg.status == DONE, "assignment_id": asg.id}
        if asg.status != ACTIVE:
            raise InputError("this page was submitted; nothing was stored")
        given = {a["item_id"]: a for a in answers}
        if set(given) != {it.id for it in mine}:
            raise InputError("a page is submitted with an answer for every translation on it; nothing was stored")
        # the page's judgments, then its answers linked to them: a few statements for the page, not a few per item
        counted = [it for it in mine if it.position is not None and it.kind in COUNTED_KINDS]
        started = {it.id: have[it.id].started_at if it.id in have else given[it.id]["started_at"] for it in mine}
        judgment_ids = conn.execute(_FINAL_JUDGMENTS, [{
            "import_id": info.import_id, "lp_id": info.lp_id, "assessment": info.assessment,
            "worker_id": ann.worker_id, "hit": it.hit, "position": int(it.position), "segment_id": it.segment_id,
            "system_id": it.system_id, "item_type": it.item_type, "raw": float(given[it.id]["raw"]), "z": None,
            "seconds": max(0.0, (_utc(given[it.id]["ended_at"]) - _utc(started[it.id])).total_seconds())}
            for it in counted]).scalars().all() if counted else []
        judgment = dict(zip((it.id for it in counted), judgment_ids))
        spans = {it.id: json.dumps(given[it.id]["spans"], sort_keys=True, ensure_ascii=False) for it in mine}
        new = [it for it in mine if it.id not in have]
        answer_ids = dict(zip((it.id for it in new), conn.execute(_FINAL_ANSWERS, [{
            "assignment_id": asg.id, "item_id": it.id, "raw": given[it.id]["raw"], "spans": spans[it.id],
            "started_at": given[it.id]["started_at"], "ended_at": given[it.id]["ended_at"], "final": True,
            "judgment_id": judgment.get(it.id)} for it in new]).scalars().all())) if new else {}
        drafts = [it for it in mine if it.id in have]
        if drafts:
            conn.execute(_FINALISE_ANSWER, [{
                "b_answer": have[it.id].id, "b_raw": given[it.id]["raw"], "b_spans": spans[it.id],
                "b_ended": given[it.id]["ended_at"], "b_more": 1 if have[it.id].final is False else 0,
                "b_judgment": judgment.get(it.id)} for it in drafts])
            answer_ids.update((it.id, have[it.id].id) for it in drafts)
        spans_rows = [{"import_id": info.import_id, "lp_id": info.lp_id, "assessment": ASSESSMENT,
                       "system_id": it.system_id, "segment_id": it.segment_id, "rater": ann.name, "category": None,
                       "severity": sp["severity"], "span_start": sp.get("start"), "span_end": sp.get("end"),
                       "comment": sp.get("token"), "line": answer_ids[it.id]}
                      for it in counted for sp in given[it.id]["spans"]]
        if spans_rows:
            conn.execute(insert(m.expert_annotations), spans_rows)
        if checks:
            logged = json.loads(asg.checks) if asg.checks else []
            conn.execute(update(g_).where(g_.c.id == asg.id).values(checks=json.dumps(logged + checks)))
        if mine and mine[0].kind == "page":
            cells = []
            for model in sorted({it.system for it in mine}):  # one lock order for every writer
                raws = [float(given[it.id]["raw"]) for it in mine if it.system == model and it.position is not None]
                cells.append({"b_collect": info.id, "b_doc": mine[0].doc_index, "b_model": model, "b_n": len(raws),
                              "b_total": float(sum(raws)), "b_total_sq": float(sum(r * r for r in raws))})
            conn.execute(_FINAL_CELL, cells)
        # the assignment is locked (PostgreSQL) or the database is (SQLite): its answers are those read above
        page_ids = {it.id for it in mine}
        complete = len(mine) + sum(r.final and r.item_id not in page_ids for r in have.values()) >= len(items)
        if complete:
            conn.execute(_SUBMIT_DONE, {"b_assignment": asg.id, "b_when": m.now()})
            conn.execute(_SUBMIT_SLOT_DONE, {"b_slot": asg.slot_id})
        else:
            conn.execute(_SUBMIT_HOLD, {"b_slot": asg.slot_id, "b_annotator": annotator_id,
                                        "b_until": m.now() + timedelta(seconds=info.timeout_seconds)})
    return {"stored": True, "complete": complete, "assignment_id": asg.id}


def log_checks(store: Store, annotator_id: int, assignment_id: int, checks: list[dict]) -> None:
    """Append check results (a loud check's failed attempt) to an assignment's log."""
    with write_transaction(store.engine) as conn:
        asg = _mine(conn, annotator_id, assignment_id)
        logged = json.loads(asg.checks) if asg.checks else []
        conn.execute(update(g_).where(g_.c.id == asg.id).values(checks=json.dumps(logged + checks)))


def check_results(store: Store, collect_id: int) -> pd.DataFrame:
    """Every logged check result: annotator, hit, kind, item_id, passed, loud, attempt."""
    with connect(store) as conn:
        rows = conn.execute(select(a_.c.name, h_.c.name, h_.c.kind, g_.c.checks).join(g_, g_.c.annotator_id == a_.c.id)
                            .join(h_, h_.c.id == g_.c.hit_id)
                            .where(and_(a_.c.collect_id == collect_id, g_.c.checks.is_not(None)))).all()
    out = [{"annotator": r[0], "hit": r[1], "kind": r[2], **c} for r in rows for c in json.loads(r[3])]
    return pd.DataFrame(out, columns=["annotator", "hit", "kind", "item_id", "passed", "loud", "attempt"])


def cells_progress(store: Store, collect_id: int) -> dict[str, int]:
    """Dynamic campaigns: document × model cells, given and done (each up to the redundancy)."""
    with connect(store) as conn:
        n, given, done = conn.execute(select(func.count(k_.c.id), func.coalesce(func.sum(k_.c.given), 0),
                                             func.coalesce(func.sum(k_.c.done), 0))
                                      .where(k_.c.collect_id == collect_id)).one()
    return {"cells": int(n), "given": int(given), "done": int(done)}


def cells(store: Store, collect_id: int) -> pd.DataFrame:
    with connect(store) as conn:
        rows = conn.execute(select(k_.c.doc_index, k_.c.model, k_.c.given, k_.c.done)
                            .where(k_.c.collect_id == collect_id)).all()
    return pd.DataFrame(rows, columns=["doc_index", "model", "given", "done"])


def final_answers(store: Store, collect_id: int) -> pd.DataFrame:
    """Every final (submitted) answer of a collection with its page and item: worker, assignment, hit_name,
    kind, doc_index, seq, page, segment, system, target, source, instructions, answer, raw, spans, ended."""
    a_, g_, h_, i_, r_ = (m.collect_annotators, m.collect_assignments, m.collect_hits, m.collect_items,
                          m.collect_answers)
    q = (select(a_.c.name, g_.c.id, h_.c.name, h_.c.kind, h_.c.doc_index, i_.c.seq, i_.c.pair_id, i_.c.segment,
                i_.c.system, i_.c.text, i_.c.source, i_.c.note, r_.c.id, r_.c.raw, r_.c.spans, r_.c.ended_at)
         .select_from(r_).join(g_, g_.c.id == r_.c.assignment_id).join(a_, a_.c.id == g_.c.annotator_id)
         .join(i_, i_.c.id == r_.c.item_id).join(h_, h_.c.id == i_.c.hit_id)
         .where(and_(a_.c.collect_id == collect_id, r_.c.final == True)))  # noqa: E712
    with connect(store) as conn:
        rows = conn.execute(q).all()
    return pd.DataFrame(rows, columns=["worker", "assignment", "hit_name", "kind", "doc_index", "seq", "page",
                                       "segment", "system", "target", "source", "instructions", "answer", "raw",
                                       "spans", "ended"])
