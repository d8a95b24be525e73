"""Engine creation and schema migration; the only place that knows where the database lives.

Any number of processes (CLI commands, app replicas) may open a store that has never been used:
the schema is upgraded under a lock that admits one migrator at a time (a PostgreSQL advisory lock
held by the migrating transaction; on SQLite an exclusive ``flock`` on a file beside the database),
and the revision is read again once the lock is held, so the processes that waited find the work
done. ``MTLB_AUTO_MIGRATE=0`` makes a process refuse to migrate and ask for ``mtlb db upgrade``.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import zlib
from functools import lru_cache
from pathlib import Path
from typing import Iterator

import re
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, create_engine, event, inspect, text
from sqlalchemy.engine import make_url

from ..errors import InputError

if TYPE_CHECKING:  # alembic is imported only to migrate: a process on a current schema never loads it
    from alembic.config import Config

MIGRATIONS = Path(__file__).with_name("migrations")
#: SQLite waits this long (seconds) for another process's write transaction before giving up.
SQLITE_BUSY_TIMEOUT = 300


class SchemaNotCurrent(InputError):
    """The database schema is behind the code and this process may not upgrade it."""


def default_url() -> str:
    """``DATABASE_URL`` if set, else an SQLite file under the user's data directory."""
    url = os.environ.get("DATABASE_URL")
    if url:
        if url.startswith("postgresql://") or url.startswith("postgres://"):
            url = "postgresql+psycopg://" + url.split("://", 1)[1]
        return url
    from platformdirs import user_data_dir
    folder = Path(os.environ.get("MTLB_DATA_DIR") or user_data_dir("mtlb", appauthor=False))
    make_private_dir(folder)
    return f"sqlite:///{folder / 'mtlb.sqlite'}"


def make_private_dir(folder: Path) -> None:
    """Create ``folder`` (and missing parents) readable by the owner only; existing ones are left as they are."""
    missing = []
    here = folder
    while not here.exists() and here != here.parent:
        missing.append(here)
        here = here.parent
    for path in reversed(missing):
        with contextlib.suppress(FileExistsError):
            path.mkdir(mode=0o700)
            os.chmod(path, 0o700)  # mkdir's mode is reduced by the umask


def auto_migrate() -> bool:
    """False when ``MTLB_AUTO_MIGRATE`` is 0/false/no/off: only ``mtlb db upgrade`` migrates then."""
    return os.environ.get("MTLB_AUTO_MIGRATE", "1").strip().lower() not in ("0", "false", "no", "off")


def sqlite_path(url: str) -> Path | None:
    """The database file of an SQLite URL, or None for in-memory and non-SQLite URLs."""
    parsed = make_url(url)
    if not parsed.drivername.startswith("sqlite"):
        return None
    database = parsed.database or ""
    if database in ("", ":memory:") or database.startswith("file:") or parsed.query.get("mode") == "memory":
        return None
    return Path(database)


def _alembic_config(url: str) -> "Config":
    from alembic.config import Config
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


_REVISION = re.compile(r'^(down_revision|revision)\s*=\s*["\']([^"\']*)["\']', re.MULTILINE)


@lru_cache(maxsize=1)
def head_revision() -> str:
    """The newest migration revision this code knows.

    Read from the migration files' ``revision`` / ``down_revision`` lines (the one revision no other
    names as its parent) without importing alembic; alembic's own reading when that is not one head."""
    revisions, parents = set(), set()
    for path in (MIGRATIONS / "versions").glob("*.py"):
        found = dict(m.groups() for m in _REVISION.finditer(path.read_text(encoding="utf-8")))
        if "revision" in found:
            revisions.add(found["revision"])
            parents.add(found.get("down_revision"))
    heads = revisions - parents
    if len(heads) == 1:
        return heads.pop()
    from alembic.script import ScriptDirectory
    return ScriptDirectory.from_config(_alembic_config("sqlite://")).get_current_head()


