"""The same rule in every command: passwords, options versus file contents, QC labels, counts, texts."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from conftest import ROOT
from formats import small_campaign, write_appraise, write_canonical, write_wmt_stnd
from leaderboard.cli import main

MTLB = str(Path(sys.executable).parent / "mtlb")
MTURK_EXAMPLE = ROOT / "data" / "examples" / "mturk-batch-results.csv"


def mtlb(args: list[str], store: Path, stdin: str | None = None, **env: str) -> subprocess.CompletedProcess:
    """The installed console script in a child process whose standard input is a pipe (no terminal)."""
    clean = {k: v for k, v in os.environ.items() if not (k.startswith("MTLB_") or k == "DATABASE_URL")}
    return subprocess.run([MTLB, *args], input=stdin if stdin is not None else "", capture_output=True, text=True,
                          env={**clean, "MTLB_DATA_DIR": str(store), **env}, timeout=120)


def login(store: Path, name: str, password: str) -> dict | None:
    from leaderboard.accounts.auth import authenticate
    from leaderboard.storage import Store
    return authenticate(Store(f"sqlite:///{store / 'mtlb.sqlite'}"), name, password)


# ---- passwords ------------------------------------------------------------------------------
def test_user_add_takes_a_piped_password_without_a_terminal(tmp_path):
    done = mtlb(["user", "add", "x", "--role", "organiser"], tmp_path, stdin="piped-password\n")
    assert done.returncode == 0, done.stderr
    assert login(tmp_path, "x", "piped-password") == {"name": "x", "role": "organiser"}
    assert login(tmp_path, "x", "piped-password\n") is None


def test_user_add_takes_the_password_from_the_environment(tmp_path):
    done = mtlb(["user", "add", "x", "--role", "organiser"], tmp_path, MTLB_PASSWORD="env-password")
    assert done.returncode == 0, done.stderr
    assert login(tmp_path, "x", "env-password") == {"name": "x", "role": "organiser"}


def test_password_stdin_wins_over_the_environment_and_nothing_is_an_error(tmp_path):
    done = mtlb(["user", "add", "x", "--role", "metric-developer", "--password-stdin"], tmp_path,
                stdin="stdin-password\n", MTLB_PASSWORD="env-password")
    assert done.returncode == 0, done.stderr
    assert login(tmp_path, "x", "stdin-password") is not None and login(tmp_path, "x", "env-password") is None
    refused = mtlb(["user", "add", "y", "--role", "organiser"], tmp_path)  # empty pipe, no variable
    assert refused.returncode == 2 and "no password" in refused.stderr and "Traceback" not in refused.stderr
    assert login(tmp_path, "y", "") is None


def test_publish_reads_passwords_like_user_add(tmp_path):
    path = write_canonical(small_campaign(n_workers=3, n_items=30), tmp_path / "j.csv")
    assert mtlb(["ingest", str(path), "--campaign", "c1"], tmp_path).returncode == 0
    assert mtlb(["user", "add", "alice", "--role", "organiser"], tmp_path, stdin="alice-password\n").returncode == 0
    args = ["publish", "--campaign", "c1", "--user", "alice", "--qc", "none", "--json"]
    piped = mtlb(args, tmp_path, stdin="alice-password\n")
    assert piped.returncode == 0, piped.stderr
    from_env = mtlb(args, tmp_path, MTLB_PASSWORD="alice-password")
    assert from_env.returncode == 0, from_env.stderr
    assert [p["version"] for p in json.loads(from_env.stdout)["published"]] == [2]
    wrong = mtlb(args, tmp_path, stdin="wrong-password\n")
    assert wrong.returncode == 2 and "wrong user name or password" in wrong.stderr


# ---- counts -----------------------------------------------------------------------------------
def test_campaign_counts_stay_integers_with_a_texts_only_campaign(tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    path = write_canonical(small_campaign(), tmp_path / "j.csv")
    assert main(["ingest", str(path), "--campaign", "judged", "--database-url", url]) == 0
    texts = tmp_path / "texts"
    texts.mkdir()
    for name in ("t.cs-en.src.cs", "t.cs-en.ref.A.en", "t.cs-en.hyp.sysA.en"):
        (texts / name).write_text("one\ntwo\nthree\n")
    assert main(["texts", str(texts), "--campaign", "texts-only", "--database-url", url]) == 0
    capsys.readouterr()
    assert main(["campaigns", "--json", "--database-url", url]) == 0
    rows = {r["campaign"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["judged"]["systems"] == 3 and rows["judged"]["workers"] == 3 and rows["judged"]["judgments"] == 36
    assert {k: rows["texts-only"][k] for k in ("judgments", "systems", "workers")} == \
        {"judgments": 0, "systems": 0, "workers": 0}
    for row in rows.values():
        assert all(type(row[k]) is int for k in ("judgments", "systems", "workers")), row
    assert main(["campaigns", "--database-url", url]) == 0
    table = capsys.readouterr().out
    assert ".0" not in table and "NaN" not in table
    assert table.split("\n")[1].split() == ["judged", "cs-en", "adequacy", "36", "3", "3"]


# ---- options win over the file ---------------------------------------------------------------
def _stored_campaigns(url: str) -> set[str]:
    from leaderboard.storage import Store
    return set(Store(url).campaigns()["campaign"])


def test_campaign_option_replaces_the_mturk_files_campaign(tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    assert main(["ingest", str(MTURK_EXAMPLE), "--campaign", "mturk-example", "--json", "--database-url", url]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["campaign"] == "mturk-example" and result["campaign_labels_replaced"] == ["example-batch"]
    assert _stored_campaigns(url) == {"mturk-example"}
    # without the option, the file's Input.campaign names the campaign
    other = f"sqlite:///{tmp_path / 'other.sqlite'}"
    assert main(["ingest", str(MTURK_EXAMPLE), "--database-url", other]) == 0
    assert _stored_campaigns(other) == {"example-batch"}


def test_campaign_option_replaces_a_canonical_campaign_column(tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    path = write_canonical(small_campaign().assign(campaign="in-file"), tmp_path / "j.csv")
    assert main(["ingest", str(path), "--campaign", "chosen", "--database-url", url]) == 0
    assert "in-file replaced by --campaign chosen" in capsys.readouterr().out
    assert _stored_campaigns(url) == {"chosen"}


def _files_of_every_format(tmp_path: Path) -> dict[str, tuple[list[str], Path]]:
    """One cs-en adequacy file per importer (extra ingest arguments, path)."""
    frame = small_campaign(n_workers=2, n_items=12)
    canonical = write_canonical(frame, tmp_path / "canonical.csv")
    stnd, stats = write_wmt_stnd(frame, tmp_path)
    appraise = write_appraise(frame, tmp_path / "appraise.csv")
    return {"canonical": ([], canonical), "wmt-stnd": (["--worker-stats", str(stats)], stnd),
            "appraise": ([], appraise), "mturk": ([], MTURK_EXAMPLE)}


@pytest.mark.parametrize("fmt", ["canonical", "wmt-stnd", "appraise", "mturk"])
def test_lp_option_that_matches_nothing_is_refused_in_every_format(fmt, tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    extra, path = _files_of_every_format(tmp_path)[fmt]
    assert main(["ingest", str(path), *extra, "--campaign", "c", "--lp", "de-en", "--database-url", url]) == 2
    err = capsys.readouterr().err
    assert "no judgments for language pair 'de-en'" in err and "cs-en" in err and path.name in err
    assert _stored_campaigns(url) == set()
    assert main(["ingest", str(path), *extra, "--campaign", "c", "--lp", "cs-en", "--json", "--database-url", url]) == 0
    assert json.loads(capsys.readouterr().out)["lp"] == "cs-en"


@pytest.mark.parametrize("fmt", ["canonical", "wmt-stnd", "mturk"])
def test_assessment_option_against_the_files_assessment_is_refused(fmt, tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    extra, path = _files_of_every_format(tmp_path)[fmt]
    assert main(["ingest", str(path), *extra, "--campaign", "c", "--assessment", "fluency",
                 "--database-url", url]) == 2
    assert "no judgments for assessment 'fluency'; the file holds adequacy" in capsys.readouterr().err
    assert _stored_campaigns(url) == set()


def test_assessment_option_sets_it_where_the_file_has_none(tmp_path, capsys):
    from leaderboard.storage import Store
    files = _files_of_every_format(tmp_path)
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    _, appraise = files["appraise"]
    assert main(["ingest", str(appraise), "--campaign", "a", "--assessment", "fluency", "--database-url", url]) == 0
    bare = tmp_path / "no-assessment.csv"
    write_canonical(small_campaign().drop(columns=["assessment"]), bare)
    assert main(["ingest", str(bare), "--campaign", "b", "--assessment", "fluency", "--database-url", url]) == 0
    rows = Store(url).campaigns()
    assert set(rows["assessment"]) == {"fluency"}


def test_assessment_option_keeps_only_its_rows_and_reports_the_rest(tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    frame = pd.concat([small_campaign(), small_campaign().assign(assessment="fluency")])
    path = write_canonical(frame, tmp_path / "two.csv")
    assert main(["ingest", str(path), "--assessment", "fluency", "--json", "--database-url", url]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["judgments"] == 36 and result["rows_of_other_assessments_left_out"] == 36


# ---- the same QC label in rank and publish ---------------------------------------------------
def _rank_signature(args: list[str], capsys) -> str:
    assert main(["rank", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)["signature"]


def _publish_signature(url: str, campaign: str, monkeypatch, capsys) -> str:
    monkeypatch.setenv("MTLB_PASSWORD", "organiser-password")
    assert main(["publish", "--campaign", campaign, "--user", "olga", "--json", "--database-url", url]) == 0
    return json.loads(capsys.readouterr().out)["published"][0]["signature"]


@pytest.fixture()
def organiser_store(tmp_path, monkeypatch, capsys):
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    monkeypatch.setenv("MTLB_PASSWORD", "organiser-password")
    assert main(["user", "add", "olga", "--role", "organiser", "--database-url", url]) == 0
    capsys.readouterr()
    return url


def test_publish_of_a_wmt_release_records_qc_release_like_rank(shared, organiser_store, monkeypatch, capsys):
    d = shared / "wmt22-toen-da"
    files = [str(d / "ad-csen-good-stnd.csv"), "--worker-stats", str(d / "ad-csen-trk-mean-sd.txt")]
    assert main(["ingest", *files, "--campaign", "wmt22", "--database-url", organiser_store]) == 0
    capsys.readouterr()
    ranked = _rank_signature(["--input", *files], capsys)
    published = _publish_signature(organiser_store, "wmt22", monkeypatch, capsys)
    assert "qc:release" in ranked and published == ranked


def test_publish_of_a_crowd_campaign_runs_the_same_qc_as_rank(organiser_store, tmp_path, monkeypatch, capsys):
    from leaderboard.publish.demo import PACKAGED_DEMO_DIR
    path = tmp_path / "simulated.csv"
    with gzip.open(PACKAGED_DEMO_DIR / "simulated" / "simulated-campaign.csv.gz", "rt") as fh:
        frame = pd.read_csv(fh)
    write_canonical(frame[frame["lp"] == "de-en"], path)
    assert main(["ingest", str(path), "--campaign", "crowd", "--database-url", organiser_store]) == 0
    capsys.readouterr()
    ranked = _rank_signature(["--input", str(path)], capsys)
    published = _publish_signature(organiser_store, "crowd", monkeypatch, capsys)
    assert "qc:paired-t@0.05" in ranked and published == ranked


# ---- texts ----------------------------------------------------------------------------------
def test_texts_says_when_no_file_matched(tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    pattern = str(tmp_path / "generaltest2022.cs-en.*")
    assert main(["texts", pattern, "--campaign", "wmt22", "--database-url", url]) == 2
    err = capsys.readouterr().err
    assert "no file matched this pattern" in err and "does not follow" not in err
    assert main(["texts", str(tmp_path / "missing.cs-en.src.cs"), "--campaign", "wmt22", "--database-url", url]) == 2
    assert "file not found" in capsys.readouterr().err


def test_texts_expands_a_quoted_pattern_and_names_each_file_once(tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    for sub, name in (("sources", "t.cs-en.src.cs"), ("references", "t.cs-en.ref.B.en"),
                      ("system-outputs", "t.cs-en.hyp.Online-W.en")):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / name).write_text("a\nb\n")
    assert main(["texts", str(tmp_path / "*" / "t.cs-en.*"), "--campaign", "wmt22", "--database-url", url]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert sorted(lines) == ["stored hypothesis Online-W (cs-en, 2 lines)", "stored reference B (cs-en, 2 lines)",
                             "stored source (cs-en, 2 lines)"]
