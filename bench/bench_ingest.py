"""Import throughput: 1M synthetic judgments validated and stored into SQLite and PostgreSQL.

Two measurements: the store alone (``Store.load_judgments`` of a validated frame), and ``mtlb ingest``
of a 1M-judgment WMT release file as a whole process (start-up, reading, validation, migration of the
empty database and storing), into a new SQLite file and into a new, empty PostgreSQL database.
Prints one JSON object (with the load average, since the machine is shared). PostgreSQL is measured
when 127.0.0.1:5432 answers (scratch schema / database created and dropped).

``--fast-path`` measures what building the judgments' keys after the rows (the loader's fast path)
saves or costs, on both back ends: one load of ``--rows`` into an empty store with the fast path and
with it switched off (rows into the indexed table), in alternating rounds; and ``--processes``
``mtlb ingest`` processes started together into a new database, each a release file of ``--rows`` /
``--processes`` judgments in a campaign of its own (the loads run in parallel), with the fast path
allowed (the first load to find the table free takes it, the others wait for it) and switched off.
Usage: python bench/bench_ingest.py [--rows N] [--out FILE] [--fast-path [--processes K] [--rounds R]]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Iterator

import numpy as np
import pandas as pd

from leaderboard.schema import validate_judgments
from leaderboard.storage import Store

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth_release import LANGS  # noqa: E402  (real language codes: the validation checks them)

PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def synthetic(rows: int, seed: int = 1) -> pd.DataFrame:
    """Rows of 100-item HITs: 20 lps x 15 systems, 2000 segments, raw scores 0-100."""
    rng = np.random.default_rng(seed)
    hit = np.arange(rows) // 100
    lps = np.array([f"{code}-en" for code in LANGS[:20]])
    types = np.array(["SYSTEM"] * 7 + ["REPEAT", "REF", "BAD_REF"])
    return pd.DataFrame({
        "campaign": "bench", "lp": lps[hit % 20], "assessment": "adequacy",
        "worker": np.char.add("W", (hit // 10).astype(str)), "hit": np.char.add("H", hit.astype(str)),
        "position": np.arange(rows) % 100 + 1, "segment": rng.integers(1, 2001, rows).astype(str),
        "system": np.char.add("sys", rng.integers(0, 15, rows).astype(str)),
        "item_type": types[rng.integers(0, 10, rows)], "raw": rng.integers(0, 101, rows).astype(float),
        "seconds": rng.uniform(2, 40, rows),
    })


def pg_up() -> bool:
    try:
        socket.create_connection(("127.0.0.1", 5432), timeout=0.5).close()
        return True
    except OSError:
        return False


def measure(url: str, frame: pd.DataFrame) -> dict:
    store = Store(url)
    t0 = time.perf_counter()
    store.load_judgments(frame, file_name="bench", input_format="canonical")
    seconds = time.perf_counter() - t0
    t1 = time.perf_counter()
    back = store.judgments("bench")
    read = time.perf_counter() - t1
    assert len(back) == len(frame)
    return {"store_seconds": round(seconds, 3), "judgments_per_second": round(len(frame) / seconds),
            "read_back_seconds": round(read, 3)}


def ingest_process(url: str, path: Path, rows: int) -> dict:
    """``mtlb ingest FILE`` as a user runs it, timed from start to exit."""
    script = Path(sys.executable).with_name("mtlb")
    env = {**os.environ, "DATABASE_URL": url}
    t0 = time.perf_counter()
    out = subprocess.run([str(script), "ingest", str(path), "--json"], env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    assert json.loads(out.stdout)["judgments"] == rows
    return {"seconds": round(seconds, 3), "judgments_per_second": round(rows / seconds)}


def whole_process(rows: int) -> dict:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from synth_release import write_release
    with tempfile.TemporaryDirectory() as tmp:
        path = write_release(Path(tmp) / "ad-bench-good-stnd.csv", n_judgments=rows)
        result: dict = {"file_mb": round(path.stat().st_size / 1e6, 1)}
        result["sqlite"] = ingest_process(f"sqlite:///{Path(tmp) / 'fresh.sqlite'}", path, rows)
        if not pg_up():
            result["postgresql"] = "skipped: no server on 127.0.0.1:5432"
            return result
        from sqlalchemy import create_engine, text
        name = "bench_" + uuid.uuid4().hex[:8]
        admin = create_engine(PG, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f"CREATE DATABASE {name}"))
        try:
            result["postgresql"] = ingest_process(PG.rsplit("/", 1)[0] + "/" + name, path, rows)
        finally:
            with admin.connect() as conn:
                conn.execute(text(f"DROP DATABASE {name} WITH (FORCE)"))
            admin.dispose()
    return result


#: the fast path switched off: in these processes a load always takes the ordinary path
ORDINARY = "from leaderboard.storage import loader; loader._judgments_to_itself = lambda *a, **k: False; " \
           "loader._index_after = lambda *a, **k: False\n"


@contextlib.contextmanager
def ordinary_path(off: bool) -> Iterator[None]:
    """The loader's fast path switched off in this process for the block (when ``off``)."""
    from leaderboard.storage import loader
    saved = loader._judgments_to_itself, loader._index_after
    if off:
        loader._judgments_to_itself = lambda *a, **k: False
        loader._index_after = lambda *a, **k: False
    try:
        yield
    finally:
        loader._judgments_to_itself, loader._index_after = saved


