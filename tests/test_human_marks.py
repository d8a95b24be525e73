"""Organisers mark human translations (`mtlb campaigns human`); the marks reach the published ranking."""

from __future__ import annotations

import json

import pytest

from leaderboard.cli import main
from leaderboard.storage import Store
from leaderboard.storage.imports import audit_log
from leaderboard.storage.marks import human_marks, mark_human

from formats import small_campaign, write_canonical



@pytest.fixture()
def store_url(campaign_with_users):
    return campaign_with_users


def _human(url, capsys, *extra, user=None) -> tuple[int, dict | str]:
    argv = ["campaigns", "human", "--campaign", "c1", "--database-url", url, "--json", *extra]
    if user:
        argv += ["--user", user]
    code = main(argv)
    out = capsys.readouterr()
    return code, (json.loads(out.out) if code == 0 else out.err)


def test_marks_need_an_organiser_and_reach_the_published_ranking(store_url, monkeypatch, capsys):
    code, listing = _human(store_url, capsys)
    systems = [s["system"] for s in listing["systems"]]
    assert code == 0 and all(s["source"] == "naming" for s in listing["systems"])
    target = systems[0]
    monkeypatch.setenv("MTLB_PASSWORD", "a-long-password")
    code, err = _human(store_url, capsys, "--system", target, "--set", "yes", user="bob")
    assert code == 2 and "only organisers" in err
    code, err = _human(store_url, capsys, "--system", target, "--set", "yes")
    assert code == 2 and "--user" in err
    assert human_marks(Store(store_url), "c1") == {}  # nothing stored by the refused calls
    code, listing = _human(store_url, capsys, "--system", target, "--set", "yes", user="alice")
    row = next(s for s in listing["systems"] if s["system"] == target)
    assert code == 0 and row == {"system": target, "human": True, "source": "organiser"}
    log = audit_log(Store(store_url), "c1")
    assert log.iloc[0]["action"] == "mark-human" and log.iloc[0]["actor"] == "alice"
    assert main(["publish", "--campaign", "c1", "--user", "alice", "--database-url", store_url, "--qc", "none"]) == 0
    capsys.readouterr()
    assert main(["published", "--campaign", "c1", "--lp", "cs-en", "--database-url", store_url]) == 0
    snap = json.loads(capsys.readouterr().out)
    flags = {s["system"]: s["human"] for s in snap["ranking"]["systems"]}
    assert flags[target] is True and sum(flags.values()) == 1
    assert all(s["ave_z_ci"][0] <= s["ave_z"] <= s["ave_z_ci"][1] for s in snap["ranking"]["systems"])
    # auto: the mark is removed and WMT naming decides again
    code, listing = _human(store_url, capsys, "--system", target, "--set", "auto", user="alice")
    assert next(s for s in listing["systems"] if s["system"] == target)["source"] == "naming"


def test_store_marks_override_naming(sqlite_url, tmp_path, capsys):
    names = {"sys0": "HUMAN-B", "sys1": "ref-A", "sys2": "Reference-X"}
    frame = small_campaign().assign(campaign="c")
    frame["system"] = frame["system"].map(names)
    assert main(["ingest", str(write_canonical(frame, tmp_path / "c.csv")), "--database-url", sqlite_url]) == 0
    store = Store(sqlite_url)
    mark_human(store, "c", ["HUMAN-B", "ref-A"], False, actor="alice")
    mark_human(store, "c", ["Reference-X"], True, actor="alice")
    assert human_marks(store, "c") == {"HUMAN-B": False, "ref-A": False, "Reference-X": True}
    from leaderboard.errors import InputError
    with pytest.raises(InputError):
        mark_human(store, "nope", ["x"], True, actor="alice")


def test_marking_an_unknown_system_is_refused_and_stores_nothing(store_url, monkeypatch, capsys):
    monkeypatch.setenv("MTLB_PASSWORD", "a-long-password")
    code, err = _human(store_url, capsys, "--system", "sys0", "No-Such-System", "--set", "yes", user="alice")
    assert code == 2 and "'No-Such-System'" in err and "column 'system'" in err
    assert human_marks(Store(store_url), "c1") == {}
    assert audit_log(Store(store_url), "c1").empty
    # removing a mark needs no judged system (a stale mark can always be cleared)
    code, _ = _human(store_url, capsys, "--system", "No-Such-System", "--set", "auto", user="alice")
    assert code == 0


def test_submit_lets_a_marked_human_translation_go_unscored(store_url, monkeypatch, capsys, tmp_path):
    listing = _human(store_url, capsys)[1]
    systems = sorted(s["system"] for s in listing["systems"])
    target = systems[0]
    scores = tmp_path / "m.csv"
    scores.write_text("metric,lp,system,score\n" + "".join(f"M,cs-en,{s},{i / 10}\n" for i, s in
                                                           enumerate(systems[1:])), encoding="utf-8")
    argv = ["submit", str(scores), "--campaign", "c1", "--database-url", store_url, "--json"]
    assert main(argv) == 2  # an MT system without a score is refused, nothing stored
    assert "no scores for 1 campaign system(s)" in capsys.readouterr().err
    monkeypatch.setenv("MTLB_PASSWORD", "a-long-password")
    assert _human(store_url, capsys, "--system", target, "--set", "yes", user="alice")[0] == 0
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["humans_not_scored"] == {"cs-en": [target]} and len(out["stored"]) == 1
