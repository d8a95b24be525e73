"""Engine creation and schema migration; the only place that knows where the database lives."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, create_engine, event

MIGRATIONS = Path(__file__).with_name("migrations")


def default_url() -> str:
    """``DATABASE_URL`` if set, else an SQLite file under the user's data directory."""
    url = os.environ.get("DATABASE_URL")
    if url:
        if url.startswith("postgresql://") or url.startswith("postgres://"):
            url = "postgresql+psycopg://" + url.split("://", 1)[1]
        return url
    from platformdirs import user_data_dir
    folder = Path(os.environ.get("MTLB_DATA_DIR") or user_data_dir("mtlb", appauthor=False))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'mtlb.sqlite'}"


def _alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def get_engine(url: str | None = None) -> Engine:
    """One engine per URL (``DATABASE_URL`` / the default file when None), migrated on first use."""
    return _engine(url or default_url())


@lru_cache(maxsize=16)
def _engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": 30})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn, _record):  # pragma: no cover - trivial
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.close()
    else:
        engine = create_engine(url, pool_pre_ping=True)
    migrate(engine)
    return engine


def migrate(engine: Engine) -> None:
    """Apply pending alembic migrations (a no-op when the schema is current)."""
    cfg = _alembic_config(engine.url.render_as_string(hide_password=False))
    head = ScriptDirectory.from_config(cfg).get_current_head()
    with engine.begin() as conn:
        if MigrationContext.configure(conn).get_current_revision() == head:
            return
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
