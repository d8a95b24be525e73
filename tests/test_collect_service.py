"""The collection service: refused input stores nothing; resuming, timeouts, quotas, stop/reopen, reset,
crowd links, completion codes, ESA tutorial items and spans, and the exports read back by `mtlb ingest`."""

from __future__ import annotations

import json
import math
from datetime import datetime, timedelta, timezone

import numpy as np
import pandas as pd
import pytest
from sqlalchemy import func, select

from collecting import write_testset
from leaderboard.cli import main
from leaderboard.collect import campaigns
from leaderboard.collect.links import crowd_link, invitation_links
from leaderboard.collect.service import open_crowd, open_invitation, start, submit_answer
from leaderboard.errors import InputError
from leaderboard.storage import Store
from leaderboard.storage import collect as db
from leaderboard.storage import models as m

LP = "de-en"


@pytest.fixture()
def files(tmp_path):
    return write_testset(tmp_path / "testset", n_lines=60, seed=2)


@pytest.fixture()
def store(db_url):
    """Each service test runs on SQLite and on PostgreSQL."""
    return Store(db_url)


def _create(store, files, name="c", protocol="da", **kw):
    sources = campaigns.sources_from_files([str(p) for p in files["hyps"]], str(files["ref"]), LP,
                                           src=str(files["src"]), docs=str(files["docs"]))
    options = {"hits": 3, "hit_size": 20, "seed": 1, **kw}
    return campaigns.create(store, name, LP, sources, protocol=protocol, **options)


def _person(store, name="c", **kw):
    link = invitation_links(store, name, LP, 1, "http://127.0.0.1:8501", **kw)[0]
    return open_invitation(store, link["url"].split("t=", 1)[1])


def _counts(store) -> tuple[int, int, int, int]:
    with store.engine.connect() as conn:
        return tuple(conn.execute(select(func.count()).select_from(t)).scalar_one()
                     for t in (m.judgments, m.collect_answers, m.collect_assignments, m.expert_annotations))


def _finish(store, person, task, score=lambda item: 50.0):
    while task.state == "item":
        task = submit_answer(store, person, int(task.current["id"]), score(task.current))
    return task


# ---------------------------------------------------------------- bad input: a clear error, nothing stored


def test_cli_refuses_bad_campaigns_and_stores_nothing(files, tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 'cli.sqlite'}"
    hyp = [str(p) for p in files["hyps"]]
    base = ["collect", "create", "--lp", LP, "--protocol", "da", "--database-url", url]
    cases = {
        "too small for its quality-control items": [*base, "--campaign", "a", "--hit-size", "10", "--hyp", *hyp,
                                                    "--ref", str(files["ref"])],
        "ESA HIT of 4 items cannot hold": ["collect", "create", "--lp", LP, "--protocol", "esa", "--database-url", url,
                                           "--campaign", "a", "--hit-size", "4", "--hyp", *hyp, "--ref",
                                           str(files["ref"])],
        "has no test set": [*base, "--campaign", "a", "--from-primaries"],
        "--source-based shows the source": [*base, "--campaign", "a", "--source-based", "--hyp", *hyp, "--ref",
                                            str(files["ref"])],
        "redundancy must lie between": [*base, "--campaign", "a", "--redundancy", "0", "--hyp", *hyp, "--ref",
                                        str(files["ref"])],
    }
    for message, argv in cases.items():
        capsys.readouterr()
        assert main(argv) == 2
        assert message in capsys.readouterr().err
    assert Store(url).campaigns().empty  # not even the campaign row was left behind
    # a test set without primary submissions
    assert main(["testset", "add", "--campaign", "t", "--lp", LP, "--source", str(files["src"]), "--ref",
                 str(files["ref"]), "--database-url", url]) == 0
    capsys.readouterr()
    assert main([*base, "--campaign", "t", "--from-primaries"]) == 2
    assert "no primary submissions for t de-en" in capsys.readouterr().err
    # unknown campaign, unknown pair: every command names what is missing
    for argv, message in ((["collect", "status", "--campaign", "nope", "--lp", LP], "no campaign named 'nope'"),
                          (["collect", "links", "--campaign", "t", "--lp", "fr-en", "--annotators", "2",
                            "--base-url", "http://x.org"], "has no annotation campaign for fr-en"),
                          (["collect", "simulate", "--campaign", "t", "--lp", LP, "--annotators", "2"],
                           "has no annotation campaign for de-en"),
                          (["collect", "export", "--campaign", "nope", "--lp", LP, "--format", "wmt", "--out",
                            str(tmp_path / "x")], "no campaign named 'nope'")):
        capsys.readouterr()
        assert main([*argv, "--database-url", url]) == 2
        assert message in capsys.readouterr().err
    assert db.collections(Store(url)).empty


