"""Storage of the annotation campaigns run in the service (:mod:`leaderboard.collect`).

An annotation campaign belongs to one language pair of a campaign. Its answers become ordinary
``judgments`` rows of one import (input format ``collect``) in the same transaction that stores
them, so QC, ranking and publishing read collected judgments exactly like imported ones; ESA error
spans of genuine outputs also go to ``expert_annotations`` (as an Appraise upload's do), with the
answer's id as their record number.

Concurrency rules live in the database, not in Python checks:

* a HIT has ``redundancy`` slots (``collect_slots``); a slot is handed out by a guarded update
  (``holder`` empty or its hold expired, not done), after the free slot was picked with
  ``FOR UPDATE SKIP LOCKED`` on PostgreSQL, so concurrent annotators never get the same slot;
* no annotator gets the same HIT twice (unique hit + annotator), nor two HITs at once (a partial
  unique index: one ``active`` assignment per annotator);
* an answer is unique per (assignment, item): a double submit stores one answer and one judgment
  (``INSERT … ON CONFLICT DO NOTHING``; the judgment's own unique key backs it up);
* every write is one transaction; on SQLite it starts with ``BEGIN IMMEDIATE`` (the write lock is
  taken before the first read, so a read-then-write never works on a stale snapshot); on PostgreSQL
  the slot and then the assignment row are locked ``FOR UPDATE`` while an answer is stored (every
  writer takes them in that order, so two never deadlock; a claim skips a locked slot).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import secrets
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime, timedelta, timezone
from typing import Any, Iterator

import numpy as np
import pandas as pd
from sqlalchemy import Connection, Engine, and_, bindparam, case, delete, func, insert, or_, select, update

from ..errors import InputError
from . import models as m
from .bulk import insert_frame
from .loader import campaign_id_for_write, insert_ignore, lp_id_for_write, take_write_lock
from .store import Store

ITEM_COLUMNS = ("hit", "seq", "position", "item_type", "system", "segment", "doc", "pair_id", "text", "source",
                "reference", "note")
ACTIVE, DONE, EXPIRED = "active", "done", "expired"
OPEN, STOPPED = "open", "stopped"
DECISIONS = ("approved", "rejected")
#: the input format of the import that holds collected judgments
INPUT_FORMAT = "collect"

c_ = m.collect_campaigns
h_ = m.collect_hits
i_ = m.collect_items
a_ = m.collect_annotators
s_ = m.collect_slots
g_ = m.collect_assignments
r_ = m.collect_answers


def _utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value


class _Shared:
    """The connection a request runs on (:func:`one_connection`) and whether a write transaction is open on it."""

    def __init__(self, engine: Engine, conn: Connection) -> None:
        self.engine, self.conn, self.writing = engine, conn, False


_SHARED: ContextVar[_Shared | None] = ContextVar("mtlb_collect_connection", default=None)


def _shared(engine: Engine) -> _Shared | None:
    shared = _SHARED.get()
    return shared if shared is not None and shared.engine is engine else None


@contextmanager
def one_connection(store: Store) -> Iterator[None]:
    """Serve one request on one pooled connection: the collection storage functions called inside (in this thread)
    read and write on it instead of checking out a connection each (every checkout pays a liveness ping and a
    rollback on return; the one checkout still does, so a dropped server connection is replaced). On PostgreSQL
    the reads before a write run in its transaction (read committed: each statement sees the latest commits); on
    SQLite a write still starts its own (``BEGIN IMMEDIATE``). Nested calls join the outer one."""
    if _shared(store.engine) is not None:
        yield
        return
    with store.engine.connect() as conn:
        token = _SHARED.set(_Shared(store.engine, conn))
        try:
            yield
        finally:
            _SHARED.reset(token)


@contextmanager
def connect(store: Store) -> Iterator[Connection]:
    """A connection to read on: the request's (:func:`one_connection`), else one of its own."""
    shared = _shared(store.engine)
    if shared is None:
        with store.engine.connect() as conn:
            yield conn
        return
    try:
        yield shared.conn
    except BaseException:
        if not shared.writing:  # a failed read must not leave the request's transaction aborted
            shared.conn.rollback()
        raise


@contextmanager
def write_transaction(engine: Engine) -> Iterator[Connection]:
    """One transaction that holds the database's write lock from its start on SQLite (``BEGIN IMMEDIATE``); on
    the request's connection when there is one (:func:`one_connection`; a nested one joins the open one)."""
    shared = _shared(engine)
    if shared is not None and shared.writing:
        yield shared.conn
        return
    with contextlib.nullcontext(shared.conn) if shared is not None else engine.connect() as conn:
        if conn.in_transaction() and conn.dialect.name == "sqlite":
            conn.rollback()  # reads only: BEGIN IMMEDIATE starts the write (PostgreSQL's read committed goes on)
        take_write_lock(conn)
        if shared is not None:
            shared.writing = True
        try:
            yield conn
        except BaseException:
            conn.rollback()
            raise
        else:
            conn.commit()
        finally:
            if shared is not None:
                shared.writing = False


def _for_update(query, conn: Connection, **kw):
    """``FOR UPDATE`` on PostgreSQL (SQLite's write lock already covers the transaction)."""
    return query.with_for_update(**kw) if conn.dialect.name == "postgresql" else query


def _audit(conn: Connection, actor: str, action: str, campaign: str, target: str, reason: str = "",
           details: dict | None = None) -> None:
    conn.execute(insert(m.audit_log).values(at=m.now(), actor=actor, action=action, campaign=campaign,
                                            target=target, reason=reason or "",
                                            details=json.dumps(details or {}, sort_keys=True)))


# --------------------------------------------------------------------------- campaigns


