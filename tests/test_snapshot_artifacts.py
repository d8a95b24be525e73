"""What the pages need is computed at publish time and stored with the snapshot (leaderboard.publish.artifacts)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import pearsonr

from htmltables import page_figures
from leaderboard.publish.artifacts import frame_payload, payload_frame
from leaderboard.publish.demo import DEMO_CAMPAIGN, SIMULATED_CAMPAIGN, WMT21_CAMPAIGN, ensure_demo
from leaderboard.storage import Store
from leaderboard.storage.store import SnapshotIntegrityError, frame_hash


def _artifact_names(store: Store, campaign: str, lp: str) -> list[str]:
    """The names of the artifacts stored with version 1 of the campaign's adequacy ranking of ``lp``."""
    from sqlalchemy import select
    from leaderboard.storage import models as m
    a, snap, c = m.snapshot_artifacts, m.snapshots, m.campaigns
    with store.engine.connect() as conn:
        return sorted(conn.execute(select(a.c.name).join(snap, a.c.snapshot_id == snap.c.id)
                                   .join(c, snap.c.campaign_id == c.c.id)
                                   .where(c.c.name == campaign, snap.c.lp == lp, snap.c.assessment == "adequacy",
                                          snap.c.version == 1)).scalars())


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory) -> Store:
    store = Store(f"sqlite:///{tmp_path_factory.mktemp('artifacts') / 'mtlb.sqlite'}")  # the app's file name
    ensure_demo(store)
    return store


def test_every_demo_snapshot_is_published_with_its_artifacts(demo_store):
    names = {(c, lp): _artifact_names(demo_store, c, lp)
             for c, lp in [(DEMO_CAMPAIGN, "cs-en"), (WMT21_CAMPAIGN, "cs-en"), (SIMULATED_CAMPAIGN, "de-en")]}
    assert names[(DEMO_CAMPAIGN, "cs-en")] == ["metric_baselines", "qc", "release_qc", "segment_scores", "spec"]
    assert names[(WMT21_CAMPAIGN, "cs-en")] == ["qc", "release_qc", "segment_scores", "spec"]  # no texts: no baselines
    assert names[(SIMULATED_CAMPAIGN, "de-en")] == ["qc", "segment_scores", "spec"]


def test_segment_scores_equal_the_release_table(demo_store, shared):
    """The stored per-segment scores are the organisers' ad-seg-scores (mean raw, mean z, N)."""
    seg = payload_frame(demo_store.snapshot_artifact(DEMO_CAMPAIGN, "cs-en", "adequacy", 1, "segment_scores"))
    published = pd.read_csv(shared / "wmt22-toen-da" / "ad-seg-scores-cs-en.csv", sep=r"\s+")
    published = published.rename(columns={"SYS": "system", "SID": "segment"}).astype({"segment": str})
    both = published.merge(seg, on=["system", "segment"], how="outer", indicator=True)
    assert (both["_merge"] == "both").all()
    np.testing.assert_allclose(both["z"], both["Z.SCR"], atol=1e-9)
    np.testing.assert_allclose(both["raw"], both["RAW.SCR"], atol=1e-9)
    assert (both["n"] == both["N"]).all()


def test_segment_scores_after_worker_qc_match_the_ranking(demo_store):
    """The simulated campaign is ranked after paired-t QC: the stored segment scores average to the
    published Ave z and Ave of every system, and their counts to N."""
    ranking = demo_store.snapshot(SIMULATED_CAMPAIGN, "de-en", "adequacy")["ranking"]
    seg = payload_frame(demo_store.snapshot_artifact(SIMULATED_CAMPAIGN, "de-en", "adequacy", 1, "segment_scores"))
    means = seg.groupby("system")[["z", "raw"]].mean()
    for s in ranking["systems"]:
        assert means.loc[s["system"], "z"] == pytest.approx(s["ave_z"], abs=1e-9)
        assert means.loc[s["system"], "raw"] == pytest.approx(s["ave"], abs=1e-9)
        assert (seg["system"] == s["system"]).sum() == s["n"]


