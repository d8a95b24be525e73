"""One path for storing files: the Organiser page's upload and `mtlb ingest` go through
leaderboard.usecases.store_files, so the same file stores the same rows (ESA error spans included),
and an MQM file the command line accepts uploads on the web too."""

from __future__ import annotations

import pandas as pd

from test_app_pages import ORGANISER, fresh_store, run_app, unmd


def _esa_slice(shared, tmp_path, lines: int = 1500):
    """The first ``lines`` rows of the WMT24 Appraise ESA export (spans on TGT and BAD rows)."""
    text = (shared / "wmt24-esa" / "esa_generalMT2024_wave3.csv").read_text(encoding="utf-8")
    path = tmp_path / "esa_wave3_head.csv"
    path.write_text("".join(text.splitlines(keepends=True)[:lines]), encoding="utf-8")
    return path


def _spans(store, campaign: str) -> pd.DataFrame:
    from leaderboard.storage.expert import annotation_rows
    rows = annotation_rows(store, campaign, assessment="esa")
    return rows.drop(columns=[c for c in ("id",) if c in rows.columns]).reset_index(drop=True)


def _upload(at, path, campaign: str, lp: str = "") -> None:
    at.selectbox(key="up_campaign").set_value("(new campaign…)").run()
    at.text_input(key="up_campaign_new").set_value(campaign).run()
    if lp:
        at.text_input(key="up_lp").set_value(lp).run()
    at.file_uploader(key="up_judgments").set_value((path.name, path.read_bytes(), "text/csv")).run()
    at.button(key="up_go").click().run()
    assert not at.exception, [e.value for e in at.exception]


def test_web_upload_of_an_appraise_export_stores_the_spans_mtlb_ingest_stores(shared, tmp_path, monkeypatch):
    path = _esa_slice(shared, tmp_path)
    from leaderboard.ingest.esa import read_esa_spans
    in_file = read_esa_spans(str(path), "x")
    tgt = in_file[in_file["item_type"] == "TGT"]
    assert len(tgt) > 50  # the slice holds spans to compare
    store = fresh_store(tmp_path / "cli", monkeypatch)
    from leaderboard.cli import main
    assert main(["ingest", str(path), "--campaign", "esa-web"]) == 0
    expected = _spans(store, "esa-web")
    judgments_cli = store.judgments("esa-web")
    # the spans of usable TGT rows, as the file has them (BAD copies and #dup / #incomplete documents left out)
    usable = tgt[~tgt["doc"].astype(str).str.contains("#dup|#incomplete")]
    assert len(expected) == len(usable) > 0

    store = fresh_store(tmp_path / "web", monkeypatch)
    from leaderboard.accounts.auth import create_user
    create_user(store, "olga", "organiser-pass", "organiser")
    at = run_app("organiser.py", user=ORGANISER)
    _upload(at, path, "esa-web")
    assert any("error spans" in unmd(s.value) for s in at.success), [e.value for e in at.error]
    stored = _spans(store, "esa-web")
    pd.testing.assert_frame_equal(stored, expected)
    web_judgments = store.judgments("esa-web")
    assert len(web_judgments) == len(judgments_cli)


def test_an_mqm_file_uploads_on_the_web_as_mtlb_ingest_stores_it(shared, tmp_path, monkeypatch):
    text = (shared / "mqm-ted-ende" / "mqm_ted_ende.tsv").read_text(encoding="utf-8").splitlines(keepends=True)
    path = tmp_path / "mqm_ted_ende_head.tsv"
    path.write_text("".join(text[:400]), encoding="utf-8")
    from leaderboard.storage.expert import mqm_errors
    store = fresh_store(tmp_path / "cli", monkeypatch)
    from leaderboard.cli import main
    assert main(["ingest", str(path), "--campaign", "ted", "--lp", "en-de"]) == 0
    expected = mqm_errors(store, "ted")
    assert len(expected) == 399  # one annotation per data line of the slice

    store = fresh_store(tmp_path / "web", monkeypatch)
    from leaderboard.accounts.auth import create_user
    create_user(store, "olga", "organiser-pass", "organiser")
    at = run_app("organiser.py", user=ORGANISER)
    _upload(at, path, "ted", lp="en-de")
    assert any("399 MQM annotations" in unmd(s.value) for s in at.success), \
        [e.value for e in at.error] + [s.value for s in at.success]
    pd.testing.assert_frame_equal(mqm_errors(store, "ted"), expected)
