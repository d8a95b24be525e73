"""Clean messages: a tampered snapshot is refused (exit 2) naming the snapshot and saying it fails
verification; normal commands print no RuntimeWarning and no psycopg "error ignored" line; a page
error shows one short line (logged with its traceback), never a traceback; a stale link such as
``/leaderboard`` shows the app's own not-found page, not Streamlit's pop-up."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import text

from formats import small_campaign, write_canonical
from leaderboard.cli import main

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"


@pytest.fixture()
def published(db_url, tmp_path, monkeypatch, capsys) -> str:
    frame = small_campaign(n_workers=4, n_items=30).assign(campaign="c1")
    assert main(["ingest", str(write_canonical(frame, tmp_path / "j.csv")), "--database-url", db_url]) == 0
    monkeypatch.setattr("sys.stdin", io.StringIO("a-long-password\n"))
    assert main(["user", "add", "alice", "--role", "organiser", "--password-stdin", "--database-url", db_url]) == 0
    monkeypatch.setenv("MTLB_PASSWORD", "a-long-password")
    assert main(["publish", "--campaign", "c1", "--user", "alice", "--qc", "none", "--resamples", "50",
                 "--database-url", db_url]) == 0
    capsys.readouterr()
    return db_url


def test_tampered_snapshot_exits_2_naming_it(published, capsys):
    from leaderboard.storage import Store
    store = Store(published)
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE snapshots SET payload = replace(payload, 'sys0', 'sysX')"))
    code = main(["published", "--campaign", "c1", "--lp", "cs-en", "--database-url", published])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "c1/cs-en/adequacy v1" in err and "fails verification" in err, err
    assert "internal error" not in err


def test_normal_commands_print_no_warnings(published, tmp_path):
    """Real processes with Python's default warning filters: every warning a user could see is shown."""
    env = {**os.environ, "PYTHONWARNINGS": "default", "MTLB_PASSWORD": "a-long-password"}
    frame = small_campaign(n_workers=4, n_items=30).assign(campaign="c2")
    path = write_canonical(frame, tmp_path / "j2.csv")
    db = ["--database-url", published]
    commands = [
        ["ingest", str(path), *db],
        ["rank", "--input", str(path), "--qc", "none", "--json"],
        ["qc", "--input", str(path)],
        ["publish", "--campaign", "c2", "--user", "alice", "--qc", "none", "--resamples", "50", *db],
        ["published", "--campaign", "c2", "--lp", "cs-en", *db],
        ["published", *db],
    ]
    for argv in commands:
        done = subprocess.run([sys.executable, "-m", "leaderboard.cli", *argv], capture_output=True, text=True,
                              env=env, cwd=tmp_path, timeout=300)
        assert done.returncode == 0, (argv, done.stderr)
        for bad in ("Warning", "error ignored", "Exception ignored", "Traceback"):
            assert bad not in done.stderr, (argv, done.stderr)


def test_an_unexpected_page_error_shows_a_short_message_and_is_logged(caplog):
    from streamlit.testing.v1 import AppTest

    def app():
        from leaderboard.webapp.main import run_page

        class Broken:
            url_path = "broken"

            def run(self):
                raise RuntimeError("internal detail: /srv/secret/path")
        run_page(Broken())

    with caplog.at_level(logging.ERROR, logger="mtlb.webapp"):
        at = AppTest.from_function(app).run()
    assert not at.exception
    assert len(at.error) == 1 and "went wrong" in at.error[0].value and "secret" not in at.error[0].value
    assert any("internal detail" in (r.exc_text or "") for r in caplog.records)


def test_a_stale_link_shows_the_apps_not_found_page(tmp_path):
    if not Path(CHROMIUM).exists():
        pytest.skip("/usr/bin/chromium is not installed")
    sync_api = pytest.importorskip("playwright.sync_api")
    from appserver import running_app
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 's.sqlite'}", "MTLB_NO_DEMO": "1"}
    with running_app(sys.executable, None, env=env, cwd=tmp_path, log=tmp_path / "serve.log", timeout=120,
                     serve_args=("--no-warm",)) as base, sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        page.goto(base + "/leaderboard")
        page.get_by_role("heading", name="Page not found").wait_for(timeout=60000)
        assert page.get_by_role("dialog").count() == 0  # no Streamlit pop-up
        page.get_by_text("Go to the leaderboard").click()
        page.get_by_role("heading", name="Page not found").wait_for(state="detached", timeout=60000)
        browser.close()