def test_qc_artifacts_tell_which_qc_made_the_ranking(demo_store, shared):
    release = demo_store.snapshot_artifact(DEMO_CAMPAIGN, "cs-en", "adequacy", 1, "qc")
    assert release["label"] == "release" and not release["filtered_here"] and release["report"] is None
    assert release["stored"]["lp_workers"] == 156 and release["stored"]["lp_judgments"] == 25070
    simulated = demo_store.snapshot_artifact(SIMULATED_CAMPAIGN, "de-en", "adequacy", 1, "qc")
    assert simulated["label"] == "paired-t@0.05" and simulated["filtered_here"]
    # demo_data/README.md: 73 of 88 workers pass over both pairs (the random clickers fail, one by
    # chance excepted); the de-en ranking counts its own 44 workers (24 good, 6 lenient, 6 harsh, 8 random)
    assert (simulated["summary"]["workers_kept"], simulated["summary"]["workers_total"]) == (37, 44)
    report = payload_frame(simulated["report"])
    assert int(report["passed"].sum()) == 37 and len(report) == 44
    # the release's own verdicts: every released worker rated good, p < 0.05 in the organisers' file
    verdicts = demo_store.snapshot_artifact(DEMO_CAMPAIGN, "cs-en", "adequacy", 1, "release_qc")
    table = payload_frame(verdicts["report"])
    stats = pd.read_csv(shared / "wmt22-toen-da" / "ad-trk-stats.csv", sep=r"\s+", header=None,
                        names=["worker", "p", "t", "pairs"]).set_index("worker")
    assert verdicts["good"] == 156 and len(table) == 156
    np.testing.assert_allclose(table.set_index("worker")["p"], stats.loc[table["worker"], "p"].to_numpy())


def test_metric_baselines_are_sacrebleu_scores_and_their_correlations(demo_store, shared):
    stored = demo_store.snapshot_artifact(DEMO_CAMPAIGN, "cs-en", "adequacy", 1, "metric_baselines")
    long = payload_frame(stored["long"])
    # the organisers' automatic scores with reference B only (HUMAN-C is reference C, so B is the one left)
    auto = pd.read_csv(shared / "wmt22-general" / "automatic-scores.tsv", sep="\t")
    auto = auto[(auto["pair"] == "cs-en")]
    for label, column in (("BLEU", "bleu-B"), ("chrF", "chrf-B")):
        mine = long[long["metric"] == label].assign(base=lambda f: f["system"].str.replace(r"\.\d+$", "", regex=True))
        theirs = auto[auto["metric"] == column].set_index("system")["score"]
        mt = mine[mine["base"].isin(theirs.index)]
        assert len(mt) == 11
        np.testing.assert_allclose(mt["score"], theirs.loc[mt["base"]].to_numpy(), atol=1e-6)
    # Pearson r of BLEU with the published Ave z, over the systems the result says it used
    result = stored["result"]
    ranking = demo_store.snapshot(DEMO_CAMPAIGN, "cs-en", "adequacy")["ranking"]
    human = {s["system"]: s["ave_z"] for s in ranking["systems"]}
    bleu = long[long["metric"] == "BLEU"].set_index("system")["score"]
    used = [s for s in bleu.index if s not in stored["left_out"]]
    r = next(m for m in result["metrics"] if m["metric"] == "BLEU")
    assert r["n_systems"] == len(used)
    assert r["pearson"] == pytest.approx(pearsonr(bleu.loc[used], [human[s] for s in used])[0], abs=1e-9)
    assert r["pearson_ci"][0] <= r["pearson"] <= r["pearson_ci"][1]


def test_artifacts_are_insert_only_and_hash_checked(db_url):
    from leaderboard.storage import models as m
    store = Store(db_url)
    store.create_campaign("c")
    frame = pd.DataFrame({"x": [1.5, np.nan], "s": ["a", None], "n": [1, 2], "b": [True, False]})
    store.publish("c", "cs-en", "adequacy", {"systems": [], "signature": "s"}, data_hash="h", publisher="p",
                  artifacts={"table": frame_payload(frame), "note": {"value": float("nan")}})
    got = payload_frame(store.snapshot_artifact("c", "cs-en", "adequacy", 1, "table"))
    pd.testing.assert_frame_equal(got, frame, check_dtype=False)
    assert store.snapshot_artifact("c", "cs-en", "adequacy", 1, "note") == {"value": None}
    assert store.snapshot_artifact("c", "cs-en", "adequacy", 1, "absent") is None
    # an older snapshot gets an artifact later, once; an existing one is never replaced
    assert store.save_snapshot_artifact("c", "cs-en", "adequacy", 1, "later", [1, 2])
    assert not store.save_snapshot_artifact("c", "cs-en", "adequacy", 1, "later", [3])
    assert store.snapshot_artifact("c", "cs-en", "adequacy", 1, "later") == [1, 2]
    with store.engine.begin() as conn:
        conn.execute(m.snapshot_artifacts.update().where(m.snapshot_artifacts.c.name == "later")
                     .values(payload="[9]"))
    with pytest.raises(SnapshotIntegrityError):
        store.snapshot_artifact("c", "cs-en", "adequacy", 1, "later")


