"""App caches follow the store, not a clock: a write by another process (an app replica, the CLI)
shows on the next read / rerun of this one, with no restart and no cache clearing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from test_app_pages import hand_ranking, make_judgments

ROOT = Path(__file__).resolve().parents[1]

PUBLISH = """
import sys
from leaderboard.storage import Store
from leaderboard.storage.store import frame_hash
from test_app_pages import hand_ranking, make_judgments
url, campaign, lp, signature = sys.argv[1:5]
frame = make_judgments(campaign, lp)
Store(url).publish(campaign, lp, "adequacy", hand_ranking(frame, lp, signature), data_hash=frame_hash(frame),
                   publisher="replica-b")
"""

INGEST = """
import sys
from leaderboard.storage import Store
from test_app_pages import make_judgments
url, campaign, lp = sys.argv[1:4]
Store(url).load_judgments(make_judgments(campaign, lp, seed=5), file_name="late.csv", input_format="canonical")
"""


def other_process(script: str, *args: str) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), str(ROOT)])}
    out = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, env=env,
                         timeout=300)
    assert out.returncode == 0, out.stderr


@pytest.fixture()
def published(db_url):
    from leaderboard.storage import Store
    from leaderboard.storage.store import frame_hash
    store = Store(db_url)
    frame = make_judgments("C1", "cs-en")
    store.load_judgments(frame, file_name="c1.csv", input_format="canonical")
    store.publish("C1", "cs-en", "adequacy", hand_ranking(frame, "cs-en", "sig-v1"), data_hash=frame_hash(frame),
                  publisher="replica-a")
    return db_url


def test_lists_see_another_processs_writes(published):
    from leaderboard.webapp import state
    url = published
    assert list(state.snapshots(url)["version"]) == [1]
    token = state.data_token(url, "C1")
    campaigns = state.campaigns(url)
    assert list(state.snapshots(url)["version"]) == [1]  # cached, same answer
    other_process(PUBLISH, url, "C1", "cs-en", "sig-v2")
    snaps = state.snapshots(url)
    assert list(snaps["version"]) == [1, 2] and snaps["signature"].iloc[-1] == "sig-v2"
    assert state.data_token(url, "C1") == token  # a publication is no new data
    other_process(INGEST, url, "C1", "de-en")
    assert state.data_token(url, "C1") != token
    after = state.campaigns(url)
    assert len(after) == len(campaigns) + 1 and "de-en" in set(after["lp"])


def test_leaderboard_page_shows_a_version_published_elsewhere(tmp_path, monkeypatch):
    monkeypatch.setenv("MTLB_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("MTLB_NO_DEMO", "1")
    monkeypatch.delenv("DATABASE_URL", raising=False)
    from leaderboard.storage import Store, default_url
    from leaderboard.storage.store import frame_hash
    url = default_url()
    frame = make_judgments("C1", "cs-en")
    store = Store(url)
    store.load_judgments(frame, file_name="c1.csv", input_format="canonical")
    store.publish("C1", "cs-en", "adequacy", hand_ranking(frame, "cs-en", "sig-v1"), data_hash=frame_hash(frame),
                  publisher="replica-a")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["campaign"] = "C1"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.sidebar.selectbox(key="view_version").value == 1
    other_process(PUBLISH, url, "C1", "cs-en", "sig-v2")
    at.run()  # the next rerun of this "replica"
    assert not at.exception, [e.value for e in at.exception]
    # the page keeps the version its URL names (v1 here) and now offers v2 as the latest
    assert at.sidebar.selectbox(key="view_version").options[0] == "v2 (latest)"
    at.sidebar.selectbox(key="view_version").set_value(2).run()
    assert any("sig-v2" in c.value for c in at.caption)


def test_app_waiting_for_db_upgrade_says_so(tmp_path, monkeypatch):
    """A replica that may not migrate (MTLB_AUTO_MIGRATE=0) on a new database shows one clear line."""
    monkeypatch.setenv("MTLB_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("MTLB_NO_DEMO", "1")
    monkeypatch.setenv("MTLB_AUTO_MIGRATE", "0")
    monkeypatch.delenv("DATABASE_URL", raising=False)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("mtlb db upgrade" in e.value for e in at.error)
