"""Light commands load no heavy library, and the shortcuts that make them light agree with the
general code: `mtlb --help` / `--version` list every command without their options' modules,
`mtlb db current` reads an SQLite store with the standard library (the same revision SQLAlchemy
reads), and SQLite URLs are understood as SQLAlchemy understands them."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from sqlalchemy.engine import make_url

from leaderboard.storage.db import make_engine, current_revision, head_revision, sqlite_path, stored_revision, upgrade

HEAVY = ("pandas", "numpy", "pyarrow", "sqlalchemy", "scipy", "psycopg", "alembic")


def modules_after(args: list[str], env_extra: dict | None = None) -> tuple[set[str], str]:
    """The heavy modules loaded by ``mtlb ARGS`` run in a fresh interpreter, and its output."""
    code = ("import contextlib, io, json, sys\nfrom leaderboard.cli import main\nout = io.StringIO()\n"
            "with contextlib.redirect_stdout(out):\n    try:\n        main(json.loads(sys.argv[1]))\n"
            "    except SystemExit:\n        pass\n"
            f"print(json.dumps([sorted(m for m in {HEAVY!r} if m in sys.modules), out.getvalue()]))")
    import os
    env = {**os.environ, **(env_extra or {})}
    done = subprocess.run([sys.executable, "-c", code, json.dumps(args)], capture_output=True, text=True, env=env,
                          check=True)
    loaded, output = json.loads(done.stdout.strip().splitlines()[-1])
    return set(loaded), output


@pytest.mark.parametrize("args", [["--help"], ["--version"], []])
def test_listing_loads_nothing_heavy_and_names_every_command(args):
    from leaderboard.cli import command_names
    loaded, output = modules_after(args)
    assert loaded == set()
    if args != ["--version"]:
        for name in command_names():
            assert name.replace("_", "-") in output or name in output


def test_rank_options_are_all_there_when_rank_is_asked_for():
    _, output = modules_after(["rank", "--help"])
    for option in ("--protocol", "wmt-da", "--cluster-rule", "--seed", "--resamples"):
        assert option in output


def test_db_current_on_sqlite_loads_no_database_library(tmp_path):
    url = f"sqlite:///{tmp_path / 'store.sqlite'}"
    engine = make_engine(url)
    upgrade(engine)
    engine.dispose()
    loaded, output = modules_after(["db", "current", "--json", "--database-url", url])
    assert loaded == set()
    assert json.loads(output) == {"database": url, "revision": head_revision(), "head": head_revision(),
                                  "current": True}


@pytest.mark.empty_store
def test_stored_revision_agrees_with_sqlalchemy(db_url):
    engine = make_engine(db_url)
    try:
        assert stored_revision(db_url) is None and current_revision(engine) is None  # nothing migrated yet
        upgrade(engine)
        assert stored_revision(db_url) == current_revision(engine) == head_revision()
    finally:
        engine.dispose()


@pytest.mark.parametrize("url", [
    "sqlite:///store.sqlite", "sqlite:////tmp/a b/store.sqlite", "sqlite:////tmp/a%20b/store.sqlite",
    "sqlite+pysqlite:///rel/x.db?timeout=5", "sqlite://", "sqlite:///:memory:", "sqlite:///file:x?mode=memory&uri=true",
    "sqlite:///x.db?mode=memory", "sqlite:///x.db?mode=ro&mode=memory", "sqlite:///x.db?mode=memory&mode=ro",
    "postgresql+psycopg://postgres@127.0.0.1:5432/test", "postgresql://u:p%40ss@h/db?options=-csearch_path%3Dx",
])
def test_sqlite_paths_are_read_as_sqlalchemy_reads_them(url):
    parsed = make_url(url)
    database = parsed.database or ""
    if not parsed.drivername.startswith("sqlite") or database in ("", ":memory:") or database.startswith("file:") \
            or parsed.query.get("mode") == "memory":
        expected = None
    else:
        from pathlib import Path
        expected = Path(database)
    assert sqlite_path(url) == expected