def test_forged_malformed_and_used_tokens(store, files):
    _create(store, files)
    with pytest.raises(InputError, match="no annotator has this token"):
        open_invitation(store, "A" * 32)
    for bad in (None, "", "short", "has spaces in it and is long enough", "x" * 200):
        with pytest.raises(InputError, match="not valid"):
            open_invitation(store, bad)
    link = invitation_links(store, "c", LP, 1, "http://127.0.0.1:8501", hits_per_annotator=1)[0]
    token = link["url"].split("t=", 1)[1]
    person = open_invitation(store, token)
    done = _finish(store, person, start(store, person))
    assert done.state == "complete" and done.code in (person.collect["code_pass"], person.collect["code_fail"])
    before = _counts(store)
    with pytest.raises(InputError, match="used up: its 1 HIT is done"):
        start(store, person, new_hit=True)
    again = start(store, open_invitation(store, token))  # a reload shows the code again
    assert again.state == "complete" and again.code == done.code
    assert _counts(store) == before


def test_answers_out_of_range_or_not_assigned_store_nothing(store, files):
    _create(store, files)
    alice, bob = _person(store), _person(store)
    task_a, task_b = start(store, alice), start(store, bob)
    item_a, item_b = int(task_a.current["id"]), int(task_b.current["id"])
    before = _counts(store)
    for score in (-1, 100.5, float("nan"), math.inf, "50", True, None, [50]):
        with pytest.raises(InputError, match="number from 0 to 100"):
            submit_answer(store, alice, item_a, score)
    with pytest.raises(InputError, match="not part of a HIT assigned to you"):
        submit_answer(store, alice, item_b, 50)  # bob's item
    with pytest.raises(InputError, match="not part of a HIT assigned to you"):
        submit_answer(store, alice, 10 ** 9, 50)
    with pytest.raises(InputError, match="not part of a HIT assigned to you"):
        submit_answer(store, alice, "1", 50)
    with pytest.raises(InputError, match="DA answers have no error spans"):
        submit_answer(store, alice, item_a, 50, [{"start": 0, "end": 1, "severity": "minor"}])
    assert _counts(store) == before
    # an item of a HIT in another campaign is not theirs either
    _create(store, files, name="other")
    carol = _person(store, name="other")
    with pytest.raises(InputError, match="not part of a HIT assigned to you"):
        submit_answer(store, carol, item_a, 50)
    assert _counts(store)[:2] == before[:2]


# ---------------------------------------------------------------- nothing lost, nothing given twice


def test_reload_or_another_browser_resumes_at_the_first_unanswered_item(store, files):
    _create(store, files)
    link = invitation_links(store, "c", LP, 1, "http://127.0.0.1:8501")[0]
    token = link["url"].split("t=", 1)[1]
    person = open_invitation(store, token)
    task = start(store, person)
    for _ in range(7):
        task = submit_answer(store, person, int(task.current["id"]), 60)
    assert (task.number, task.total) == (8, 20)
    elsewhere = open_invitation(store, token)  # another browser: the same link
    resumed = start(store, elsewhere)
    assert resumed.assignment_id == task.assignment_id and resumed.index == task.index == 7
    assert resumed.current["id"] == task.current["id"] and resumed.number == 8
    # a repeated submit of an answered item stores nothing and keeps the first answer
    first = int(resumed.items["id"].iloc[0])
    again = submit_answer(store, elsewhere, first, 99)
    assert again.stored is False and again.index == 7
    assert store.judgments("c").sort_values("position")["raw"].iloc[0] == 60


