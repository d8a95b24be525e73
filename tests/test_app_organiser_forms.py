"""Organiser forms (issue 32 item 12): a created campaign is listed at once; a release's own worker QC
files are attached to a published version from the page and from `mtlb publish`."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from test_app_pages import ORGANISER, fresh_store, run_app


def _release(shared):
    d = shared / "wmt22-toen-da"
    return d / "ad-csen-good-stnd.csv", d / "ad-csen-trk-mean-sd.txt", d / "ad-trk-stats.csv", d / "ad-trk-stats.class"


def _expected(shared, workers: set[str]) -> dict:
    """From the release files themselves: how many of these workers it rates good."""
    _, _, stats, verdicts = _release(shared)
    have = {line.split()[0] for line in stats.read_text().splitlines() if line.strip()}
    good = {w for w, v in (line.split() for line in verdicts.read_text().splitlines() if line.strip()) if v == "good"}
    return {"with_verdict": len(workers & have), "good": len(workers & have & good)}


def test_a_created_campaign_is_listed_at_once(tmp_path, monkeypatch):
    fresh_store(tmp_path, monkeypatch)
    at = run_app("organiser.py", user=ORGANISER)
    at.text_input(key="new_campaign_name").set_value("Pilot 2026")
    at.button(key="FormSubmitter:new_campaign-Create campaign").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Created campaign" in s.value for s in at.success)
    assert "**1 campaign(s)**" in [m.value for m in at.markdown]
    assert "Pilot 2026" in at.dataframe[0].value["Campaign"].tolist()
    assert "Pilot 2026" in at.selectbox(key="set_campaign").options


def test_release_qc_files_are_published_from_the_page(tmp_path, monkeypatch, shared):
    from leaderboard.ingest import read_judgments
    store = fresh_store(tmp_path, monkeypatch)
    judgments, stats_file, trk_stats, trk_class = _release(shared)
    frame = read_judgments(judgments, "wmt-stnd", worker_stats=stats_file, campaign="WMT22")
    store.load_judgments(frame, file_name=judgments.name, input_format="wmt-stnd")
    at = run_app("organiser.py", user=ORGANISER, timeout=180)
    at.selectbox(key="pub_campaign").set_value("WMT22").run()
    assert at.selectbox(key="pub_qc").value.startswith("release")
    at.button(key="pub_preview").click().run()
    # a malformed statistics file is refused with its line and column, and nothing is published
    at.file_uploader(key="pub_release_stats").set_value(("ad-trk-stats.csv", b"M1 0.5 x 3\n", "text/plain")).run()
    at.button(key="pub_go").click().run()
    assert any("line" in e.value and "t 'x' is not a number" in e.value for e in at.error)
    assert store.snapshots().empty
    at.file_uploader(key="pub_release_stats").set_value(("ad-trk-stats.csv", trk_stats.read_bytes(), "text/plain"))
    at.file_uploader(key="pub_release_class").set_value(("ad-trk-stats.class", trk_class.read_bytes(), "text/plain"))
    at.run()
    at.button(key="pub_go").click().run()
    assert not at.exception, [e.value for e in at.exception]
    artifact = store.snapshot_artifact("WMT22", "cs-en", "adequacy", 1, "release_qc")
    workers = set(frame["worker"].astype(str))
    assert artifact["workers"] == len(workers) == 156
    assert {k: artifact[k] for k in ("with_verdict", "good")} == _expected(shared, workers)
    assert "ad-trk-stats.class" in artifact["source"]


def test_mtlb_publish_attaches_release_qc(tmp_path, shared):
    judgments, stats_file, trk_stats, trk_class = _release(shared)
    env = {k: v for k, v in os.environ.items() if not (k.startswith("MTLB_") or k == "DATABASE_URL")}
    env.update(MTLB_DATA_DIR=str(tmp_path), MTLB_PASSWORD="organiser-password")
    mtlb = [sys.executable, "-m", "leaderboard.cli"]
    run = lambda *a: subprocess.run([*mtlb, *a], env=env, capture_output=True, text=True)  # noqa: E731
    assert run("ingest", str(judgments), "--worker-stats", str(stats_file), "--campaign", "w22").returncode == 0
    assert run("user", "add", "olga", "--role", "organiser").returncode == 0
    bad = tmp_path / "bad.class"
    bad.write_text("M1 maybe\n")
    refused = run("publish", "--campaign", "w22", "--user", "olga", "--resamples", "0", "--release-qc",
                  str(trk_stats), "--release-qc-verdicts", str(bad))
    assert refused.returncode == 2 and "bad.class, line 1, column 'verdict'" in refused.stderr
    done = run("publish", "--campaign", "w22", "--user", "olga", "--resamples", "0", "--release-qc", str(trk_stats),
               "--release-qc-verdicts", str(trk_class), "--json")
    assert done.returncode == 0, done.stderr
    assert [p["version"] for p in json.loads(done.stdout)["published"]] == [1]  # the refused run stored nothing
    from leaderboard.storage import Store
    store = Store(f"sqlite:///{tmp_path / 'mtlb.sqlite'}")
    artifact = store.snapshot_artifact("w22", "cs-en", "adequacy", 1, "release_qc")
    workers = set(store.judgments("w22", "cs-en")["worker"].astype(str))
    assert {k: artifact[k] for k in ("with_verdict", "good")} == _expected(shared, workers)


def test_release_qc_readers_refuse_malformed_rows(tmp_path):
    from leaderboard.errors import InputError
    from leaderboard.ingest.release_qc import read_trk_class, read_trk_stats
    cases = {"M1 0.5 -1.2\n": "expected 4", "M1 1.5 -1 3\n": "outside [0, 1]", "M1 nan -1 3\n": "not a finite",
             "M1 0.5 -1 2.5\n": "not a count", "M1 0.5 -1 3\nM1 0.2 -2 4\n": "appears twice", "": "the file is empty", "\n\n": "the file is empty"}
    for text, message in cases.items():
        path = tmp_path / "s.csv"
        path.write_text(text)
        with pytest.raises(InputError, match=re.escape(message)):
            read_trk_stats(path)
    path = tmp_path / "c.class"
    path.write_text("M1 good\nM2 Good\n")
    with pytest.raises(InputError, match="line 2.*verdict 'Good'"):
        read_trk_class(path)
