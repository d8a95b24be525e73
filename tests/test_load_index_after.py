"""The fast judgment load (keys and indexes built after the rows, SQLite's per-row foreign-key checks
replaced by one check per parent) stores exactly what the plain load stores, leaves the schema as
migrated, and still refuses a judgment that is already stored, on both back ends."""

from __future__ import annotations

import contextlib
import uuid

import pandas as pd
import pytest
from sqlalchemy import create_engine, inspect, text

import leaderboard.storage.loader as loader
from conftest import PG_URL, pg_available
from formats import small_campaign
from leaderboard.errors import InputError
from leaderboard.ingest import read_judgments
from leaderboard.schema import validate_judgments
from leaderboard.storage import Store

TABLES = ("campaigns", "language_pairs", "workers", "segments", "systems", "judgments")
VOLATILE = {"created_at"}  # load times


def release(shared) -> pd.DataFrame:
    base = shared / "wmt22-toen-da"
    return read_judgments(base / "ad-lven-good-stnd.csv", "wmt-stnd", worker_stats=base / "ad-lven-trk-mean-sd.txt",
                          campaign="wmt22")


def stored_rows(store: Store) -> dict[str, list[tuple]]:
    """Every row of the judgment tables, ids included, in id order (load times left out)."""
    out = {}
    with store.engine.connect() as conn:
        for table in TABLES:
            columns = [c["name"] for c in inspect(conn).get_columns(table) if c["name"] not in VOLATILE]
            out[table] = [tuple(r) for r in conn.execute(text(f"SELECT {', '.join(columns)} FROM {table} ORDER BY id"))]
    return out


def schema_of(store: Store) -> dict:
    """Keys, indexes and foreign keys of the judgments table, as the database reports them."""
    with store.engine.connect() as conn:
        ins = inspect(conn)
        described = {
            "pk": ins.get_pk_constraint("judgments"),
            "unique": sorted(ins.get_unique_constraints("judgments"), key=lambda c: c["name"]),
            "indexes": sorted(ins.get_indexes("judgments"), key=lambda i: i["name"]),
            "foreign_keys": sorted(ins.get_foreign_keys("judgments"), key=lambda f: f["name"]),
            # keys of other tables that point at judgments (collected answers) rest on its primary key
            "referenced_by": sorted((table, fk["name"], tuple(fk["constrained_columns"]))
                                    for table in ins.get_table_names() for fk in ins.get_foreign_keys(table)
                                    if fk["referred_table"] == "judgments"),
        }
        if conn.dialect.name == "postgresql":
            described["definitions"] = sorted(conn.execute(text(
                "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'judgments' "
                "AND schemaname = current_schema()")).all())
            described["constraints"] = sorted(conn.execute(text(
                "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
                "WHERE conrelid = 'judgments'::regclass OR confrelid = 'judgments'::regclass")).all())
        else:
            described["definitions"] = sorted(conn.execute(text(
                "SELECT name, sql FROM sqlite_master WHERE tbl_name = 'judgments'")).all())
    return described


def load(url: str, frame: pd.DataFrame, monkeypatch, index_after: bool) -> Store:
    seen = []

    def decide(conn, n_rows):
        seen.append(n_rows)
        return index_after
    monkeypatch.setattr(loader, "_index_after", decide)
    store = Store(url)
    store.load_judgments(frame, file_name="ad-lven-good-stnd.csv", input_format="wmt-stnd", sha256="f")
    assert seen, "the loader asked which way to load"
    return store


