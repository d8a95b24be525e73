"""A WMT year ranked and stored, against the cost of merely reading it (issue 34's targets).

A synthetic year in the release layout (``bench/synth_release.py``: 1M judgments, 20 language pairs
x 15 systems) is written once; then every round times, back to back so that the load of the shared
machine falls on both sides of each ratio:

- ``mtlb rank --input-format wmt-stnd --input FILE --json`` (today's defaults: 1,000-resample
  intervals) against a fresh ``python -c`` process that parses the file with ``pandas.read_csv``;
- ``mtlb ingest FILE`` into an empty PostgreSQL database (migrated beforehand, untimed) against
  ``psql -c "\\copy"`` of the file into a bare 12-column text table;
- ``mtlb ingest FILE`` into a new SQLite file (migrated beforehand, untimed) against the
  ``sqlite3`` shell's ``.import`` into a bare 12-column table of a new file;
- the light commands ``mtlb --version``, ``mtlb --help`` and ``mtlb db current`` (median of
  ``--light-runs`` whole processes each).

Each ratio is reported per round (median, spread) and as the fastest run of each side against
each other (``best_vs_best``), the figure least disturbed by other work on a shared machine; rank
against the parse also in CPU seconds (user + system, every thread), which other work moves less.
The databases' references do their work in the server, so only their wall times compare.
Every time is a whole process, start to exit. The stage costs (import, parse, validate,
standardise, rank, intervals, json; for ingest: parse, validate, store, and within store its dimension rows,
judgment rows and the keys and indexes rebuilt afterwards) come from one more process
per command that wraps those functions with timers; ``rank`` is the whole ranking (standardise and
intervals included), ``intervals`` their sum over the language pairs. Prints one JSON object (with the load average
before and after, and the peak memory of each process); PostgreSQL is skipped when
127.0.0.1:5432 does not answer, SQLite's reference when no ``sqlite3`` shell is installed.

    python bench/bench_year.py [--judgments 1000000] [--rounds 3] [--light-runs 7] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from synth_release import write_release  # noqa: E402

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/test"
TEXT_TABLE = "CREATE TABLE stnd ({})".format(", ".join(f"c{i} text" for i in range(12)))
PARSE = "import sys, pandas as pd; pd.read_csv(sys.argv[1], sep='\\t', skiprows=1, header=None)"

#: run in a fresh process: wraps each stage's function with a timer, then runs the command in-process
STAGES = r"""
import contextlib, io, json, sys, time
t0 = time.perf_counter()
from leaderboard.cli import main
from leaderboard import schema
from leaderboard.cli import _common
from leaderboard.ingest import wmt_release
stage = {}
def timed(owner, attr, name):
    inner = getattr(owner, attr)
    def wrapper(*args, **kwargs):
        t = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            stage[name] = stage.get(name, 0.0) + time.perf_counter() - t
    setattr(owner, attr, wrapper)
timed(wmt_release, "read_stnd", "parse")
timed(schema, "validate_judgments", "validate")
argv = json.loads(sys.argv[1])
if argv[0] == "rank":
    from leaderboard.cli import rank
    from leaderboard.human import ranking
    timed(ranking, "_z_scores", "standardise")
    timed(ranking, "_segment_intervals", "intervals")
    timed(ranking, "rank_judgments", "rank")
    timed(rank, "print_json", "json")
else:
    import contextlib
    from leaderboard.cli import ingest
    from leaderboard.storage import loader
    from leaderboard.storage.store import Store
    timed(Store, "load_judgments", "store")
    timed(ingest, "print_json", "json")
    # parts of store: dimension rows, the judgment rows (COPY / executemany), the keys and indexes rebuilt
    timed(loader, "_row_ids", "store_dimensions")
    timed(loader, "copy_postgres", "store_rows")
    timed(loader, "insert_frame", "store_rows")
    rebuild = loader._indexes_built_after
    @contextlib.contextmanager
    def timed_rebuild(*args, **kwargs):
        with rebuild(*args, **kwargs):
            yield
            t = time.perf_counter()
        stage["store_indexes"] = stage.get("store_indexes", 0.0) + time.perf_counter() - t
    loader._indexes_built_after = timed_rebuild
t1 = time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()):
    code = main(argv)
t2 = time.perf_counter()
assert code == 0, code
out = {"import": t1 - t0, **stage}
# rank includes standardise and the intervals (summed over the language pairs), store its store_* parts
out["other"] = (t2 - t1) - sum(v for k, v in stage.items()
                               if k not in ("standardise", "intervals") and not k.startswith("store_"))
