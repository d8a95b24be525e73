"""``mtlb db upgrade`` / ``mtlb db current`` and MTLB_AUTO_MIGRATE=0, as a deployment uses them."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from formats import small_campaign, write_canonical
from leaderboard.storage.db import head_revision


def mtlb(args: list[str], url: str, **env) -> subprocess.CompletedProcess:
    full = {**os.environ, "DATABASE_URL": url, **env}
    full.pop("MTLB_DATA_DIR", None)
    return subprocess.run([sys.executable, "-m", "leaderboard.cli", *args], capture_output=True, text=True,
                          env=full, timeout=300)


@pytest.mark.empty_store
def test_migrate_once_then_refuse_to_migrate(db_url, tmp_path):
    data = tmp_path / "camp"
    data.mkdir()
    path = write_canonical(small_campaign(), data / "j.csv")
    current = mtlb(["db", "current", "--json"], db_url)
    assert current.returncode == 0, current.stderr
    assert json.loads(current.stdout)["revision"] is None and json.loads(current.stdout)["current"] is False
    refused = mtlb(["ingest", str(path)], db_url, MTLB_AUTO_MIGRATE="0")
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "run `mtlb db upgrade`" in refused.stderr and len(refused.stderr.strip().splitlines()) == 1
    up = mtlb(["db", "upgrade", "--json"], db_url)
    assert up.returncode == 0, up.stderr
    report = json.loads(up.stdout)
    assert report["revision"] == head_revision() and report["previous"] is None and report["upgraded"] is True
    again = mtlb(["db", "upgrade"], db_url)
    assert again.returncode == 0 and "already the newest" in again.stdout
    stored = mtlb(["ingest", str(path), "--json"], db_url, MTLB_AUTO_MIGRATE="0")
    assert stored.returncode == 0, stored.stderr
    assert json.loads(stored.stdout)["judgments"] == len(small_campaign())
    assert json.loads(mtlb(["db", "current", "--json"], db_url).stdout)["current"] is True


@pytest.mark.empty_store
def test_db_wait_returns_once_another_process_migrates(db_url):
    """`mtlb db wait` (a replica's start with MTLB_AUTO_MIGRATE=0) returns as soon as the schema is current."""
    import time
    short = mtlb(["db", "wait", "--timeout", "1"], db_url)
    assert short.returncode == 2 and "Traceback" not in short.stderr
    assert "gave up waiting" in short.stderr and "run `mtlb db upgrade`" in short.stderr
    full = {**os.environ, "DATABASE_URL": db_url}
    full.pop("MTLB_DATA_DIR", None)
    waiter = subprocess.Popen([sys.executable, "-m", "leaderboard.cli", "db", "wait", "--timeout", "120", "--json"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=full)
    time.sleep(2)
    assert waiter.poll() is None  # still waiting: nothing migrated yet
    assert mtlb(["db", "upgrade"], db_url).returncode == 0
    out, err = waiter.communicate(timeout=60)
    assert waiter.returncode == 0, err
    assert json.loads(out) == {**json.loads(out), "revision": head_revision(), "current": True}


def test_db_wait_names_an_unreachable_server():
    gone = mtlb(["db", "wait", "--timeout", "1"], "postgresql+psycopg://nobody@127.0.0.1:9/none")
    assert gone.returncode == 2 and "Traceback" not in gone.stderr
    assert "gave up waiting" in gone.stderr and "refused" in gone.stderr.lower()


def test_db_wait_and_current_name_a_missing_sqlite_file(tmp_path):
    missing = tmp_path / "no-such-folder" / "store.sqlite"
    url = f"sqlite:///{missing}"
    waited = mtlb(["db", "wait", "--timeout", "1"], url)
    assert waited.returncode == 2 and "Traceback" not in waited.stderr
    assert f"its folder {missing.parent} does not exist" in waited.stderr
    current = mtlb(["db", "current"], url)
    assert current.returncode == 0 and "no database file at" in current.stdout
    assert not missing.parent.exists()  # reading the state created nothing