def test_held_hit_returns_to_the_pool_after_the_timeout(store, files):
    _create(store, files, hits=1, timeout_seconds=120)
    slow, fast = _person(store), _person(store)
    task = start(store, slow)
    task = submit_answer(store, slow, int(task.current["id"]), 40)
    assert start(store, fast).state == "none"  # held by slow
    later = datetime.now(timezone.utc) + timedelta(seconds=121)
    taken = db.claim(store, fast.id, now=later)
    assert taken is not None and taken["hit"] == task.hit
    with pytest.raises(InputError, match="ran out and it went to another annotator"):
        submit_answer(store, slow, int(task.current["id"]), 40)
    assert len(store.judgments("c")) == 1  # slow's first answer stays stored
    assert start(store, slow).state == "none"  # the HIT is fast's now; slow never gets it again
    statuses = dict(zip(*zip(*[(a["annotator"], a["hits_done"]) for a in _status(store)])))
    assert statuses == {"inv-0001": 0, "inv-0002": 0}


def _status(store):
    from leaderboard.collect.status import status
    return status(store, "c", LP)["annotators"]


def test_no_annotator_gets_the_same_hit_twice_and_one_hit_at_a_time(store, files):
    _create(store, files, hits=1, redundancy=3)
    a, b = _person(store), _person(store)
    done = _finish(store, a, start(store, a))
    assert done.state == "complete"
    assert start(store, a, new_hit=True).state == "none"  # the HIT's other slots are not for a
    task_b = start(store, b)
    assert task_b.hit == done.hit and start(store, b, new_hit=True).assignment_id == task_b.assignment_id
    with store.engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(m.collect_assignments)).scalar_one() == 2


def test_stop_reopen_reject_and_reset(store, files):
    _create(store, files, hits=2)
    info = db.collection(store, "c", LP)
    a, b = _person(store), _person(store)
    task = start(store, a)
    task = submit_answer(store, a, int(task.current["id"]), 30)
    db.set_status(store, info["id"], db.STOPPED, "olga")
    with pytest.raises(InputError, match="stopped"):
        start(store, b)
    task = submit_answer(store, a, int(task.current["id"]), 31)  # a HIT in progress can be finished
    db.set_status(store, info["id"], db.OPEN, "olga")
    assert start(store, b).state == "item"
    db.decide(store, info["id"], "inv-0002", "rejected", "olga")
    with pytest.raises(InputError, match="ended your participation"):
        start(store, b)
    counts = db.reset_assignment(store, info["id"], "inv-0001", task.hit, "olga")
    assert counts == {"answers": 2, "judgments": 2}
    assert store.judgments("c").empty
    again = start(store, a)
    assert again.state == "item" and again.index == 0
    from leaderboard.storage.imports import audit_log
    assert {"collect-stop", "collect-reopen", "collect-rejected", "collect-reset"} <= set(audit_log(store, "c")["action"])


# ---------------------------------------------------------------- crowd links and completion codes


def test_crowd_link_takes_the_worker_from_the_platform(store, files):
    _create(store, files, hits=3)
    key = crowd_link(store, "c", LP, "https://mt.example.org/")["url"].split("c=", 1)[1]
    # MTurk's preview, and a link without a worker id: a preview that creates and holds nothing (issue 42.8)
    from leaderboard.storage.collect import annotator_count, collection
    assert open_crowd(store, key, {"workerId": "A1B2C3", "assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE",
                                   "hitId": "H"}) is None
    assert open_crowd(store, key, {"hitId": "H"}) is None
    assert annotator_count(store, collection(store, "c", LP)["id"]) == 0
    with pytest.raises(InputError, match="not valid"):
        open_crowd(store, key, {"worker": "<script>"})
    with pytest.raises(InputError, match="does not belong"):
        open_crowd(store, "nope", {"worker": "w1"})
    turk = open_crowd(store, key, {"workerId": "A1B2C3", "assignmentId": "ASG1", "hitId": "H"})
    assert (turk.name, turk.origin, turk.platform_assignment) == ("A1B2C3", "mturk", "ASG1")
    done = _finish(store, turk, start(store, turk))
    reload = open_crowd(store, key, {"workerId": "A1B2C3", "assignmentId": "ASG1", "hitId": "H"})
    assert start(store, reload).state == "complete"  # a reload of the finished task shows its code
    next_task = open_crowd(store, key, {"workerId": "A1B2C3", "assignmentId": "ASG2", "hitId": "H"})
    assert start(store, next_task).hit != done.hit  # a new platform task: a new HIT
    prolific = open_crowd(store, key, {"PROLIFIC_PID": "5f3e", "STUDY_ID": "s", "SESSION_ID": "x1"})
    assert prolific.origin == "prolific" and start(store, prolific).state == "item"
    with pytest.raises(InputError, match="belongs to an invited annotator"):
        _person(store)
        open_crowd(store, key, {"worker": "inv-0001"})