def create_collection(store: Store, campaign: str, lp: str, *, protocol: str, assessment: str, context: str,
                      hit_size: int, redundancy: int, seed: int, timeout_seconds: int, items: pd.DataFrame,
                      created_by: str | None = None) -> dict[str, Any]:
    """Store an annotation campaign with its HITs, items and slots, in one transaction.

    ``items``: columns :data:`ITEM_COLUMNS` and ``segment_doc`` (the segment's document, for its
    dimension row; ``doc`` is the document the item is shown in), one row per item shown
    (``position`` empty for tutorial items, which do not count). Refuses a language pair that already has an annotation campaign or
    judgments of the same assessment (collected judgments would mix with them).
    """
    with write_transaction(store.engine) as conn:
        cid, lp_id = _lp_for_collection(conn, campaign, lp)
        held = conn.execute(select(func.count()).select_from(m.judgments).where(and_(
            m.judgments.c.lp_id == lp_id, m.judgments.c.assessment == assessment))).scalar_one()
        if held:
            raise InputError(f"campaign {campaign!r} already holds {held:,} {assessment} judgments of {lp}; collect "
                             "into a campaign of its own so that collected and imported judgments do not mix")
        import_id = _collection_import(conn, cid, f"{protocol}, {lp}", created_by)
        counted = items[items["position"].notna()]
        sys_ids = store.row_ids(conn, m.systems, "lp_id", lp_id, "name", counted["system"])
        seg_ids = store.row_ids(conn, m.segments, "lp_id", lp_id, "key", counted["segment"],
                             extra=counted["segment_doc"].map(lambda d: None if pd.isna(d) else str(d)))
        collect_id = conn.execute(insert(c_).values(
            lp_id=lp_id, import_id=import_id, protocol=protocol, assessment=assessment, context=context,
            hit_size=hit_size, redundancy=redundancy, seed=seed, timeout_seconds=timeout_seconds, status=OPEN,
            crowd_key=secrets.token_urlsafe(18), code_pass=_code(), code_fail=_code(), created_at=m.now(),
            created_by=created_by).returning(c_.c.id)).scalar_one()
        names = list(dict.fromkeys(items["hit"].astype(str)))
        sizes = counted.groupby("hit").size()
        conn.execute(insert(h_), [{"collect_id": collect_id, "name": n, "items": int(sizes.get(n, 0))} for n in names])
        hit_ids = dict(conn.execute(select(h_.c.name, h_.c.id).where(h_.c.collect_id == collect_id)).all())
        rows = pd.DataFrame({
            "hit_id": items["hit"].astype(str).map(hit_ids).astype("int64").to_numpy(),
            "seq": items["seq"].astype("int64").to_numpy(),
            "position": items["position"].astype("Int64").to_numpy(),
            "item_type": items["item_type"].to_numpy(),
            "system_id": pd.array(sys_ids.reindex(items.index).to_numpy(), dtype="Int64"),
            "segment_id": pd.array(seg_ids.reindex(items.index).to_numpy(), dtype="Int64"),
            "system": items["system"].astype(str).to_numpy(),
            "segment": items["segment"].astype(str).to_numpy(),
            "doc": items["doc"].where(items["doc"].notna(), None).to_numpy(),
            "pair_id": items["pair_id"].fillna("").astype(str).to_numpy(),
            "text": items["text"].astype(str).to_numpy(),
            "source": items["source"].fillna("").astype(str).to_numpy(),
            "reference": items["reference"].fillna("").astype(str).to_numpy(),
            "note": items["note"].where(items["note"].notna(), None).to_numpy(),
        })
        insert_frame(conn, "collect_items", rows)
        slots = pd.DataFrame({"hit_id": np.repeat(np.array([hit_ids[n] for n in names], dtype=np.int64), redundancy),
                              "slot": np.tile(np.arange(1, redundancy + 1), len(names)), "done": False})
        insert_frame(conn, "collect_slots", slots)
    return {"id": collect_id, "hits": len(names), "items": len(items), "counted_items": len(counted)}


def _lp_for_collection(conn, campaign: str, lp: str, column: str | None = None) -> tuple[int, int]:
    """The ids of ``campaign`` and of its language pair ``lp`` (made when new) for a new annotation campaign;
    refuses a language pair that already has one (the error names ``column`` when given)."""
    cid = campaign_id_for_write(conn, campaign)
    lp_id = lp_id_for_write(conn, cid, lp)
    if conn.execute(select(c_.c.id).where(c_.c.lp_id == lp_id)).first() is not None:
        raise InputError(f"campaign {campaign!r} already has an annotation campaign for {lp}", column=column)
    return cid, lp_id


def _collection_import(conn, cid: int, what: str, created_by: str | None) -> int:
    """A new, empty import of campaign ``cid`` that holds the judgments an annotation campaign collects."""
    return conn.execute(insert(m.imports).values(
        campaign_id=cid, kind="judgments", file_name=f"collected in the service ({what})",
        sha256=hashlib.sha256(secrets.token_bytes(32)).hexdigest(), input_format=INPUT_FORMAT, rows=0,
        created_at=m.now(), created_by=created_by).returning(m.imports.c.id)).scalar_one()


def _locked_annotator(conn, annotator_id: int, *columns) -> Any:
    """The annotator's row (id, collect_id, decision and ``columns``), locked for the transaction; refuses an
    unknown or rejected annotator."""
    ann = conn.execute(_for_update(select(a_.c.id, a_.c.collect_id, a_.c.decision, *columns)
                                   .where(a_.c.id == annotator_id), conn)).first()
    if ann is None:
        raise InputError("unknown annotator")
    if ann.decision == "rejected":
        raise InputError("the organisers have ended your participation in this campaign")
    return ann


def _code() -> str:
    """A completion code: 10 characters that are easy to copy and hard to guess."""
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
    return "".join(secrets.choice(alphabet) for _ in range(10))


_COLLECT_COLUMNS = (c_.c.id, c_.c.lp_id, c_.c.import_id, c_.c.protocol, c_.c.assessment, c_.c.context,
                    c_.c.hit_size, c_.c.redundancy, c_.c.seed, c_.c.timeout_seconds, c_.c.status, c_.c.crowd_key,
                    c_.c.code_pass, c_.c.code_fail, c_.c.created_at, c_.c.assignment, c_.c.settings,
                    m.language_pairs.c.lp,
                    m.campaigns.c.name.label("campaign"), m.campaigns.c.id.label("campaign_id"))


def _collect_query():
    return (select(*_COLLECT_COLUMNS).join(m.language_pairs, c_.c.lp_id == m.language_pairs.c.id)
            .join(m.campaigns, m.language_pairs.c.campaign_id == m.campaigns.c.id))


def collection(store: Store, campaign: str, lp: str) -> dict[str, Any]:
    """The annotation campaign of (campaign, lp); a clear error for an unknown campaign, pair or none."""
    with connect(store) as conn:
        row = conn.execute(_collect_query().where(and_(m.campaigns.c.name == campaign,
                                                       m.language_pairs.c.lp == lp))).mappings().first()
        if row is None:
            if conn.execute(select(m.campaigns.c.id).where(m.campaigns.c.name == campaign)).first() is None:
                raise InputError(f"no campaign named {campaign!r}", column="campaign")
            lps = conn.execute(select(m.language_pairs.c.lp).join(c_, c_.c.lp_id == m.language_pairs.c.id)
                               .join(m.campaigns, m.campaigns.c.id == m.language_pairs.c.campaign_id)
                               .where(m.campaigns.c.name == campaign)).scalars().all()
            raise InputError(f"campaign {campaign!r} has no annotation campaign for {lp}"
                             + (f" (it has one for {', '.join(sorted(lps))})" if lps else
                                " (mtlb collect create makes one)"), column="lp")
    return dict(row)


def collection_by_id(store: Store, collect_id: int) -> dict[str, Any]:
    with connect(store) as conn:
        return dict(conn.execute(_collect_query().where(c_.c.id == collect_id)).mappings().one())