print(json.dumps({k: round(v, 3) for k, v in out.items()}))
"""


CPU: dict[str, float] = {}  # CPU seconds (user + system, all threads) of the last run of each command


def run(cmd: list[str], env: dict | None = None, stdout=subprocess.DEVNULL) -> tuple[float, float]:
    """Wall time (s) and peak resident memory (MB) of one whole process; raises when it fails.

    Its CPU time is kept in :data:`CPU` under the command's first two words."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=stdout, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    proc.stderr.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:3])}... exited {proc.returncode}: {err[-2000:]}")
    CPU[" ".join(Path(c).name for c in cmd[:2])] = usage.ru_utime + usage.ru_stime
    return seconds, usage.ru_maxrss / 1024


def pg_up() -> bool:
    try:
        socket.create_connection(("127.0.0.1", 5432), timeout=0.5).close()
        return True
    except OSError:
        return False


def pg_admin(sql: str) -> None:
    import psycopg
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(sql)


def ratio(a: float, b: float) -> float:
    return round(a / b, 2)


def summary(values: list[float]) -> dict:
    return {"median": round(statistics.median(values), 3), "min": round(min(values), 3),
            "max": round(max(values), 3), "all": [round(v, 3) for v in values]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--judgments", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=3, help="rounds of every paired measurement")
    ap.add_argument("--light-runs", type=int, default=7, help="runs of each light command (median reported)")
    ap.add_argument("--skip-postgres", action="store_true")
    ap.add_argument("--out", help="also write the JSON to this file")
    args = ap.parse_args()
    python = sys.executable
    mtlb = str(Path(python).with_name("mtlb"))
    load_before = os.getloadavg()
    use_pg = pg_up() and not args.skip_postgres
    sqlite3 = shutil.which("sqlite3")
    tmp = Path(tempfile.mkdtemp(prefix="mtlb-bench-year-"))
    dbs: list[str] = []
    try:
        path = write_release(tmp / "ad-year-good-stnd.csv", n_judgments=args.judgments)
        env = {**os.environ, "MTLB_DATA_DIR": str(tmp / "home"), "MTLB_NO_DEMO": "1"}
        env.pop("DATABASE_URL", None)
        rounds = []
        for r in range(args.rounds):
            row: dict = {"load_average": round(os.getloadavg()[0], 1)}
            row["pandas_parse_s"], row["pandas_parse_mb"] = run([python, "-c", PARSE, str(path)], env)
            row["pandas_parse_cpu_s"] = CPU.popitem()[1]
            row["rank_s"], row["rank_mb"] = run([mtlb, "rank", "--input-format", "wmt-stnd", "--input", str(path),
                                                 "--json"], env)
            row["rank_cpu_s"] = CPU.popitem()[1]
            if sqlite3:
                ref_db = tmp / f"ref-{r}.sqlite"
                subprocess.run([sqlite3, str(ref_db), TEXT_TABLE + ";"], check=True)
                row["sqlite3_import_s"], _ = run([sqlite3, str(ref_db), ".mode tabs",
                                                  f".import --skip 1 {path} stnd"], env)
                ref_db.unlink()
            store = tmp / f"store-{r}.sqlite"
            url = f"sqlite:///{store}"
            run([mtlb, "db", "upgrade", "--database-url", url], env)
            row["ingest_sqlite_s"], row["ingest_sqlite_mb"] = run(
                [mtlb, "ingest", str(path), "--input-format", "wmt-stnd", "--campaign", "year",
                 "--database-url", url, "--json"], env)
            store.unlink()
            if use_pg:
                name = "bench_year_" + uuid.uuid4().hex[:8]
                pg_admin(f"CREATE DATABASE {name}")
                dbs.append(name)
                pg_url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
                subprocess.run(["psql", "-q", "-h", "127.0.0.1", "-U", "postgres", "-d", name, "-c", TEXT_TABLE],
                               check=True)
                row["psql_copy_s"], _ = run(["psql", "-q", "-h", "127.0.0.1", "-U", "postgres", "-d", name, "-c",
                                             f"\\copy stnd FROM '{path}' WITH (FORMAT text, HEADER true)"], env)
                run([mtlb, "db", "upgrade", "--database-url", pg_url], env)
                row["ingest_postgresql_s"], row["ingest_postgresql_mb"] = run(
                    [mtlb, "ingest", str(path), "--input-format", "wmt-stnd", "--campaign", "year",
                     "--database-url", pg_url, "--json"], env)
                pg_admin(f"DROP DATABASE {name} WITH (FORCE)")
                dbs.remove(name)
            row["rank_vs_parse"] = ratio(row["rank_s"], row["pandas_parse_s"])
            row["rank_vs_parse_cpu"] = ratio(row["rank_cpu_s"], row["pandas_parse_cpu_s"])
            if "sqlite3_import_s" in row:
                row["ingest_sqlite_vs_import"] = ratio(row["ingest_sqlite_s"], row["sqlite3_import_s"])
            if "psql_copy_s" in row:
                row["ingest_postgresql_vs_copy"] = ratio(row["ingest_postgresql_s"], row["psql_copy_s"])
            rounds.append(row)
            print(json.dumps(row), file=sys.stderr)

        # light commands: a migrated default store so that `db current` opens it
        run([mtlb, "db", "upgrade"], env)
        light = {}
        for name, cmd in (("version", ["--version"]), ("help", ["--help"]), ("db_current", ["db", "current"])):
            light[name] = summary([run([mtlb, *cmd], env)[0] for _ in range(args.light_runs)])

        stages = {"rank": json.loads(subprocess.run(
            [python, "-c", STAGES, json.dumps(["rank", "--input-format", "wmt-stnd", "--input", str(path), "--json"])],
            env=env, check=True, capture_output=True, text=True).stdout)}
        store = tmp / "stages.sqlite"
        run([mtlb, "db", "upgrade", "--database-url", f"sqlite:///{store}"], env)
        stages["ingest_sqlite"] = json.loads(subprocess.run(
            [python, "-c", STAGES, json.dumps(["ingest", str(path), "--input-format", "wmt-stnd", "--campaign", "year",
                                               "--database-url", f"sqlite:///{store}", "--json"])],
            env=env, check=True, capture_output=True, text=True).stdout)
        if use_pg:
            name = "bench_year_" + uuid.uuid4().hex[:8]
            pg_admin(f"CREATE DATABASE {name}")
            dbs.append(name)
            pg_url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
            run([mtlb, "db", "upgrade", "--database-url", pg_url], env)
            stages["ingest_postgresql"] = json.loads(subprocess.run(
                [python, "-c", STAGES, json.dumps(["ingest", str(path), "--input-format", "wmt-stnd",
                                                   "--campaign", "year", "--database-url", pg_url, "--json"])],
                env=env, check=True, capture_output=True, text=True).stdout)
        size = path.stat().st_size
    finally:
        for name in dbs:
            pg_admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        shutil.rmtree(tmp, ignore_errors=True)

    ratios = {"rank_vs_pandas_parse": summary([r["rank_vs_parse"] for r in rounds]),
              # CPU seconds (all threads) rather than wall time: less moved by other work on the machine
              "rank_vs_pandas_parse_cpu": summary([r["rank_vs_parse_cpu"] for r in rounds])}
    if all("ingest_sqlite_vs_import" in r for r in rounds):
        ratios["ingest_sqlite_vs_sqlite3_import"] = summary([r["ingest_sqlite_vs_import"] for r in rounds])
    if use_pg:
        ratios["ingest_postgresql_vs_psql_copy"] = summary([r["ingest_postgresql_vs_copy"] for r in rounds])
    # the fastest run of each side, the least disturbed by other work on a shared machine
    best = {"rank_vs_pandas_parse": ("rank_s", "pandas_parse_s"),
            "ingest_sqlite_vs_sqlite3_import": ("ingest_sqlite_s", "sqlite3_import_s"),
            "ingest_postgresql_vs_psql_copy": ("ingest_postgresql_s", "psql_copy_s")}
    for name, (ours, reference) in best.items():
        if name in ratios:
            ratios[name]["best_vs_best"] = ratio(min(r[ours] for r in rounds), min(r[reference] for r in rounds))
    report = {
        "benchmark": "year", "judgments": args.judgments, "language_pairs": 20, "systems_per_lp": 15,
        "file_mb": round(size / 1e6, 1), "cpus": os.cpu_count(),
        "load_average_before_after": [round(load_before[0], 1), round(os.getloadavg()[0], 1)],
        "ratios": ratios,
        "light_commands_s": light,
        "stages_s": stages,
        "rounds": rounds,
        "targets": {"ratios_at_most": 3.0, "light_commands_at_most_s": 0.25},
        "met": {**{k: v["median"] <= 3.0 for k, v in ratios.items()},
                **{f"{k}_s": v["median"] <= 0.25 for k, v in light.items()}},
    }
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
