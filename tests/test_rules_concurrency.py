"""The rules a shared task lives on hold under races, on SQLite and PostgreSQL: the submission limit, one
owner per system name, one primary per team and test set. 20 writers start together (threads through
the service function the Teams page calls; real ``mtlb outputs submit`` processes for the limit) against
a real store; the database enforces the rules (a lock on the test set's row, a unique index on
primaries), so no interleaving of check and write can break them.
"""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import func, select

from forkserver import run_together
from leaderboard.errors import InputError
from leaderboard.outputs import service
from leaderboard.storage import Store
from leaderboard.storage import models as m
from leaderboard.storage.outputs import OutputStore

N = 12
WRITERS = 20
LIMIT = 3


@pytest.fixture()
def task(db_url, tmp_path):
    """A test set C/cs-en (limit 3) and 20 distinct outputs."""
    rng = np.random.default_rng(3)
    words = "one two three four five six seven eight nine ten".split()
    ref = [" ".join(rng.choice(words, 8)) for _ in range(N)]
    (tmp_path / "src.txt").write_text("\n".join(f"zdroj {i}" for i in range(N)) + "\n")
    (tmp_path / "ref.txt").write_text("\n".join(ref) + "\n")
    hyps = []
    for k in range(WRITERS):
        path = tmp_path / f"hyp{k}.txt"
        path.write_text("\n".join(f"{line} {k}" for line in ref) + "\n")
        hyps.append(path)
    store = Store(db_url)
    service.add_testset(store, "C", "cs-en", tmp_path / "src.txt", [tmp_path / "ref.txt"], max_submissions=LIMIT)
    return {"url": db_url, "store": store, "hyps": hyps, "tmp": tmp_path}