def collection_by_crowd_key(store: Store, key: str) -> dict[str, Any] | None:
    """The annotation campaign a crowd link points at, or None for an unknown key."""
    with connect(store) as conn:
        row = conn.execute(_collect_query().where(c_.c.crowd_key == key)).mappings().first()
    return dict(row) if row is not None else None


def collections(store: Store) -> pd.DataFrame:
    """Every annotation campaign: campaign, lp, protocol, status, hits."""
    q = (select(m.campaigns.c.name, m.language_pairs.c.lp, c_.c.protocol, c_.c.assessment, c_.c.status,
                c_.c.redundancy, func.count(h_.c.id))
         .join(m.language_pairs, c_.c.lp_id == m.language_pairs.c.id)
         .join(m.campaigns, m.language_pairs.c.campaign_id == m.campaigns.c.id)
         .join(h_, h_.c.collect_id == c_.c.id)
         .group_by(m.campaigns.c.name, m.language_pairs.c.lp, c_.c.protocol, c_.c.assessment, c_.c.status,
                   c_.c.redundancy)
         .order_by(m.campaigns.c.name, m.language_pairs.c.lp))
    with connect(store) as conn:
        rows = conn.execute(q).all()
    return pd.DataFrame(rows, columns=["campaign", "lp", "protocol", "assessment", "status", "redundancy", "hits"])


def set_status(store: Store, collect_id: int, status: str, actor: str) -> None:
    """Stop (no new HITs are handed out; HITs in progress can be finished) or reopen a campaign."""
    if status not in (OPEN, STOPPED):
        raise InputError(f"status must be {OPEN} or {STOPPED}, got {status!r}")
    info = collection_by_id(store, collect_id)
    with write_transaction(store.engine) as conn:
        conn.execute(update(c_).where(c_.c.id == collect_id).values(status=status))
        _audit(conn, actor, "collect-" + ("stop" if status == STOPPED else "reopen"), info["campaign"],
               f"annotation {info['lp']}")


# --------------------------------------------------------------------------- annotators


def _worker_id(conn: Connection, campaign_id: int, name: str) -> int:
    conn.execute(insert_ignore(conn, m.workers).values(campaign_id=campaign_id, name=name))
    return conn.execute(select(m.workers.c.id).where(and_(m.workers.c.campaign_id == campaign_id,
                                                          m.workers.c.name == name))).scalar_one()


def add_invitations(store: Store, collect_id: int, token_hashes: list[str], max_hits: int | None = None) -> list[str]:
    """One invited annotator per token hash, named ``inv-0001``, ``inv-0002``… in order; returns the names.

    ``max_hits``: each link's HIT quota (None: as many HITs as are free for them)."""
    info = collection_by_id(store, collect_id)
    with write_transaction(store.engine) as conn:
        conn.execute(_for_update(select(c_.c.id).where(c_.c.id == collect_id), conn))  # one creator at a time
        have = conn.execute(select(func.count()).select_from(a_).where(and_(
            a_.c.collect_id == collect_id, a_.c.origin == "invitation"))).scalar_one()
        names = [f"inv-{have + k + 1:04d}" for k in range(len(token_hashes))]
        now = m.now()
        for name, token_hash in zip(names, token_hashes):
            conn.execute(insert(a_).values(collect_id=collect_id, name=name,
                                           worker_id=_worker_id(conn, info["campaign_id"], name),
                                           origin="invitation", token_hash=token_hash, max_hits=max_hits,
                                           created_at=now))
    return names


def crowd_annotator(store: Store, collect_id: int, name: str, origin: str) -> dict[str, Any]:
    """The crowd annotator ``name`` of a campaign, created on first arrival (race-safe)."""
    info = collection_by_id(store, collect_id)
    with write_transaction(store.engine) as conn:
        found = conn.execute(select(a_.c.id, a_.c.origin).where(and_(a_.c.collect_id == collect_id,
                                                                     a_.c.name == name))).first()
        if found is None:
            conn.execute(insert_ignore(conn, a_).values(
                collect_id=collect_id, name=name, worker_id=_worker_id(conn, info["campaign_id"], name),
                origin=origin, created_at=m.now()))
        elif found.origin == "invitation":
            raise InputError(f"worker id {name!r} belongs to an invited annotator; use your invitation link")
    return annotator(store, collect_id=collect_id, name=name)


def annotator_count(store: Store, collect_id: int) -> int:
    """Annotators of an annotation campaign (invited or arrived)."""
    with connect(store) as conn:
        return int(conn.execute(select(func.count()).select_from(a_).where(a_.c.collect_id == collect_id)).scalar_one())


_ANNOTATOR_COLUMNS = (a_.c.id, a_.c.collect_id, a_.c.name, a_.c.worker_id, a_.c.origin, a_.c.decision,
                      a_.c.qc_pass, a_.c.qc_p, a_.c.qc_reason)


def annotator(store: Store, *, token_hash: str | None = None, collect_id: int | None = None,
              name: str | None = None, annotator_id: int | None = None) -> dict[str, Any] | None:
    """An annotator by invitation token hash, by (campaign, name) or by id; None when unknown."""
    q = select(*_ANNOTATOR_COLUMNS)
    if token_hash is not None:
        q = q.where(a_.c.token_hash == token_hash)
    elif annotator_id is not None:
        q = q.where(a_.c.id == annotator_id)
    else:
        q = q.where(and_(a_.c.collect_id == collect_id, a_.c.name == name))
    with connect(store) as conn:
        row = conn.execute(q).mappings().first()
    return dict(row) if row is not None else None


def decide(store: Store, collect_id: int, name: str, decision: str | None, actor: str) -> None:
    """Approve or reject an annotator (for payment); None undoes it. A rejected annotator stores no further
    answer and gets no further HIT; their HIT in progress returns to the pool."""
    if decision is not None and decision not in DECISIONS:
        raise InputError(f"decision must be one of {', '.join(DECISIONS)}, got {decision!r}")
    info = collection_by_id(store, collect_id)
    with write_transaction(store.engine) as conn:
        done = conn.execute(update(a_).where(and_(a_.c.collect_id == collect_id, a_.c.name == name)).values(
            decision=decision, decided_by=actor, decided_at=m.now()))
        if done.rowcount != 1:
            raise InputError(f"no annotator {name!r} in this annotation campaign")
        if decision == "rejected":  # their HIT in progress goes back to the pool at once
            who = select(a_.c.id).where(and_(a_.c.collect_id == collect_id, a_.c.name == name)).scalar_subquery()
            conn.execute(update(s_).where(and_(s_.c.holder_id == who, s_.c.done == False))  # noqa: E712
                         .values(holder_id=None, held_until=None))
            conn.execute(update(g_).where(and_(g_.c.annotator_id == who, g_.c.status == ACTIVE)).values(status=EXPIRED))
        _audit(conn, actor, "collect-" + (decision or "undecide"), info["campaign"], f"annotator {name}",
               details={"lp": info["lp"]})


# --------------------------------------------------------------------------- HITs and answers


