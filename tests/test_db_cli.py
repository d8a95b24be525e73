"""``mtlb db upgrade`` / ``mtlb db current`` and MTLB_AUTO_MIGRATE=0, as a deployment uses them."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from formats import small_campaign, write_canonical
from leaderboard.storage.db import head_revision


def mtlb(args: list[str], url: str, **env) -> subprocess.CompletedProcess:
    full = {**os.environ, "DATABASE_URL": url, **env}
    full.pop("MTLB_DATA_DIR", None)
    return subprocess.run([sys.executable, "-m", "leaderboard.cli", *args], capture_output=True, text=True,
                          env=full, timeout=300)


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
