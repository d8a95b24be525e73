"""AppTest tests of the Organiser page's Human evaluation tab and of the annotator page's refusals."""

from __future__ import annotations

import pytest

from collecting import write_testset
from test_app_pages import ORGANISER, fresh_store, run_app

LP = "de-en"


@pytest.fixture()
def collecting(tmp_path, monkeypatch):
    store = fresh_store(tmp_path, monkeypatch)
    from leaderboard.accounts.auth import create_user
    from leaderboard.collect import campaigns
    from leaderboard.collect.simulate import simulate
    create_user(store, "olga", "organiser-pass", "organiser")
    paths = write_testset(tmp_path / "ts", n_lines=60, seed=6)
    sources = campaigns.sources_from_files([str(p) for p in paths["hyps"]], str(paths["ref"]), LP)
    campaigns.create(store, "pilot", LP, sources, protocol="da", hits=3, hit_size=100, seed=2)
    kinds = simulate(store, "pilot", LP, 3, random_share=0.34, seed=1)["kinds"]
    return {"store": store, "kinds": kinds}


def _tab(at):
    return next(t for t in at.tabs if t.label == "Human evaluation")


def test_organiser_follows_and_manages_an_annotation_campaign(collecting):
    from leaderboard.collect.status import status
    from leaderboard.storage import collect as db
    store = collecting["store"]
    at = run_app("organiser.py", user=ORGANISER)
    tab = _tab(at)
    figures = {m.label: m.value for m in tab.metric}
    assert figures["HITs done"] == "3 of 3" and figures["Status"] == "open"
    info = db.collection(store, "pilot", LP)
    assert figures["Completion code: passed"] == info["code_pass"]
    shown = tab.dataframe[0].value
    truth = {a["annotator"]: a for a in status(store, "pilot", LP)["annotators"]}
    assert set(shown["Annotator"]) == set(truth)
    for _, row in shown.iterrows():
        mine = truth[row["Annotator"]]
        assert row["HITs done"] == mine["hits_done"] and row["Items done"] == mine["items_done"]
        assert row["QC"] == ("passed" if mine["qc_pass"] else "failed")
        assert abs(row["QC p-value"] - mine["qc_p"]) < 1e-12
        assert abs(row["Median s per item"] - mine["seconds_per_item"]) < 0.051
    clicker = next(n for n, k in collecting["kinds"].items() if k == "random")
    assert shown.set_index("Annotator").loc[clicker, "QC"] == "failed"
    systems = tab.dataframe[1].value
    assert systems["Outputs judged"].sum() == 3 * 70 and systems["All items"].sum() == 300

    # reject the random clicker, reset one of their HITs, stop and reopen, make links
    at.selectbox(key="collect_who").set_value(clicker).run()
    at.button(key="collect_reject").click().run()
    assert db.annotator(store, collect_id=info["id"], name=clicker)["decision"] == "rejected"
    at.button(key="collect_reset").click().run()
    assert any("answers deleted" in s.value for s in at.success)
    assert status(store, "pilot", LP)["hits_done"] == 2
    at.button(key="collect_status").click().run()
    assert db.collection(store, "pilot", LP)["status"] == "stopped"
    at.button(key="collect_status").click().run()
    assert db.collection(store, "pilot", LP)["status"] == "open"
    at.number_input(key="collect_n").set_value(3).run()
    at.text_input(key="collect_base").set_value("https://mt.example.org").run()
    at.button(key="collect_make_links").click().run()
    assert not at.exception
    links = _tab(at).dataframe[-1].value
    assert len(links) == 3 and links["URL"].str.startswith("https://mt.example.org/?t=").all()
    from leaderboard.storage.imports import audit_log
    assert {"collect-rejected", "collect-reset", "collect-stop", "collect-reopen"} <= set(audit_log(store)["action"])


def test_organiser_tab_needs_an_organiser(collecting):
    at = run_app("organiser.py")
    assert not at.tabs and any("Log in" in w.value for w in at.warning)


def test_annotator_page_refuses_bad_links(collecting):
    at = run_app(params={"t": "A" * 32})
    assert any("not valid" in e.value for e in at.error)
    assert not at.sidebar.markdown  # only the task: no menu, no login box
    at = run_app(params={"c": "nope", "worker": "w1"})
    assert any("does not belong" in e.value for e in at.error)