_ASSIGNMENT = (select(g_.c.id, g_.c.hit_id, g_.c.slot_id, g_.c.annotator_id, g_.c.status, g_.c.platform_assignment,
                      g_.c.started_at, g_.c.completed_at, g_.c.qc_pass, g_.c.qc_p, h_.c.name.label("hit"),
                      h_.c["items"].label("hit_items"), h_.c.kind.label("hit_kind"))
               .join(h_, h_.c.id == g_.c.hit_id).order_by(g_.c.id.desc()))
#: an assignment by id; an annotator's newest active one, or newest at all (main: ``b_extra`` false)
_ASSIGNMENT_BY = {
    "id": _ASSIGNMENT.where(g_.c.id == bindparam("b_id")),
    "active": _ASSIGNMENT.where(and_(g_.c.annotator_id == bindparam("b_annotator"), g_.c.status == ACTIVE,
                                     g_.c.extra == bindparam("b_extra"))),
    "newest": _ASSIGNMENT.where(and_(g_.c.annotator_id == bindparam("b_annotator"),
                                     g_.c.extra == bindparam("b_extra"))),
}


def _assignment_row(conn: Connection, which: str, **params: Any) -> dict[str, Any] | None:
    """One assignment with its HIT's name, counted items and kind (see :data:`_ASSIGNMENT_BY`)."""
    row = conn.execute(_ASSIGNMENT_BY[which], params).mappings().first()
    return dict(row) if row is not None else None


def assignment(store: Store, assignment_id: int) -> dict[str, Any] | None:
    with connect(store) as conn:
        return _assignment_row(conn, "id", b_id=assignment_id)


def latest_assignment(store: Store, annotator_id: int) -> dict[str, Any] | None:
    """The annotator's active assignment, else their newest one (None: never had a HIT)."""
    with connect(store) as conn:
        # main assignments only: tutorials and checks of cESA are held beside the task
        return _assignment_row(conn, "active", b_annotator=annotator_id, b_extra=False) \
            or _assignment_row(conn, "newest", b_annotator=annotator_id, b_extra=False)


def claim(store: Store, annotator_id: int, *, platform_assignment: str | None = None,
          now: datetime | None = None) -> dict[str, Any] | None:
    """The annotator's HIT: their active one (its hold renewed), else a free slot of a HIT they never had.

    None when no slot is free for them. Refuses a rejected annotator and, for a new HIT, a stopped
    campaign. A slot whose hold has run out goes to the next annotator who asks, and the previous
    holder's assignment becomes ``expired`` (their answers stay stored).
    """
    now = now or m.now()
    with write_transaction(store.engine) as conn:
        ann = _locked_annotator(conn, annotator_id, a_.c.max_hits)
        status, timeout = conn.execute(select(c_.c.status, c_.c.timeout_seconds)
                                       .where(c_.c.id == ann.collect_id)).one()
        hold = now + timedelta(seconds=timeout)
        active = _assignment_row(conn, "active", b_annotator=annotator_id, b_extra=False)
        if active is not None:
            kept = conn.execute(update(s_).where(and_(s_.c.id == active["slot_id"], s_.c.holder_id == annotator_id,
                                                      s_.c.done == False)).values(held_until=hold))  # noqa: E712
            if kept.rowcount == 1:
                return active
            conn.execute(update(g_).where(g_.c.id == active["id"]).values(status=EXPIRED))
        if ann.max_hits is not None:
            finished = conn.execute(select(func.count()).select_from(g_).where(and_(
                g_.c.annotator_id == annotator_id, g_.c.status == DONE))).scalar_one()
            if finished >= ann.max_hits:
                raise InputError(f"this invitation link has been used up: its {ann.max_hits} HIT"
                                 f"{'s are' if ann.max_hits != 1 else ' is'} done")
        if status != OPEN:
            raise InputError("this annotation campaign is stopped: no new HITs are handed out")
        had = select(g_.c.hit_id).where(g_.c.annotator_id == annotator_id)
        free = (select(s_.c.id, s_.c.hit_id, s_.c.holder_id).join(h_, h_.c.id == s_.c.hit_id)
                .where(and_(h_.c.collect_id == ann.collect_id, s_.c.done == False, h_.c.kind == "task",  # noqa: E712
                            or_(s_.c.holder_id.is_(None), s_.c.held_until < now), s_.c.hit_id.not_in(had)))
                .order_by(s_.c.slot, s_.c.hit_id).limit(1))
        if conn.dialect.name == "postgresql":
            free = free.with_for_update(skip_locked=True, of=s_)
        slot = conn.execute(free).first()
        if slot is None:
            return None
        taken = conn.execute(update(s_).where(and_(
            s_.c.id == slot.id, s_.c.done == False,  # noqa: E712
            or_(s_.c.holder_id.is_(None), s_.c.held_until < now))).values(holder_id=annotator_id, held_until=hold))
        if taken.rowcount != 1:  # cannot happen under the lock; refuse rather than hand a slot out twice
            raise RuntimeError("a free slot was taken while it was locked")
        if slot.holder_id is not None:
            conn.execute(update(g_).where(and_(g_.c.slot_id == slot.id, g_.c.status == ACTIVE)).values(status=EXPIRED))
        new_id = conn.execute(insert(g_).values(
            hit_id=slot.hit_id, slot_id=slot.id, annotator_id=annotator_id, status=ACTIVE,
            platform_assignment=platform_assignment, started_at=now).returning(g_.c.id)).scalar_one()
        return _assignment_row(conn, "id", b_id=new_id)


def hit_items(store: Store, hit_id: int) -> pd.DataFrame:
    """The items of a HIT in display order (tutorial items first): id, seq, position, item_type, system,
    segment, doc, pair_id, text, source, reference, note."""
    q = (select(i_.c.id, i_.c.seq, i_.c.position, i_.c.item_type, i_.c.system, i_.c.segment, i_.c.doc,
                i_.c.pair_id, i_.c.text, i_.c.source, i_.c.reference, i_.c.note)
         .where(i_.c.hit_id == hit_id).order_by(i_.c.seq))
    with connect(store) as conn:
        rows = conn.execute(q).all()
    frame = pd.DataFrame(rows, columns=["id", "seq", "position", "item_type", "system", "segment", "doc", "pair_id",
                                        "text", "source", "reference", "note"])
    frame["position"] = frame["position"].astype("Int64")
    return frame


def item(store: Store, item_id: int) -> dict[str, Any] | None:
    """One item with its HIT and annotation campaign ids (None when there is no such item)."""
    with connect(store) as conn:
        row = conn.execute(_ITEM, {"b_item": item_id}).mappings().first()
    return dict(row) if row is not None else None


_ITEM = (select(i_.c.id, i_.c.hit_id, i_.c.position, i_.c.item_type, i_.c.text, h_.c.collect_id)
         .join(h_, h_.c.id == i_.c.hit_id).where(i_.c.id == bindparam("b_item")))


