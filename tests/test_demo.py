"""The shipped demo campaigns load, publish, and show what they claim to."""

from __future__ import annotations

import numpy as np
import pandas as pd

from leaderboard.demo import DEMO_CAMPAIGN, SIMULATED_CAMPAIGN, ensure_demo
from leaderboard.qc import filter_judgments, qc_summary
from leaderboard.storage import Store


def test_demo_loads_once_and_publishes(sqlite_url):
    store = Store(sqlite_url)
    first = ensure_demo(store)
    assert set(first["campaigns"]) == {DEMO_CAMPAIGN, SIMULATED_CAMPAIGN}
    assert ensure_demo(store) is None  # idempotent
    snaps = store.snapshots()
    assert sorted(zip(snaps["campaign"], snaps["lp"])) == [
        (SIMULATED_CAMPAIGN, "de-en"), (SIMULATED_CAMPAIGN, "en-de"), (DEMO_CAMPAIGN, "cs-en")]
    assert store.campaign_info(DEMO_CAMPAIGN)["segments_are_lines"] is False
    texts = store.texts(DEMO_CAMPAIGN, "cs-en")
    assert len(texts[texts["kind"] == "hypothesis"]["name"].unique()) == 11


def test_demo_ranking_equals_the_published_wmt22_table(sqlite_url, shared):
    store = Store(sqlite_url)
    ensure_demo(store)
    ranking = store.snapshot(DEMO_CAMPAIGN, "cs-en", "adequacy")["ranking"]
    published = pd.read_csv(shared / "wmt22-toen-da" / "ad-sys-scores-cs-en.csv", sep=r"\s+").set_index("SYS")
    mine = pd.DataFrame(ranking["systems"]).set_index("system")
    np.testing.assert_allclose(mine.loc[published.index, "ave_z"], published["Z.SCR"], atol=1e-9)
    np.testing.assert_allclose(mine.loc[published.index, "ave"], published["RAW.SCR"], atol=1e-9)
    assert (mine.loc[published.index, "n_all"] == published["N.ALL"]).all()
    assert "qc:release" in ranking["signature"]


def test_simulated_demo_qc_removes_random_clickers(sqlite_url):
    store = Store(sqlite_url)
    ensure_demo(store)
    frame = store.judgments(SIMULATED_CAMPAIGN)
    _, report = filter_judgments(frame)
    summary = qc_summary(report)
    assert summary["workers_total"] == 88
    # the simulator names workers by kind: every consistent worker passes, random clickers only
    # by chance (p is uniform for them: about 1 in 20)
    kind = report["worker"].str.extract(r"W-(\w+)-")[0]
    assert report.loc[kind != "random", "passed"].all()
    assert report.loc[kind == "random", "passed"].sum() <= 2
    assert "qc:paired-t" in store.snapshot(SIMULATED_CAMPAIGN, "de-en", "adequacy")["signature"]
