"""Organisers load several language pairs at once on day one: twenty ``mtlb ingest`` processes of WMT
release files (13 distinct, 7 byte-identical repeats) spread over four campaigns, started together
into a brand-new PostgreSQL database (``CREATE DATABASE``) and a new SQLite file, and into a store
already in use while annotators write answers through the collection service. Every load must end
stored or refused for a true reason (a repeat); afterwards every stored row equals its file and the
judgments table has every key, index and foreign key it was migrated with. Real processes, real
databases; nothing is mocked.

Loads into different campaigns run in parallel (loads into one campaign wait for each other), so
this is where the fast load path, which builds the judgments' keys after its rows, meets other loads.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
import uuid
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sqlalchemy import create_engine, func, make_url, select, text

from collecting import write_testset
from test_concurrency import run_together
from test_load_index_after import schema_of
from leaderboard.collect import campaigns
from leaderboard.collect.links import invitation_links
from leaderboard.collect.service import open_invitation, start, submit_answer
from leaderboard.ingest import read_judgments
from leaderboard.storage import Store
from leaderboard.storage import models as m
from leaderboard.storage.db import ensure_schema, make_engine

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from synth_release import HEADER, LANGS, synth_frame  # noqa: E402

CAMPAIGNS = ("day1-news", "day1-social", "day1-speech", "day1-literary")
DISTINCT, REPEATS = 13, 7
JUDGMENTS_PER_FILE = 3000
EARLIER = 500  # judgments stored before the loads in the "used" cases
START_TIMEOUT = 600  # seconds for twenty processes to import everything on a busy two-core machine


def write_release_pair(folder: Path, src: str, seed: int, n: int = JUDGMENTS_PER_FILE) -> tuple[Path, Path]:
    """A WMT release file ``ad-<src>en-good-stnd.csv`` (z-scores) and its worker mean/sd print-out."""
    frame = synth_frame(n_judgments=n, n_lps=1, n_systems=8, segments_per_lp=400, seed=seed)
    frame["Input.src"] = src
    # raw slider scores first, then each worker's mean / sd and z as the organisers compute them
    raw = np.clip(np.round(55 + 18 * frame["score"].to_numpy()), 0, 100)
    stats = pd.DataFrame({"worker": frame["WorkerId"], "raw": raw}).groupby("worker")["raw"].agg(["mean", "std"])
    frame["score"] = (raw - frame["WorkerId"].map(stats["mean"])) / frame["WorkerId"].map(stats["std"])
    stnd = folder / f"ad-{src}en-good-stnd.csv"
    with open(stnd, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(HEADER + "\n")
        frame.to_csv(fh, sep="\t", header=False, index=False, lineterminator="\n", float_format="%.15g")
    lines = []
    for worker, row in stats.iterrows():
        lines += [f'[1] "{worker}"', f"[1] {float(row['mean'])!r}", f"[1] {float(row['std'])!r}"]
    stats = folder / f"ad-{src}en-trk-mean-sd.txt"
    stats.write_text("\n".join(lines) + "\n")
    return stnd, stats


def release_files(root: Path) -> tuple[list[list[str]], list[list[str]]]:
    """13 distinct ``mtlb ingest`` argument lists (release file + worker stats; the campaign is the
    file's folder) over four campaigns, and 7 repeats: byte-identical copies under another name in the
    same folder, which must be refused as already imported."""
    distinct = []
    for k in range(DISTINCT):
        folder = root / CAMPAIGNS[k % len(CAMPAIGNS)]
        folder.mkdir(parents=True, exist_ok=True)
        stnd, stats = write_release_pair(folder, LANGS[k], seed=100 + k)
        distinct.append([str(stnd), "--worker-stats", str(stats)])
    repeats = []
    for i in range(REPEATS):
        original = Path(distinct[i * 2 % DISTINCT][0])
        copy = original.with_name(original.name.replace("-good-stnd", f"-again{i}-good-stnd"))
        shutil.copyfile(original, copy)
        repeats.append([str(copy), *distinct[i * 2 % DISTINCT][1:]])
    return distinct, repeats


def expected_frame(args: list[str]) -> pd.DataFrame:
    path = Path(args[0])
    return read_judgments(path, "wmt-stnd", worker_stats=args[2], campaign=path.parent.name)


def migrated_schema(url: str, tmp: Path) -> dict:
    """The judgments table's keys and indexes in a store migrated afresh on the same back end (PostgreSQL:
    a scratch schema of the same database, its name written as the store's)."""
    if url.startswith("sqlite"):
        return plain(schema_of(Store(f"sqlite:///{tmp / 'reference.sqlite'}")))
    schema = "ref_" + uuid.uuid4().hex[:8]
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        reference = Store(make_url(url).update_query_dict({"options": f"-csearch_path={schema}"})
                          .render_as_string(hide_password=False))
        described = schema_of(reference)
        reference.engine.dispose()
    finally:
        with engine.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        engine.dispose()
    return plain(described, schema)


def plain(described: dict, schema: str = "public") -> dict:
    """``schema_of`` with rows as tuples and the PostgreSQL schema's name written as ``public``."""
    return {k: [tuple(str(x).replace(f"{schema}.", "public.") for x in row) for row in v]
            if k in ("definitions", "constraints") else v for k, v in described.items()}


class Annotators:
    """Annotators answering in threads through the service functions the annotation page calls, until
    stopped; every answer the service reports as stored is logged, every exception kept."""

    def __init__(self, store: Store, tokens: list[str]) -> None:
        self.store, self.tokens = store, tokens
        self.log: list[tuple] = []
        self.errors: list[str] = []
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._work, args=(k,)) for k in range(len(tokens))]

    def _work(self, k: int) -> None:
        try:
            person = open_invitation(self.store, self.tokens[k])
            task = start(self.store, person)
            n = 0
            while task.state != "none" and not self.stop.is_set():
                if task.state == "complete":
                    task = start(self.store, person, new_hit=True)
                    continue
                item = task.current
                score = float((k * 7 + n * 13) % 101)
                n += 1
                task = submit_answer(self.store, person, int(item["id"]), score)
                self.log.append((person.name, int(item["id"]), score, task.stored))
        except Exception as exc:  # noqa: BLE001 - the test reports every failure
            self.errors.append(f"{type(exc).__name__}: {exc}")

    def __enter__(self) -> "Annotators":
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(300)


