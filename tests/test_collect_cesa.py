"""Contrastive ESA in the service: campaigns from Pearmut and WMT26 files, pages, drafts, checks, dynamic
assignment under concurrency (SQLite and PostgreSQL), caps, completion codes, the Pearmut log round trip."""

from __future__ import annotations

import json
import threading
from datetime import timedelta
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wmt26files import write_wmt26

LP = "eng_Latn-ces_Latn"


def _store(url: str):
    from leaderboard.storage import Store
    return Store(url)


def _people(store, campaign: str, n: int, lp: str = LP):
    from leaderboard.collect.links import invitation_links
    from leaderboard.collect.service import open_invitation
    links = invitation_links(store, campaign, lp, n, "http://x.invalid")
    return [open_invitation(store, link["url"].split("t=")[1]) for link in links]


def _pearmut(shared: Path, kind: str):
    from leaderboard.collect.plan import from_pearmut
    return from_pearmut(shared / "pearmut" / kind / "campaign.json")


def _plain_dynamic(request, tmp_path, shared, backend: str):
    """A store on ``backend`` holding the sample dynamic campaign "pm" without tutorial or checks, redundancy 2."""
    from leaderboard.collect.campaigns import create_cesa
    url = f"sqlite:///{tmp_path / 's.sqlite'}" if backend == "sqlite" else request.getfixturevalue("pg_url")
    _, plan = _pearmut(shared, "dynamic")
    plan.welcome, plan.checks = [], []
    plan.settings.update(check_prob=0.0, docs_per_user=None, max_annotators=None, checks=0)
    store = _store(url)
    create_cesa(store, "pm", LP, plan, seed=1, redundancy=2)
    return store


def _answers(page, score=70, spans=None):
    return [{"item": t["item"], "score": score, "spans": spans or []} for s in page.segments for t in s["translations"]]


def _rules(store, page):
    """model -> rule of the page's checked segments, keyed by (segment number, label)."""
    from leaderboard.storage import collect as db
    from leaderboard.storage import collect_cesa as cdb
    items = {r["id"]: r for r in cdb.page_items(store, int(db.assignment(store, page.assignment_id)["hit_id"]))}
    out = {}
    for n, seg in enumerate(page.segments, 1):
        rules = items[seg["translations"][0]["item"]]["meta"].get("rules") or {}
        for t in seg["translations"]:
            model = items[t["item"]]["system"]
            out[(n, t["label"])] = (model, rules.get(model), t)
    return out


def _satisfy(store, page) -> list[dict]:
    """Answers that meet every rule of a tutorial / check page (what a careful annotator gives)."""
    rules = _rules(store, page)
    answers = {t["item"]: {"item": t["item"], "score": 60, "spans": []} for s in page.segments for t in s["translations"]}
    for (n, label), (model, rule, t) in rules.items():
        if not rule:
            continue
        a = answers[t["item"]]
        if "score" in rule:
            a["score"] = int(sum(rule["score"]) / 2)
        for e in rule.get("error_spans") or []:
            lo = e["start_i"][0] if isinstance(e["start_i"], list) else e["start_i"]
            hi = e["end_i"][-1] if isinstance(e["end_i"], list) else e["end_i"]
            inside = [k for k, (x, y) in enumerate(t["tokens"]) if x <= hi and y > lo]
            a["spans"].append({"start": inside[0], "end": inside[-1] + 1, "severity": e.get("severity") or "major"})
    for (n, label), (model, rule, t) in rules.items():
        other = (rule or {}).get("score_greaterthan")
        if other:
            theirs = next(v[2]["item"] for v in rules.values() if v[0] == other and v[2] in page.segments[n - 1]["translations"])
            answers[theirs]["score"] = min(answers[theirs]["score"], 30)
            answers[t["item"]]["score"] = max(answers[t["item"]]["score"], answers[theirs]["score"] + 20)
    return list(answers.values())


def test_a_pearmut_campaign_runs_as_it_is(shared, sqlite_url):
    from leaderboard.collect import cesa
    from leaderboard.collect.campaigns import create_cesa
    from leaderboard.storage.collect import collection
    cid, plan = _pearmut(shared, "dynamic")
    raw = json.loads((shared / "pearmut" / "dynamic" / "campaign.json").read_text())
    store = _store(sqlite_url)
    made = create_cesa(store, "pm", LP, plan, seed=3)
    info = raw["info"]
    settings = cesa.settings_of(collection(store, "pm", LP))
    assert cid == raw["campaign_id"] and made["assignment"] == "dynamic"
    assert settings["models_per_item"] == info["dynamic_models"] and settings["docs_per_user"] == info["docs_per_user"]
    assert settings["rule_params"] == {"coldstart": info["dynamic_coldstart"]}
    assert settings["coldstart_pool"] == info["dynamic_coldstart_pool"] and settings["max_annotators"] == info["users"]
    assert settings["check_prob"] == info["data_random_prob"] and settings["special_tokens"] == info["special_tokens"]
    assert settings["check_mode"] == "loud"  # the file's checks carry warnings
    assert made["documents"] == len(raw["data"]) and made["tutorial"] == len(raw["data_welcome"])
    assert made["checks"] == len(raw["data_random"])


