"""Shared fixtures: paths to the real WMT data (skip when absent) and database URLs."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
from hypothesis import settings

# CI runs the property tests on a fixed sequence of examples, so a result never depends on luck;
# locally they explore new examples on every run.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

# every new SQLite store of this run (and of the processes it starts: the CLI, the app) is a copy of
# one migrated empty store instead of a replay of the migrations (leaderboard/storage/db.py);
# tests/test_migrations.py replays them
if "MTLB_SCHEMA_TEMPLATES" not in os.environ:
    import atexit
    import shutil
    import tempfile
    os.environ["MTLB_SCHEMA_TEMPLATES"] = tempfile.mkdtemp(prefix="mtlb-schema-")
    atexit.register(shutil.rmtree, os.environ["MTLB_SCHEMA_TEMPLATES"], True)
# likewise sacrebleu's segment statistics of a text are computed once per run, not once per process that
# scores it (the demo's metric baselines, loaded in many tests and processes; metrics/stats_folder.py);
# tests that check the statistics themselves clear it
if "MTLB_STATS_CACHE" not in os.environ:
    import atexit
    import shutil
    import tempfile
    os.environ["MTLB_STATS_CACHE"] = tempfile.mkdtemp(prefix="mtlb-stats-")
    atexit.register(shutil.rmtree, os.environ["MTLB_STATS_CACHE"], True)

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("MTLB_SHARED_DATA", ROOT.parent / "shared" / "data"))
PG_URL = os.environ.get("MTLB_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


@pytest.hookimpl(tryfirst=True)  # the xdist_group marks added here must be there when pytest-xdist reads them
def pytest_collection_modifyitems(config, items) -> None:
    """Slow tests first, the heaviest (``slow(weight=N)``) leading: with several test processes
    (pytest-xdist, ``--dist loadgroup``) the long ones then start at once rather than last, which would
    leave one process working on them alone at the end. Heavy tests alternate with light ones, so that
    no process gets two of them in a row. The rest keep their order. (xdist starts tests grouped with
    ``xdist_group`` before the others: its groups are the demo and the WMT22 scoring tests.)"""
    def weight(item) -> int:
        mark = item.get_closest_marker("slow")
        return 0 if mark is None else int(mark.kwargs.get("weight", 1))
    items.sort(key=lambda item: -weight(item))
    heavy = [item for item in items if weight(item) > 1]
    rest = items[len(heavy):]
    paired = [item for pair in zip(heavy, rest) for item in pair]
    items[:] = paired + heavy[len(paired) // 2:] + rest[len(paired) // 2:]
    _group_modules_with_shared_fixtures(items)


@pytest.hookimpl(trylast=True)  # after pytest-xdist has tagged the node ids of grouped tests
def pytest_collection_finish(session) -> None:
    """Refuse to run when ``--dist loadgroup`` would ignore the groups: pytest-xdist sends tests to one
    process by an ``@group`` suffix of their node ids, which it cannot add under pytest 9 (hence the
    ``pytest<9`` pin); ignored groups rebuild every module-scoped app server, installed package and
    demo once per process."""
    if not getattr(session.config.option, "loadgroup", False):
        return
    lost = [item.nodeid for item in session.items
            if item.get_closest_marker("xdist_group") is not None and "@" not in item.nodeid.rsplit("]", 1)[-1]]
    if lost:
        raise pytest.UsageError(f"pytest-xdist did not apply xdist_group to {len(lost)} tests, e.g. {lost[0]}")


def _group_modules_with_shared_fixtures(items) -> None:
    """Keep the tests of a module that builds something once for all its tests (a module-scoped fixture
    of its own: an app server, an installed package, a scored corpus) in one test process: spread over
    several, each process would build it again. xdist's ``--dist loadgroup`` reads the mark."""
    import inspect

    def own_module_fixture(item) -> bool:
        defs = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {}) or {}
        path = str(item.path)
        return any(d.scope == "module" and inspect.getsourcefile(d.func) == path
                   for fixturedefs in defs.values() for d in fixturedefs)
    for item in items:
        if item.get_closest_marker("xdist_group") is None and own_module_fixture(item):
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))


@pytest.fixture(scope="session")
def shared() -> Path:
    """The ../shared/data folder; tests using it skip in an outside clone."""
    if not SHARED.is_dir():
        pytest.skip("../shared/data is not present")
    return SHARED


def pg_available() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 5432), timeout=0.5):
            return True
    except OSError:
        return False


@pytest.fixture()
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'store.sqlite'}"