def start_annotation(store: Store, tmp: Path, n_annotators: int = 4) -> list[str]:
    """A collection campaign of its own (de-en, DA) with ``n_annotators`` invitation links."""
    paths = write_testset(tmp / "testset", n_lines=120, seed=7)
    sources = campaigns.sources_from_files([str(p) for p in paths["hyps"]], str(paths["ref"]), "de-en")
    campaigns.create(store, "crowd-day1", "de-en", sources, protocol="da", hits=12, hit_size=20, redundancy=2, seed=3)
    links = invitation_links(store, "crowd-day1", "de-en", n_annotators, "http://127.0.0.1:8501")
    return [link["url"].split("t=", 1)[1] for link in links]


def check_concurrent_loads(url: str, tmp_path: Path, *, used: bool) -> None:
    distinct, repeats = release_files(tmp_path / "releases")
    commands = [["ingest", *args] for args in distinct + repeats]
    order = np.random.default_rng(5).permutation(len(commands))
    env = {**os.environ, "DATABASE_URL": url, "MTLB_AUTO_MIGRATE": "1"}
    env.pop("MTLB_DATA_DIR", None)
    annotators = None
    engine = None
    if used:  # a store in use: judgments stored, and annotators answering while the loads run; fewer
        # stored than a load brings, so that the loads may still build the keys after their rows
        engine = make_engine(url, pool_size=8, max_overflow=0, pool_timeout=300)
        ensure_schema(engine)
        store = Store(engine=engine)
        first = (tmp_path / "earlier" / "day0")
        first.mkdir(parents=True)
        stnd, stats = write_release_pair(first, "hr", seed=99, n=EARLIER)
        store.load_judgments(read_judgments(stnd, "wmt-stnd", worker_stats=stats, campaign="day0"),
                             file_name=stnd.name, input_format="wmt-stnd")
        annotators = Annotators(store, start_annotation(store, tmp_path))
    clock = time.perf_counter()
    if annotators is not None:
        with annotators:
            time.sleep(0.5)  # they are answering before the loads start
            results = run_together([commands[i] for i in order], tmp_path, env, start_timeout=START_TIMEOUT)
            time.sleep(0.5)
    else:
        results = run_together([commands[i] for i in order], tmp_path, env, start_timeout=START_TIMEOUT)
    seconds = time.perf_counter() - clock

    outcome = {tuple(commands[i][1:]): r for i, r in zip(order, results)}
    for r in results:
        assert "Traceback" not in r.stderr, r.stderr[-3000:]
    failed = [(Path(r.args[-3]).name, r.returncode, r.stderr.strip().splitlines()[-1:]) for r in results
              if r.returncode not in (0, 2) or (r.returncode == 2 and "already imported" not in r.stderr)]
    assert not failed, f"loads that neither stored nor were refused as repeats: {failed}"
    # one load of every distinct file stored, the other copy refused as already imported, whichever came first
    for args, again in zip([distinct[i * 2 % DISTINCT] for i in range(REPEATS)], repeats):
        codes = sorted([outcome[tuple(args)].returncode, outcome[tuple(again)].returncode])
        assert codes == [0, 2], (args[0], codes)
    repeated = {tuple(distinct[i * 2 % DISTINCT]) for i in range(REPEATS)}
    for args in distinct:
        if tuple(args) not in repeated:
            assert outcome[tuple(args)].returncode == 0, outcome[tuple(args)].stderr[-2000:]
    for r in results:
        if r.returncode == 2:
            last = r.stderr.strip().splitlines()[-1]
            assert last.startswith("mtlb ingest: error: ") and "already imported into campaign" in last, last

    store = Store(url) if engine is None else Store(engine=engine)
    for campaign in CAMPAIGNS:
        files = [args for k, args in enumerate(distinct) if k % len(CAMPAIGNS) == CAMPAIGNS.index(campaign)]
        imports = store.imports(campaign)
        assert len(imports) == len(files) and imports["sha256"].nunique() == len(files)
        stored = store.judgments(campaign)
        expected = pd.concat([expected_frame(args) for args in files], ignore_index=True)
        assert len(stored) == len(expected) == JUDGMENTS_PER_FILE * len(files)
        key = ["lp", "worker", "hit", "position"]
        both = stored.merge(expected, on=key, suffixes=("", "_file"), validate="one_to_one")
        assert len(both) == len(expected)
        for column in ("system", "segment", "item_type"):
            assert (both[column] == both[f"{column}_file"]).all(), column
        np.testing.assert_array_equal(both["z"].to_numpy(), both["z_file"].to_numpy())
        np.testing.assert_allclose(both["raw"].to_numpy(), both["raw_file"].to_numpy(), rtol=0, atol=1e-9)
    # the judgments table kept every key, index and foreign key, as a store migrated afresh has them
    assert plain(schema_of(store)) == migrated_schema(url, tmp_path)
    if annotators is not None:
        assert annotators.errors == []
        answered = [row for row in annotators.log if row[3]]
        assert len(answered) >= 20, "the annotators answered while the loads ran"
        with store.engine.connect() as conn:
            n_answers, n_linked = conn.execute(select(func.count(m.collect_answers.c.id),
                                                      func.count(m.collect_answers.c.judgment_id))).one()
        collected = store.judgments("crowd-day1")
        assert n_answers == len(answered) == n_linked == len(collected)
        assert len(store.judgments("day0")) == EARLIER
    print(f"\n{url.split(':')[0]} ({'used, annotators answering' if used else 'fresh'}): "
          f"{len(results)} ingests in {seconds:.1f} s"
          + (f", {len(annotators.log)} answers meanwhile" if annotators is not None else ""))
    store.engine.dispose()


