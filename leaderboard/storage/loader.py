"""Storing a validated judgments frame: dimension rows, the import record and the judgment rows.

Safe when several processes load at once: campaign, language-pair, worker, segment and system rows
are inserted with ``ON CONFLICT DO NOTHING`` (in sorted order) and read back, so two processes
creating the same name both get the one row. On PostgreSQL a transaction-level advisory lock per
campaign serialises loads into the same campaign (loads into different campaigns run in parallel);
a load takes the locks of all its campaigns first, in name order, before it touches any table. On
SQLite the first write takes the database's write lock, with the same effect.

PostgreSQL bulk path: the judgment rows go in with one ``COPY`` in the binary format (built by
:mod:`leaderboard.storage.pgbinary`). Their five foreign keys are checked set-based first —
every referenced row is locked ``FOR KEY SHARE`` and counted, which is what the per-row foreign-key
triggers would do a million times — and, when the role may set ``session_replication_role`` (a
superuser, or ``GRANT SET ON PARAMETER session_replication_role`` on PostgreSQL 15+), the per-row
triggers are skipped for that one statement. Without that right the triggers run as usual (slower,
same result). Unique keys are enforced by the unique index either way.

Load first, index after: a load at least as large as the judgments already stored drops the
table's keys and indexes and builds them again from the loaded rows before the commit (PostgreSQL:
primary key, unique key and index, by a role that owns the table; SQLite: its index; its unique key
is a table constraint that stays), see :func:`_index_after` for the measurements behind the rule.
On PostgreSQL that needs the judgments table (and the tables whose foreign keys point at it) to
itself: the load asks for their ``ACCESS EXCLUSIVE`` lock without waiting (``NOWAIT``), right before
its ``COPY`` and after every other lock it takes, and only when nobody else is reading or writing
judgments at that instant. When another load, a reader or an annotator's answer holds the table, the
load takes the ordinary path (rows into the indexed table) instead: it never waits for that lock
while holding others, so no two loads can deadlock over it. Once granted, the lock is held until the
commit: other loads, readers and answers wait for that load, which itself waits for nobody. On
SQLite, the write lock already gives the load the table to itself; :meth:`Store.load_judgments`
switches the per-row foreign-key checks off for the transaction and the loader counts each
referenced row once instead.
"""

from __future__ import annotations

import contextlib
import json
import zlib
from typing import Any, Callable, Iterator

import numpy as np
import pandas as pd
from sqlalchemy import Connection, Table, UniqueConstraint, and_, func, insert, select, text

from ..errors import InputError
from ..naming import check_name
from . import models as m
from .bulk import copy_postgres, insert_frame
from .pgbinary import types_of

JUDGMENT_COLUMNS = ("import_id", "lp_id", "assessment", "worker_id", "hit", "position", "segment_id",
                    "system_id", "item_type", "raw", "z", "seconds", "doc")
#: judgments column -> the table its foreign key references
JUDGMENT_PARENTS = {"import_id": "imports", "lp_id": "language_pairs", "worker_id": "workers",
                    "segment_id": "segments", "system_id": "systems"}
_CAMPAIGN_LOCK_CLASS = 0x6D746C62  # "mtlb": first half of the two-key advisory lock of a campaign
#: page cache of an SQLite connection while it loads judgments (KiB; the default is 2 MiB)
SQLITE_LOAD_CACHE_KIB = 512 * 1024
#: most memory a PostgreSQL index build of a load may sort in (maintenance_work_mem, MiB)
MAX_INDEX_MEMORY_MIB = 1024


def insert_ignore(conn: Connection, table: Table):
    """``INSERT ... ON CONFLICT DO NOTHING`` for the connection's dialect."""
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as dialect_insert
    else:
        from sqlalchemy.dialects.sqlite import insert as dialect_insert
    return dialect_insert(table).on_conflict_do_nothing()