def test_pages_tutorial_drafts_and_final_answers(shared, sqlite_url):
    from leaderboard.collect import cesa
    from leaderboard.collect.campaigns import create_cesa
    from leaderboard.errors import InputError
    from leaderboard.storage import collect_cesa as cdb
    _, plan = _pearmut(shared, "dynamic")
    plan.settings["check_prob"] = 0.0
    store = _store(sqlite_url)
    create_cesa(store, "pm", LP, plan, seed=3)
    ann, other = _people(store, "pm", 2)
    page = cesa.next_page(store, ann)
    # the tutorial comes first, its models hidden behind letters, in an order of this annotator's
    assert page.kind == "tutorial" and [t["label"] for t in page.segments[0]["translations"]] == ["A", "B"]
    public = cesa.public(page)
    assert "tutorial A" not in json.dumps(public) or all("_model" not in t for s in public["segments"]
                                                        for t in s["translations"])
    assert all("_model" not in t for s in public["segments"] for t in s["translations"])
    # a missing score is named, nothing stored
    partial = _answers(page)[1:]
    with pytest.raises(InputError, match="translation A of segment 1 has no score yet"):
        cesa.submit_page(store, ann, page.assignment_id, partial)
    assert cdb.answer_rows(store, page.assignment_id) == []
    # a loud rule that fails: refused with its warning; the answers stay as drafts
    back = cesa.submit_page(store, ann, page.assignment_id, _answers(page, score=50))
    assert back.warnings and back.page == page.page and back.stored is False
    texts = {w["text"] for w in back.warnings}
    assert any("score it 40 or less" in t for t in texts)
    drafts = cdb.answer_rows(store, page.assignment_id)  # (item, raw, spans, final)
    assert len(drafts) == 4 and not any(final for *_, final in drafts)
    # a reload gives the same page, drafts included, in the same order
    again = cesa.next_page(store, ann)
    assert [t["item"] for s in again.segments for t in s["translations"]] == page.item_ids
    assert all(t["given"]["score"] == 50 for s in again.segments for t in s["translations"])
    after = cesa.submit_page(store, ann, page.assignment_id, _satisfy(store, page))
    assert after.kind == "page" and not after.warnings
    # tutorial answers are final and logged as checks, but never judgments
    assert store.judgments("pm").empty
    # a page: k translations of each segment side by side, shuffled per annotator, the same on reload
    k = plan.settings["models_per_item"]
    assert all(len(s["translations"]) == k for s in after.segments)
    assert [t["item"] for s in cesa.next_page(store, ann).segments for t in s["translations"]] == after.item_ids
    # drafts can be changed until the page is submitted; the final answer is what is stored
    first = after.segments[0]["translations"][0]["item"]
    cesa.save_drafts(store, ann, after.assignment_id, [{"item": first, "score": 12, "spans": []}])
    cesa.save_drafts(store, ann, after.assignment_id, [{"item": first, "score": 34, "spans": [
        {"start": 0, "end": 1, "severity": "minor"}, {"token": "[instructions fault]", "severity": "major"}]}])
    answers = _answers(after, score=81)
    answers[0] = {"item": first, "score": 77, "spans": [{"token": "[missing]", "severity": "major"}]}
    nxt = cesa.submit_page(store, ann, after.assignment_id, answers)
    stored = store.judgments("pm")
    assert len(stored) == len(answers) and sorted(stored["raw"]) == sorted(a["score"] for a in answers)
    _, raw, spans, final = {r[0]: r for r in cdb.answer_rows(store, after.assignment_id)}[first]
    assert raw == 77 and final and spans == [
        {"start": None, "end": None, "severity": "major", "token": "[missing]"}]
    # a repeated submit stores nothing more; answers to a submitted page are refused
    with pytest.raises(InputError):
        cesa.save_drafts(store, ann, after.assignment_id, [{"item": first, "score": 5}])
    assert len(store.judgments("pm")) == len(answers)
    assert nxt.state == "page" and nxt.doc != after.doc
    # the other annotator sees the shared translations in another order somewhere
    orders = []
    for person in (ann, other):
        view = cesa.next_page(store, person)
        orders.append(view)
    assert orders[1].kind == "tutorial"


