"""Contrastive ESA in the service: how fast a dynamic decision is, how fast submit → next page is, and how many
annotators at once one process serves at that speed without losing an answer.

- ``decision``: one dynamic-assignment decision (the allocation state read from the store in one query, the
  rule's choice) with 40 systems and the running sums of 50,000 stored answers in the campaign's cells (400
  documents of 5 segments; the decision reads the cells, never the answers), and the transaction that takes
  the chosen cells (target ≤ 20 ms for the decision);
- ``submit_next``: :func:`leaderboard.collect.cesa.submit_page` of a page of three 150-word translations until
  the next page is ready (server side; target p95 ≤ 0.3 s);
- ``browser`` (``--browser``): the same in Debian's chromium through the app, from the Enter key until the next
  page is drawn;
- ``concurrency`` (PostgreSQL): N simulated annotators in threads of one process, each reading a page, thinking
  ``--think`` seconds and submitting it; submit → next p95 and answers stored vs. given, for each N;
- ``served`` (PostgreSQL): the same through one ``mtlb serve`` process over HTTP, as the page component sends
  drafts and submits to the annotation endpoint (two drafts and a submit per page), with the server's CPU per
  page (``--served-levels``).

    python bench/bench_cesa.py [--backends sqlite,postgres] [--levels 50,100,200,300]
        [--served-levels 100,200,300] [--think 10] [--browser]

Prints one JSON object (seconds).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
WORDS = ("the council approved a new plan for the river bridge after long talks with local farmers who feared higher "
         "costs and lost land while the mayor promised fair prices clean water better roads").split()


def _q(values: list[float]) -> dict:
    v = sorted(values)
    if not v:
        return {"n": 0}
    return {"n": len(v), "p50": round(statistics.median(v), 4), "p95": round(v[min(len(v) - 1, int(0.95 * len(v)))], 4),
            "max": round(v[-1], 4)}


_SCHEMAS: list[str] = []  # made by this run, dropped at its end


def _pg_schema() -> str:
    import uuid

    from sqlalchemy import create_engine, text
    schema = "bench_" + uuid.uuid4().hex[:10]
    engine = create_engine(PG)
    with engine.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    engine.dispose()
    _SCHEMAS.append(schema)
    return f"{PG}?options=-csearch_path%3D{schema}"


def _drop_schemas() -> None:
    """Drop the schemas this run made in the shared PostgreSQL database (the pooled connections left are
    idle; a lock still held makes the drop give up after 10 s rather than wait)."""
    if not _SCHEMAS:
        return
    from sqlalchemy import create_engine, text
    engine = create_engine(PG)
    with engine.begin() as conn:
        conn.execute(text("SET LOCAL lock_timeout = '10s'"))
        for schema in _SCHEMAS:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
    engine.dispose()


def _url(backend: str, folder: Path, name: str) -> str:
    return f"sqlite:///{folder / (name + '.sqlite')}" if backend == "sqlite" else _pg_schema()


def _plan(n_docs: int, n_segments: int, n_models: int, words: int, seed: int, **settings):
    from leaderboard.collect.plan import CesaPlan, settings_with
    rng = np.random.default_rng(seed)
    docs = []
    for d in range(n_docs):
        segs = []
        for s in range(n_segments):
            segs.append({"item_id": f"news_###_doc{d}_###_{s}", "src": " ".join(rng.choice(WORDS, words)),
                         "tgt": {f"sys{m:02d}": " ".join(rng.choice(WORDS, words)) for m in range(n_models)}})
        docs.append(segs)
    return CesaPlan(docs, settings_with(**settings), "dynamic")


def _people(store, campaign: str, lp: str, n: int):
    from leaderboard.collect.links import invitation_links
    from leaderboard.collect.service import open_invitation
    return [open_invitation(store, link["url"].split("t=")[1])
            for link in invitation_links(store, campaign, lp, n, "http://bench.invalid")]


def _answers(page, rng) -> list[dict]:
    return [{"item": t["item"], "score": int(rng.integers(0, 101)),
             "spans": [{"start": 0, "end": 2, "severity": "minor"}]} for s in page.segments for t in s["translations"]]


def bench_decision(backend: str, folder: Path) -> dict:
    from sqlalchemy import update

    from leaderboard.collect import cesa
    from leaderboard.collect.allocation_api import get_rule
    from leaderboard.collect.campaigns import create_cesa
    from leaderboard.storage import Store
    from leaderboard.storage import collect_cesa as cdb
    from leaderboard.storage import models as m
    from leaderboard.storage.collect import collection
    store = Store(_url(backend, folder, "decision"))
    plan = _plan(400, 5, 40, 6, seed=1, checks=0, check_prob=0.0, rule_params={"coldstart": 5})
    t0 = time.perf_counter()
    create_cesa(store, "bench", "en-de", plan, seed=1)
    setup = time.perf_counter() - t0
    info = collection(store, "bench", "en-de")
    # the running sums of 50,000 stored answers, spread over the cells (scores by model quality)
    rng = np.random.default_rng(2)
    cells = cdb.cells(store, info["id"])
    per_cell = rng.multinomial(50_000 // 5, np.full(len(cells), 1 / len(cells))) * 5
    quality = {f"sys{k:02d}": 40 + k for k in range(40)}
    scores = [rng.normal(quality[mm], 15, n).clip(0, 100) for mm, n in zip(cells["model"], per_cell)]
    with store.engine.begin() as conn:
        k_ = m.collect_cells
        ids = conn.execute(k_.select().where(k_.c.collect_id == info["id"]).order_by(k_.c.doc_index, k_.c.model)).all()
        by = {(r.doc_index, r.model): r.id for r in ids}
        for (d, mm), n, sc in zip(zip(cells["doc_index"], cells["model"]), per_cell, scores):
            if n:
                conn.execute(update(k_).where(k_.c.id == by[(d, mm)]).values(
                    given=1, done=1, n=int(n), total=float(sc.sum()), total_sq=float((sc * sc).sum())))
    stored = int(cdb.cells(store, info["id"])["given"].sum())
    (person,) = _people(store, "bench", "en-de", 1)
    rule = get_rule("running-rank", coldstart=5)
    decide, read, choose, take = [], [], [], []
    cpu = []
    for i in range(60):
        t0, c0 = time.perf_counter(), time.process_time()
        state = cesa.allocation_state(store, person, set())
        t1 = time.perf_counter()
        rule.choose(state, 3, np.random.default_rng(i))
        t2 = time.perf_counter()
        cpu.append(time.process_time() - c0)
        read.append(t1 - t0)
        choose.append(t2 - t1)
        decide.append(t2 - t0)
    for i in range(20):
        state = cesa.allocation_state(store, person, set())
        choice = rule.choose(state, 3, np.random.default_rng(100 + i))
        doc, models = choice[0], choice[1]
        t0 = time.perf_counter()
        held = cdb.create_page(store, person.id, info["id"], int(doc), [state.models[j] for j in models],
                               redundancy=int(info["redundancy"]) + 10)
        take.append(time.perf_counter() - t0)
        from leaderboard.storage.collect import write_transaction
        with write_transaction(store.engine) as conn:  # give the page up again, to take the next
            conn.execute(update(m.collect_assignments).where(m.collect_assignments.c.id == held["id"])
                         .values(status="expired"))
    answers = int(np.sum(per_cell))
    return {"systems": 40, "documents": 400, "cells": len(cells), "answers_in_cells": answers, "cells_given": stored,
            "setup_s": round(setup, 2), "decision": _q(decide), "decision_cpu_s": _q(cpu), "read_state": _q(read),
            "rule": _q(choose),
            "take_cells": _q(take), "target_s": 0.02, "met": _q(decide)["p95"] <= 0.02}


def _stored_pages(store, info: dict, person, n_pages: int, rng) -> None:
    """``n_pages`` submitted pages (3 models, 5 segments) as a finished dynamic campaign stores them: page HITs,
    done assignments and their judgments, and the cells' counts and running sums (bulk inserts)."""
    from datetime import datetime, timezone

    from sqlalchemy import insert, select, update

    from leaderboard.storage import models as m
    h_, i_, s_, g_, k_ = m.collect_hits, m.collect_items, m.collect_slots, m.collect_assignments, m.collect_cells
    with store.engine.begin() as conn:
        tmpl = pd.DataFrame(conn.execute(select(m.collect_hits.c.doc_index, i_.c.system, i_.c.segment_id,
                                                i_.c.system_id).join(i_, i_.c.hit_id == h_.c.id)
                                         .where(h_.c.collect_id == info["id"], h_.c.kind == "doc")).all(),
                            columns=["doc", "system", "segment_id", "system_id"])
        by = {key: g for key, g in tmpl.groupby(["doc", "system"])}
        models = sorted(tmpl["system"].unique())
        slots = [(d, t) for d in range(400) for t in range(13)]
        perms = {d: rng.permutation(len(models)) for d in range(400)}
        chosen = [slots[i] for i in rng.permutation(len(slots))[:n_pages]]
        now = datetime.now(timezone.utc)
        hits = [{"collect_id": info["id"], "name": f"B{p}", "items": 15, "kind": "page", "doc_index": int(d),
                 "random_item": False} for p, (d, _) in enumerate(chosen)]
        conn.execute(insert(h_), hits)
        ids = dict(conn.execute(select(h_.c.name, h_.c.id).where(h_.c.collect_id == info["id"],
                                                                 h_.c.kind == "page")).all())
        conn.execute(insert(s_), [{"hit_id": ids[f"B{p}"], "slot": 1, "holder_id": person.id, "done": True}
                                  for p in range(n_pages)])
        slot_ids = dict(conn.execute(select(s_.c.hit_id, s_.c.id)).all())
        conn.execute(insert(g_), [{"hit_id": ids[f"B{p}"], "slot_id": slot_ids[ids[f"B{p}"]], "annotator_id": person.id,
                                   "status": "done", "started_at": now, "completed_at": now, "extra": False}
                                  for p in range(n_pages)])
        worker = conn.execute(select(m.collect_annotators.c.worker_id)
                              .where(m.collect_annotators.c.id == person.id)).scalar_one()
        judg, cells = [], []
        for p, (d, t) in enumerate(chosen):
            pos = 0
            for j in perms[d][3 * t: 3 * t + 3]:
                model = models[j]
                rows = by[(d, model)]
                sc = rng.normal(40 + j, 15, len(rows)).clip(0, 100)
                for seg, sys_id, x in zip(rows["segment_id"], rows["system_id"], sc):
                    pos += 1
                    judg.append({"import_id": info["import_id"], "lp_id": info["lp_id"], "assessment": "cesa",
                                 "worker_id": worker, "hit": f"B{p}", "position": pos, "segment_id": int(seg),
                                 "system_id": int(sys_id), "item_type": "SYSTEM", "raw": float(x)})
                cells.append((int(d), model, len(sc), float(sc.sum()), float((sc * sc).sum())))
        conn.execute(insert(m.judgments), judg)
        for d, model, n, tot, tot2 in cells:
            conn.execute(update(k_).where(k_.c.collect_id == info["id"], k_.c.doc_index == d, k_.c.model == model)
                         .values(given=1, done=1, n=n, total=tot, total_sq=tot2))