def test_completion_code_follows_the_attention_checks(store, files):
    _create(store, files, hits=2, hit_size=40)
    careful, clicker = _person(store), _person(store)

    def attentive(item):  # degraded copies low, everything else high
        return 10.0 if item["item_type"] == "BAD_REF" else 80.0 + (int(item["id"]) % 7)

    good = _finish(store, careful, start(store, careful), attentive)
    bad = _finish(store, clicker, start(store, clicker), lambda item: 50.0)
    assert good.passed is True and good.code == careful.collect["code_pass"]
    assert bad.passed is False and bad.code == clicker.collect["code_fail"]
    assert good.code != bad.code
    rows = {a["annotator"]: a for a in _status(store)}
    assert rows["inv-0001"]["qc_pass"] is True and rows["inv-0001"]["qc_p"] < 0.05
    assert rows["inv-0002"]["qc_pass"] is False and rows["inv-0002"]["items_done"] == 40


# ---------------------------------------------------------------- ESA


def test_esa_tutorial_documents_and_spans(store, files):
    made = _create(store, files, protocol="esa", hits=2, hit_size=20)
    person = _person(store)
    task = start(store, person)
    assert task.tutorial and task.tutorial_total == 3 and task.number == 1
    for _ in range(3):  # the tutorial: answered, never a judgment
        task = submit_answer(store, person, int(task.current["id"]), 90, [])
    hits = db.hit_table(store, db.collection(store, "c", LP)["id"])
    assert store.judgments("c").empty and not task.tutorial and task.number == 1
    assert task.total == int(hits.loc[hits["hit"] == task.hit, "items"].iloc[0]) <= 20
    doc = task.document()
    assert len(doc) >= 1 and doc["doc"].nunique() == 1 and doc["id"].iloc[0] == task.current["id"]
    assert list(doc["position"]) == sorted(doc["position"])  # the document's segments, in order
    item = task.current
    text = item["text"]
    words = text.split()
    spans = [{"start": 0, "end": 2, "severity": "major"}, {"missing": True, "severity": "minor"}]
    with pytest.raises(InputError, match="does not lie within"):
        submit_answer(store, person, int(item["id"]), 40, [{"start": 0, "end": len(words) + 1, "severity": "minor"}])
    with pytest.raises(InputError, match="minor or major"):
        submit_answer(store, person, int(item["id"]), 40, [{"start": 0, "end": 1, "severity": "critical"}])
    task = submit_answer(store, person, int(item["id"]), 40, spans)
    stored = store.judgments("c")
    assert len(stored) == 1 and stored["assessment"].iloc[0] == "esa" and stored["raw"].iloc[0] == 40
    from leaderboard.storage.expert import annotation_rows
    marks = annotation_rows(store, "c", LP, "esa")
    assert list(marks["severity"]) == ["major", "minor"] and marks["span_start"].iloc[0] == 0
    assert text[: int(marks["span_end"].iloc[0])] == " ".join(words[:2]) and pd.isna(marks["span_start"].iloc[1])
    assert made["items"] == 2 * 3 + hits["items"].sum()  # every item shown: tutorials included


# ---------------------------------------------------------------- exports read back by mtlb ingest


def test_exports_load_back_with_mtlb_ingest(files, tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 'store.sqlite'}"
    store = Store(url)
    _create(store, files, name="pilot", hits=4, hit_size=100)
    from leaderboard.collect.simulate import simulate
    simulate(store, "pilot", LP, 3, random_share=0.34, seed=4)
    collected = store.judgments("pilot")
    key = ["worker", "system", "segment", "item_type"]
    out = tmp_path / "out"
    for fmt in ("appraise", "wmt"):
        capsys.readouterr()
        assert main(["collect", "export", "--campaign", "pilot", "--lp", LP, "--format", fmt, "--out", str(out),
                     "--database-url", url, "--json"]) == 0
        json.loads(capsys.readouterr().out)
    back = f"sqlite:///{tmp_path / 'back.sqlite'}"
    assert main(["ingest", str(out / "pilot.de-en.appraise.csv"), "--campaign", "a", "--database-url", back]) == 0
    appraise = Store(back).judgments("a")
    assert len(appraise) == len(collected)
    pd.testing.assert_frame_equal(appraise.sort_values(key)[key + ["raw"]].reset_index(drop=True),
                                  collected.sort_values(key)[key + ["raw"]].reset_index(drop=True))
    assert main(["ingest", str(out / "ad-deen-good-stnd.csv"), "--worker-stats", str(out / "ad-deen-trk-mean-sd.txt"),
                 "--campaign", "w", "--database-url", back]) == 0
    release = Store(back).judgments("w")
    passed = {a["annotator"] for a in _status_of(store, "pilot") if a["qc_pass"]}
    assert passed and set(release["worker"]) == passed
    mine = collected[collected["worker"].isin(passed)]
    pd.testing.assert_frame_equal(release.sort_values(key)[key + ["raw"]].reset_index(drop=True),
                                  mine.sort_values(key)[key + ["raw"]].reset_index(drop=True))
    from leaderboard.human.standardise import worker_z
    z = worker_z(mine.reset_index(drop=True))
    merged = mine.drop(columns="z").assign(z_ref=z).merge(release[["worker", "hit", "position", "z"]],
                                                          on=["worker", "hit", "position"])
    assert len(merged) == len(mine) and np.allclose(merged["z"], merged["z_ref"], atol=1e-9)