@contextlib.contextmanager
def new_database(backend: str, tmp: Path) -> Iterator[str]:
    """The URL of a new, empty store: an SQLite file, or a PostgreSQL database dropped afterwards."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp / ('db-' + uuid.uuid4().hex[:8] + '.sqlite')}"
        return
    from sqlalchemy import create_engine, text
    name = "bench_" + uuid.uuid4().hex[:8]
    admin = create_engine(PG, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"CREATE DATABASE {name}"))
    try:
        yield PG.rsplit("/", 1)[0] + "/" + name
    finally:
        with admin.connect() as conn:
            conn.execute(text(f"DROP DATABASE {name} WITH (FORCE)"))
        admin.dispose()


def one_load(backend: str, frame: pd.DataFrame, tmp: Path, ordinary: bool) -> float:
    """Seconds of ``Store.load_judgments`` of ``frame`` into a new, migrated store."""
    with new_database(backend, tmp) as url:
        store = Store(url)
        with ordinary_path(ordinary):
            t0 = time.perf_counter()
            store.load_judgments(frame, file_name="bench", input_format="canonical")
            seconds = time.perf_counter() - t0
        store.engine.dispose()
    return seconds


def parallel_ingests(backend: str, files: list[Path], tmp: Path, ordinary: bool) -> float:
    """Wall seconds of ``mtlb ingest`` processes, one per file, released together into a new store
    (migrated beforehand); from the release until the last one exits."""
    go = tmp / f"go-{uuid.uuid4().hex}"
    prelude = ORDINARY if ordinary else ""
    script = prelude + ("import os, sys, time\nfrom leaderboard.cli import main\n"
                        "import leaderboard.cli.ingest, leaderboard.storage, pandas, sqlalchemy\n"
                        "open(sys.argv[1], 'w').close()\n"
                        "while not os.path.exists(sys.argv[2]):\n    time.sleep(0.005)\n"
                        "sys.exit(main(sys.argv[3:]))\n")
    with new_database(backend, tmp) as url:
        Store(url).engine.dispose()  # migrated before the clock starts
        env = {**os.environ, "DATABASE_URL": url}
        procs = []
        for k, path in enumerate(files):
            ready = tmp / f"ready-{go.name}-{k}"
            procs.append((ready, subprocess.Popen([sys.executable, "-c", script, str(ready), str(go), "ingest",
                                                   str(path), "--campaign", f"c{k}"], env=env,
                                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)))
        while not all(r.exists() or p.poll() is not None for r, p in procs):
            time.sleep(0.02)
        t0 = time.perf_counter()
        go.touch()
        for _ready, p in procs:
            _, err = p.communicate()
            if p.returncode != 0:
                raise RuntimeError(err.decode(errors="replace")[-2000:])
        return time.perf_counter() - t0


def fast_path(rows: int, processes: int, rounds: int) -> dict:
    """What the fast path saves or costs: alone, and among loads running at once (see the docstring)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from synth_release import write_release
    frame = validate_judgments(synthetic(rows))
    backends = ["sqlite"] + (["postgresql"] if pg_up() else [])
    out: dict = {"rows": rows, "rounds": rounds, "processes": processes}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        files = [write_release(tmp / f"ad-part{k}-good-stnd.csv", n_judgments=rows // processes, n_lps=2,
                               seed=k) for k in range(processes)]
        for backend in backends:
            alone = {"fast_s": [], "ordinary_s": []}
            together = {"fast_s": [], "ordinary_s": []}
            for _ in range(rounds):  # alternating, so that the shared machine's load falls on both
                for ordinary in (False, True):
                    key = "ordinary_s" if ordinary else "fast_s"
                    alone[key].append(round(one_load(backend, frame, tmp, ordinary), 3))
                    together[key].append(round(parallel_ingests(backend, files, tmp, ordinary), 3))
            out[backend] = {
                "one_load": {**alone, "ordinary_over_fast": round(statistics.median(alone["ordinary_s"])
                                                                 / statistics.median(alone["fast_s"]), 2)},
                "parallel_ingests": {**together, "ordinary_over_fast": round(
                    statistics.median(together["ordinary_s"]) / statistics.median(together["fast_s"]), 2)},
            }
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--out", help="also write the JSON to this file")
    parser.add_argument("--fast-path", action="store_true", help="measure the fast load path instead (see above)")
    parser.add_argument("--processes", type=int, default=8, help="--fast-path: ingests started together")
    parser.add_argument("--rounds", type=int, default=3, help="--fast-path: rounds of each measurement")
    args = parser.parse_args()
    load_before = os.getloadavg()
    if args.fast_path:
        result = {"benchmark": "ingest-fast-path", **fast_path(args.rows, args.processes, args.rounds),
                  "cpus": os.cpu_count(),
                  "load_average_before_after": [round(load_before[0], 1), round(os.getloadavg()[0], 1)]}
        text_out = json.dumps(result, indent=2)
        print(text_out)
        if args.out:
            Path(args.out).write_text(text_out + "\n")
        return
    raw = synthetic(args.rows)
    t0 = time.perf_counter()
    frame = validate_judgments(raw)
    result = {"benchmark": "ingest", "rows": args.rows, "validate_seconds": round(time.perf_counter() - t0, 3)}
    with tempfile.TemporaryDirectory() as tmp:
        result["sqlite"] = measure(f"sqlite:///{Path(tmp) / 'bench.sqlite'}", frame)
    if pg_up():
        from sqlalchemy import create_engine, text
        schema = "bench_" + uuid.uuid4().hex[:8]
        engine = create_engine(PG)
        with engine.begin() as conn:
            conn.execute(text(f"CREATE SCHEMA {schema}"))
        try:
            result["postgresql"] = measure(f"{PG}?options=-csearch_path%3D{schema}", frame)
        finally:
            with engine.begin() as conn:
                conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
    else:
        result["postgresql"] = "skipped: no server on 127.0.0.1:5432"
    result["whole_process"] = whole_process(args.rows)
    result["cpus"] = os.cpu_count()
    result["load_average_before_after"] = [round(load_before[0], 1), round(os.getloadavg()[0], 1)]
    text_out = json.dumps(result, indent=2)
    print(text_out)
    if args.out:
        Path(args.out).write_text(text_out + "\n")


if __name__ == "__main__":
    main()