def answers(store: Store, assignment_id: int) -> pd.DataFrame:
    """The answers of one assignment: item_id, raw, spans (JSON text), started_at, ended_at."""
    q = (select(r_.c.item_id, r_.c.raw, r_.c.spans, r_.c.started_at, r_.c.ended_at)
         .where(r_.c.assignment_id == assignment_id).order_by(r_.c.id))
    with connect(store) as conn:
        return pd.DataFrame(conn.execute(q).all(), columns=["item_id", "raw", "spans", "started_at", "ended_at"])


_ANSWER_ROWS = (select(r_.c.item_id, r_.c.raw, r_.c.spans).where(r_.c.assignment_id == bindparam("assignment_id"))
                .order_by(r_.c.id))


def answer_rows(store: Store, assignment_id: int) -> list[tuple[int, float, str | None]]:
    """The answers of one assignment as plain rows ``(item_id, raw, spans as JSON text)``, in answer order."""
    with connect(store) as conn:
        return [(int(r[0]), float(r[1]), r[2]) for r in conn.execute(_ANSWER_ROWS, {"assignment_id": assignment_id})]


# the statements of an answer's transaction, built once (their SQL is compiled once per dialect and reused)
_SUBMIT_ITEM = (select(i_.c.id, i_.c.hit_id, i_.c.position, i_.c.item_type, i_.c.system_id, i_.c.segment_id,
                       h_.c.name.label("hit"), h_.c.collect_id, c_.c.import_id, c_.c.lp_id, c_.c.assessment,
                       c_.c.timeout_seconds, a_.c.id.label("annotator"), a_.c.worker_id, a_.c.name, a_.c.decision,
                       a_.c.collect_id.label("annotator_collect"))
                .join(h_, h_.c.id == i_.c.hit_id).join(c_, c_.c.id == h_.c.collect_id)
                .outerjoin(a_, a_.c.id == bindparam("b_annotator")).where(i_.c.id == bindparam("b_item")))
_SUBMIT_ANNOTATOR = select(a_.c.id, a_.c.decision).where(a_.c.id == bindparam("b_annotator"))
_SUBMIT_MINE = and_(g_.c.annotator_id == bindparam("b_annotator"), g_.c.hit_id == bindparam("b_hit"))
_SUBMIT_SLOT = select(g_.c.slot_id).where(_SUBMIT_MINE)
_SUBMIT_LOCK_SLOT = select(s_.c.id).where(s_.c.id == bindparam("b_slot")).with_for_update()
_SUBMIT_ASSIGNMENT = {False: select(g_.c.id, g_.c.status, g_.c.slot_id).where(_SUBMIT_MINE)}
_SUBMIT_ASSIGNMENT[True] = _SUBMIT_ASSIGNMENT[False].with_for_update()
_SUBMIT_ALREADY = select(r_.c.id).where(and_(r_.c.assignment_id == bindparam("b_assignment"),
                                             r_.c.item_id == bindparam("b_item")))
_SUBMIT_JUDGMENT = insert(m.judgments).returning(m.judgments.c.id)
_SUBMIT_LINK = update(r_).where(r_.c.id == bindparam("b_answer")).values(judgment_id=bindparam("b_judgment"))
_SUBMIT_SPANS = insert(m.expert_annotations)
_SUBMIT_HOLD = (update(s_).where(and_(s_.c.id == bindparam("b_slot"), s_.c.holder_id == bindparam("b_annotator")))
                .values(held_until=bindparam("b_until")))
_SUBMIT_COUNTS = select(
    select(func.count()).select_from(r_).where(r_.c.assignment_id == bindparam("b_assignment")).scalar_subquery(),
    select(func.count()).select_from(i_).where(i_.c.hit_id == bindparam("b_hit")).scalar_subquery())
_SUBMIT_DONE = (update(g_).where(g_.c.id == bindparam("b_assignment"))
                .values(status=DONE, completed_at=bindparam("b_when")))
_SUBMIT_SLOT_DONE = update(s_).where(s_.c.id == bindparam("b_slot")).values(done=True)
_INSERT_ANSWER: dict[str, Any] = {}


def _insert_answer(conn: Connection):
    """``INSERT … ON CONFLICT DO NOTHING RETURNING id`` of an answer, built once per dialect."""
    name = conn.dialect.name
    if name not in _INSERT_ANSWER:
        _INSERT_ANSWER[name] = insert_ignore(conn, r_).returning(r_.c.id)
    return _INSERT_ANSWER[name]