def bench_race_decision(backend: str, folder: Path) -> dict:
    """One ``race`` decision with 40 systems and 50,000 stored answers in submitted pages (3,334 pages): the
    state with the pair statistics and the anytime test's decided pairs from the store. ``first``: the first
    decision of a process (every page read and the evidence computed); ``warm``: later decisions with no new
    page; ``after_new_page``: a decision after one more page was submitted (read and added)."""
    from leaderboard.collect import cesa
    from leaderboard.collect.allocation_api import get_rule
    from leaderboard.collect.campaigns import create_cesa
    from leaderboard.storage import Store
    from leaderboard.storage.collect import collection
    store = Store(_url(backend, folder, "race"))
    plan = _plan(400, 5, 40, 6, seed=1, checks=0, check_prob=0.0, rule="race", rule_params={"coldstart": 0})
    create_cesa(store, "bench", "en-de", plan, seed=1)
    info = collection(store, "bench", "en-de")
    person, other = _people(store, "bench", "en-de", 2)
    rng = np.random.default_rng(3)
    t0 = time.perf_counter()
    _stored_pages(store, info, other, 3334, rng)
    setup = time.perf_counter() - t0
    rule = get_rule("race", coldstart=0)

    def once(i):
        t0, c0 = time.perf_counter(), time.process_time()
        state = cesa.allocation_state(store, person, set())
        rule.choose(state, 3, np.random.default_rng(i))
        return time.perf_counter() - t0, time.process_time() - c0, state

    first, first_cpu, state = once(0)
    warm = [once(i)[:2] for i in range(1, 41)]
    new = []
    for i in range(20):
        _stored_pages_more(store, info, other, i, rng)
        new.append(once(100 + i)[:2])
    return {"systems": 40, "documents": 400, "answers_stored": int(3334 * 15), "setup_s": round(setup, 2),
            "pairs_seen": int((state.pair_counts > 0).sum() // 2), "pairs_decided": int(state.pair_decided.sum() // 2),
            "first": {"s": round(first, 4), "cpu_s": round(first_cpu, 4)},
            "warm": _q([w for w, _ in warm]), "warm_cpu_s": _q([c for _, c in warm]),
            "after_new_page": _q([w for w, _ in new]), "after_new_page_cpu_s": _q([c for _, c in new]),
            "target_s": 0.02}


def _stored_pages_more(store, info, person, i: int, rng) -> None:
    """One more submitted page (a new HIT name), stored as :func:`_stored_pages` stores them."""
    from sqlalchemy import func, insert, select

    from leaderboard.storage import models as m
    h_, i_ = m.collect_hits, m.collect_items
    with store.engine.begin() as conn:
        tmpl = conn.execute(select(i_.c.system, i_.c.segment_id, i_.c.system_id).join(h_, h_.c.id == i_.c.hit_id)
                            .where(h_.c.collect_id == info["id"], h_.c.kind == "doc", h_.c.doc_index == i)).all()
        hit_id = conn.execute(insert(h_).values(collect_id=info["id"], name=f"N{i}", items=15, kind="page",
                                                doc_index=i, random_item=False).returning(h_.c.id)).scalar_one()
        worker = conn.execute(select(m.collect_annotators.c.worker_id)
                              .where(m.collect_annotators.c.id == person.id)).scalar_one()
        models = sorted({r[0] for r in tmpl})[:3]
        rows = [r for r in tmpl if r[0] in models]
        conn.execute(insert(m.judgments), [{"import_id": info["import_id"], "lp_id": info["lp_id"],
                                            "assessment": "cesa", "worker_id": worker, "hit": f"N{i}",
                                            "position": q + 1, "segment_id": int(r[1]), "system_id": int(r[2]),
                                            "item_type": "SYSTEM", "raw": float(rng.integers(0, 101))}
                                           for q, r in enumerate(rows)])
        del hit_id, func


def _campaign(store, campaign: str, n_docs: int, *, seed: int, redundancy: int = 50):
    from leaderboard.collect.campaigns import create_cesa
    plan = _plan(n_docs, 1, 6, 150, seed=seed, checks=0, check_prob=0.0, models_per_item=3,
                 rule_params={"coldstart": 2})
    create_cesa(store, campaign, "en-de", plan, seed=seed, redundancy=redundancy)


def bench_submit(backend: str, folder: Path, n: int = 40) -> dict:
    from leaderboard.collect import cesa
    from leaderboard.storage import Store
    store = Store(_url(backend, folder, "submit"))
    _campaign(store, "bench", 200, seed=3)
    (person,) = _people(store, "bench", "en-de", 1)
    rng = np.random.default_rng(4)
    page = cesa.next_page(store, person)
    words = [len(t["text"].split()) for s in page.segments for t in s["translations"]]
    times, cpu = [], []
    for _ in range(n):
        answers = _answers(page, rng)
        t0, c0 = time.perf_counter(), time.process_time()
        page = cesa.submit_page(store, person, page.assignment_id, answers)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    # CPU seconds of this process per submit (SQLite: the database's work included; PostgreSQL: the server's
    # work is not): what one core can serve when the machine is not shared
    return {"translations_per_page": len(words), "words_per_translation": words[0], **_q(times),
            "cpu_s": _q(cpu), "target_s": 0.3, "met": _q(times)["p95"] <= 0.3}


def bench_concurrency(levels: list[int], think: float, duration: float, folder: Path) -> list[dict]:
    from sqlalchemy import func, select

    from leaderboard.cli.serve import freeze_heap
    from leaderboard.collect import cesa
    from leaderboard.storage import Store
    from leaderboard.storage import models as m
    out = []
    for n in levels:
        store = Store(_url("postgres", folder, f"conc{n}"))
        _campaign(store, "bench", max(400, n * 3), seed=n, redundancy=3)
        people = _people(store, "bench", "en-de", n)
        # the heap as a served app has it: `mtlb serve` moves what its warm-up built out of the garbage
        # collector's view before it takes visitors (else every full collection scans it with the lock held)
        freeze_heap()
        lat, given, errors = [], [0], []
        lock = threading.Lock()
        stop = time.perf_counter() + duration
        start = threading.Barrier(n)

        def annotator(person, k):
            rng = np.random.default_rng(k)
            try:
                start.wait()
                time.sleep(float(rng.uniform(0, think)))  # arrivals spread over one think time
                page = cesa.next_page(store, person)
                while page.state == "page" and time.perf_counter() < stop:
                    time.sleep(float(rng.uniform(0.5, 1.5)) * think)
                    answers = _answers(page, rng)
                    t0 = time.perf_counter()
                    page = cesa.submit_page(store, person, page.assignment_id, answers)
                    with lock:
                        lat.append(time.perf_counter() - t0)
                        given[0] += len(answers)
            except Exception as exc:  # noqa: BLE001 - counted
                with lock:
                    errors.append(repr(exc)[:200])
        threads = [threading.Thread(target=annotator, args=(p, k), daemon=True) for k, p in enumerate(people)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join(duration + 120)
        with store.engine.connect() as conn:
            stored = conn.execute(select(func.count()).select_from(m.judgments)).scalar_one()
        q = _q(lat)
        out.append({"annotators": n, "think_s": think, "seconds": round(time.perf_counter() - t0, 1),
                    "pages_submitted": len(lat), "answers_given": given[0], "answers_stored": int(stored),
                    "errors": len(errors), "first_error": errors[0] if errors else None, "submit_next": q,
                    "met": q.get("p95", 9) <= 0.3 and not errors and stored == given[0]})
        store.engine.dispose()
    return out


def _cpu_seconds(pid: int) -> tuple[float, float]:
    """(user, system) CPU seconds of a process so far (Linux /proc)."""
    import os
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) / os.sysconf("SC_CLK_TCK"), int(fields[12]) / os.sysconf("SC_CLK_TCK")


def bench_served(levels: list[int], think: float, duration: float, folder: Path) -> list[dict]:
    """N annotators at once against one ``mtlb serve`` process on PostgreSQL, over HTTP as the page sends its
    requests to the annotation endpoint: each reads a page, sends two drafts while thinking ``think`` seconds
    (0.5-1.5x), submits it and gets the next page. The annotators run in threads of this process (their
    HTTP clients share the machine's two cores with the server). Reports submit → next page over HTTP, the
    drafts, answers given vs. stored, and the server process's CPU per submitted page."""
    import http.client
    import os

    from sqlalchemy import func, select

    from leaderboard.collect.links import invitation_links
    from leaderboard.storage import Store
    from leaderboard.storage import models as m
    from appserver import running_app
    out = []
    for n in levels:
        url = _url("postgres", folder, f"served{n}")
        store = Store(url)
        _campaign(store, "bench", max(400, n * 3), seed=n, redundancy=3)
        tokens = [link["url"].split("t=")[1] for link in invitation_links(store, "bench", "en-de", n, "http://x")]
        env = {**os.environ, "DATABASE_URL": url, "MTLB_NO_DEMO": "1", "MTLB_DATA_DIR": str(folder / "served")}
        with running_app(sys.executable, None, env=env, cwd=ROOT, log=folder / f"served{n}.log", timeout=120) as base:
            port = int(base.rsplit(":", 1)[1])
            server_pid = int(__import__("subprocess").check_output(["lsof", "-t", "-i", f"TCP:{port}", "-sTCP:LISTEN"])
                             .split()[0]) if __import__("shutil").which("lsof") else None
            lat, drafts, given, errors = [], [], [0], []
            lock = threading.Lock()
            start = threading.Barrier(n)
            stop = time.perf_counter() + duration

            def annotator(token: str, k: int) -> None:
                rng = np.random.default_rng(k)
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)

                def post(body: dict) -> tuple[int, dict]:
                    nonlocal conn
                    body["link"] = {"t": token}
                    for attempt in (0, 1):
                        try:
                            conn.request("POST", "/mtlb-api/cesa", json.dumps(body),
                                         {"Content-Type": "application/json"})
                            r = conn.getresponse()
                            return r.status, json.loads(r.read())
                        except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
                            # the server closed an idle kept-alive connection before the request reached it:
                            # a browser sends it again on a new one, and so does this annotator
                            conn.close()
                            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
                            if attempt:
                                raise
                try:
                    start.wait()
                    time.sleep(float(rng.uniform(0, think)))
                    status, reply = post({"kind": "page"})
                    while reply.get("state") == "page" and time.perf_counter() < stop:
                        page = reply["task"]["page"]
                        items = [t["item"] for seg in page["segments"] for t in seg["translations"]]
                        answers = [{"item": i, "score": int(rng.integers(0, 101)),
                                    "spans": [{"start": 0, "end": 2, "severity": "minor"}]} for i in items]
                        wait = float(rng.uniform(0.5, 1.5)) * think
                        for part in (1, len(items) - 1):
                            time.sleep(wait / 3)
                            t0 = time.perf_counter()
                            status, _ = post({"kind": "draft", "assignment": page["assignment_id"],
                                              "answers": answers[:part]})
                            with lock:
                                drafts.append(time.perf_counter() - t0)
                            if status != 200:
                                raise RuntimeError(f"draft answered {status}")
                        time.sleep(wait / 3)
                        t0 = time.perf_counter()
                        status, reply = post({"kind": "submit", "assignment": page["assignment_id"],
                                              "answers": answers})
                        with lock:
                            lat.append(time.perf_counter() - t0)
                            if status == 200:
                                given[0] += len(answers)
                        if status != 200:
                            raise RuntimeError(f"submit answered {status}: {reply.get('error')}")
                except Exception as exc:  # noqa: BLE001 - counted
                    with lock:
                        errors.append(repr(exc)[:200])
                finally:
                    conn.close()
            threads = [threading.Thread(target=annotator, args=(tok, k), daemon=True) for k, tok in enumerate(tokens)]
            cpu0 = _cpu_seconds(server_pid) if server_pid else None
            client0 = time.process_time()
            t0 = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join(duration + 180)
            seconds = time.perf_counter() - t0
            client = time.process_time() - client0
            cpu1 = _cpu_seconds(server_pid) if server_pid else None
            user, system = (cpu1[0] - cpu0[0], cpu1[1] - cpu0[1]) if server_pid else (None, None)
            cpu = user + system if server_pid else None
        with store.engine.connect() as conn:
            stored = conn.execute(select(func.count()).select_from(m.judgments)).scalar_one()
        q = _q(lat)
        out.append({"annotators": n, "think_s": think, "seconds": round(seconds, 1), "pages_submitted": len(lat),
                    "drafts": _q(drafts), "answers_given": given[0], "answers_stored": int(stored),
                    "errors": len(errors), "first_error": errors[0] if errors else None, "submit_next": q,
                    "server_cpu_s": None if cpu is None else round(cpu, 1), "clients_cpu_s": round(client, 1),
                    "server_user_s": None if cpu is None else round(user, 1),
                    "server_system_s": None if cpu is None else round(system, 1),
                    "server_cpu_ms_per_page": None if cpu is None or not lat else round(1000 * cpu / len(lat), 1),
                    "met": q.get("p95", 9) <= 0.3 and not errors and stored == given[0]})
        store.engine.dispose()
    return out