def take_write_lock(conn: Connection) -> None:
    """On SQLite, start the transaction with the database's write lock (``BEGIN IMMEDIATE``): a deferred
    transaction that must turn a read into a write can be refused at once ("database is locked")
    instead of waiting for another writer. Other dialects lock rows and keys as they go."""
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def lock_campaign(conn: Connection, name: str) -> None:
    """On PostgreSQL, wait for the campaign's advisory lock (released at commit or rollback)."""
    if conn.dialect.name == "postgresql":
        key = zlib.crc32(name.encode("utf-8"))
        key -= (1 << 32) if key >= (1 << 31) else 0  # int4
        conn.execute(text("SELECT pg_advisory_xact_lock(:a, :b)"), {"a": _CAMPAIGN_LOCK_CLASS, "b": key})


def campaign_id_for_write(conn: Connection, name: str) -> int:
    """The id of campaign ``name``, created when missing; holds the campaign's write lock from here on."""
    check_name(name, "campaign name")
    lock_campaign(conn, name)
    conn.execute(insert_ignore(conn, m.campaigns).values(name=name, description="", created_at=m.now()))
    return conn.execute(select(m.campaigns.c.id).where(m.campaigns.c.name == name)).scalar_one()


def lp_id_for_write(conn: Connection, campaign_id: int, lp: str) -> int:
    """The id of language pair ``lp`` of a campaign, created when missing."""
    lpt = m.language_pairs
    conn.execute(insert_ignore(conn, lpt).values(campaign_id=campaign_id, lp=lp))
    return conn.execute(select(lpt.c.id).where(and_(lpt.c.campaign_id == campaign_id, lpt.c.lp == lp))).scalar_one()


def dimension_ids(conn: Connection, table: Table, parent_col: str, name_col: str, parents: np.ndarray,
                  names: np.ndarray, docs: np.ndarray | None = None) -> np.ndarray:
    """Ids of the distinct (parent id, name) pairs in a dimension table, inserting the missing ones.

    ``docs`` (segments only) gives each new row its document id.
    """
    parents = parents.astype(np.int64)
    names = np.asarray([str(n) for n in names], dtype=object)
    keys = list(zip(parents.tolist(), names.tolist()))  # one per distinct (parent, name): not per judgment

    def stored() -> np.ndarray:
        # on the DBAPI cursor: SQLAlchemy's row objects cost a second per 40k rows
        mark = "%s" if conn.dialect.name == "postgresql" else "?"
        cur = conn.connection.driver_connection.cursor()
        try:
            found: dict[tuple[int, str], int] = {}
            for parent in np.unique(parents).tolist():
                cur.execute(f'SELECT "{name_col}", id FROM {table.name} WHERE {parent_col} = {mark}', (parent,))
                found.update(((parent, name), i) for name, i in cur.fetchall())
        finally:
            cur.close()
        return np.array([found.get(k, -1) for k in keys], dtype=np.int64)

    ids = stored()
    missing = np.flatnonzero(ids < 0)
    if missing.size:
        # one insertion order for every process, so concurrent loads cannot deadlock
        missing = missing[np.lexsort((names[missing].astype(str), parents[missing]))]
        rows = pd.DataFrame({parent_col: parents[missing], name_col: names[missing]})
        if docs is not None:
            rows["doc"] = [None if pd.isna(d) else str(d) for d in docs[missing]]
        if conn.dialect.name == "postgresql":
            _insert_rows_postgres(conn, table, rows)
        else:  # on the DBAPI cursor: SQLAlchemy's executemany of dictionaries costs seconds for 40k rows
            columns = list(rows.columns)
            conn.connection.driver_connection.executemany(
                f"INSERT INTO {table.name} ({_quoted(columns)}) VALUES ({', '.join('?' * len(columns))}) "
                "ON CONFLICT DO NOTHING", list(zip(*(rows[c].tolist() for c in columns))))
        ids = stored()
    return ids


def _quoted(columns: list[str]) -> str:
    return ", ".join(f'"{c}"' for c in columns)