def _admin_engine():
    from sqlalchemy import create_engine
    return create_engine(PG_URL, isolation_level="AUTOCOMMIT")


def _database_url(name: str) -> str:
    """The URL of database ``name`` on the test server; its connections carry the name (application_name),
    so that what a test leaves open can be found."""
    return f"{PG_URL.rsplit('/', 1)[0]}/{name}?application_name={name}"


def forget_engines(url: str) -> None:
    """Close and drop the store engines this process keeps for ``url`` (storage.db keeps one per URL)."""
    from leaderboard.storage import db
    for engine in [e for e in db._OPEN_ENGINES if e.url.render_as_string(hide_password=False) == url]:
        engine.dispose()
        db._OPEN_ENGINES.remove(engine)
    db._engine.cache_clear()


@pytest.fixture(scope="session")
def pg_template():
    """A PostgreSQL database migrated to the head revision once per test process; every ``pg_url`` is a
    copy of it (CREATE DATABASE … TEMPLATE takes milliseconds; replaying the migrations per test took
    seconds on a busy machine). Dropped at the end of the session."""
    if not pg_available():
        pytest.skip("PostgreSQL is not reachable on 127.0.0.1:5432")
    import uuid

    from sqlalchemy import text

    from leaderboard.storage import Store
    name = "mtlb_tpl_" + uuid.uuid4().hex[:12]
    admin = _admin_engine()
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = _database_url(name)
    Store(url)  # migrated step by step
    forget_engines(url)
    with admin.connect() as conn:  # a template must have no open connection while it is copied
        conn.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :n"), {"n": name})
    yield name
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