def submit(store: Store, annotator_id: int, item_id: int, *, raw: float, spans: list[dict] | None,
           started_at: datetime, ended_at: datetime) -> dict[str, Any]:
    """Store one answer (and its judgment, and the ESA spans of a genuine output) in one transaction.

    Returns ``{"stored": bool, "complete": bool, "assignment_id"}``: ``stored`` False for a double
    submit (the first answer stays); ``complete`` when this answer completes the HIT; and, when a new answer
    leaves the HIT open, ``assignment`` and ``answers`` as :func:`assignment` and :func:`answer_rows` read them
    after it (the next item needs nothing more). Refuses an
    item that is not part of the annotator's HIT, and answers to a HIT whose slot went to another
    annotator after the timeout. ``spans``: ``{"start", "end", "severity"}`` with character offsets
    (end exclusive; both None for missing content), already validated.
    """
    with write_transaction(store.engine) as conn:
        pg = conn.dialect.name == "postgresql"
        item = conn.execute(_SUBMIT_ITEM, {"b_item": item_id, "b_annotator": annotator_id}).first()
        ann = item if item is not None else conn.execute(_SUBMIT_ANNOTATOR, {"b_annotator": annotator_id}).first()
        if ann is None or (item is not None and item.annotator is None):
            raise InputError("unknown annotator")
        if ann.decision == "rejected":
            raise InputError("the organisers have ended your participation in this campaign; nothing was stored")
        if item is None or item.collect_id != item.annotator_collect:
            raise InputError(f"item {item_id} is not part of a HIT assigned to you; nothing was stored")
        mine = {"b_annotator": annotator_id, "b_hit": item.hit_id}
        slot_id = conn.execute(_SUBMIT_SLOT, mine).scalar()
        if slot_id is None:
            raise InputError(f"item {item_id} is not part of a HIT assigned to you; nothing was stored")
        # locks in the order every writer takes them (slot, then assignment), so writers never deadlock;
        # SQLite's write lock, taken when the transaction began, already covers both
        if pg:
            conn.execute(_SUBMIT_LOCK_SLOT, {"b_slot": slot_id})
        asg = conn.execute(_SUBMIT_ASSIGNMENT[pg], mine).first()
        if asg.status != ACTIVE:
            already = conn.execute(_SUBMIT_ALREADY, {"b_assignment": asg.id, "b_item": item_id}).first()
            if already is not None:
                return {"stored": False, "complete": asg.status == DONE, "assignment_id": asg.id}
            if asg.status == EXPIRED:
                raise InputError("your time on this HIT ran out and it went to another annotator; nothing was stored")
            raise InputError("this HIT is complete; nothing was stored")
        # an answer given before is the conflict that stores nothing (a double submit)
        answer_id = conn.execute(_insert_answer(conn), {
            "assignment_id": asg.id, "item_id": item_id, "raw": float(raw),
            "spans": None if spans is None else json.dumps(spans, sort_keys=True),
            "started_at": started_at, "ended_at": ended_at}).scalar()
        if answer_id is None:
            return {"stored": False, "complete": False, "assignment_id": asg.id}
        if item.position is not None:
            seconds = max(0.0, (_utc(ended_at) - _utc(started_at)).total_seconds())
            judgment_id = conn.execute(_SUBMIT_JUDGMENT, {
                "import_id": item.import_id, "lp_id": item.lp_id, "assessment": item.assessment,
                "worker_id": item.worker_id, "hit": item.hit, "position": int(item.position),
                "segment_id": item.segment_id, "system_id": item.system_id, "item_type": item.item_type,
                "raw": float(raw), "z": None, "seconds": seconds}).scalar_one()
            conn.execute(_SUBMIT_LINK, {"b_answer": answer_id, "b_judgment": judgment_id})
            if spans and item.item_type in ("SYSTEM", "REPEAT"):
                conn.execute(_SUBMIT_SPANS, [{
                    "import_id": item.import_id, "lp_id": item.lp_id, "assessment": "esa",
                    "system_id": item.system_id, "segment_id": item.segment_id, "rater": item.name,
                    "category": None, "severity": sp["severity"], "span_start": sp["start"], "span_end": sp["end"],
                    "comment": None, "line": answer_id} for sp in spans])
        conn.execute(_SUBMIT_HOLD, {"b_slot": asg.slot_id, "b_annotator": annotator_id,
                                    "b_until": m.now() + timedelta(seconds=item.timeout_seconds)})
        n_answers, n_items = conn.execute(_SUBMIT_COUNTS, {"b_assignment": asg.id, "b_hit": item.hit_id}).one()
        complete = n_answers >= n_items
        if complete:
            conn.execute(_SUBMIT_DONE, {"b_assignment": asg.id, "b_when": m.now()})
            conn.execute(_SUBMIT_SLOT_DONE, {"b_slot": asg.slot_id})
            return {"stored": True, "complete": True, "assignment_id": asg.id}
        return {"stored": True, "complete": False, "assignment_id": asg.id,
                "assignment": _assignment_row(conn, "id", b_id=asg.id),
                "answers": [(int(r[0]), float(r[1]), r[2]) for r in conn.execute(_ANSWER_ROWS,
                                                                                {"assignment_id": asg.id})]}


def revise(store: Store, annotator_id: int, item_id: int, *, raw: float, spans: list[dict] | None,
           ended_at: datetime) -> dict[str, Any]:
    """Change a stored answer of the annotator's current HIT while its document is open (some segment of the
    document in this HIT still unanswered): the answer, its judgment (score and time) and its spans become the
    new ones, in one transaction. Refuses an answer of a submitted document or of another annotator."""
    with write_transaction(store.engine) as conn:
        item = conn.execute(select(i_.c.id, i_.c.hit_id, i_.c.doc, i_.c.item_type, i_.c.system_id, i_.c.segment_id)
                            .where(i_.c.id == item_id)).first()
        mine = None if item is None else and_(g_.c.annotator_id == annotator_id, g_.c.hit_id == item.hit_id)
        slot_id = None if mine is None else conn.execute(select(g_.c.slot_id).where(mine)).scalar()
        if slot_id is None:
            raise InputError(f"item {item_id} is not part of a HIT assigned to you; nothing was stored")
        conn.execute(_for_update(select(s_.c.id).where(s_.c.id == slot_id), conn))  # slot, then assignment
        asg = conn.execute(_for_update(select(g_.c.id, g_.c.status).where(mine), conn)).first()
        if asg.status != ACTIVE:
            raise InputError("this HIT is complete: its answers are final; nothing was stored")
        answer = conn.execute(select(r_.c.id, r_.c.judgment_id, r_.c.started_at).where(and_(
            r_.c.assignment_id == asg.id, r_.c.item_id == item_id))).first()
        if answer is None:
            raise InputError("this segment has no answer yet to change; nothing was stored")
        doc_items = select(i_.c.id).where(and_(i_.c.hit_id == item.hit_id, i_.c.doc == item.doc))
        answered = conn.execute(select(func.count()).select_from(r_).where(and_(
            r_.c.assignment_id == asg.id, r_.c.item_id.in_(doc_items)))).scalar_one()
        total = conn.execute(select(func.count()).select_from(i_).where(and_(
            i_.c.hit_id == item.hit_id, i_.c.doc == item.doc))).scalar_one()
        if item.doc is None or answered >= total:
            raise InputError("this document was submitted with its last segment: its answers are final; nothing was "
                             "stored")
        conn.execute(update(r_).where(r_.c.id == answer.id).values(
            raw=float(raw), spans=None if spans is None else json.dumps(spans, sort_keys=True), ended_at=ended_at,
            revisions=r_.c.revisions + 1))
        if answer.judgment_id is not None:
            seconds = max(0.0, (_utc(ended_at) - _utc(answer.started_at)).total_seconds())
            conn.execute(update(m.judgments).where(m.judgments.c.id == answer.judgment_id)
                         .values(raw=float(raw), seconds=seconds))
            info = conn.execute(select(c_.c.import_id, c_.c.lp_id).join(h_, h_.c.collect_id == c_.c.id)
                                .where(h_.c.id == item.hit_id)).one()
            conn.execute(delete(m.expert_annotations).where(and_(m.expert_annotations.c.import_id == info.import_id,
                                                                 m.expert_annotations.c.line == answer.id)))
            if spans and item.item_type in ("SYSTEM", "REPEAT"):
                rater = conn.execute(select(a_.c.name).where(a_.c.id == annotator_id)).scalar_one()
                conn.execute(insert(m.expert_annotations), [{
                    "import_id": info.import_id, "lp_id": info.lp_id, "assessment": "esa",
                    "system_id": item.system_id, "segment_id": item.segment_id, "rater": rater, "category": None,
                    "severity": sp["severity"], "span_start": sp["start"], "span_end": sp["end"], "comment": None,
                    "line": answer.id} for sp in spans])
    return {"assignment_id": asg.id}