def _insert_rows_postgres(conn: Connection, table: Table, rows: pd.DataFrame) -> None:
    """One set-based insert from arrays (an executemany of 40k segment rows takes seconds).

    The rows' one foreign key names a campaign or language pair read or written in this
    transaction, so when the role may, the per-row foreign-key triggers are skipped as for the
    judgments (:func:`_may_skip_row_triggers`); the unique key still turns duplicates away.
    """
    types = {"campaign_id": "int[]", "lp_id": "int[]"}
    cols = list(rows.columns)
    arrays = ", ".join(f"CAST(%s AS {types.get(c, 'text[]')})" for c in cols)
    sql = (f"INSERT INTO {table.name} ({_quoted(cols)}) SELECT {', '.join('u.' + c for c in cols)} "
           f"FROM unnest({arrays}) WITH ORDINALITY AS u({', '.join(cols)}, k) ORDER BY u.k "
           "ON CONFLICT DO NOTHING")
    with conn.connection.driver_connection.cursor() as cur:
        skip_triggers = _may_skip_row_triggers(cur)
        if skip_triggers:
            cur.execute("SET LOCAL session_replication_role = replica")
        cur.execute(sql, [rows[c].tolist() for c in cols])
        if skip_triggers:
            cur.execute("SET LOCAL session_replication_role = origin")


