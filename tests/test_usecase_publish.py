"""One path for publishing: `mtlb publish` and the Organiser page store byte-identical snapshots for the
same inputs and options (apart from the time, the publisher and the row ids), and worker QC runs once
per publication on either path."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from test_app_pages import ORGANISER, fresh_store, run_app

OPTIONS = {"qc": "paired-t", "qc_alpha": 0.1, "rule": "strict", "alpha": 0.01, "resamples": 200, "seed": 7,
           "exclude": "sys3"}


def _campaign(store) -> None:
    from leaderboard.accounts.auth import create_user
    from leaderboard.human.qc import simulate_judgments
    create_user(store, "olga", "organiser-pass", "organiser")
    for lp, seed in (("cs-en", 3), ("de-en", 4)):  # worker QC pools the two language pairs
        frame = simulate_judgments(8, random_share=0.25, n_systems=5, n_segments=40, seed=seed, lp=lp)
        frame["campaign"] = "Crowd"
        store.load_judgments(frame, file_name=f"crowd-{lp}.csv", input_format="canonical")


def _stored(store) -> tuple[list[dict], list[dict]]:
    """Every snapshot and artifact as stored, without the time, the publisher and the ids."""
    from leaderboard.storage import models as m
    with store.engine.connect() as conn:
        snaps = [dict(r._mapping) for r in conn.execute(
            select(m.snapshots.c.lp, m.snapshots.c.assessment, m.snapshots.c.version, m.snapshots.c.signature,
                   m.snapshots.c.data_hash, m.snapshots.c.payload, m.snapshots.c.payload_hash, m.snapshots.c.note)
            .order_by(m.snapshots.c.id))]
        arts = [dict(r._mapping) for r in conn.execute(
            select(m.snapshot_artifacts.c.name, m.snapshot_artifacts.c.payload, m.snapshot_artifacts.c.payload_hash)
            .order_by(m.snapshot_artifacts.c.snapshot_id, m.snapshot_artifacts.c.name))]
    return snaps, arts


@pytest.fixture()
def qc_runs(monkeypatch):
    """Counts the runs of the worker QC entry point."""
    from leaderboard.human import qc
    calls = []
    original = qc.filter_judgments

    def counted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)
    monkeypatch.setattr(qc, "filter_judgments", counted)
    return calls


def test_cli_and_page_publish_byte_identical_snapshots_with_one_qc_run_each(tmp_path, monkeypatch, qc_runs):
    store = fresh_store(tmp_path / "cli", monkeypatch)
    _campaign(store)
    from leaderboard.cli import main
    monkeypatch.setenv("MTLB_PASSWORD", "organiser-pass")
    qc_runs.clear()
    assert main(["publish", "--campaign", "Crowd", "--lp", "cs-en", "--assessment", "adequacy", "--user", "olga",
                 "--qc", OPTIONS["qc"], "--qc-alpha", str(OPTIONS["qc_alpha"]), "--cluster-rule", OPTIONS["rule"],
                 "--alpha", str(OPTIONS["alpha"]), "--resamples", str(OPTIONS["resamples"]),
                 "--seed", str(OPTIONS["seed"]), "--exclude-system", OPTIONS["exclude"], "--note", "n"]) == 0
    assert len(qc_runs) == 1
    cli_snaps, cli_arts = _stored(store)

    store = fresh_store(tmp_path / "web", monkeypatch)
    _campaign(store)
    at = run_app("organiser.py", user=ORGANISER)
    at.selectbox(key="pub_campaign").set_value("Crowd").run()
    at.selectbox(key="pub_lp").set_value("cs-en").run()
    at.selectbox(key="pub_qc").set_value(OPTIONS["qc"]).run()
    at.select_slider(key="pub_qc_alpha").set_value(OPTIONS["qc_alpha"]).run()
    at.selectbox(key="pub_rule").set_value(OPTIONS["rule"]).run()
    at.number_input(key="pub_alpha").set_value(OPTIONS["alpha"]).run()
    at.number_input(key="pub_resamples").set_value(OPTIONS["resamples"]).run()
    at.number_input(key="pub_seed").set_value(OPTIONS["seed"]).run()
    at.text_input(key="pub_exclude").set_value(OPTIONS["exclude"]).run()
    qc_runs.clear()
    at.button(key="pub_preview").click().run()
    assert not at.exception and not at.error, [e.value for e in at.exception] + [e.value for e in at.error]
    at.text_input(key="pub_note").set_value("n").run()
    at.button(key="pub_go").click().run()
    assert not at.exception and not at.error, [e.value for e in at.exception] + [e.value for e in at.error]
    assert len(qc_runs) == 1
    web_snaps, web_arts = _stored(store)

    assert len(cli_snaps) == 1 and {a["name"] for a in cli_arts} == {"qc", "segment_scores", "spec"}
    sig = cli_snaps[0]["signature"]
    assert "qc:paired-t@0.1" in sig and "p:0.01" in sig and "clusters:strict" in sig and "exclude:sys3" in sig
    assert "resamples:200" in sig and "seed:7" in sig
    ranked = {s["system"] for s in json.loads(cli_snaps[0]["payload"])["systems"]}
    assert "sys3" not in ranked and len(ranked) == 4
    assert web_snaps == cli_snaps
    assert web_arts == cli_arts


def test_mtlb_publish_runs_qc_once_for_every_language_pair(tmp_path, monkeypatch, qc_runs):
    store = fresh_store(tmp_path, monkeypatch)
    _campaign(store)
    from leaderboard.cli import main
    monkeypatch.setenv("MTLB_PASSWORD", "organiser-pass")
    qc_runs.clear()
    assert main(["publish", "--campaign", "Crowd", "--user", "olga", "--qc", "paired-t", "--resamples", "0"]) == 0
    snaps, arts = _stored(store)
    assert [s["lp"] for s in snaps] == ["cs-en", "de-en"] and len(qc_runs) == 1
    # the verdicts are the pooled ones of the whole campaign, counted for each pair's workers
    from leaderboard.human.qc import filter_judgments
    qc = [json.loads(a["payload"]) for a in arts if a["name"] == "qc"]
    frame = store.judgments("Crowd")
    _, report = filter_judgments(frame, "paired-t", 0.05)
    kept = set(report.loc[report["passed"], "worker"].astype(str))
    assert 0 < len(kept) < report["worker"].nunique()
    for art, lp in zip(qc, ("cs-en", "de-en")):
        workers = set(frame.loc[frame["lp"] == lp, "worker"].astype(str))
        assert art["summary"]["workers_kept"] == len(workers & kept)