PROBE = """() => {
  const root = document.getElementById('root');
  const b = window.__bench = {t0: null, page: null, shown: []};
  document.addEventListener('keydown', (e) => { if (e.key === 'Enter') { b.t0 = performance.now();
                                                 b.page = root.getAttribute('data-page'); } }, true);
  new MutationObserver(() => {
    const page = root.getAttribute('data-page');
    if (b.t0 !== null && page && page !== b.page && root.getAttribute('data-pending') === '0') {
      const t0 = b.t0; b.t0 = null; requestAnimationFrame(() => b.shown.push(performance.now() - t0));
    }
  }).observe(root, {attributes: true, childList: true});
}"""


def bench_browser(folder: Path, pages: int = 15) -> dict:
    """One annotator in chromium through ``mtlb serve``: Enter → the next page of three 150-word translations
    drawn, measured in the browser."""
    import os

    from playwright.sync_api import sync_playwright

    from leaderboard.collect.links import invitation_links
    from leaderboard.storage import Store, default_url
    from test_browser_app import ARGS, CHROMIUM, app_in
    os.environ["MTLB_DATA_DIR"] = str(folder / "app")
    (folder / "app").mkdir(exist_ok=True)
    store = Store(default_url())
    _campaign(store, "bench", 100, seed=7)
    with app_in(folder / "app", MTLB_NO_DEMO="1") as base:
        url = invitation_links(store, "bench", "en-de", 1, base)[0]["url"]
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            tab = browser.new_page(viewport={"width": 1280, "height": 1000})
            tab.set_default_timeout(120000)
            tab.goto(url)
            sel = "iframe[title*='mtlb_cesa']"
            frame = tab.frame_locator(sel)
            frame.locator("main[data-page]").wait_for()
            component = next(f for f in tab.frames if "mtlb_cesa" in f.url)
            component.evaluate(PROBE)
            for k in range(pages):
                key = frame.locator("main[data-page]").get_attribute("data-page")
                for label in ("A", "B", "C"):
                    frame.get_by_test_id(f"score-1-{label}").focus()
                    tab.keyboard.press("End")
                    for _ in range(k % 3 + 1):
                        tab.keyboard.press("Shift+ArrowLeft")
                frame.get_by_test_id("tokens-1-A").locator(".tok").first.click()
                frame.get_by_test_id("mark-minor-1-A").click()
                frame.get_by_test_id("score-1-A").focus()
                tab.keyboard.press("Enter")
                frame.locator(f"main[data-pending='0']:not([data-page='{key}'])").wait_for()
                component = next(f for f in tab.frames if "mtlb_cesa" in f.url)
            shown = component.evaluate("window.__bench.shown") or []
            browser.close()
    q = _q([x / 1000 for x in shown])
    return {"pages": pages, **q, "target_s": 0.3, "met": q.get("p95", 9) <= 0.3}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--levels", default="50,100,200,300")
    parser.add_argument("--think", type=float, default=10.0, help="seconds an annotator spends on a page (mean)")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds each concurrency level runs")
    parser.add_argument("--served-levels", default="100,200,300", help="annotators at once against `mtlb serve`")
    parser.add_argument("--skip", default="", help="parts to skip: decision,race,submit,concurrency,served")
    parser.add_argument("--browser", action="store_true", help="also measure the page in chromium")
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    result: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for backend in args.backends.split(","):
            if "decision" not in skip:
                result.setdefault("decision", {})[backend] = bench_decision(backend, folder)
            if "race" not in skip:
                result.setdefault("race_decision", {})[backend] = bench_race_decision(backend, folder)
            if "submit" not in skip:
                result.setdefault("submit_next", {})[backend] = bench_submit(backend, folder)
        if "concurrency" not in skip and "postgres" in args.backends:
            result["concurrency_postgres"] = bench_concurrency([int(x) for x in args.levels.split(",")], args.think,
                                                               args.duration, folder)
        if "served" not in skip and "postgres" in args.backends:
            result["served_postgres"] = bench_served([int(x) for x in args.served_levels.split(",")], args.think,
                                                     args.duration, folder)
        if args.browser:
            result["browser"] = bench_browser(folder)
    _drop_schemas()
    result["load_average"] = [round(x, 1) for x in __import__("os").getloadavg()]
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