def test_a_failing_artifact_write_publishes_nothing(db_url):
    store = Store(db_url)
    store.create_campaign("c")
    with pytest.raises(TypeError):  # not JSON: nothing of the snapshot is stored
        store.publish("c", "cs-en", "adequacy", {"systems": []}, data_hash="h", publisher="p",
                      artifacts={"bad": {"x": object()}})
    assert store.snapshots().empty


def test_old_snapshot_without_artifacts_still_renders_its_pages(tmp_path, monkeypatch):
    """A snapshot published before artifacts existed: the System and QC pages compute what they need,
    and store it for the next visit."""
    from streamlit.testing.v1 import AppTest

    from leaderboard.human.qc import simulate_judgments
    from leaderboard.human.ranking import rank_judgments
    monkeypatch.setenv("MTLB_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("MTLB_NO_DEMO", "1")
    monkeypatch.delenv("DATABASE_URL", raising=False)
    from leaderboard.storage import default_url
    store = Store(default_url())
    frame = simulate_judgments(6, random_share=0.34, n_systems=3, n_segments=40, seed=1, lp="cs-en")
    frame["campaign"] = "Old"
    store.load_judgments(frame, file_name="old.csv", input_format="canonical")
    ranking = rank_judgments(frame, qc="paired-t")[0]
    store.publish("Old", "cs-en", "adequacy", ranking, data_hash=frame_hash(frame), publisher="t")  # no artifacts
    assert _artifact_names(store, "Old", "cs-en") == []
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    for page in ("system.py", "qc.py"):
        at = AppTest.from_file(str(root / "app.py"), default_timeout=60)
        at.query_params["campaign"] = "Old"
        at.run()
        at.switch_page(str(root / "leaderboard" / "webapp" / "pages" / page)).run()
        assert not at.exception, [e.value for e in at.exception]
    assert _artifact_names(store, "Old", "cs-en") == ["qc", "segment_scores"]
    metrics = {m.label: m.value for m in page_figures(at)}
    assert metrics["Workers kept"].endswith("of 6")


def test_qc_page_leads_with_the_release_qc_and_retests_only_on_request(demo_store, monkeypatch):
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    from leaderboard.human.qc import filter_judgments, qc_summary
    folder = Path(demo_store.engine.url.database).parent
    monkeypatch.setenv("MTLB_DATA_DIR", str(folder))
    monkeypatch.setenv("MTLB_NO_DEMO", "1")
    monkeypatch.delenv("DATABASE_URL", raising=False)
    root = Path(__file__).resolve().parents[1]
    at = AppTest.from_file(str(root / "app.py"), default_timeout=120)
    at.query_params["campaign"] = DEMO_CAMPAIGN
    at.run()
    at.switch_page(str(root / "leaderboard" / "webapp" / "pages" / "qc.py")).run()
    assert not at.exception, [e.value for e in at.exception]
    text = " ".join(m.value for m in at.markdown).replace("\\", "")
    assert "qc&#58;release" in text or "qc:release" in text
    metrics = {m.label: m.value for m in page_figures(at)}
    assert metrics["Workers in the ranking"] == "156" and metrics["Removed here"] == "none"
    assert "Workers kept" not in metrics  # the re-test is a what-if, off until asked for
    assert len(at.dataframe) == 1 and len(at.dataframe[0].value) == 156  # the organisers' verdicts
    at.toggle(key="qc_retest").set_value(True).run()
    _, report = filter_judgments(demo_store.judgments(DEMO_CAMPAIGN), "paired-t", 0.05)
    expected = qc_summary(report)
    metrics = {m.label: m.value for m in page_figures(at)}
    assert metrics["Workers kept"] == f"{expected['workers_kept']} of {expected['workers_total']}" == "78 of 156"