def test_spans_outside_the_text_or_on_unknown_tokens_are_refused(shared, sqlite_url):
    from leaderboard.collect import cesa
    from leaderboard.collect.campaigns import create_cesa
    from leaderboard.errors import InputError
    _, plan = _pearmut(shared, "dynamic")
    plan.welcome, plan.settings["check_prob"] = [], 0.0
    store = _store(sqlite_url)
    create_cesa(store, "pm", LP, plan, seed=3)
    (ann,) = _people(store, "pm", 1)
    page = cesa.next_page(store, ann)
    t = page.segments[0]["translations"][0]
    for bad in ([{"start": 0, "end": len(t["tokens"]) + 1, "severity": "minor"}],
                [{"token": "[nonsense]", "severity": "minor"}], [{"start": 0, "end": 1, "severity": "fatal"}]):
        with pytest.raises(InputError):
            cesa.save_drafts(store, ann, page.assignment_id, [{"item": t["item"], "score": 50, "spans": bad}])
    with pytest.raises(InputError, match="0 to 100"):
        cesa.save_drafts(store, ann, page.assignment_id, [{"item": t["item"], "score": 101}])


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
@pytest.mark.parametrize("rule", ["running-rank", "race"])
def test_dynamic_assignment_never_over_gives_a_cell(request, tmp_path, shared, backend, rule):
    """60 annotators ask for pages at once: no document × model cell goes beyond its redundancy, and every page
    holds distinct models whose cells were taken for it (Pearmut's rule and ours)."""
    from leaderboard.collect import cesa
    from leaderboard.collect.campaigns import create_cesa
    from leaderboard.storage import collect_cesa as cdb
    from leaderboard.storage.collect import collection
    url = f"sqlite:///{tmp_path / 's.sqlite'}" if backend == "sqlite" else request.getfixturevalue("pg_url")
    _, plan = _pearmut(shared, "dynamic")
    plan.welcome, plan.checks = [], []
    plan.settings.update(check_prob=0.0, docs_per_user=None, max_annotators=None, checks=0, rule=rule)
    store = _store(url)
    create_cesa(store, "pm", LP, plan, seed=1, redundancy=2)
    people = _people(store, "pm", 60)
    pages, errors = {}, []
    barrier = threading.Barrier(len(people))

    def ask(person):
        try:
            barrier.wait()
            pages[person.name] = cesa.next_page(store, person)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(repr(exc))
    threads = [threading.Thread(target=ask, args=(p,)) for p in people]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    cells = cdb.cells(store, collection(store, "pm", LP)["id"])
    assert cells["given"].max() <= 2
    shown = [(p.doc, t["_model"]) for p in pages.values() if p.state == "page" for s in p.segments[:1]
             for t in s["translations"]]
    assert len(shown) == int(cells["given"].sum())
    for p in pages.values():
        if p.state == "page":
            models = [t["_model"] for t in p.segments[0]["translations"]]
            assert len(set(models)) == len(models) >= 2
    # with 12 documents x 5 models x 2, 60 annotators of 3 models each fill at most 120 cells
    assert int(cells["given"].sum()) <= 120 and sum(p.state == "page" for p in pages.values()) >= 30


def test_silent_checks_and_the_threshold_decide_the_code(tmp_path, sqlite_url):
    from leaderboard.collect import cesa, plan as plans
    from leaderboard.collect.campaigns import create_cesa
    from leaderboard.storage.collect import collection
    files = write_wmt26(tmp_path / "f", n_news=3)
    store = _store(sqlite_url)
    made_plan = plans.from_wmt26(files["testset"], files["systems"], LP, check_prob=1.0, check_mode="silent",
                                 docs_per_user=2, checks=2)
    create_cesa(store, "w", LP, made_plan, seed=5)
    info = collection(store, "w", LP)
    careless, careful = _people(store, "w", 2)
    for person, good in ((careless, False), (careful, True)):
        page = cesa.next_page(store, person)
        kinds = []
        while page.state == "page":
            kinds.append(page.kind)
            answers = _satisfy(store, page) if good and page.kind == "check" else _answers(page, score=60)
            page = cesa.submit_page(store, person, page.assignment_id, answers)
            assert not page.warnings  # silent checks never send a page back
        assert page.state == "complete"
        assert kinds.count("check") == 2 and kinds.count("page") == 2
        assert page.code == (info["code_pass"] if good else info["code_fail"])
    from leaderboard.collect.status import status
    shown = {a["annotator"]: a for a in status(store, "w", LP)["annotators"]}
    assert shown[careless.name]["checks"] == {"passed": 0, "failed": 2, "tutorial": 0}
    assert shown[careful.name]["checks"]["passed"] == 2 and shown[careful.name]["qc_pass"] is True


def test_an_attention_check_is_built_from_the_campaigns_outputs(tmp_path):
    from leaderboard.collect import plan as plans
    files = write_wmt26(tmp_path / "f", n_news=5)
    made = plans.from_wmt26(files["testset"], files["systems"], LP, checks=4)
    checks = plans.attention_checks(made, "ces", seed=2)
    assert 1 <= len(checks) <= 4
    for doc in checks:
        (seg,) = doc
        origin = made.documents[seg["_from_doc"]][0]
        texts = list(seg["tgt"].values())
        spoiled = [label for label in seg["tgt"] if label not in seg["validation"]]
        assert len(spoiled) == 1 and seg["src"] == origin["src"]
        bad = seg["tgt"][spoiled[0]]
        # the spoiled one is an output of the document with its words moved: the same words, another order
        assert any(sorted(bad.split()) == sorted(t.split()) and bad != t for t in origin["tgt"].values())
        assert all(rule["score_greaterthan"] == spoiled[0] for rule in seg["validation"].values())
        assert len(set(texts)) == len(texts)


