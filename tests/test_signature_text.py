"""Captions follow the ranking's spec: test, threshold, cluster rule, QC, standardisation."""

from __future__ import annotations

from pathlib import Path

from leaderboard.publish.render import describe


def _made(**options):
    from leaderboard.human.qc import simulate_judgments
    from leaderboard.human.ranking import rank_result
    frame = simulate_judgments(6, random_share=0.0, n_systems=3, n_segments=40, seed=2, lp="cs-en")
    return rank_result(frame, **options).rankings[0]


def _ranked(**options) -> dict:
    return _made(**options).to_dict()


def test_phrases_follow_the_protocol_and_threshold():
    words = describe(_made(protocol="wmt25-signed-rank", alpha=0.01, cluster_rule="strict", qc="none").spec)
    assert "signed-rank" in words["test"] and "rank-sum" not in words["test"]
    assert words["p_below"] == "p < 0.01"
    assert words["clusters"].startswith("the strict rule")
    assert words["qc"] == "no worker quality control"
    default = describe(_made(qc="paired-t").spec)
    assert "rank-sum" in default["test"] and default["p_below"] == "p < 0.05"
    assert "paired-t test at p < 0.05" in default["qc"]
    assert "organisers' rule" in default["clusters"]
    import dataclasses
    from leaderboard.human.spec import GIVEN_Z, PublishedSpec
    assert describe(dataclasses.replace(GIVEN_Z, qc="release"))["qc"].startswith(
        "the organisers' worker quality control")
    # nothing recorded: neutral words, no invented test
    empty = describe(None)
    assert empty["test"] == "the published significance test" and "0.05" not in empty["p_below"]
    empty = describe(PublishedSpec(protocol="wmt23", file="x.txt"))
    assert empty["test"] == "the published significance test" and "0.05" not in empty["p_below"]


def test_significance_page_caption_names_the_published_test(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from leaderboard.human.qc import simulate_judgments
    from leaderboard.storage import Store, default_url
    from leaderboard.storage.store import frame_hash
    monkeypatch.setenv("MTLB_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("MTLB_NO_DEMO", "1")
    monkeypatch.delenv("DATABASE_URL", raising=False)
    store = Store(default_url())
    frame = simulate_judgments(6, random_share=0.0, n_systems=3, n_segments=40, seed=2, lp="cs-en")
    frame["campaign"] = "SR"
    store.load_judgments(frame, file_name="sr.csv", input_format="canonical")
    ranking = _ranked(protocol="wmt25-signed-rank", alpha=0.01, qc="none")
    store.publish("SR", "cs-en", "adequacy", ranking, data_hash=frame_hash(frame), publisher="t")
    root = Path(__file__).resolve().parents[1]
    at = AppTest.from_file(str(root / "app.py"), default_timeout=60)
    at.run()
    at.switch_page(str(root / "leaderboard" / "webapp" / "pages" / "heatmap.py")).run()
    assert not at.exception
    caption = " ".join(c.value for c in at.caption).replace("\\", "")
    assert "signed-rank" in caption and "p < 0.01" in caption and "rank-sum" not in caption