class _EmptiedDatabases:
    """Databases of this test process that a test has finished with, emptied for the next test.

    Copying the template and dropping the copy took 0.4 + 0.3 s per test in a loaded run (148 tests, 106 s
    of the suite's time); deleting the rows and restarting the sequences takes about 6 ms. A database is
    kept only when the test left nothing but rows: the same relations, schemas, functions and revision as
    the template (anything else, and it is dropped as before). Each use has its own URL (the use's number
    in ``application_name``), so no cache keyed by URL in this process carries over from one test to the
    next. All are dropped at the end of the session.
    """

    def __init__(self) -> None:
        self.ready: list[str] = []
        self.made: list[str] = []
        self.uses = 0
        self.catalog: tuple | None = None

    @staticmethod
    def read_catalog(conn) -> tuple:
        from sqlalchemy import text
        system = "('pg_catalog', 'information_schema')"
        return (
            tuple(conn.execute(text(
                "SELECT n.nspname, c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                f"WHERE n.nspname NOT IN {system} AND n.nspname NOT LIKE 'pg_toast%' AND n.nspname NOT LIKE 'pg_temp%' "
                "ORDER BY 1, 2")).all()),
            tuple(conn.execute(text("SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg_temp%' "
                                    "AND nspname NOT LIKE 'pg_toast_temp%' ORDER BY 1")).all()),
            tuple(conn.execute(text("SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                                    f"WHERE n.nspname NOT IN {system} ORDER BY 1")).all()),
            tuple(conn.execute(text("SELECT version_num FROM alembic_version")).all()))

    def url(self, name: str) -> str:
        self.uses += 1
        return f"{_database_url(name)}-{self.uses}"

    def empty(self, name: str, admin) -> bool:
        """Delete every row of a database a test used and restart its sequences; False (and nothing done)
        when the test left more than rows."""
        from sqlalchemy import create_engine, text
        from sqlalchemy.pool import NullPool
        with admin.connect() as conn:  # what the test (or an app it started) left connected
            conn.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :n"),
                         {"n": name})
        engine = create_engine(_database_url(name), poolclass=NullPool)
        try:
            with engine.begin() as conn:
                if self.catalog is None or self.read_catalog(conn) != self.catalog:
                    return False
                tables = [r for _, r, kind in self.catalog[0] if kind == "r" and r != "alembic_version"]
                sequences = [r for _, r, kind in self.catalog[0] if kind == "S"]
                conn.execute(text("SET LOCAL session_replication_role = replica"))  # no foreign-key order
                conn.exec_driver_sql("; ".join([f'DELETE FROM "{t}"' for t in tables]
                                               + [f'ALTER SEQUENCE "{q}" RESTART' for q in sequences]))
            return True
        except Exception:  # noqa: BLE001 - anything odd: the database is dropped instead
            return False
        finally:
            engine.dispose()


_EMPTIED = _EmptiedDatabases()


@pytest.fixture(scope="session", autouse=True)
def _drop_emptied_databases():
    yield
    if _EMPTIED.made:
        from sqlalchemy import text
        admin = _admin_engine()
        with admin.connect() as conn:
            for name in _EMPTIED.made:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture()
def pg_url(request) -> str:
    """A PostgreSQL database of its own for one test, already migrated (a copy of ``pg_template``, or one an
    earlier test of this process used, emptied: :class:`_EmptiedDatabases`); tests marked ``empty_store`` get
    a new empty one (they check migrating itself). Skips when no server answers on 127.0.0.1:5432."""
    if not pg_available():
        pytest.skip("PostgreSQL is not reachable on 127.0.0.1:5432")
    import uuid

    from sqlalchemy import text
    empty = request.node.get_closest_marker("empty_store") is not None
    admin = _admin_engine()
    if not empty and _EMPTIED.ready:
        name = _EMPTIED.ready.pop()
    else:
        template = "" if empty else f' TEMPLATE "{request.getfixturevalue("pg_template")}"'
        name = "mtlb_t_" + uuid.uuid4().hex[:12]
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"{template}'))
        if not empty:
            _EMPTIED.made.append(name)
            if _EMPTIED.catalog is None:
                from sqlalchemy import create_engine
                from sqlalchemy.pool import NullPool
                fresh = create_engine(_database_url(name), poolclass=NullPool)
                with fresh.connect() as conn:
                    _EMPTIED.catalog = _EMPTIED.read_catalog(conn)
                fresh.dispose()
    url = _EMPTIED.url(name)
    yield url
    forget_engines(url)
    if not empty and _EMPTIED.empty(name, admin):
        _EMPTIED.ready.append(name)
    else:
        if name in _EMPTIED.made:
            _EMPTIED.made.remove(name)
        with admin.connect() as conn:  # FORCE ends what the test (or an app's cached store) left connected
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request, tmp_path: Path) -> str:
    """Run a store test on both back ends (a new store on each: migrated, or empty for tests marked
    ``empty_store``)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.sqlite'}"
    return request.getfixturevalue("pg_url")


@pytest.fixture(scope="session")
def docker_images() -> dict:
    """The app and PostgreSQL images, built once per session (tests/test_docker.py, test_compose.py);
    skips when no Docker daemon answers."""
    from dockerhelp import APP_IMAGE, PG_IMAGE, build_images, require_docker
    require_docker()
    timing = build_images(postgres=True)
    return {"app": APP_IMAGE, "postgres": PG_IMAGE, "build_seconds": timing["seconds"]}


@pytest.fixture()
def campaign_with_users(tmp_path: Path, sqlite_url: str, monkeypatch, capsys) -> str:
    """A SQLite store holding a small simulated campaign "c1" and two accounts (password
    "a-long-password"): alice, an organiser, and bob, a metric developer."""
    import io

    from formats import small_campaign, write_canonical
    from leaderboard.cli import main

    frame = small_campaign(n_workers=4, n_items=30).assign(campaign="c1")
    path = write_canonical(frame, tmp_path / "j.csv")
    assert main(["ingest", str(path), "--database-url", sqlite_url]) == 0
    for name, role in (("alice", "organiser"), ("bob", "metric-developer")):
        monkeypatch.setattr("sys.stdin", io.StringIO("a-long-password\n"))
        assert main(["user", "add", name, "--role", role, "--password-stdin", "--database-url", sqlite_url]) == 0
    capsys.readouterr()
    return sqlite_url


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory) -> Path:
    """An SQLite store holding the published demo campaigns (no accounts), built once per test process;
    tests that only read the demo copy it (``stores.copy_store``)."""
    from leaderboard.publish.demo import ensure_demo
    from leaderboard.storage import Store

    path = tmp_path_factory.mktemp("demo-template") / "mtlb.sqlite"
    url = f"sqlite:///{path}"
    ensure_demo(Store(url))
    forget_engines(url)
    return path


@pytest.fixture(scope="session")
def demo_contents(tmp_path_factory) -> dict:
    """What `mtlb demo` stores, read from a demo loaded here into a scratch SQLite file: the campaign
    names and the number of published rankings (containers must hold the same)."""
    from leaderboard.publish.demo import load_demo
    from leaderboard.storage import Store

    store = Store(f"sqlite:///{tmp_path_factory.mktemp('demo') / 'demo.sqlite'}")
    result = load_demo(store)
    return {"campaigns": set(result["campaigns"]), "rankings": len(result["published"])}
