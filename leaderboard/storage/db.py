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
import re
import zlib
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Iterator
from urllib.parse import parse_qsl, unquote

from ..errors import InputError

if TYPE_CHECKING:  # alembic is imported only to migrate: a process on a current schema never loads it
    from alembic.config import Config
    from sqlalchemy import Connection, Engine  # SQLAlchemy loads with the first engine, not with this module

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


#: SQLAlchemy's own URL pattern (``sqlalchemy.engine.url``), so URLs are read here without importing it
_URL = re.compile(r"""
    (?P<name>[\w\+]+)://
    (?:
        (?P<username>[^:/]*)
        (?::(?P<password>[^@]*))?
    @)?
    (?:
        (?:
            \[(?P<ipv6host>[^/\?]+)\] |
            (?P<ipv4host>[^/:\?]+)
        )?
        (?::(?P<port>[^/\?]*))?
    )?
    (?:/(?P<database>[^\?]*))?
    (?:\?(?P<query>.*))?
    """, re.X)


def sqlite_path(url: str) -> Path | None:
    """The database file of an SQLite URL, or None for in-memory and non-SQLite URLs."""
    m = _URL.match(url)
    if m is None:
        from sqlalchemy.engine import make_url
        make_url(url)  # raises SQLAlchemy's own error for a URL it cannot parse either
        return None
    if not m["name"].startswith("sqlite"):
        return None
    database = unquote(m["database"]) if m["database"] is not None else ""
    query: dict[str, str | list[str]] = {}
    for key, value in parse_qsl(m["query"] or ""):  # a repeated key gives a list, as in SQLAlchemy
        before = query.get(key)
        query[key] = value if before is None else [*(before if isinstance(before, list) else [before]), value]
    if database in ("", ":memory:") or database.startswith("file:") or query.get("mode") == "memory":
        return None
    return Path(database)


def shown_url(url: str) -> str:
    """``url`` with its password hidden, for messages (an SQLite URL holds none)."""
    if sqlite_path(url) is not None:
        return url
    from sqlalchemy.engine import make_url
    return make_url(url).render_as_string(hide_password=True)


def stored_revision(url: str) -> str | None:
    """The schema revision of the database at ``url`` without creating or changing anything.

    An SQLite file is read with the standard library (read-only), so ``mtlb db current`` does not
    load SQLAlchemy; other databases are asked through an engine.
    """
    path = sqlite_path(url)
    if path is not None and path.is_file():
        import sqlite3
        from urllib.parse import quote
        conn = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True, timeout=SQLITE_BUSY_TIMEOUT)
        try:
            if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'alembic_version'").fetchone():
                rows = [r[0] for r in conn.execute("SELECT version_num FROM alembic_version")]
            else:
                rows = []
        finally:
            conn.close()
        if len(rows) <= 1:
            return rows[0] if rows else None
    engine = make_engine(url)  # several heads (alembic names the current one) or another database
    try:
        return current_revision(engine)
    finally:
        engine.dispose()


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
    from sqlalchemy import create_engine, event
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
    from sqlalchemy import inspect, text
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
    with _migration_lock(engine):
        if _copy_schema_template(engine, head):
            return None, head
        with engine.begin() as conn:
            _lock_in_transaction(conn)
            before = MigrationContext.configure(conn).get_current_revision()
            if before != head:
                cfg.attributes["connection"] = conn
                command.upgrade(cfg, "head")
        _keep_schema_template(engine, head)
    return before, head


#: A folder where an empty SQLite store migrated to each head revision is kept (``<revision>.sqlite``)
#: and copied into every new, empty SQLite store instead of replaying the migrations one by one.
#: Unset (the default), every store is migrated step by step. The test suite sets it: it creates
#: hundreds of stores, and a copy takes milliseconds where the migrations take about a second.
SCHEMA_TEMPLATE_ENV = "MTLB_SCHEMA_TEMPLATES"


def _template_path(engine: Engine, head: str) -> Path | None:
    folder = os.environ.get(SCHEMA_TEMPLATE_ENV)
    if not folder or sqlite_path(engine.url.render_as_string(hide_password=False)) is None:
        return None
    return Path(folder) / f"{head}.sqlite"


def _raw_sqlite(engine: Engine):
    """A DB-API connection to ``engine``'s SQLite file (closed by the caller)."""
    import sqlite3
    return sqlite3.connect(str(sqlite_path(engine.url.render_as_string(hide_password=False))),
                           timeout=SQLITE_BUSY_TIMEOUT)


def _copy_schema_template(engine: Engine, head: str) -> bool:
    """Copy the kept template of ``head`` into ``engine``'s SQLite file if that file is empty."""
    template = _template_path(engine, head)
    if template is None or not template.is_file():
        return False
    engine.dispose()  # no pooled connection may hold the file while its pages are replaced
    target = _raw_sqlite(engine)
    try:
        if target.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
            return False  # not empty (an older schema): migrate it step by step
        copy_sqlite(template, target)
    finally:
        target.close()
    return True


def copy_sqlite(source_path: Path, target) -> None:
    """Copy the SQLite database at ``source_path`` (opened read-only) into the open sqlite3 connection
    ``target`` page by page (consistent even while others use the source), in WAL mode as stores run."""
    import sqlite3
    source = sqlite3.connect(f"file:{source_path}?mode=ro", uri=True)
    try:
        source.backup(target)
    finally:
        source.close()
    target.execute("PRAGMA journal_mode=WAL")


def _keep_schema_template(engine: Engine, head: str) -> None:
    """Keep a copy of a store just migrated from empty to ``head`` as the template (written atomically)."""
    template = _template_path(engine, head)
    if template is None or template.is_file():
        return
    import sqlite3
    source = _raw_sqlite(engine)
    try:
        if source.execute("SELECT count(*) FROM alembic_version").fetchone()[0] != 1:
            return
        # only a store that holds nothing but the schema becomes a template
        tables = [r[0] for r in source.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "AND name != 'alembic_version'")]
        if any(source.execute(f'SELECT 1 FROM "{t}" LIMIT 1').fetchone() for t in tables):
            return
        template.parent.mkdir(parents=True, exist_ok=True)
        part = template.with_name(f"{template.name}.{os.getpid()}.part")
        target = sqlite3.connect(str(part))
        try:
            source.backup(target)
            target.execute("PRAGMA journal_mode=DELETE")
        finally:
            target.close()
        os.replace(part, template)
    finally:
        source.close()


def _lock_in_transaction(conn: Connection) -> None:
    """On PostgreSQL, wait for the advisory lock of this schema; the commit releases it."""
    from sqlalchemy import text
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