def test_caps_users_and_documents(shared, sqlite_url):
    from leaderboard.collect import cesa
    from leaderboard.collect.campaigns import create_cesa
    from leaderboard.collect.service import open_crowd
    from leaderboard.errors import InputError
    from leaderboard.storage.collect import annotator_count, collection
    _, plan = _pearmut(shared, "dynamic")
    plan.welcome, plan.checks = [], []
    plan.settings.update(check_prob=0.0, docs_per_user=2, max_annotators=2)
    store = _store(sqlite_url)
    create_cesa(store, "pm", LP, plan, seed=3)
    info = collection(store, "pm", LP)
    # a preview (no worker id, or MTurk's) creates and holds nothing
    assert open_crowd(store, info["crowd_key"], {}) is None
    assert open_crowd(store, info["crowd_key"], {"workerId": "W1", "assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE"}) is None
    assert annotator_count(store, info["id"]) == 0
    a = open_crowd(store, info["crowd_key"], {"worker": "w1"})
    open_crowd(store, info["crowd_key"], {"worker": "w2"})
    with pytest.raises(InputError, match="all the annotators it needs"):
        open_crowd(store, info["crowd_key"], {"worker": "w3"})
    assert open_crowd(store, info["crowd_key"], {"worker": "w1"}).id == a.id  # a known one comes back
    page, n = cesa.next_page(store, a), 0
    while page.state == "page":
        page = cesa.submit_page(store, a, page.assignment_id, _answers(page))
        n += 1
    assert n == 2 and page.state == "complete"


def test_fixed_hits_from_a_task_based_file(shared, sqlite_url):
    from leaderboard.collect import cesa
    from leaderboard.collect.campaigns import create_cesa
    from leaderboard.collect.status import status
    _, plan = _pearmut(shared, "taskbased")
    raw = json.loads((shared / "pearmut" / "taskbased" / "campaign.json").read_text())
    plan.welcome, plan.checks = [], []
    plan.settings["check_prob"] = 0.0
    store = _store(sqlite_url)
    made = create_cesa(store, "tb", LP, plan, seed=3)
    assert made["assignment"] == "fixed" and made["hits"] == len(raw["data"])
    (ann,) = _people(store, "tb", 1)
    page = cesa.next_page(store, ann)
    task = next(t for t in raw["data"] if [s["item_id"] for s in t[0]] == [s["segment"] for s in page.segments])
    assert page.total == len(task)
    while page.state == "page":
        page = cesa.submit_page(store, ann, page.assignment_id, _answers(page, score=55))
    assert page.state == "complete"
    expected = sum(len(seg["tgt"]) for doc in task for seg in doc)
    assert len(store.judgments("tb")) == expected
    assert status(store, "tb", LP)["hits_done"] == 1


def test_the_exported_log_reads_back(shared, sqlite_url, tmp_path):
    from leaderboard.collect.campaigns import create_cesa
    from leaderboard.collect.export_pearmut import export
    from leaderboard.collect.simulate_cesa import simulate
    from leaderboard.ingest.pearmut_log import read_pearmut_log
    _, plan = _pearmut(shared, "dynamic")
    store = _store(sqlite_url)
    create_cesa(store, "pm", LP, plan, seed=3)
    done = simulate(store, "pm", LP, 4, seed=2)
    written = export(store, "pm", LP, tmp_path / "out")
    assert written["rows"] == done["pages"] and written["files"] == [str(tmp_path / "out" / "pm.jsonl")]
    back = read_pearmut_log(written["files"][0], lp=LP)
    stored = store.judgments("pm")
    frame = back.judgments if hasattr(back, "judgments") else back
    assert len(frame) == len(stored) == done["judgments"]
    assert np.isclose(frame["raw"].astype(float).sum(), stored["raw"].sum())
    lines = [json.loads(x) for x in Path(written["files"][0]).read_text().splitlines()]
    assert all(isinstance(line["item_i"], int) or line["item_i"].startswith(("welcome_", "random_")) for line in lines)


def test_bad_campaign_inputs_write_nothing(tmp_path, sqlite_url):
    from leaderboard.collect import plan as plans
    from leaderboard.errors import InputError
    from leaderboard.storage.collect import collections
    files = write_wmt26(tmp_path / "f", n_news=2)
    store = _store(sqlite_url)
    rows = [json.loads(x) for x in files["testset"].read_text().splitlines()]
    rows[-1]["screenshot"] = {"id": "x", "path": "../../etc/passwd"}
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    with pytest.raises(InputError) as err:
        plans.from_wmt26(bad, files["systems"], "eng_Latn-arz_Arab", assets=files["assets"])
    assert err.value.file == str(bad) and err.value.line == len(rows)
    with pytest.raises(InputError, match="models per item"):
        plans.from_wmt26(files["testset"], files["systems"], LP, models_per_item=7)
    from leaderboard.collect.allocation_api import get_rule
    with pytest.raises(InputError, match="unknown allocation rule"):
        get_rule("best-guess")
    assert collections(store).empty


def test_an_attention_copy_never_comes_right_before_its_original():
    """Issue 42.9: in small ESA HITs the degraded copy of a document is never shown right before it."""
    from leaderboard.hits.documents import _order
    for seed in range(300):
        rng = np.random.default_rng(seed)
        n_genuine = int(rng.integers(1, 4))
        bad_of = [int(g) for g in rng.choice(n_genuine, size=min(n_genuine, 2), replace=False)]
        order = _order(n_genuine, bad_of, np.random.default_rng(seed))
        where = {d: i for i, d in enumerate(order)}
        assert sorted(order) == list(range(n_genuine + len(bad_of)))
        for k, g in enumerate(bad_of):
            assert where[n_genuine + k] != where[g] - 1, (seed, order)


def test_an_esa_answer_can_be_changed_until_its_document_is_submitted(tmp_path, sqlite_url):
    """Issue 42.6: within the current ESA document an earlier segment's answer can be changed; what is stored —
    the answer, its judgment, its time and its spans — is the final one; a submitted document is final."""
    from collecting import write_testset
    from leaderboard.collect import campaigns, service
    from leaderboard.errors import InputError
    from leaderboard.storage.expert import annotation_rows
    store = _store(sqlite_url)
    paths = write_testset(tmp_path / "ts", n_lines=60, seed=2)
    sources = campaigns.sources_from_files([str(p) for p in paths["hyps"]], str(paths["ref"]), "de-en",
                                           src=str(paths["src"]), docs=str(paths["docs"]))
    campaigns.create(store, "esa", "de-en", sources, protocol="esa", hits=1, hit_size=10, seed=1)
    (ann,) = _people(store, "esa", 1, lp="de-en")
    task = service.start(store, ann)
    while task.tutorial:
        task = service.submit_answer(store, ann, int(task.current["id"]), 90, [])
    doc = task.document()
    assert len(doc) >= 2
    first = int(doc["id"].iloc[0])
    task = service.submit_answer(store, ann, first, 40, [{"start": 0, "end": 1, "severity": "major"}])
    task = service.revise_answer(store, ann, first, 72, [{"start": 1, "end": 2, "severity": "minor"}])
    judged = store.judgments("esa")
    assert list(judged["raw"]) == [72.0]
    spans = annotation_rows(store, "esa", "de-en", "esa")
    assert list(spans["severity"]) == ["minor"]
    for item_id in doc["id"].iloc[1:]:
        task = service.submit_answer(store, ann, int(item_id), 60, [])
    with pytest.raises(InputError, match="final"):
        service.revise_answer(store, ann, first, 10, [])
    assert store.judgments("esa").set_index("position")["raw"].iloc[0] == 72.0


def test_practice_items_give_feedback():
    """Issue 42.9: an ESA practice item's answer gets feedback in words; counted items none."""
    from leaderboard.collect.service import practice_feedback
    item = {"doc": "tutorial1", "position": None}
    assert "well done" in practice_feedback(item, 85, [])
    assert "70 or more" in practice_feedback(item, 40, [{"start": 0, "end": 4, "severity": "major"}])
    missing = {"doc": "tutorial2", "position": None}
    assert "well done" in practice_feedback(missing, 30, [{"start": None, "end": None, "severity": "major"}])
    assert "[missing content]" in practice_feedback(missing, 30, [{"start": 0, "end": 3, "severity": "minor"}])
    assert practice_feedback({"doc": "doc7", "position": 4}, 50, []) is None