def annotator_judgments(store: Store, annotator_id: int) -> pd.DataFrame:
    """The annotator's stored judgments as a canonical frame (for their worker test)."""
    j = m.judgments
    q = (select(m.language_pairs.c.lp, j.c.assessment, a_.c.name, j.c.hit, j.c.position, m.segments.c.key,
                m.systems.c.name, j.c.item_type, j.c.raw, j.c.z, j.c.seconds, m.segments.c.doc)
         .join(a_, a_.c.worker_id == j.c.worker_id).join(c_, and_(c_.c.id == a_.c.collect_id,
                                                                    c_.c.import_id == j.c.import_id))
         .join(m.language_pairs, m.language_pairs.c.id == j.c.lp_id)
         .join(m.segments, m.segments.c.id == j.c.segment_id).join(m.systems, m.systems.c.id == j.c.system_id)
         .where(a_.c.id == annotator_id).order_by(j.c.id))
    with connect(store) as conn:
        rows = conn.execute(q).all()
        campaign = conn.execute(select(m.campaigns.c.name).join(m.language_pairs,
                                                                m.language_pairs.c.campaign_id == m.campaigns.c.id)
                                .join(c_, c_.c.lp_id == m.language_pairs.c.id).join(a_, a_.c.collect_id == c_.c.id)
                                .where(a_.c.id == annotator_id)).scalar()
    from ..schema import normalise_dtypes
    frame = pd.DataFrame(rows, columns=["lp", "assessment", "worker", "hit", "position", "segment", "system",
                                        "item_type", "raw", "z", "seconds", "doc"])
    frame.insert(0, "campaign", campaign or "")
    return normalise_dtypes(frame)


def record_qc(store: Store, annotator_id: int, *, passed: bool | None, p_value: float | None, reason: str,
              assignment_id: int | None = None) -> None:
    """Store the annotator's latest worker-test verdict (and the one a completed assignment's code follows)."""
    p = None if p_value is None or not np.isfinite(p_value) else float(p_value)
    with write_transaction(store.engine) as conn:
        conn.execute(update(a_).where(a_.c.id == annotator_id).values(qc_pass=passed, qc_p=p, qc_reason=reason))
        if assignment_id is not None:
            conn.execute(update(g_).where(g_.c.id == assignment_id).values(qc_pass=passed, qc_p=p))


def reset_assignment(store: Store, collect_id: int, name: str, hit: str, actor: str) -> dict[str, int]:
    """Undo an annotator's HIT: delete its answers with their judgments and spans, and free its slot.

    The annotator may then get a HIT again (also this one). Audited. Returns the counts deleted.
    """
    info = collection_by_id(store, collect_id)
    with write_transaction(store.engine) as conn:
        found = (select(g_.c.id, g_.c.slot_id, g_.c.annotator_id)
                 .join(a_, a_.c.id == g_.c.annotator_id).join(h_, h_.c.id == g_.c.hit_id)
                 .where(and_(a_.c.collect_id == collect_id, a_.c.name == name, h_.c.name == hit)))
        asg = conn.execute(found).first()
        if asg is None:
            raise InputError(f"annotator {name!r} has no HIT {hit!r} in this annotation campaign")
        conn.execute(_for_update(select(s_.c.id).where(s_.c.id == asg.slot_id), conn))  # slot, then assignment
        conn.execute(_for_update(select(g_.c.id).where(g_.c.id == asg.id), conn))
        answer_ids = conn.execute(select(r_.c.id).where(r_.c.assignment_id == asg.id)).scalars().all()
        judgment_ids = conn.execute(select(r_.c.judgment_id).where(and_(
            r_.c.assignment_id == asg.id, r_.c.judgment_id.is_not(None)))).scalars().all()
        if answer_ids:
            conn.execute(delete(m.expert_annotations).where(and_(m.expert_annotations.c.import_id == info["import_id"],
                                                                 m.expert_annotations.c.line.in_(answer_ids))))
        conn.execute(delete(r_).where(r_.c.assignment_id == asg.id))
        if judgment_ids:
            conn.execute(delete(m.judgments).where(m.judgments.c.id.in_(judgment_ids)))
        conn.execute(delete(g_).where(g_.c.id == asg.id))
        conn.execute(update(s_).where(s_.c.id == asg.slot_id).values(holder_id=None, held_until=None, done=False))
        _audit(conn, actor, "collect-reset", info["campaign"], f"annotator {name}, HIT {hit}",
               details={"lp": info["lp"], "answers": len(answer_ids), "judgments": len(judgment_ids)})
    return {"answers": len(answer_ids), "judgments": len(judgment_ids)}


# --------------------------------------------------------------------------- status and exports


def progress(store: Store, collect_id: int) -> dict[str, Any]:
    """Slots (HIT x redundancy) in all and done, and HITs with every slot done."""
    with connect(store) as conn:
        total, done = conn.execute(select(func.count(s_.c.id), func.coalesce(func.sum(
            case((s_.c.done, 1), else_=0)), 0)).join(h_, h_.c.id == s_.c.hit_id)
            .where(and_(h_.c.collect_id == collect_id, h_.c.kind.in_(("task", "page"))))).one()
        hits = conn.execute(select(func.count(h_.c.id)).where(and_(h_.c.collect_id == collect_id,
                                                                   h_.c.kind.in_(("task", "page"))))).scalar_one()
    return {"slots": int(total), "slots_done": int(done), "hits": int(hits)}


def annotator_table(store: Store, collect_id: int) -> pd.DataFrame:
    """One row per annotator: name, origin, decision, qc_pass, qc_p, qc_reason, hits_done, hits_active,
    items_done (counted items answered), seconds_per_item (median over their answers)."""
    with connect(store) as conn:
        people = pd.DataFrame(conn.execute(select(a_.c.id, a_.c.name, a_.c.origin, a_.c.decision, a_.c.qc_pass,
                                                  a_.c.qc_p, a_.c.qc_reason, a_.c.created_at)
                                           .where(a_.c.collect_id == collect_id).order_by(a_.c.id)).all(),
                              columns=["id", "name", "origin", "decision", "qc_pass", "qc_p", "qc_reason", "created_at"])
        hits = pd.DataFrame(conn.execute(select(g_.c.annotator_id, g_.c.status, func.count())
                                         .join(a_, a_.c.id == g_.c.annotator_id)
                                         .where(and_(a_.c.collect_id == collect_id, g_.c.extra == False))  # noqa: E712
                                         .group_by(g_.c.annotator_id, g_.c.status)).all(),
                            columns=["id", "status", "n"])
        times = pd.DataFrame(conn.execute(select(g_.c.annotator_id, r_.c.started_at, r_.c.ended_at)
                                          .join(g_, g_.c.id == r_.c.assignment_id)
                                          .join(a_, a_.c.id == g_.c.annotator_id)
                                          .join(i_, i_.c.id == r_.c.item_id)
                                          .where(and_(a_.c.collect_id == collect_id, i_.c.position.is_not(None))))
                             .all(), columns=["id", "started_at", "ended_at"])
    counts = hits.pivot_table(index="id", columns="status", values="n", aggfunc="sum", fill_value=0)
    people["hits_done"] = people["id"].map(counts.get(DONE, pd.Series(dtype=int))).fillna(0).astype(int)
    people["hits_active"] = people["id"].map(counts.get(ACTIVE, pd.Series(dtype=int))).fillna(0).astype(int)
    if len(times):
        sec = (pd.to_datetime(times["ended_at"], utc=True) - pd.to_datetime(times["started_at"], utc=True)
               ).dt.total_seconds()
        per = pd.DataFrame({"id": times["id"], "s": sec}).groupby("id")["s"].agg(["size", "median"])
    else:
        per = pd.DataFrame(columns=["size", "median"])
    people["items_done"] = people["id"].map(per["size"]).fillna(0).astype(int)
    people["seconds_per_item"] = people["id"].map(per["median"]).astype(float)
    held = held_hits(store, collect_id)
    people["holding"] = people["name"].map(held.set_index("annotator")["hit"]) if len(held) else None
    people["held_until"] = people["name"].map(held.set_index("annotator")["held_until"]) if len(held) else None
    people["held_answers"] = people["name"].map(held.set_index("annotator")["answers"]).fillna(0).astype(int) \
        if len(held) else 0
    return people.drop(columns=["id"])