def _status_of(store, name):
    from leaderboard.collect.status import status
    return status(store, name, LP)["annotators"]


def test_the_store_fingerprint_follows_collected_answers(store, files):
    """Caches keyed on the store's fingerprint see answers that arrive without a new import, and resets."""
    from leaderboard.storage.version import data_version
    _create(store, files)
    person = _person(store)
    task = start(store, person)
    before = data_version(store.engine)
    task = submit_answer(store, person, int(task.current["id"]), 70)
    after = data_version(store.engine)
    assert after != before
    db.reset_assignment(store, db.collection(store, "c", LP)["id"], person.name, task.hit, "olga")
    assert data_version(store.engine) not in (before, after)


def test_a_rejected_annotator_stores_nothing_more_and_frees_their_hit(store, files):
    _create(store, files, hits=1)
    info = db.collection(store, "c", LP)
    spammer, other = _person(store), _person(store)
    task = start(store, spammer)
    task = submit_answer(store, spammer, int(task.current["id"]), 12)
    assert start(store, other).state == "none"  # the only HIT is held
    db.decide(store, info["id"], spammer.name, "rejected", "olga")
    before = _counts(store)
    with pytest.raises(InputError, match="ended your participation"):
        submit_answer(store, spammer, int(task.current["id"]), 12)
    assert _counts(store) == before
    assert start(store, other).hit == task.hit  # back in the pool at once


def test_organiser_commands_need_an_organiser_login(files, tmp_path, capsys, monkeypatch):
    import io
    url = f"sqlite:///{tmp_path / 'cli.sqlite'}"
    store = Store(url)
    _create(store, files, hits=2)
    person = _person(store)
    task = start(store, person)
    submit_answer(store, person, int(task.current["id"]), 50)
    for name, role in (("olga", "organiser"), ("mdev", "metric-developer")):
        monkeypatch.setattr("sys.stdin", io.StringIO("a-long-password\n"))
        assert main(["user", "add", name, "--role", role, "--password-stdin", "--database-url", url]) == 0

    def run(*argv, user="olga", password="a-long-password"):
        monkeypatch.setattr("sys.stdin", io.StringIO(password + "\n"))
        capsys.readouterr()
        code = main(["collect", *argv, "--campaign", "c", "--lp", LP, "--user", user, "--password-stdin",
                     "--database-url", url])
        return code, capsys.readouterr()

    code, out = run("stop", user="mdev")
    assert code == 2 and "only organisers can stop annotation campaigns" in out.err
    code, out = run("stop", password="wrong-password")
    assert code == 2 and "wrong user name or password" in out.err
    assert db.collection(store, "c", LP)["status"] == "open"
    assert run("stop")[0] == 0 and db.collection(store, "c", LP)["status"] == "stopped"
    assert run("reopen")[0] == 0 and db.collection(store, "c", LP)["status"] == "open"
    assert run("approve", "--annotator", person.name)[0] == 0
    assert db.annotator(store, collect_id=person.collect["id"], name=person.name)["decision"] == "approved"
    code, out = run("reset", "--annotator", person.name, "--hit", task.hit)
    assert code == 0 and "deleted 1 answers (1 judgments)" in out.out and store.judgments("c").empty
    code, out = run("reject", "--annotator", "nobody")
    assert code == 2 and "no annotator 'nobody'" in out.err