def get_engine(url: str | None = None) -> Engine:
    """One engine per URL (``DATABASE_URL`` / the default file when None), migrated on first use."""
    return _engine(url or default_url())


@lru_cache(maxsize=16)
def _engine(url: str) -> Engine:
    engine = make_engine(url)
    ensure_schema(engine)
    if not _OPEN_ENGINES:
        atexit.register(_dispose_all)
    _OPEN_ENGINES.append(engine)
    return engine


_OPEN_ENGINES: list[Engine] = []


def _dispose_all() -> None:
    """Close pooled connections at exit: a connection left to the garbage collector while the interpreter
    shuts down makes psycopg print "error ignored" / ResourceWarning lines."""
    for engine in _OPEN_ENGINES:
        with contextlib.suppress(Exception):
            engine.dispose()
    _OPEN_ENGINES.clear()


def make_engine(url: str, **options) -> Engine:
    """A new engine for ``url`` (not migrated); a new SQLite file is created owner-only (0600).

    ``options`` go to ``create_engine`` (e.g. ``pool_size`` for a process with many threads)."""
    if not url.startswith("sqlite"):
        return create_engine(url, pool_pre_ping=True, **options)
    path = sqlite_path(url)
    if path is not None and not path.exists():
        with contextlib.suppress(FileExistsError, FileNotFoundError):
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    engine = create_engine(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT}, **options)

    @event.listens_for(engine, "connect")
    def _sqlite_pragmas(dbapi_conn, _record):  # pragma: no cover - trivial
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA foreign_keys=ON")
        if path is not None:
            cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.close()
    return engine


def current_revision(engine: Engine) -> str | None:
    """The schema revision stored in the database (None when it was never migrated)."""
    with engine.connect() as conn:
        if not inspect(conn).has_table("alembic_version"):
            return None
        rows = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
        if len(rows) <= 1:
            return rows[0] if rows else None
        from alembic.migration import MigrationContext
        return MigrationContext.configure(conn).get_current_revision()  # several heads: alembic says so


def ensure_schema(engine: Engine) -> None:
    """Bring the schema to the head revision unless it is there already (the usual, lock-free case).

    Raises :class:`SchemaNotCurrent` instead of migrating when ``MTLB_AUTO_MIGRATE=0``.
    """
    head = head_revision()
    found = current_revision(engine)
    if found == head:
        return
    if not auto_migrate():
        raise SchemaNotCurrent(
            f"the database schema is at revision {found or 'none (empty database)'} and this version "
            f"of mtlb needs {head}; run `mtlb db upgrade` (MTLB_AUTO_MIGRATE=0 stops other commands "
            "from migrating)")
    upgrade(engine)


def upgrade(engine: Engine) -> tuple[str | None, str]:
    """Apply pending migrations under the migration lock; returns (revision before, revision after)."""
    from alembic import command
    from alembic.migration import MigrationContext
    from alembic.script import ScriptDirectory
    cfg = _alembic_config(engine.url.render_as_string(hide_password=False))
    head = ScriptDirectory.from_config(cfg).get_current_head()
    with _migration_lock(engine), engine.begin() as conn:
        _lock_in_transaction(conn)
        before = MigrationContext.configure(conn).get_current_revision()
        if before != head:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")
    return before, head


def _lock_in_transaction(conn: Connection) -> None:
    """On PostgreSQL, wait for the advisory lock of this schema; the commit releases it."""
    if conn.dialect.name != "postgresql":
        return
    schema = conn.execute(text("SELECT current_database() || '.' || coalesce(current_schema(), '')")).scalar()
    key = zlib.crc32(f"mtlb schema migration {schema}".encode("utf-8"))
    conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})


@contextlib.contextmanager
def _migration_lock(engine: Engine) -> Iterator[None]:
    """On an SQLite file, hold an exclusive ``flock`` on ``<database>.migrate-lock``."""
    path = sqlite_path(engine.url.render_as_string(hide_password=False))
    if path is None:
        yield
        return
    import fcntl
    lock_file = path.with_name(path.name + ".migrate-lock")
    fd = os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock
