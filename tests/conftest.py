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

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("MTLB_SHARED_DATA", ROOT.parent / "shared" / "data"))
PG_URL = os.environ.get("MTLB_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def pytest_collection_modifyitems(config, items) -> None:
    """Slow tests first, the heaviest (``slow(weight=N)``) leading: with several test processes
    (pytest-xdist) the long ones then start at once rather than last, which would leave one process
    working on them alone at the end. The rest keep their order."""
    def weight(item) -> int:
        mark = item.get_closest_marker("slow")
        return 0 if mark is None else int(mark.kwargs.get("weight", 1))
    items.sort(key=lambda item: -weight(item))
    # each process is handed two tests at a time (--maxschedchunk 2): the heaviest go one per pair, so
    # that no process gets two of them in a row
    heavy = [item for item in items if weight(item) > 1]
    rest = items[len(heavy):]
    paired = [item for pair in zip(heavy, rest) for item in pair]
    items[:] = paired + heavy[len(paired) // 2:] + rest[len(paired) // 2:]


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


@pytest.fixture()
def pg_url() -> str:
    """A clean PostgreSQL schema for one test; skips when no server answers on 127.0.0.1:5432."""
    if not pg_available():
        pytest.skip("PostgreSQL is not reachable on 127.0.0.1:5432")
    from sqlalchemy import create_engine, text
    import uuid
    schema = "t_" + uuid.uuid4().hex[:12]
    engine = create_engine(PG_URL)
    with engine.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    engine.dispose()
    # the connections of the test carry the schema as their name, so that its end can close them
    url = f"{PG_URL}?application_name={schema}&options=-csearch_path%3D{schema}"
    yield url
    close_connections(schema)
    engine = create_engine(PG_URL)
    with engine.begin() as conn:
        conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    engine.dispose()


def close_connections(application_name: str) -> None:
    """Close what a finished test left open on PostgreSQL under ``application_name``.

    A store a test drops keeps its pooled connections until the garbage collector frees its engine,
    and the app's cached stores keep theirs for the whole run: over a thousand tests they would add
    up to the server's limit of clients. Collecting first lets the pools close their own connections;
    the server ends the rest.
    """
    import gc

    from sqlalchemy import create_engine, text
    gc.collect()
    engine = create_engine(PG_URL)
    with engine.begin() as conn:
        conn.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                          "WHERE application_name = :name AND pid <> pg_backend_pid()"), {"name": application_name})
    engine.dispose()


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request, tmp_path: Path) -> str:
    """Run a store test on both back ends."""
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
def demo_contents(tmp_path_factory) -> dict:
    """What `mtlb demo` stores, read from a demo loaded here into a scratch SQLite file: the campaign
    names and the number of published rankings (containers must hold the same)."""
    from leaderboard.publish.demo import load_demo
    from leaderboard.storage import Store

    store = Store(f"sqlite:///{tmp_path_factory.mktemp('demo') / 'demo.sqlite'}")
    result = load_demo(store)
    return {"campaigns": set(result["campaigns"]), "rankings": len(result["published"])}
