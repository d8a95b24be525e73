"""AppTest tests of the Organiser page's Human evaluation tab and of the annotator page's refusals."""

from __future__ import annotations

import pytest

from collecting import write_testset
from stores import copy_store
from test_app_pages import ORGANISER, fresh_store, run_app, unmd

LP = "de-en"


@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    """A store with the organiser olga and the DA campaign "pilot" worked through by three simulated
    annotators (one a random clicker), made once for the module; each test gets a copy (``collecting``)."""
    from conftest import forget_engines
    from leaderboard.accounts.auth import create_user
    from leaderboard.collect import campaigns
    from leaderboard.collect.simulate import simulate
    from leaderboard.storage import Store
    folder = tmp_path_factory.mktemp("collected")
    url = f"sqlite:///{folder / 'mtlb.sqlite'}"
    store = Store(url)
    create_user(store, "olga", "organiser-pass", "organiser")
    paths = write_testset(folder / "ts", n_lines=60, seed=6)
    sources = campaigns.sources_from_files([str(p) for p in paths["hyps"]], str(paths["ref"]), LP)
    campaigns.create(store, "pilot", LP, sources, protocol="da", hits=3, hit_size=100, seed=2)
    kinds = simulate(store, "pilot", LP, 3, random_share=0.34, seed=1)["kinds"]
    forget_engines(url)
    return {"path": folder / "mtlb.sqlite", "kinds": kinds}


@pytest.fixture()
def collecting(collected, tmp_path, monkeypatch):
    """The app's store (MTLB_DATA_DIR) is a copy of ``collected``, for this test alone."""
    copy_store(collected["path"], tmp_path)
    store = fresh_store(tmp_path, monkeypatch)
    return {"store": store, "kinds": collected["kinds"]}


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


def test_organiser_follows_a_cesa_campaign_with_its_checks(tmp_path, monkeypatch, shared):
    """A dynamic cESA campaign: the tab shows the assignment's progress, each annotator's held page and why, and
    every check result as the store holds it."""
    from leaderboard.accounts.auth import create_user
    from leaderboard.collect.campaigns import create_cesa
    from leaderboard.collect.plan import from_pearmut
    from leaderboard.collect.simulate_cesa import simulate
    from leaderboard.collect.status import status
    from leaderboard.storage import collect_cesa as cdb
    from leaderboard.storage import collect as db
    store = fresh_store(tmp_path, monkeypatch)
    create_user(store, "olga", "organiser-pass", "organiser")
    _, plan = from_pearmut(shared / "pearmut" / "dynamic" / "campaign.json")
    create_cesa(store, "pm", "eng_Latn-ces_Latn", plan, seed=1)
    simulate(store, "pm", "eng_Latn-ces_Latn", 3, seed=4)
    at = run_app("organiser.py", user=ORGANISER)
    labels = at.selectbox(key="collect_pick").options
    at.selectbox(key="collect_pick").set_value(next(i for i, label in enumerate(labels) if "cesa" in label)).run()
    tab = _tab(at)
    assert not at.exception
    figures = {m.label: m.value for m in tab.metric}
    info = db.collection(store, "pm", "eng_Latn-ces_Latn")
    cells = cdb.cells_progress(store, info["id"])
    assert figures["Assignment"] == "dynamic" and figures["Translations side by side"] == "3"
    assert figures["Document × model cells done"] == f"{cells['done']} of {cells['cells']}"
    shown = next(d.value for d in tab.dataframe if "Attempt" in d.value.columns)
    truth = cdb.check_results(store, info["id"])
    assert len(shown) == len(truth) > 0
    assert (shown["Passed"] == "yes").sum() == int(truth["passed"].astype(bool).sum())
    people = {a["annotator"]: a for a in status(store, "pm", "eng_Latn-ces_Latn")["annotators"]}
    table = tab.dataframe[0].value
    assert set(table["Annotator"]) == set(people)


def test_links_carry_the_apps_address_not_the_organiser_page(monkeypatch):
    from leaderboard.webapp import collect_views

    class Context:
        url = "https://mt.example.org/organiser"
    monkeypatch.setattr(collect_views.st, "context", Context())
    assert collect_views._base_url() == "https://mt.example.org"
    from streamlit import config
    monkeypatch.setattr(config, "get_option", lambda name: "mtlb" if name == "server.baseUrlPath" else None)
    Context.url = "https://mt.example.org/mtlb/organiser/?x=1"
    assert collect_views._base_url() == "https://mt.example.org/mtlb"


def test_new_campaign_form_reports_an_empty_pair_and_a_missing_test_set_readably(tmp_path, monkeypatch):
    """Issue 42 point 7: an empty language pair is reported as empty, and a campaign name with
    parentheses reaches the page whole, with the page's own hint (no command-line words)."""
    import re
    store = fresh_store(tmp_path, monkeypatch)
    from leaderboard.accounts.auth import create_user
    create_user(store, "olga", "organiser-pass", "organiser")
    store.create_campaign("Simulated crowd (demo)")
    at = run_app("organiser.py", user=ORGANISER)
    at.selectbox(key="collect_new_campaign").set_value("Simulated crowd (demo)").run()
    at.button(key="FormSubmitter:collect_new-Create").click().run()
    errors = [e.value for e in _tab(at).error]
    assert len(errors) == 1 and "language pair is empty" in errors[0], errors
    at.text_input(key="collect_new_lp").set_value("cs-en")  # a form: the value is sent with the submit
    at.button(key="FormSubmitter:collect_new-Create").click().run()
    errors = [unmd(e.value) for e in _tab(at).error]
    assert len(errors) == 1, errors
    text = errors[0]
    assert "campaign 'Simulated crowd (demo)' has no test set for cs-en" in text, text
    assert "Test sets page" in text and not re.search(r"--[a-z]|\bmtlb\b|“lp”", text), text
    assert text.count("(") == text.count(")")


def test_completion_code_is_drawn_with_the_page(collecting, tmp_path):
    """Issue 42.9: seconds passed between the last answer and the completion code. The code was an
    ``st.code`` block, whose renderer the browser loads only when it is first used (measured: the code
    appeared 0.4 s after the rest of the page, more on a busy machine; bench/bench_collect.py
    ``last_answer``). It is Markdown now, drawn with the rest of the page; the code is the campaign's."""
    from urllib.parse import parse_qs, urlsplit
    from leaderboard.collect.links import invitation_links
    from leaderboard.collect.service import open_invitation, start, submit_answer
    from leaderboard.collect import campaigns
    store = collecting["store"]
    paths = write_testset(tmp_path / "ts2", n_lines=30, seed=7)
    sources = campaigns.sources_from_files([str(p) for p in paths["hyps"]], str(paths["ref"]), LP)
    campaigns.create(store, "small", LP, sources, protocol="da", hits=1, hit_size=20, seed=3)
    link = invitation_links(store, "small", LP, 1, "http://x")[0]["url"]
    token = parse_qs(urlsplit(link).query)["t"][0]
    person = open_invitation(store, token)
    task = start(store, person)
    while task.state == "item":
        task = submit_answer(store, person, int(task.current["id"]), 70)
    assert task.state == "complete"
    assert task.code in (person.collect["code_pass"], person.collect["code_fail"])
    at = run_app(params={"t": token})
    assert not at.get("code"), "the completion code must not be an st.code block"
    shown = [m.value for m in at.markdown]
    assert "**Your completion code**" in shown and f"### `{task.code}`" in shown
