"""Several processes on one store: concurrent first use (schema migration), concurrent ingests of the
same campaign, and a killed import. Real ``mtlb`` processes on a fresh SQLite file and a fresh
PostgreSQL database; nothing here is mocked.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sqlalchemy import create_engine, text

import forkserver
from leaderboard.storage import Store

DISTINCT, DUPLICATES = 13, 7

# Each process is forked from one that has imported the CLI and the load path, says it is ready, then
# waits for the common start signal, so the 20 processes reach the store together (a plain Popen loop
# spreads them over seconds, and would spend most of the test importing pandas twenty times).
PRELOAD = ("leaderboard.cli", "leaderboard.cli.ingest", "leaderboard.storage.store", "leaderboard.storage.loader",
           "leaderboard.usecases.store_files", "leaderboard.ingest.wmt_release", "leaderboard.ingest.canonical",
           "leaderboard.ingest.appraise", "sqlalchemy.dialects.sqlite", "sqlalchemy.dialects.postgresql",
           "sqlite3", "psycopg", "alembic.command", "alembic.runtime.migration", "pyarrow.csv", "tqdm")


def campaign_files(folder: Path) -> tuple[list[Path], list[Path]]:
    """13 distinct canonical files of one campaign sharing workers, systems and segments, and 7
    byte-identical copies of some of them under other names."""
    folder.mkdir()
    rng = np.random.default_rng(7)
    distinct = []
    for i in range(DISTINCT):
        n = 60
        frame = pd.DataFrame({
            "lp": np.where(np.arange(n) % 3 == 0, "de-en", "cs-en"), "assessment": "adequacy",
            "worker": [f"W{(i + k) % 5}" for k in range(n)], "hit": [f"file{i}-hit{k // 10}" for k in range(n)],
            "position": np.arange(n) % 10 + 1, "segment": (rng.integers(1, 30, n)).astype(str),
            "system": [f"sys{k % 4}" for k in range(n)],
            "item_type": np.where(np.arange(n) % 7 == 0, "REF", "SYSTEM"),
            "raw": rng.integers(0, 101, n).astype(float), "seconds": 10.0,
        })
        path = folder / f"part{i:02d}.csv"
        frame.to_csv(path, index=False)
        distinct.append(path)
    dups = []
    for i in range(DUPLICATES):
        copy = folder / f"again{i:02d}.csv"
        shutil.copyfile(distinct[i * 2 % DISTINCT], copy)
        dups.append(copy)
    return distinct, dups


def run_together(commands: list[list[str]], tmp: Path, env: dict,
                 start_timeout: float = 120) -> list[subprocess.CompletedProcess]:
    """Run ``mtlb`` commands in processes released together once all have started (``start_timeout`` s)."""
    return forkserver.run_together(commands, tmp, env, preload=PRELOAD, start_timeout=start_timeout)


def check_twenty_ingests(url: str, tmp_path: Path) -> None:
    distinct, dups = campaign_files(tmp_path / "conc")
    files = distinct + dups
    order = np.random.default_rng(3).permutation(len(files))
    env = {**os.environ, "DATABASE_URL": url, "MTLB_AUTO_MIGRATE": "1"}
    env.pop("MTLB_DATA_DIR", None)
    results = run_together([["ingest", str(files[i])] for i in order], tmp_path, env)
    for r in results:
        assert "Traceback" not in r.stderr, r.stderr
        assert r.returncode in (0, 2), (r.returncode, r.stderr)
    ok = [r for r in results if r.returncode == 0]
    refused = [r for r in results if r.returncode == 2]
    assert len(ok) == DISTINCT and len(refused) == DUPLICATES, [(r.returncode, r.stderr[-300:]) for r in results]
    for r in refused:
        last = r.stderr.strip().splitlines()[-1]
        assert last.startswith("mtlb ingest: error: ") and "conc" in last and "already" in last, last
    store = Store(url)
    imports = store.imports("conc")
    assert len(imports) == DISTINCT and imports["sha256"].nunique() == DISTINCT
    stored = store.judgments("conc")
    expected = pd.concat([pd.read_csv(p) for p in distinct], ignore_index=True)
    assert len(stored) == len(expected)
    key = ["worker", "hit", "position"]
    merged = stored.merge(expected.astype({"segment": str}), on=key, suffixes=("", "_file"))
    assert len(merged) == len(expected)
    assert (merged["raw"] == merged["raw_file"]).all() and (merged["system"] == merged["system_file"]).all()
    assert sorted(stored["worker"].unique()) == [f"W{k}" for k in range(5)]
    store.engine.dispose()


def test_twenty_ingests_on_a_fresh_sqlite_file(tmp_path):
    check_twenty_ingests(f"sqlite:///{tmp_path / 'fresh.sqlite'}", tmp_path)


@pytest.mark.empty_store  # a database never used: its first loads migrate it
def test_twenty_ingests_on_a_fresh_postgres_database(pg_url, tmp_path):
    check_twenty_ingests(pg_url, tmp_path)


def _big_release(folder: Path, judgments: int) -> Path:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    from synth_release import write_release
    folder.mkdir()
    return write_release(folder / "ad-synth-good-stnd.csv", n_judgments=judgments, n_lps=4, n_systems=8)


def _writing_started(url: str, db_file: Path | None) -> bool:
    """True once the import has begun writing judgment rows (uncommitted)."""
    if db_file is not None:
        wal = db_file.with_name(db_file.name + "-wal")
        return wal.exists() and wal.stat().st_size > 2_000_000
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return bool(conn.execute(text(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND query LIKE 'COPY judgments%'")).scalar())
    finally:
        engine.dispose()


def check_kill_mid_import(url: str, db_file: Path | None, tmp_path: Path) -> None:
    path = _big_release(tmp_path / "killed", 200_000)
    env = {**os.environ, "DATABASE_URL": url}
    subprocess.run([sys.executable, "-m", "leaderboard.cli", "db", "upgrade"], env=env, check=True,
                   capture_output=True)
    proc = subprocess.Popen([sys.executable, "-m", "leaderboard.cli", "ingest", str(path)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 240
    while not _writing_started(url, db_file):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the import never started writing"
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    store = Store(url)
    committed = not store.imports("killed").empty
    if committed:
        # SQLite keeps a load's pages in its cache and writes them at the commit, so the kill may land
        # after the commit was made durable: then the whole import is there, never a part of it
        assert len(store.judgments("killed")) == 200_000 and len(store.imports("killed")) == 1
    else:
        assert store.judgments("killed").empty
        assert store.campaigns().query("campaign == 'killed'")["judgments"].fillna(0).sum() == 0
    store.engine.dispose()
    # nothing is left locked: the same file loads completely afterwards, or, when the first load was
    # committed whole, is refused as already imported (which also needs the store readable and writable)
    again = subprocess.run([sys.executable, "-m", "leaderboard.cli", "ingest", str(path), "--json"], env=env,
                           capture_output=True, text=True, timeout=600)
    if committed:
        assert again.returncode == 2 and "already imported" in again.stderr, again.stderr
    else:
        assert again.returncode == 0, again.stderr
        assert '"judgments": 200000' in again.stdout


def test_kill_during_sqlite_import_leaves_nothing(tmp_path):
    db_file = tmp_path / "killed.sqlite"
    check_kill_mid_import(f"sqlite:///{db_file}", db_file, tmp_path)


def test_kill_during_postgres_import_leaves_nothing(pg_url, tmp_path):
    check_kill_mid_import(pg_url, None, tmp_path)