def _row_ids(conn: Connection, table: Table, parent_col: str, name_col: str, parent_per_row: np.ndarray,
             values: pd.Categorical, docs: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Per-row dimension ids of ``values`` (names) under each row's parent, creating missing rows.

    ``docs`` (codes per row, -1 for none; distinct values) gives new segments their document: the
    first one given for the segment.
    """
    names = np.asarray(values.categories, dtype=object)
    pair_key = parent_per_row.astype(np.int64) * len(names) + values.codes.astype(np.int64)
    inverse, pairs = pd.factorize(pair_key)
    first_doc = None
    if docs is not None:
        doc_codes, doc_names = docs
        first_doc = np.full(len(pairs), None, dtype=object)
        given = np.flatnonzero(doc_codes >= 0)
        groups, first = np.unique(inverse[given], return_index=True)
        first_doc[groups] = doc_names[doc_codes[given[first]]]
    ids = dimension_ids(conn, table, parent_col, name_col, pairs // len(names), names[pairs % len(names)], first_doc)
    return ids[inverse]


def _text_codes(values: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Codes (-1 for missing) and distinct values as ``str`` of a text column; Arrow-backed columns are
    encoded by Arrow, never turned into a million Python strings."""
    codes, uniques = values.factorize()
    names = np.array([str(u) for u in uniques], dtype=object)
    if len(set(names)) != len(names):  # values of other types that print alike (1 and "1"): merge them
        merged, names = pd.factorize(names)
        codes = np.where(codes >= 0, merged[np.maximum(codes, 0)], -1)
        names = np.asarray(names, dtype=object)
    return np.asarray(codes, dtype=np.int64), names


def _doc_codes(values: pd.Series, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    codes, names = _text_codes(values)
    return codes[order], names


def _categorical(values: pd.Series, order: np.ndarray) -> pd.Categorical:
    """The column as text categories, rows taken in ``order`` (codes move, strings do not)."""
    codes, names = _text_codes(values)
    return pd.Categorical.from_codes(codes[order], categories=pd.Index(names, dtype=object), validate=False)


def store_judgments(conn: Connection, frame: pd.DataFrame, *, file_name: str, input_format: str,
                    sha256: str, created_by: str | None,
                    progress: Callable[[int], None] | None,
                    also: Callable[[Connection, str, int, int], None] | None = None) -> dict[str, Any]:
    """Write a validated frame inside the caller's transaction; see :meth:`Store.load_judgments`.

    Rows are stored grouped by language pair (in name order), in file order within each pair.
    """
    summary: dict[str, Any] = {"file": file_name, "judgments": 0, "campaigns": [], "lps": []}
    parts = list(frame.groupby("campaign", sort=True))
    # every campaign's lock before anything else, in name order: a load never waits for a campaign's
    # lock while it holds locks of the tables (see the module's docstring)
    campaign_ids = {str(campaign): campaign_id_for_write(conn, str(campaign)) for campaign, _ in parts}
    for campaign, part in parts:
        cid = campaign_ids[str(campaign)]
        seen = conn.execute(select(m.imports.c.id, m.imports.c.file_name, m.imports.c.created_at)
                            .where(and_(m.imports.c.campaign_id == cid, m.imports.c.sha256 == sha256,
                                        m.imports.c.kind == "judgments"))).first()
        if seen is not None:
            raise InputError(f"this data was already imported into campaign {campaign!r} "
                             f"(import #{seen.id} of {seen.file_name} at {seen.created_at:%Y-%m-%d %H:%M})",
                             file=file_name)
        import_id = conn.execute(insert(m.imports).values(
            campaign_id=cid, kind="judgments", file_name=file_name, sha256=sha256,
            input_format=input_format, rows=len(part), created_at=m.now(), created_by=created_by,
        ).returning(m.imports.c.id)).scalar_one()
        lp_codes, lps = _text_codes(part["lp"])
        rank = np.empty(len(lps), dtype=np.int64)
        rank[np.argsort(lps.astype(str), kind="stable")] = np.arange(len(lps))
        lp_codes, lps = rank[lp_codes], np.sort(lps.astype(str))
        order = np.argsort(lp_codes, kind="stable")
        lp_ids = np.array([lp_id_for_write(conn, cid, str(lp)) for lp in lps], dtype=np.int64)[lp_codes[order]]
        n = len(part)
        segment_ids = _row_ids(conn, m.segments, "lp_id", "key", lp_ids, _categorical(part["segment"], order),
                               docs=_doc_codes(part["doc"], order))
        out = pd.DataFrame({
            "import_id": np.full(n, import_id, dtype=np.int64),
            "lp_id": lp_ids,
            "assessment": _categorical(part["assessment"], order),
            "worker_id": _row_ids(conn, m.workers, "campaign_id", "name", np.full(n, cid),
                                  _categorical(part["worker"], order)),
            "hit": _categorical(part["hit"], order),
            "position": part["position"].to_numpy()[order],
            "segment_id": segment_ids,
            "system_id": _row_ids(conn, m.systems, "lp_id", "name", lp_ids, _categorical(part["system"], order)),
            "item_type": _categorical(part["item_type"], order),
            "raw": part["raw"].to_numpy(dtype=float)[order],
            "z": part["z"].to_numpy(dtype=float)[order],
            "seconds": part["seconds"].to_numpy(dtype=float)[order],
            "doc": _own_docs(conn, segment_ids, _categorical(part["doc"], order)),
        })
        summary["lps"] += [str(lp) for lp in lps]
        if conn.dialect.name == "postgresql":
            summary["judgments"] += _copy_judgments_postgres(conn, out, progress)
        else:
            summary["judgments"] += _insert_judgments_sqlite(conn, out, progress)
        if also is not None:  # what belongs to the same upload (e.g. ESA error spans)
            also(conn, str(campaign), cid, import_id)
        summary["campaigns"].append(str(campaign))
    return summary


def _own_docs(conn: Connection, segment_ids: np.ndarray, docs: pd.Categorical) -> pd.Categorical:
    """Each row's document id where it differs from its segment's stored one, else missing (NULL)."""
    uniq, inverse = np.unique(segment_ids, return_inverse=True)
    stored = dict(_rows_by_id(conn, "segments", "doc", uniq))
    seg_codes = pd.Categorical(np.array([stored.get(int(i)) for i in uniq], dtype=object),
                               categories=docs.categories).codes[inverse]  # -1: none, or not among the rows'
    differs = (docs.codes >= 0) & (docs.codes != seg_codes)
    if not differs.any():
        return pd.Categorical([None] * len(docs), categories=pd.Index([], dtype=object))
    codes = np.where(differs, docs.codes, -1)
    return pd.Categorical.from_codes(codes, categories=docs.categories, validate=False)


def _rows_by_id(conn: Connection, table: str, column: str, ids: np.ndarray) -> list[tuple[int, Any]]:
    """``(id, column)`` of the rows of ``table`` with these ids, in one statement on the DBAPI cursor
    (an ``IN`` list of bound parameters costs SQLAlchemy a tenth of a second per 10,000 ids)."""
    cur = conn.connection.driver_connection.cursor()
    try:
        if conn.dialect.name == "postgresql":
            cur.execute(f'SELECT id, "{column}" FROM {table} WHERE id = ANY(%s)', (ids.tolist(),))
        else:
            cur.execute(f'SELECT id, "{column}" FROM {table} WHERE id IN (SELECT value FROM json_each(?))',
                        (json.dumps(ids.tolist()),))
        return cur.fetchall()
    finally:
        cur.close()


def _sort_codes(values: pd.Series) -> np.ndarray:
    """Integer codes that sort like the values (categories ranked by their text)."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        rank = np.empty(len(values.cat.categories), dtype=np.int64)
        rank[np.argsort(np.asarray(values.cat.categories, dtype=str), kind="stable")] = np.arange(len(rank))
        return rank[values.cat.codes.to_numpy()]
    return values.to_numpy()


def _copy_judgments_postgres(conn: Connection, out: pd.DataFrame, progress: Callable[[int], None] | None) -> int:
    """COPY the rows with ids reserved in their order, sent sorted by the unique key.

    Sent in the unique index's order, the rows' insertions into that index land next to each other
    (a third less server time for a new language pair), and when the index is built afresh its sort
    finds them in order; the explicit ids keep the rows' own order for readers. A load at least as
    large as the table (:func:`_index_after`) drops the judgments' keys and indexes first and builds
    them again, from the sorted rows, before the commit.
    """
    driver = conn.connection.driver_connection
    with driver.cursor() as cur:
        _check_parents(conn, out, lock=True)
        ids = _reserve_ids(conn, len(out))
        out = out.assign(id=ids)[["id", *JUDGMENT_COLUMNS]]
        # the last step that takes a lock: the table to itself, or the ordinary path (module docstring)
        rebuild = _owns_judgments(cur) and _judgments_to_itself(conn, len(out), handed_out=int(ids[0]) - 1)
        key = [_sort_codes(out[c]) for c in ("position", "hit", "worker_id", "assessment", "lp_id")]
        out = out.iloc[np.lexsort(key)]
        skip_triggers = _may_skip_row_triggers(cur)
        if skip_triggers:
            cur.execute("SET LOCAL session_replication_role = replica")
        with _indexes_built_after(conn, len(out)) if rebuild else contextlib.nullcontext():
            copy_postgres(driver, "judgments", list(out.columns), out, progress,
                          types=types_of(m.judgments, list(out.columns)))
        if skip_triggers:
            cur.execute("SET LOCAL session_replication_role = origin")
    return len(out)


def _insert_judgments_sqlite(conn: Connection, out: pd.DataFrame, progress: Callable[[int], None] | None) -> int:
    """Insert the rows on SQLite (ids assigned in row order), its secondary index built after a large load.

    SQLite cannot drop the unique key (a table constraint), which stays in place; the page cache is
    enlarged for the load so that the key's index pages stay in memory instead of being written out
    and read back. Foreign keys are checked once per distinct parent when the caller has switched
    SQLite's per-row checks off (:func:`sqlite_foreign_keys_off`).
    """
    driver = conn.connection.driver_connection
    if not driver.execute("PRAGMA foreign_keys").fetchone()[0]:
        _check_parents(conn, out, lock=False)
    before = driver.execute("PRAGMA cache_size").fetchone()[0]
    driver.execute(f"PRAGMA cache_size = -{SQLITE_LOAD_CACHE_KIB}")
    try:
        with _indexes_built_after(conn, len(out), unique=False) if _index_after(conn, len(out)) \
                else contextlib.nullcontext():
            return insert_frame(conn, "judgments", out, progress)
    finally:
        driver.execute(f"PRAGMA cache_size = {int(before)}")


def _index_after(conn: Connection, n_rows: int) -> bool:
    """Whether a load of ``n_rows`` judgments should build the secondary indexes afterwards.

    Building an index from sorted rows costs a fraction of inserting the same rows one by one into
    pages spread over the index (each insertion dirties a page, and a page's first change after a
    checkpoint goes into PostgreSQL's WAL whole): measured on a million rows, COPY into the indexed
    table took six times the COPY into a bare one, loading first and indexing after about three times.
    Rebuilding also re-sorts the rows already stored, so it pays only while they are at most as many
    as the new ones; their number is bounded by the span of stored ids (read from the primary key).
    """
    lo, hi = conn.execute(select(func.min(m.judgments.c.id), func.max(m.judgments.c.id))).one()
    return n_rows >= (0 if hi is None else hi - lo + 1)


#: PostgreSQL's SQLSTATE for a lock that NOWAIT could not take at once (lock_not_available)
_LOCK_NOT_AVAILABLE = "55P03"


def _judgments_to_itself(conn: Connection, n_rows: int, handed_out: int) -> bool:
    """On PostgreSQL: True when this load may drop and rebuild the judgments' keys (:func:`_index_after`)
    and now holds the table, with the tables whose foreign keys point at it, in ``ACCESS EXCLUSIVE``
    mode until its commit; False (holding nothing more) otherwise.

    The lock is asked for with ``NOWAIT``, so the load never waits for it: when any other transaction
    uses one of these tables at this instant (another load's rows, a reader, an annotator's answer),
    it fails at once and the load takes the ordinary path. Were the load to wait instead, two loads
    that both hold a weaker lock on judgments would each wait for the other (a deadlock). The rule of
    :func:`_index_after` is read under the lock, where nobody can change the table; ``handed_out``
    (the judgment ids handed out before this load's) bounds the stored rows from above, so a load
    that cannot pass the rule does not take the lock at all.
    """
    from sqlalchemy.exc import OperationalError

    if n_rows < handed_out and not _index_after_possible(conn, n_rows):
        return False
    tables = ["judgments", *sorted({fk.parent.table.name for other in m.metadata.tables.values()
                                    for fk in other.foreign_keys if fk.column.table is m.judgments})]
    savepoint = conn.begin_nested()  # rolled back, it releases what it locked
    try:
        conn.exec_driver_sql(f"LOCK TABLE {', '.join(tables)} IN ACCESS EXCLUSIVE MODE NOWAIT")
    except OperationalError as exc:
        if getattr(exc.orig, "sqlstate", None) != _LOCK_NOT_AVAILABLE:
            raise
        savepoint.rollback()
        return False
    if not _index_after(conn, n_rows):
        savepoint.rollback()
        return False
    savepoint.commit()  # the locks stay with the transaction
    return True


def _index_after_possible(conn: Connection, n_rows: int) -> bool:
    """Whether :func:`_index_after` may still say yes although more ids than ``n_rows`` were handed
    out before: only after deletions (retracted imports, reset HITs), which the server's count of live
    rows (its statistics, a little behind) shows without a lock on the table."""
    live = conn.exec_driver_sql(
        "SELECT coalesce(n_live_tup, 0) FROM pg_stat_user_tables WHERE relid = 'judgments'::regclass").scalar()
    return live is not None and n_rows >= int(live)


def _owns_judgments(cur) -> bool:
    """True when this PostgreSQL role may alter the judgments table (owner, or member of the owner role)."""
    cur.execute("SELECT pg_has_role(current_user, relowner, 'USAGE') FROM pg_class WHERE oid = 'judgments'::regclass")
    return bool(cur.fetchone()[0])


@contextlib.contextmanager
def _indexes_built_after(conn: Connection, n_rows: int, unique: bool = True) -> Iterator[None]:
    """Drop the judgments' secondary indexes (and, with ``unique``, its primary and unique keys) for
    the block, then create them again from the table's definition in models.py, in the same transaction.

    Readers see the indexes throughout: until the commit they see the table as it was. On PostgreSQL
    the table is locked against other writers and readers until the commit (ACCESS EXCLUSIVE); a
    duplicate key fails the unique constraint when it is added again, which rolls the load back.
    """
    from sqlalchemy.schema import AddConstraint, CreateIndex, DropConstraint, DropIndex
    t = m.judgments
    # the primary key too: its index is built from the ids in one sort; the foreign keys that point
    # at judgments (collected answers) rest on that index, so they are dropped first and added last
    keys = [t.primary_key, *(c for c in t.constraints if isinstance(c, UniqueConstraint))] if unique else []
    referencing = sorted((fk for other in t.metadata.tables.values() for fk in other.foreign_key_constraints
                          if fk.referred_table is t), key=lambda fk: fk.name) if unique else []
    indexes = sorted(t.indexes, key=lambda i: i.name)
    postgres = conn.dialect.name == "postgresql"
    if postgres:  # the index builds sort in memory rather than in temporary files
        mib = int(min(MAX_INDEX_MEMORY_MIB, max(64, n_rows * 200 // 2**20)))
        conn.exec_driver_sql(f"SET LOCAL maintenance_work_mem = '{mib}MB'")
    for fk in referencing:
        conn.execute(DropConstraint(fk))
    for key in keys:
        conn.execute(DropConstraint(key))
    for index in indexes:
        conn.execute(DropIndex(index))
    yield
    for key in keys:
        conn.execute(AddConstraint(key))
    for index in indexes:
        conn.execute(CreateIndex(index))
    for fk in referencing:
        conn.execute(AddConstraint(fk))


def _check_parents(conn: Connection, out: pd.DataFrame, lock: bool) -> None:
    """Every referenced parent row exists: counted once per distinct id instead of once per row.

    ``lock`` (PostgreSQL) takes ``FOR KEY SHARE`` on them, which is what the per-row foreign-key
    triggers would do a million times. The ids were all read or written in this transaction, so a
    miss means a defect.
    """
    for column, parent in JUDGMENT_PARENTS.items():
        ids = np.unique(out[column].to_numpy()).tolist()
        if lock:
            found = conn.exec_driver_sql(
                f"SELECT count(*) FROM (SELECT 1 FROM {parent} WHERE id = ANY(%(ids)s) FOR KEY SHARE) AS x",
                {"ids": ids}).scalar_one()
        else:
            found = conn.exec_driver_sql(f"SELECT count(*) FROM {parent} WHERE id IN (SELECT value FROM json_each(?))",
                                         (json.dumps(ids),)).scalar_one()
        if found != len(ids):
            raise RuntimeError(f"{len(ids) - found} referenced {parent} rows are missing")


@contextlib.contextmanager
def sqlite_foreign_keys_off(conn: Connection) -> Iterator[None]:
    """On SQLite, switch the per-row foreign-key checks off for the transaction run inside the block.

    SQLite reads the setting only outside a transaction, so this runs before the block's ``begin()``
    and switches the checks on again after its end, on the same connection. The loader then checks
    each distinct parent once (:func:`_check_parents`): per row, the checks took about a third of
    the time of a million-row load. Other dialects: nothing changes.
    """
    if conn.dialect.name != "sqlite":
        yield
        return
    conn.exec_driver_sql("PRAGMA foreign_keys = OFF")
    conn.commit()
    try:
        yield
    finally:
        if conn.in_transaction():
            conn.rollback()
        conn.exec_driver_sql("PRAGMA foreign_keys = ON")
        conn.commit()


def _reserve_ids(conn: Connection, n: int) -> np.ndarray:
    """``n`` consecutive new judgment ids, taken from the id sequence in a short transaction of its own
    (sequences are not transactional) under an advisory lock that every loader takes for this."""
    with conn.engine.connect() as other:
        with other.begin():
            other.execute(text("SELECT pg_advisory_xact_lock(:a, 0)"), {"a": _CAMPAIGN_LOCK_CLASS + 1})
            last = other.execute(text(
                "SELECT setval(pg_get_serial_sequence('judgments', 'id'), "
                "nextval(pg_get_serial_sequence('judgments', 'id')) + :n - 1)"), {"n": n}).scalar_one()
    return np.arange(last - n + 1, last + 1, dtype=np.int64)


def _may_skip_row_triggers(cur) -> bool:
    """True when this role may set ``session_replication_role`` (superuser or granted on PG 15+)."""
    cur.execute("SELECT current_setting('is_superuser') = 'on', current_setting('server_version_num')::int")
    superuser, version = cur.fetchone()
    if superuser:
        return True
    if version < 150000:
        return False
    cur.execute("SELECT has_parameter_privilege('session_replication_role', 'SET')")
    return bool(cur.fetchone()[0])