def test_cesa_from_aligned_files_through_the_cli(tmp_path, sqlite_url, capsys):
    """`mtlb collect create --protocol cesa --assignment fixed` from aligned files (as from the primaries), then
    simulate, status and the Pearmut export through the command line."""
    from collecting import write_testset
    from leaderboard.cli import main
    paths = write_testset(tmp_path / "ts", n_lines=30, seed=3, systems={"a": 0.1, "b": 0.4, "c": 0.7, "d": 0.9})
    db = ["--database-url", sqlite_url]
    assert main(["collect", "create", "--campaign", "files", "--lp", "de-en", "--protocol", "cesa", "--assignment",
                 "fixed", "--models-per-item", "2", "--hit-size", "12", "--check-prob", "0", "--hyp",
                 *map(str, paths["hyps"]), "--ref", str(paths["ref"]), "--src", str(paths["src"]), "--docs",
                 str(paths["docs"]), *db, "--json"]) == 0
    made = json.loads(capsys.readouterr().out)
    assert made["assignment"] == "fixed" and made["models"] == 4 and made["models_per_item"] == 2
    assert made["code_pass"] != made["code_fail"]
    assert main(["collect", "simulate", "--campaign", "files", "--lp", "de-en", "--annotators", "3", *db, "--json"]) == 0
    done = json.loads(capsys.readouterr().out)
    # every document shown with every system: 30 segments x 4 systems
    assert done["judgments"] == 120
    assert main(["collect", "status", "--campaign", "files", "--lp", "de-en", *db, "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["hits_done"] == status["hits_total"] == made["hits"]
    assert main(["collect", "export", "--campaign", "files", "--lp", "de-en", "--format", "pearmut", "--out",
                 str(tmp_path / "out"), *db, "--json"]) == 0
    written = json.loads(capsys.readouterr().out)
    lines = [json.loads(x) for x in Path(written["files"][0]).read_text().splitlines()]
    assert sum(len(m) for x in lines for seg in x["annotation"] for m in [seg]) == 120


def test_race_keeps_the_leader_from_an_annotator_who_failed_a_check(shared, sqlite_url):
    """The service fills ``annotator_flagged`` from the annotator's own checks in the store: after a failed
    check, race gives them pages without its leader (the model with the highest running mean, here
    the one a careful annotator scored 100 and the others 30); a careful annotator still gets the leader."""
    from leaderboard.collect import cesa
    from leaderboard.collect.campaigns import create_cesa
    _, plan = _pearmut(shared, "dynamic")
    plan.welcome = []
    plan.settings.update(check_prob=1.0, docs_per_user=None, max_annotators=None, rule="race",
                         rule_params={"coldstart": 0})
    store = _store(sqlite_url)
    create_cesa(store, "pm", LP, plan, seed=3, redundancy=2)
    careful, careless, control = _people(store, "pm", 3)
    # the careful annotator passes the check, then scores one model 100 and the others 30
    page = cesa.next_page(store, careful)
    assert page.kind == "check"
    while page.kind == "check":
        page = cesa.submit_page(store, careful, page.assignment_id, _satisfy(store, page))
    assert page.kind == "page"
    leader = page.segments[0]["translations"][0]["_model"]
    answers = [{"item": t["item"], "score": 100 if t["_model"] == leader else 30, "spans": []}
               for s in page.segments for t in s["translations"]]
    cesa.submit_page(store, careful, page.assignment_id, answers)
    # the careless annotator fails a check's first attempt (the same score everywhere; the check is loud, so
    # they redo it and pass), then asks for pages
    page = cesa.next_page(store, careless)
    assert page.kind == "check"
    assert not cesa.allocation_state(store, careless, set()).annotator_flagged
    page = cesa.submit_page(store, careless, page.assignment_id, _answers(page, score=60))
    hist = cesa.cdb.annotator_assignments(store, careless.id)
    assert cesa.allocation_state(store, careless, set()).annotator_flagged
    assert not cesa.allocation_state(store, careful, set()).annotator_flagged
    seen = 0
    for n in range(4):
        while page.kind == "check":
            page = cesa.submit_page(store, careless, page.assignment_id, _satisfy(store, page))
        assert page.state == "page" and page.kind == "page"
        # the first page was taken before the check was put in front of it; the next ones are chosen flagged
        if n > 0:
            assert leader not in {t["_model"] for t in page.segments[0]["translations"]}
            seen += 1
        page = cesa.submit_page(store, careless, page.assignment_id, _answers(page, score=50))
    assert seen == 3 and len(hist)
    # an annotator with no failed check gets the leader
    page = cesa.next_page(store, control)
    while page.kind == "check":
        page = cesa.submit_page(store, control, page.assignment_id, _satisfy(store, page))
    assert not cesa.allocation_state(store, control, set()).annotator_flagged
    assert leader in {t["_model"] for t in page.segments[0]["translations"]}


def _pair_reference(store, cid: int, models: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pages showing both models, and the sum and sum of squares of their page-mean differences (row − column),
    from the stored judgments with a plain pandas groupby (independent of the service's code)."""
    j = store.judgments("pm")
    means = j.groupby(["hit", "system"])["raw"].mean().unstack("system").reindex(columns=list(models))
    m = len(models)
    n, s1, s2 = np.zeros((m, m)), np.zeros((m, m)), np.zeros((m, m))
    for a in range(m):
        for b in range(m):
            d = (means.iloc[:, a] - means.iloc[:, b]).dropna()
            n[a, b], s1[a, b], s2[a, b] = len(d) if a != b else 0, d.sum() if a != b else 0, (d ** 2).sum() if a != b else 0
    return n, s1, s2


def test_race_state_in_the_service_equals_the_stored_pairs(shared, sqlite_url):
    """After simulated annotators answer a dynamic race campaign, the state the service builds holds, per pair of
    models, the pages that showed both and the sum and sum of squares of the page-mean differences, as a pandas
    groupby of the stored judgments gives them; the segments per document; and no decided pair yet on so few
    pages unless the test on the stored pages decides it too."""
    from leaderboard.collect import cesa
    from leaderboard.collect.campaigns import create_cesa
    from leaderboard.collect.simulate_cesa import simulate
    from leaderboard.human.adaptive_tests import judgment_pages, paired_evidence_from_pages
    from leaderboard.storage.collect import collection
    _, plan = _pearmut(shared, "dynamic")
    plan.welcome, plan.checks = [], []
    plan.settings.update(check_prob=0.0, docs_per_user=None, max_annotators=None, checks=0, rule="race",
                         rule_params={"coldstart": 1})
    store = _store(sqlite_url)
    create_cesa(store, "pm", LP, plan, seed=4, redundancy=2)
    done = simulate(store, "pm", LP, 4, seed=3)
    assert done["pages"] > 10
    (fresh,) = _people(store, "pm", 1)
    state = cesa.allocation_state(store, fresh, set())
    cid = collection(store, "pm", LP)["id"]
    n, s1, s2 = _pair_reference(store, cid, state.models)
    assert n.sum() > 0
    np.testing.assert_array_equal(state.pair_counts, n)
    np.testing.assert_allclose(state.pair_sums, s1, atol=1e-9)
    np.testing.assert_allclose(state.pair_sumsq, s2, atol=1e-9)
    # segments per document, from the campaign file
    docs = plan.documents
    assert state.item_sizes.tolist() == [len(d) for d in docs]
    # decided pairs: the anytime test on the stored judgments in submission order (pages of the same
    # document and model after the first are not fresh; none here was drawn at random unless flagged)
    _assert_decided_as_stored(store, state)


def _assert_decided_as_stored(store, state) -> None:
    from sqlalchemy import select

    from leaderboard.human.adaptive_tests import judgment_pages, paired_evidence_from_pages
    from leaderboard.storage import models as m
    j = store.judgments("pm")
    with store.engine.connect() as conn:
        flags = dict(conn.execute(select(m.collect_hits.c.name, m.collect_hits.c.random_item)).all())
    pages = judgment_pages(j.assign(segment=j["segment"].astype(str)), "hit")
    pages = pages.assign(random_item=pages["page"].map(flags).astype(bool))
    evidence = paired_evidence_from_pages(pages)
    index = {name: i for i, name in enumerate(state.models)}
    expected = np.zeros_like(state.pair_decided)
    for row in evidence.itertuples(index=False):
        if row.a_better or row.b_better:
            expected[index[row.a], index[row.b]] = expected[index[row.b], index[row.a]] = True
    np.testing.assert_array_equal(state.pair_decided, expected)


def test_race_marks_a_pair_the_anytime_test_has_separated(shared, sqlite_url):
    """Annotators who always score one model 100 and the others 10: the anytime test on the stored pages
    separates that model from the others it was shown with, and the service's state marks exactly those pairs
    decided (and race keeps handing out pages)."""
    from leaderboard.collect import cesa
    from leaderboard.collect.campaigns import create_cesa
    _, plan = _pearmut(shared, "dynamic")
    plan.welcome, plan.checks = [], []
    plan.settings.update(check_prob=0.0, docs_per_user=None, max_annotators=None, checks=0, rule="race",
                         rule_params={"coldstart": 0})
    store = _store(sqlite_url)
    create_cesa(store, "pm", LP, plan, seed=5, redundancy=3)
    best = None
    for person in _people(store, "pm", 12):
        page = cesa.next_page(store, person)
        while page.state == "page":
            models = {t["_model"] for t in page.segments[0]["translations"]}
            best = best or sorted(models)[0]
            answers = [{"item": t["item"], "score": 100 if t["_model"] == best else 10, "spans": []}
                       for s in page.segments for t in s["translations"]]
            page = cesa.submit_page(store, person, page.assignment_id, answers)
    (fresh,) = _people(store, "pm", 1)
    state = cesa.allocation_state(store, fresh, set())
    b = state.models.index(best)
    assert state.pair_decided[b].sum() >= 1 and not state.pair_decided[b, b]
    np.testing.assert_array_equal(state.pair_decided, state.pair_decided.T)
    _assert_decided_as_stored(store, state)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_race_campaign_under_fifty_simulated_annotators_gives_no_slot_twice(request, tmp_path, shared, backend):
    """Fifty simulated annotators work through a dynamic race campaign at once (threads, one process): no
    document × model slot is given beyond its redundancy, in the cells and in the pages actually created."""
    from sqlalchemy import select

    from leaderboard.collect.campaigns import create_cesa
    from leaderboard.collect.simulate_cesa import simulate
    from leaderboard.storage import collect_cesa as cdb
    from leaderboard.storage import models as m
    from leaderboard.storage.collect import collection
    from leaderboard.storage.db import ensure_schema, make_engine
    from leaderboard.storage import Store
    url = f"sqlite:///{tmp_path / 's.sqlite'}" if backend == "sqlite" else request.getfixturevalue("pg_url")
    engine = make_engine(url, pool_size=40, max_overflow=0, pool_timeout=300)
    ensure_schema(engine)
    store = Store(engine=engine)
    _, plan = _pearmut(shared, "dynamic")
    plan.welcome, plan.checks = [], []
    plan.settings.update(check_prob=0.0, docs_per_user=None, max_annotators=None, checks=0, rule="race",
                         rule_params={"coldstart": 1})
    create_cesa(store, "pm", LP, plan, seed=6, redundancy=2)
    done = simulate(store, "pm", LP, 50, seed=4)
    cid = collection(store, "pm", LP)["id"]
    cells = cdb.cells(store, cid)
    assert cells["given"].max() <= 2 and cells["done"].max() <= 2
    with engine.connect() as conn:
        rows = conn.execute(select(m.collect_hits.c.doc_index, m.collect_items.c.system)
                            .join(m.collect_items, m.collect_items.c.hit_id == m.collect_hits.c.id)
                            .where(m.collect_hits.c.collect_id == cid, m.collect_hits.c.kind == "page")
                            .distinct()).all()
    shown = pd.DataFrame(rows, columns=["doc", "model"]).value_counts()
    assert shown.max() <= 2 and len(shown) > 0
    assert 0 < done["pages"] <= int(cells["given"].sum())
    engine.dispose()


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_submit_and_its_next_page_run_on_one_connection(request, tmp_path, shared, backend):
    """Submit → next page checks out one pooled connection (each checkout pays a liveness round trip and a rollback
    on return) and runs a bounded number of statements, whatever the page holds: a guard against reads creeping
    back into the request one connection at a time."""
    from sqlalchemy import event

    from leaderboard.collect import cesa
    store = _plain_dynamic(request, tmp_path, shared, backend)
    person, = _people(store, "pm", 1)
    page = cesa.next_page(store, person)
    counts = {"checkouts": 0, "statements": 0}

    def checkout(*_):
        counts["checkouts"] += 1

    def statement(*_):
        counts["statements"] += 1
    event.listen(store.engine.pool, "checkout", checkout)
    event.listen(store.engine, "before_cursor_execute", statement)
    seen = []
    try:
        for _ in range(4):
            assert page.state == "page"
            submitted = len(page.item_ids)
            counts.update(checkouts=0, statements=0)
            page = cesa.submit_page(store, person, page.assignment_id, _answers(page))
            seen.append((counts["checkouts"], counts["statements"], submitted, len(page.item_ids)))
    finally:
        event.remove(store.engine.pool, "checkout", checkout)
        event.remove(store.engine, "before_cursor_execute", statement)
    for checkouts, statements, submitted, shown in seen:
        assert checkouts == 1
        # PostgreSQL stores a page's judgments, answers and new items in one statement each; SQLite in one per row
        # (SQLAlchemy's RETURNING in row order): 24 statements there for any page (44 before one connection)
        per_row = 0 if backend == "postgres" else 2 * submitted + shown - 3
        assert statements <= 25 + per_row, seen


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_page_whose_time_ran_out_goes_to_the_next_annotator(request, tmp_path, shared, backend):
    """A dynamic page whose holder let the time run out is taken over whole by the next annotator who asks (its
    cells stay given, not taken again); the first holder can no longer submit it, and the page counts once."""
    from sqlalchemy import func, select, update

    from leaderboard.collect import cesa
    from leaderboard.errors import InputError
    from leaderboard.storage import collect_cesa as cdb
    from leaderboard.storage import models as m
    from leaderboard.storage.collect import collection
    store = _plain_dynamic(request, tmp_path, shared, backend)
    collect_id = collection(store, "pm", LP)["id"]
    late, next_one = _people(store, "pm", 2)
    held = cesa.next_page(store, late)
    given = cdb.cells_progress(store, collect_id)["given"]
    with store.engine.begin() as conn:
        conn.execute(update(m.collect_slots).where(m.collect_slots.c.holder_id == late.id)
                     .values(held_until=m.now() - timedelta(seconds=1)))
    taken = cesa.next_page(store, next_one)
    assert (taken.hit, taken.doc, sorted(taken.item_ids)) == (held.hit, held.doc, sorted(held.item_ids))
    assert taken.assignment_id != held.assignment_id
    assert cdb.cells_progress(store, collect_id)["given"] == given
    with pytest.raises(InputError, match="no longer yours"):
        cesa.submit_page(store, late, held.assignment_id, _answers(held))
    cesa.submit_page(store, next_one, taken.assignment_id, _answers(taken))
    with store.engine.connect() as conn:
        stored = conn.execute(select(func.count()).select_from(m.judgments)).scalar_one()
    assert stored == len(taken.item_ids)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_new_page_comes_back_as_the_store_reads_it(request, tmp_path, shared, backend):
    """The assignment a new page returns (built without reading it back) equals the row the store reads for it,
    column for column, and its items are the ones stored."""
    from leaderboard.storage import collect_cesa as cdb
    from leaderboard.storage.collect import assignment, collection
    store = _plain_dynamic(request, tmp_path, shared, backend)
    info = collection(store, "pm", LP)
    person, = _people(store, "pm", 1)
    cells = cdb.cells(store, info["id"])
    models = sorted(cells.loc[cells["doc_index"] == 0, "model"])[:3]
    held = cdb.create_page(store, person.id, info["id"], 0, models, redundancy=2)
    read = assignment(store, held["id"])
    assert held.keys() == read.keys()
    started = held.pop("started_at"), read.pop("started_at")
    assert held == read
    assert abs((started[0].replace(tzinfo=None) - started[1].replace(tzinfo=None)).total_seconds()) < 1
    kept = cdb.page_items(store, held["hit_id"])
    cdb._HIT_ITEMS.rows.clear()
    assert cdb.page_items(store, held["hit_id"]) == kept
    assert {r["system"] for r in kept} == set(models)