@pytest.mark.slow(weight=2)
@pytest.mark.empty_store  # a database never used: its first loads migrate it
def test_twenty_first_loads_into_a_new_postgres_database(pg_url, tmp_path):
    check_concurrent_loads(pg_url, tmp_path, used=False)


@pytest.mark.slow(weight=2)
@pytest.mark.empty_store  # a database never used: its first loads migrate it
def test_twenty_loads_into_a_used_postgres_database_while_annotators_answer(pg_url, tmp_path):
    check_concurrent_loads(pg_url, tmp_path, used=True)


@pytest.mark.slow(weight=2)
def test_twenty_first_loads_into_a_new_sqlite_file(tmp_path):
    check_concurrent_loads(f"sqlite:///{tmp_path / 'day1.sqlite'}", tmp_path, used=False)


@pytest.mark.slow(weight=2)
def test_twenty_loads_into_a_used_sqlite_file_while_annotators_answer(tmp_path):
    check_concurrent_loads(f"sqlite:///{tmp_path / 'day1.sqlite'}", tmp_path, used=True)


#: the real releases of ../shared/data: (file, worker stats or None); detected formats wmt-stnd and appraise
REAL_FILES = [("wmt22-toen-da/ad-csen-good-stnd.csv", "wmt22-toen-da/ad-csen-trk-mean-sd.txt"),
              ("wmt22-toen-da/ad-deen-good-stnd.csv", "wmt22-toen-da/ad-deen-trk-mean-sd.txt"),
              ("wmt22-toen-da/ad-lven-good-stnd.csv", "wmt22-toen-da/ad-lven-trk-mean-sd.txt"),
              ("wmt21-toen-da/ad-csen-good-stnd.csv", "wmt21-toen-da/ad-csen-trk-mean-sd.txt"),
              ("wmt21-toen-da/ad-deen-good-stnd.csv", "wmt21-toen-da/ad-deen-trk-mean-sd.txt"),
              ("wmt24-esa/esa_generalMT2024_wave3.csv", None),
              ("wmt-now/esa_generalMT2024_wave2.en-cs.csv", None)]