def held_hits(store: Store, collect_id: int, now: datetime | None = None) -> pd.DataFrame:
    """HITs (pages) held now and why: annotator, hit, kind, held_until, answers (given in it so far), opened
    (when the annotator got it). A HIT is held from the moment its link is opened (the annotator's first
    item is shown) until it is done or the hold runs out; every stored answer renews the hold."""
    now = now or m.now()
    answered = (select(r_.c.assignment_id, func.count(r_.c.id).label("n")).group_by(r_.c.assignment_id).subquery())
    q = (select(a_.c.name, h_.c.name, h_.c.kind, s_.c.held_until, func.coalesce(answered.c.n, 0), g_.c.started_at)
         .join(s_, s_.c.holder_id == a_.c.id).join(h_, h_.c.id == s_.c.hit_id)
         .join(g_, and_(g_.c.slot_id == s_.c.id, g_.c.annotator_id == a_.c.id, g_.c.status == ACTIVE))
         .outerjoin(answered, answered.c.assignment_id == g_.c.id)
         .where(and_(a_.c.collect_id == collect_id, s_.c.done == False, s_.c.held_until >= now))  # noqa: E712
         .order_by(s_.c.held_until))
    with connect(store) as conn:
        rows = conn.execute(q).all()
    frame = pd.DataFrame(rows, columns=["annotator", "hit", "kind", "held_until", "answers", "opened"])
    return frame[frame["kind"].isin(["task", "page"])].drop_duplicates("annotator").reset_index(drop=True)


def system_counts(store: Store, collect_id: int) -> pd.DataFrame:
    """Collected judgments per system and item type (system, item_type, judgments)."""
    j = m.judgments
    q = (select(m.systems.c.name, j.c.item_type, func.count(j.c.id)).join(m.systems, m.systems.c.id == j.c.system_id)
         .join(c_, c_.c.import_id == j.c.import_id).where(c_.c.id == collect_id)
         .group_by(m.systems.c.name, j.c.item_type).order_by(m.systems.c.name, j.c.item_type))
    with connect(store) as conn:
        return pd.DataFrame(conn.execute(q).all(), columns=["system", "item_type", "judgments"])


def hit_table(store: Store, collect_id: int) -> pd.DataFrame:
    """One row per HIT: hit, items, slots, slots_done, holders (active annotators)."""
    with connect(store) as conn:
        rows = conn.execute(select(h_.c.name, h_.c["items"], func.count(s_.c.id),
                                   func.coalesce(func.sum(case((s_.c.done, 1), else_=0)), 0))
                            .join(s_, s_.c.hit_id == h_.c.id).where(h_.c.collect_id == collect_id)
                            .group_by(h_.c.id, h_.c.name, h_.c["items"]).order_by(h_.c.id)).all()
    return pd.DataFrame(rows, columns=["hit", "items", "slots", "slots_done"]).astype(
        {"items": int, "slots": int, "slots_done": int})


def assignments(store: Store, collect_id: int) -> pd.DataFrame:
    """Every assignment: annotator, hit, status, started_at, completed_at, answers (items answered)."""
    answered = (select(r_.c.assignment_id, func.count(r_.c.id).label("n")).group_by(r_.c.assignment_id)
                .subquery())
    q = (select(a_.c.name, h_.c.name, g_.c.status, g_.c.started_at, g_.c.completed_at,
                func.coalesce(answered.c.n, 0))
         .join(a_, a_.c.id == g_.c.annotator_id).join(h_, h_.c.id == g_.c.hit_id)
         .outerjoin(answered, answered.c.assignment_id == g_.c.id)
         .where(a_.c.collect_id == collect_id).order_by(g_.c.id))
    with connect(store) as conn:
        rows = conn.execute(q).all()
    return pd.DataFrame(rows, columns=["annotator", "hit", "status", "started_at", "completed_at", "answers"])


def collected_answers(store: Store, collect_id: int) -> pd.DataFrame:
    """Every counted answer with what it answered, in answer order: annotator, origin, hit, position,
    item_type, system, segment, doc, raw, spans (JSON text), started_at, ended_at, status (of the
    assignment), qc_pass (the annotator's latest verdict)."""
    q = (select(a_.c.name, a_.c.origin, h_.c.name, i_.c.position, i_.c.item_type, i_.c.system, i_.c.segment,
                i_.c.doc, r_.c.raw, r_.c.spans, r_.c.started_at, r_.c.ended_at, g_.c.status, a_.c.qc_pass)
         .join(g_, g_.c.id == r_.c.assignment_id).join(a_, a_.c.id == g_.c.annotator_id)
         .join(i_, i_.c.id == r_.c.item_id).join(h_, h_.c.id == i_.c.hit_id)
         .where(and_(h_.c.collect_id == collect_id, i_.c.position.is_not(None), r_.c.final == True,  # noqa: E712
                     h_.c.kind.in_(("task", "page")))).order_by(r_.c.id))
    with connect(store) as conn:
        rows = conn.execute(q).all()
    return pd.DataFrame(rows, columns=["annotator", "origin", "hit", "position", "item_type", "system", "segment",
                                       "doc", "raw", "spans", "started_at", "ended_at", "status", "qc_pass"])


def revision(store: Store, campaign: str) -> str:
    """Changes whenever an answer of the campaign's annotation campaigns is stored or reset ("0-0": none)."""
    q = (select(func.count(r_.c.id), func.max(r_.c.id)).join(g_, g_.c.id == r_.c.assignment_id)
         .join(h_, h_.c.id == g_.c.hit_id).join(c_, c_.c.id == h_.c.collect_id)
         .join(m.language_pairs, m.language_pairs.c.id == c_.c.lp_id)
         .join(m.campaigns, m.campaigns.c.id == m.language_pairs.c.campaign_id)
         .where(m.campaigns.c.name == campaign))
    with connect(store) as conn:
        count, last = conn.execute(q).one()
    return f"{int(count or 0)}-{int(last or 0)}"
