"""The store on SQLite and PostgreSQL: round trips, one-transaction loads, immutable snapshots."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sqlalchemy import text

from leaderboard.errors import InputError
from leaderboard.ingest import read_judgments
from leaderboard.schema import validate_judgments
from leaderboard.storage import Store
from leaderboard.storage.store import SnapshotIntegrityError, frame_hash

from formats import small_campaign


def _frame(seed: int = 0, campaign: str = "c1") -> pd.DataFrame:
    return validate_judgments(small_campaign(seed=seed).assign(campaign=campaign))


def test_round_trip_keeps_every_value(db_url):
    store = Store(db_url)
    frame = _frame()
    summary = store.load_judgments(frame, file_name="a.csv", input_format="canonical")
    assert summary["judgments"] == len(frame)
    back = store.judgments("c1")
    pd.testing.assert_frame_equal(back.sort_values(["worker", "position"]).reset_index(drop=True),
                                  frame.sort_values(["worker", "position"]).reset_index(drop=True),
                                  check_dtype=False)
    assert frame_hash(back) == frame_hash(frame)


def test_failed_load_writes_nothing(db_url):
    store = Store(db_url)
    store.load_judgments(_frame(), file_name="a.csv", input_format="canonical")
    # second upload: new workers plus one judgment whose key is already stored
    extra = _frame(seed=1).assign(worker=lambda f: f["worker"] + "x", hit=lambda f: f["hit"] + "x")
    clash = _frame().iloc[[5]]
    upload = pd.concat([extra, clash], ignore_index=True)
    before = store.campaigns()
    with pytest.raises(InputError, match="already stored") as err:
        store.load_judgments(upload, file_name="b.csv", input_format="canonical")
    assert err.value.file == "b.csv"
    pd.testing.assert_frame_equal(store.campaigns(), before)
    assert len(store.imports("c1")) == 1
    with store.engine.connect() as conn:  # no orphan workers/systems from the failed upload
        assert conn.execute(text("SELECT count(*) FROM workers WHERE name LIKE '%x'")).scalar() == 0


def test_same_file_twice_is_refused(db_url):
    store = Store(db_url)
    frame = _frame()
    store.load_judgments(frame, file_name="a.csv", input_format="canonical", sha256="abc")
    with pytest.raises(InputError, match="already imported"):
        store.load_judgments(frame, file_name="a-copy.csv", input_format="canonical", sha256="abc")


def test_snapshots_are_versioned_and_verified(db_url):
    store = Store(db_url)
    store.load_judgments(_frame(), file_name="a.csv", input_format="canonical")
    ranking = {"lp": "cs-en", "signature": "sig", "systems": [{"system": "s", "ave_z": 0.1}]}
    assert store.publish("c1", "cs-en", "adequacy", ranking, data_hash="h", publisher="org") == 1
    ranking2 = dict(ranking, signature="sig2")
    assert store.publish("c1", "cs-en", "adequacy", ranking2, data_hash="h", publisher="org") == 2
    assert store.snapshot("c1", "cs-en", "adequacy")["ranking"]["signature"] == "sig2"
    assert store.snapshot("c1", "cs-en", "adequacy", version=1)["ranking"]["signature"] == "sig"
    assert store.snapshots("c1")["version"].tolist() == [1, 2]
    with store.engine.begin() as conn:  # tamper behind the store's back
        conn.execute(text("UPDATE snapshots SET payload = replace(payload, 'sig2', 'evil') WHERE version = 2"))
    with pytest.raises(SnapshotIntegrityError):
        store.snapshot("c1", "cs-en", "adequacy")


def test_metric_submission_visibility(db_url):
    store = Store(db_url)
    store.load_judgments(_frame(), file_name="a.csv", input_format="canonical")
    scores = pd.DataFrame({"lp": "cs-en", "system": ["sys0", "sys1", "sys2"], "score": [1.0, 2.0, 3.0]})
    [sid] = store.save_metric_submissions("c1", scores.assign(metric="M"), level="system", owner="dev")
    assert store.metric_submissions("c1", viewer="someone").empty
    assert store.metric_submissions("c1", viewer="dev")["metric"].tolist() == ["M"]
    with pytest.raises(PermissionError):
        store.set_submission_public(sid, True, actor="someone", actor_role="metric-developer")
    store.set_submission_public(sid, True, actor="dev", actor_role="metric-developer")
    assert store.metric_submissions("c1", viewer=None)["metric"].tolist() == ["M"]
    np.testing.assert_allclose(store.metric_scores(sid)["score"], [1.0, 2.0, 3.0])


def test_wmt22_release_loads_exactly(shared, db_url):
    base = shared / "wmt22-toen-da"
    frame = read_judgments(base / "ad-csen-good-stnd.csv", "wmt-stnd",
                           worker_stats=base / "ad-csen-trk-mean-sd.txt", lp="cs-en")
    store = Store(db_url)
    assert store.load_judgments(frame, file_name="ad-csen-good-stnd.csv", input_format="wmt-stnd")["judgments"] == 25070
    back = store.judgments("wmt22-toen-da", "cs-en")
    assert len(back) == 25070
    sys_raw = back[back.item_type.isin(["SYSTEM", "REPEAT"])].groupby(["system", "segment"])["raw"].mean() \
        .groupby("system").mean()
    published = pd.read_csv(base / "ad-sys-scores-cs-en.csv", sep=r"\s+").set_index("SYS")["RAW.SCR"]
    np.testing.assert_allclose(sys_raw.loc[published.index], published, rtol=0, atol=1e-9)