def together(jobs) -> list:
    """Run the callables in threads released at one instant; each result or the exception it raised."""
    barrier = threading.Barrier(len(jobs))
    results: list = [None] * len(jobs)

    def run(k, job):
        barrier.wait()
        try:
            results[k] = job()
        except Exception as exc:  # noqa: BLE001 - the test inspects every outcome
            results[k] = exc

    threads = [threading.Thread(target=run, args=(k, job)) for k, job in enumerate(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    return results


def submission_rows(store: Store) -> list[tuple]:
    s, t, u = m.submissions, m.teams, m.users
    with store.engine.connect() as conn:
        return conn.execute(select(u.c.name, s.c.system, s.c.is_primary, s.c.id)
                            .select_from(s.join(t, s.c.team_id == t.c.id).join(u, t.c.user_id == u.c.id))).all()


def test_submission_limit_holds_for_20_concurrent_writers(task):
    store = task["store"]
    service.add_team(store, "T", verified=True)
    results = together([lambda p=p, i=i: service.submit(store, p, campaign="C", lp="cs-en", team="T", system=f"s{i}")
                        for i, p in enumerate(task["hyps"])])
    stored = submission_rows(store)
    assert len(stored) == LIMIT, f"{len(stored)} submissions stored with a limit of {LIMIT}"
    refused = [r for r in results if isinstance(r, Exception)]
    assert len(refused) == WRITERS - LIMIT
    assert all(isinstance(r, InputError) and "limit" in str(r) for r in refused), refused
    with store.engine.connect() as conn:  # no orphan lines of a refused submission
        lines = conn.execute(select(func.count()).select_from(m.submission_lines)).scalar_one()
    assert lines == LIMIT * N


def test_one_owner_per_system_name_under_a_race(task):
    store = task["store"]
    teams = [f"team{k}" for k in range(WRITERS)]
    for team in teams:
        service.add_team(store, team, verified=True)
    results = together([lambda p=p, team=team: service.submit(store, p, campaign="C", lp="cs-en", team=team,
                                                              system="same-name")
                        for p, team in zip(task["hyps"], teams)])
    owners = {row[0] for row in submission_rows(store) if row[1] == "same-name"}
    assert len(owners) == 1, f"system name owned by {len(owners)} teams: {sorted(owners)}"
    refused = [r for r in results if isinstance(r, Exception)]
    assert len(refused) == WRITERS - 1
    assert all(isinstance(r, InputError) and "is used by team" in str(r) for r in refused), refused


def test_one_primary_per_team_under_concurrent_submit_and_primary(task):
    store = task["store"]
    OutputStore(store).update_testset(OutputStore(store).testset("C", "cs-en")["id"], max_submissions=100)
    service.add_team(store, "T", verified=True)
    # a few stored submissions that concurrent `outputs primary` calls flip to primary
    first = [service.submit(store, p, campaign="C", lp="cs-en", team="T", system=f"old{i}")["id"]
             for i, p in enumerate(task["hyps"][:4])]
    out = OutputStore(store)
    jobs = [lambda p=p, i=i: service.submit(store, p, campaign="C", lp="cs-en", team="T", system=f"new{i}",
                                            primary=True)
            for i, p in enumerate(task["hyps"][4:4 + WRITERS // 2])]
    jobs += [lambda sid=sid: out.set_primary(sid) for sid in first * 3][: WRITERS - len(jobs)]
    results = together(jobs)
    assert not [r for r in results if isinstance(r, Exception)], results
    primaries = [row for row in submission_rows(store) if row[2]]
    assert len(primaries) == 1, f"{len(primaries)} primaries of one team and test set"


def test_primary_index_refuses_a_second_primary_written_directly(task):
    """The rule is the database's own: a write that bypasses the service is refused too."""
    from sqlalchemy import update
    from sqlalchemy.exc import IntegrityError
    store = task["store"]
    service.add_team(store, "T", verified=True)
    a = service.submit(store, task["hyps"][0], campaign="C", lp="cs-en", team="T", system="a", primary=True)
    b = service.submit(store, task["hyps"][1], campaign="C", lp="cs-en", team="T", system="b")
    with pytest.raises(IntegrityError), store.engine.begin() as conn:
        conn.execute(update(m.submissions).where(m.submissions.c.id == b["id"]).values(is_primary=True))
    assert [row[3] for row in submission_rows(store) if row[2]] == [a["id"]]


# ---- real processes: `mtlb outputs submit` ---------------------------------------------------------
PRELOAD = ("leaderboard.cli", "leaderboard.cli.outputs", "leaderboard.outputs.service", "leaderboard.outputs.scoring",
           "leaderboard.storage.store", "sqlalchemy.dialects.sqlite", "sqlalchemy.dialects.postgresql", "sqlite3",
           "psycopg", "alembic.command", "alembic.runtime.migration", "sacrebleu", "pandas")


def run_processes(commands: list[list[str]], tmp: Path) -> list[subprocess.CompletedProcess]:
    """One ``mtlb`` process per command (forked from one that has imported the CLI and the submission
    path), released together once all have started."""
    return run_together(commands, tmp, {**os.environ, "PYTHONWARNINGS": "default"}, preload=PRELOAD,
                        start_timeout=180)


def test_submission_limit_holds_for_concurrent_cli_processes(task):
    store = task["store"]
    service.add_team(store, "T", verified=True)
    n = 9
    results = run_processes([["outputs", "submit", str(p), "--campaign", "C", "--lp", "cs-en", "--team", "T",
                              "--system", f"s{i}", "--database-url", task["url"]]
                             for i, p in enumerate(task["hyps"][:n])], task["tmp"])
    codes = sorted(r.returncode for r in results)
    assert codes == [0] * LIMIT + [2] * (n - LIMIT), [(r.returncode, r.stderr) for r in results]
    for r in results:
        if r.returncode == 2:
            assert "limit is 3" in r.stderr and "Traceback" not in r.stderr, r.stderr
        assert "error ignored" not in r.stderr and "Warning" not in r.stderr, r.stderr
    assert len(submission_rows(store)) == LIMIT


@pytest.mark.empty_store
def test_migration_keeps_the_newest_of_duplicate_primaries(db_url):
    """An old store holding three primaries of one team (left by the race) upgrades to one: the newest."""
    from datetime import datetime, timezone

    from alembic import command
    from sqlalchemy import create_engine, insert

    from leaderboard.storage.db import _alembic_config

    engine = create_engine(db_url)
    cfg = _alembic_config(db_url)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0013")
    now = datetime.now(timezone.utc)
    with engine.begin() as conn:
        cid = conn.execute(insert(m.campaigns).values(name="C", description="", created_at=now)
                           .returning(m.campaigns.c.id)).scalar_one()
        lp = conn.execute(insert(m.language_pairs).values(campaign_id=cid, lp="cs-en")
                          .returning(m.language_pairs.c.id)).scalar_one()
        tid = conn.execute(insert(m.testsets).values(lp_id=lp, name="t", segments=1, created_at=now)
                           .returning(m.testsets.c.id)).scalar_one()
        team_ids = []
        for name in ("T", "U"):
            uid = conn.execute(insert(m.users).values(name=name, password_hash="!", role="team", created_at=now)
                               .returning(m.users.c.id)).scalar_one()
            team_ids.append(conn.execute(insert(m.teams).values(user_id=uid, contact="", institution="",
                                                                description="", created_at=now)
                                         .returning(m.teams.c.id)).scalar_one())
        for k, team in enumerate([team_ids[0]] * 3 + [team_ids[1]]):
            conn.execute(insert(m.submissions).values(testset_id=tid, team_id=team, system=f"s{k}", file_name="f",
                                                      sha256="0" * 64, created_at=now, is_primary=True))
    engine.dispose()
    store = Store(db_url)  # migrates to head
    rows = sorted(submission_rows(store), key=lambda r: r[3])
    assert [(r[0], r[1], bool(r[2])) for r in rows] == [("T", "s0", False), ("T", "s1", False), ("T", "s2", True),
                                                         ("U", "s3", True)]