@pytest.mark.slow(weight=3)
@pytest.mark.empty_store  # a database never used: its first loads migrate it
def test_twenty_loads_of_real_wmt_releases_into_a_new_postgres_database(shared, pg_url, tmp_path):
    """The issue's case: WMT release files (the WMT21/22 DA releases with their worker statistics, two
    WMT24 ESA Appraise exports with error spans) loaded at once into a database never used before: 13
    distinct loads (every file into the campaign of its folder, six of them also into a second campaign)
    and 7 repeats (byte-identical copies into the same campaign), all started together."""
    from leaderboard.ingest import detect_format

    def args(name: str, stats: str | None, campaign: str, path: Path | None = None) -> list[str]:
        return ["ingest", str(path or shared / name), *(["--worker-stats", str(shared / stats)] if stats else []),
                "--campaign", campaign]

    loads = [(name, stats, name.split("/")[0]) for name, stats in REAL_FILES]
    loads += [(name, stats, "second-look") for name, stats in REAL_FILES[:6]]
    distinct = [args(*load) for load in loads]
    again = [loads[i] for i in (0, 1, 3, 4, 5, 6, 7)]  # the last one: a repeat into the second campaign
    repeats = []
    for k, (name, stats, campaign) in enumerate(again):
        copy = tmp_path / f"copy{k}-{Path(name).name}"
        shutil.copyfile(shared / name, copy)
        repeats.append(args(name, stats, campaign, copy))
    assert len(distinct) == DISTINCT and len(repeats) == REPEATS
    content = [(campaign, name) for name, _, campaign in loads + again]  # what each command stores
    commands = distinct + repeats
    order = np.random.default_rng(11).permutation(len(commands))
    env = {**os.environ, "DATABASE_URL": pg_url, "MTLB_AUTO_MIGRATE": "1"}
    env.pop("MTLB_DATA_DIR", None)
    results = dict(zip(order.tolist(), run_together([commands[i] for i in order], tmp_path, env, start_timeout=START_TIMEOUT)))
    for r in results.values():
        assert "Traceback" not in r.stderr, r.stderr[-3000:]
    wrong = [(Path(commands[i][1]).name, r.returncode, r.stderr.strip().splitlines()[-1:])
             for i, r in results.items() if r.returncode not in (0, 2)
             or (r.returncode == 2 and "already imported into campaign" not in r.stderr)]
    assert not wrong, f"loads that neither stored nor were refused as repeats: {wrong}"
    # per (campaign, file): exactly one load stored, the others refused as already imported
    by_content: dict[tuple[str, str], list[int]] = {}
    for i, key in enumerate(content):
        by_content.setdefault(key, []).append(results[i].returncode)
    assert len(by_content) == DISTINCT
    assert all(sorted(codes) == [0] + [2] * (len(codes) - 1) for codes in by_content.values()), by_content
    store = Store(pg_url)
    for campaign in sorted({c for c, _ in by_content}):
        names = [name for c, name in by_content if c == campaign]
        expected = sum(len(read_judgments(shared / name, detect_format(shared / name),
                                          worker_stats=dict(REAL_FILES)[name] and shared / dict(REAL_FILES)[name],
                                          campaign=campaign)) for name in names)
        assert len(store.imports(campaign)) == len(names)
        assert len(store.judgments(campaign)) == expected, campaign
    assert plain(schema_of(store)) == migrated_schema(pg_url, tmp_path)
    store.engine.dispose()
