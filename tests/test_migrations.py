"""The alembic migrations build exactly the schema the code declares, on both back ends."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from leaderboard.storage import Store
from leaderboard.storage.models import metadata


@pytest.fixture(autouse=True)
def replay_migrations(monkeypatch):
    """These tests check the migrations themselves: no store here is a copy of a migrated template."""
    monkeypatch.delenv("MTLB_SCHEMA_TEMPLATES", raising=False)


def test_migrated_schema_matches_models(db_url):
    store = Store(db_url)
    with store.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), metadata)
    assert diff == []


def test_segments_are_lines_flag(db_url):
    store = Store(db_url)
    store.create_campaign("c")
    # off unless an organiser says so: a wrong "yes" pairs texts with the wrong scores
    assert store.campaign_info("c")["segments_are_lines"] is False
    store.set_segments_are_lines("c", True)
    assert store.campaign_info("c")["segments_are_lines"] is True
    store.create_campaign("d", segments_are_lines=True)
    assert store.campaign_info("d")["segments_are_lines"] is True


def test_existing_campaigns_keep_their_segments_are_lines(db_url):
    """Upgrading from 0003 keeps every stored value; campaigns made afterwards start with False."""
    from alembic import command
    from sqlalchemy import create_engine, text

    from leaderboard.storage.db import _alembic_config

    engine = create_engine(db_url)
    cfg = _alembic_config(db_url)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0003")
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO campaigns (name, description, created_at) VALUES "
                          "('old-default', '', CURRENT_TIMESTAMP)"))
        conn.execute(text("INSERT INTO campaigns (name, description, created_at, segments_are_lines) VALUES "
                          "('old-false', '', CURRENT_TIMESTAMP, false)"))
    engine.dispose()
    store = Store(db_url)  # migrates to head
    assert store.campaign_info("old-default")["segments_are_lines"] is True
    assert store.campaign_info("old-false")["segments_are_lines"] is False
    with store.engine.begin() as conn:
        conn.execute(text("INSERT INTO campaigns (name, description, created_at) VALUES "
                          "('new', '', CURRENT_TIMESTAMP)"))
    assert store.campaign_info("new")["segments_are_lines"] is False


def test_new_sqlite_store_from_template_has_the_migrated_schema(tmp_path, monkeypatch):
    """A store copied from the kept template holds exactly the schema the migrations build, in WAL mode,
    and a store that is not empty is never overwritten by the template."""
    import sqlite3

    monkeypatch.setenv("MTLB_SCHEMA_TEMPLATES", str(tmp_path / "templates"))
    migrated = Store(f"sqlite:///{tmp_path / 'first.sqlite'}")  # migrated step by step, then kept
    kept = list((tmp_path / "templates").glob("*.sqlite"))
    assert len(kept) == 1
    copied = Store(f"sqlite:///{tmp_path / 'second.sqlite'}")
    schema = "SELECT type, name, sql FROM sqlite_master ORDER BY type, name"
    with migrated.engine.connect() as a, copied.engine.connect() as b:
        assert a.exec_driver_sql(schema).fetchall() == b.exec_driver_sql(schema).fetchall()
        assert compare_metadata(MigrationContext.configure(b), metadata) == []
        assert b.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    copied.create_campaign("kept")
    copied.engine.dispose()
    from leaderboard.storage.db import _engine
    _engine.cache_clear()
    conn = sqlite3.connect(str(tmp_path / "second.sqlite"))
    conn.execute("DELETE FROM alembic_version")  # looks unmigrated, but holds a campaign
    conn.commit()
    conn.close()
    with pytest.raises(Exception):  # migrating from scratch over existing tables fails; nothing is copied over it
        Store(f"sqlite:///{tmp_path / 'second.sqlite'}")
    conn = sqlite3.connect(str(tmp_path / "second.sqlite"))
    assert conn.execute("SELECT name FROM campaigns").fetchall() == [("kept",)]
    conn.close()
