"""``mtlb publish`` is atomic across language pairs: a process killed with SIGKILL at any moment leaves
either every ranking of that publish or none of them, and a rerun adds exactly one new version of each.

Kill points (each on SQLite and PostgreSQL, one after another on the same store):
* before the 1st, 2nd and 3rd ``INSERT INTO snapshots`` (the first, a middle and the last ranking),
* before the 2nd ``INSERT INTO snapshot_artifacts``,
* at the commit of the publishing transaction (the ``commit`` event, before the database hears it),
* from outside, after 35 % and 80 % of the time an uninterrupted publish takes.
The in-process points install an SQLAlchemy event listener in the child that sends itself SIGKILL, so
the kill lands exactly there; the timed ones are a plain ``kill -9`` from the test. Each publish is a
process of its own, forked from one that has imported the CLI (tests/forkserver.py), so the timed kills
land in the publish itself rather than in the imports.
"""

from __future__ import annotations

import io
import os
import signal
import time

import pandas as pd
import pytest

from forkserver import Forked, ForkServer
from formats import small_campaign, write_canonical
from leaderboard.cli import main
from leaderboard.storage import Store

LPS = ("cs-en", "de-en", "ja-en")

CHILD = """
import os, signal, sys
from sqlalchemy import event
from sqlalchemy.engine import Engine

point, nth = sys.argv[1], int(sys.argv[2])
seen = {"snapshots": 0, "snapshot_artifacts": 0}

def die():
    os.kill(os.getpid(), signal.SIGKILL)

@event.listens_for(Engine, "before_cursor_execute")
def before(conn, cursor, statement, parameters, context, executemany):
    words = statement.split()
    if len(words) > 2 and words[0].upper() == "INSERT" and words[2] in seen:
        seen[words[2]] += 1
        if point == words[2] and seen[words[2]] == nth:
            die()

@event.listens_for(Engine, "commit")
def commit(conn):
    if point == "commit" and seen["snapshots"]:
        die()

from leaderboard.cli import main
sys.exit(main(sys.argv[3:]))
"""


@pytest.fixture()
def campaign(db_url, tmp_path, monkeypatch, capsys):
    frame = pd.concat([small_campaign(n_workers=4, n_items=24, seed=k).assign(lp=lp, campaign="P")
                       for k, lp in enumerate(LPS)], ignore_index=True)
    path = write_canonical(frame, tmp_path / "j.csv")
    assert main(["ingest", str(path), "--database-url", db_url]) == 0
    monkeypatch.setattr("sys.stdin", io.StringIO("a-long-password\n"))
    assert main(["user", "add", "olga", "--role", "organiser", "--password-stdin", "--database-url", db_url]) == 0
    capsys.readouterr()
    return db_url


def versions(url: str) -> dict[str, int]:
    snaps = Store(url).snapshots("P")
    return {lp: int(snaps.loc[snaps["lp"] == lp, "version"].max()) if (snaps["lp"] == lp).any() else 0
            for lp in LPS}


def publish_command(url: str) -> list[str]:
    return ["publish", "--campaign", "P", "--user", "olga", "--qc", "none", "--resamples", "20",
            "--database-url", url]


PRELOAD = ("leaderboard.cli", "leaderboard.cli.publish", "leaderboard.cli.user", "leaderboard.usecases.publish",
           "leaderboard.publish.snapshots", "leaderboard.accounts.auth", "leaderboard.storage.store",
           "leaderboard.storage.throttle", "sqlalchemy.dialects.sqlite", "sqlalchemy.dialects.postgresql",
           "sqlite3", "psycopg", "argon2", "alembic.command", "alembic.runtime.migration")


@pytest.fixture()
def forks():
    with ForkServer({**os.environ, "MTLB_PASSWORD": "a-long-password"}, PRELOAD) as server:
        yield server


def child(forks: ForkServer, url: str, point: str, nth: int) -> Forked:
    return forks.spawn([point, str(nth), *publish_command(url)], code=CHILD)


def assert_all_or_nothing(before: dict, after: dict, where: str) -> int:
    steps = {lp: after[lp] - before[lp] for lp in LPS}
    assert set(steps.values()) in ({0}, {1}), f"killed {where}: versions went {before} -> {after}"
    return next(iter(steps.values()))


@pytest.mark.slow  # a publish process killed at each of its steps, on both stores
def test_publish_killed_at_any_point_leaves_all_or_nothing(campaign, forks):
    url = campaign
    start = time.monotonic()
    proc = child(forks, url, "none", 0)
    out, err = proc.communicate(timeout=300)
    full = time.monotonic() - start
    assert proc.returncode == 0, err
    assert versions(url) == {lp: 1 for lp in LPS}
    points = [("snapshots", 1), ("snapshots", 2), ("snapshots", 3), ("snapshot_artifacts", 2), ("commit", 1),
              ("timed", 35), ("timed", 80)]
    outcomes = {}
    for point, nth in points:
        before = versions(url)
        proc = child(forks, url, point, nth)
        if point == "timed":
            time.sleep(full * nth / 100)
            proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=300)
        where = f"at {point} #{nth}"
        if point != "timed":
            assert proc.returncode == -signal.SIGKILL, f"the child was not killed {where}"
        outcomes[where] = assert_all_or_nothing(before, versions(url), where)
        if point != "timed":
            assert outcomes[where] == 0, f"killed {where}, yet the publish is visible"
        # a rerun adds exactly one version of every ranking
        before = versions(url)
        rerun = child(forks, url, "none", 0)
        _, err = rerun.communicate(timeout=300)
        assert rerun.returncode == 0, err
        assert versions(url) == {lp: before[lp] + 1 for lp in LPS}, where