@pytest.fixture(params=["sqlite", "postgres"])
def two_urls(request, tmp_path):
    """Two empty stores on one back end (PostgreSQL: two scratch schemas; skipped when absent)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'plain.sqlite'}", f"sqlite:///{tmp_path / 'fast.sqlite'}"
        return
    if not pg_available():
        pytest.skip("PostgreSQL is not reachable on 127.0.0.1:5432")
    schemas = ["t_" + uuid.uuid4().hex[:12] for _ in range(2)]
    engine = create_engine(PG_URL)
    with engine.begin() as conn:
        for schema in schemas:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    yield tuple(f"{PG_URL}?options=-csearch_path%3D{schema}" for schema in schemas)
    with engine.begin() as conn:
        for schema in schemas:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    engine.dispose()


def test_fast_and_plain_loads_store_the_same_rows(shared, two_urls, monkeypatch):
    frame = release(shared)
    plain_url, fast_url = two_urls
    plain = load(plain_url, frame, monkeypatch, index_after=False)
    migrated = schema_of(Store(fast_url))
    fast = load(fast_url, frame, monkeypatch, index_after=True)
    assert stored_rows(fast) == stored_rows(plain)
    back = fast.judgments("wmt22")
    given = frame.reset_index(drop=True)
    # the document is kept per judgment: a WMT22 segment number recurs across documents
    assert given.groupby(["lp", "segment"])["doc"].nunique().max() > 1
    pd.testing.assert_frame_equal(back, given, check_dtype=False)
    assert (back["z"].to_numpy() == frame["z"].to_numpy()).all()  # bit for bit
    assert migrated["referenced_by"], "the collected answers' key on judgments is part of the schema"
    assert schema_of(fast) == migrated  # every key and index is back, defined as migrated
    plain.engine.dispose()
    fast.engine.dispose()


def test_an_empty_table_takes_the_fast_load(db_url):
    store = Store(db_url)
    with store.engine.connect() as conn:
        assert loader._index_after(conn, 1)
    store.load_judgments(validate_judgments(small_campaign(seed=0).assign(campaign="c")), file_name="a.csv",
                         input_format="canonical")
    with store.engine.connect() as conn:
        stored = conn.execute(text("SELECT count(*) FROM judgments")).scalar()
        assert loader._index_after(conn, stored) and not loader._index_after(conn, stored - 1)


def test_a_stored_judgment_in_a_large_load_is_refused_and_nothing_changes(db_url):
    store = Store(db_url)
    first = validate_judgments(small_campaign(seed=0).assign(campaign="c"))
    store.load_judgments(first, file_name="a.csv", input_format="canonical")
    schema = schema_of(store)
    rows = stored_rows(store)
    bigger = validate_judgments(small_campaign(seed=1, n_workers=12).assign(
        campaign="c", worker=lambda f: f["worker"] + "-b"))
    upload = pd.concat([bigger, first.iloc[[3]]], ignore_index=True)
    with store.engine.connect() as conn:
        assert loader._index_after(conn, len(upload))  # the fast way: the unique key is rebuilt
    with pytest.raises(InputError, match="already stored"):
        store.load_judgments(upload, file_name="b.csv", input_format="canonical")
    assert stored_rows(store) == rows
    assert schema_of(store) == schema


def test_sqlite_checks_foreign_keys_again_after_a_load(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 's.sqlite'}")
    frame = validate_judgments(small_campaign(seed=0).assign(campaign="c"))
    store.load_judgments(frame, file_name="a.csv", input_format="canonical")
    with pytest.raises(InputError):
        store.load_judgments(frame, file_name="b.csv", input_format="canonical")  # refused: same keys
    for _ in range(3):  # every pooled connection
        with store.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            with pytest.raises(Exception, match="FOREIGN KEY"):
                conn.exec_driver_sql("INSERT INTO workers (campaign_id, name) VALUES (999, 'nobody')")


def _spy_fast_path(monkeypatch) -> list[int]:
    """Counts the loads that drop and rebuild the judgments' keys."""
    entered: list[int] = []
    rebuild = loader._indexes_built_after

    def counted(conn, n_rows, *args, **kwargs):
        entered.append(n_rows)
        return rebuild(conn, n_rows, *args, **kwargs)
    monkeypatch.setattr(loader, "_indexes_built_after", counted)
    return entered


@pytest.mark.parametrize("holder", ["SELECT count(*) FROM judgments",  # a reader of judgments
                                    # an annotator's answer being stored (the lock its insert takes)
                                    "LOCK TABLE collect_answers IN ROW EXCLUSIVE MODE"])
def test_postgres_load_waits_for_nobody_to_take_the_fast_path(pg_url, monkeypatch, holder):
    """While another transaction uses judgments or the answers pointing at it, a load that could rebuild
    the keys loads the ordinary way at once (it would wait for that transaction, and two such loads for
    each other); alone, it rebuilds."""
    import threading

    entered = _spy_fast_path(monkeypatch)
    store = Store(pg_url)
    first = validate_judgments(small_campaign(seed=0).assign(campaign="c"))
    reader = store.engine.connect()
    reading = reader.begin()
    reader.execute(text(holder))  # held until the transaction ends
    done: list = []
    load = threading.Thread(target=lambda: done.append(
        store.load_judgments(first, file_name="a.csv", input_format="canonical")))
    load.start()
    load.join(120)
    alive = load.is_alive()
    with store.engine.connect() as conn:  # nothing of the load's is left waiting or held
        waiting = conn.execute(text("SELECT count(*) FROM pg_locks WHERE NOT granted")).scalar()
    reading.rollback()
    reader.close()
    load.join(120)
    assert not alive, "the load waited for the reader's transaction"
    assert waiting == 0 and done and done[0]["judgments"] == len(first)
    assert entered == []  # the ordinary path, although the table was empty
    bigger = validate_judgments(small_campaign(seed=1, n_workers=8).assign(campaign="d"))
    store.load_judgments(bigger, file_name="b.csv", input_format="canonical")
    assert entered == [len(bigger)]  # alone and larger than what is stored: keys built after the rows
    assert len(store.judgments("c")) == len(first) and len(store.judgments("d")) == len(bigger)


def test_postgres_fast_load_holds_the_table_until_its_commit(pg_url, monkeypatch):
    """A load that rebuilds the keys holds judgments and the answers pointing at it exclusively."""
    seen: list = []
    store = Store(pg_url)
    rebuild = loader._indexes_built_after

    @contextlib.contextmanager
    def observed(conn, n_rows, *args, **kwargs):
        with rebuild(conn, n_rows, *args, **kwargs):
            yield
            with create_engine(pg_url).connect() as other:  # what the server says about this transaction
                seen.extend(other.execute(text(
                    "SELECT c.relname, l.mode FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
                    "WHERE l.pid = :pid AND l.granted AND c.relname IN ('judgments', 'collect_answers')"),
                    {"pid": conn.exec_driver_sql("SELECT pg_backend_pid()").scalar()}).all())
    monkeypatch.setattr(loader, "_indexes_built_after", observed)
    store.load_judgments(validate_judgments(small_campaign(seed=0).assign(campaign="c")), file_name="a.csv",
                         input_format="canonical")
    assert {("collect_answers", "AccessExclusiveLock"), ("judgments", "AccessExclusiveLock")} <= set(seen)
