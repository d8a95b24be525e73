"""A WMT release stored without its worker mean/sd file: warned about, and the import can be retracted
(audited, one transaction, refused once a published version depends on it) and stored again with it."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

from leaderboard.cli import main
from leaderboard.errors import InputError
from test_app_pages import ORGANISER, fresh_store, make_judgments, run_app, unmd

ROOT = Path(__file__).resolve().parents[1]
RELEASE = ROOT / "leaderboard" / "demo_data" / "wmt22-cs-en"
STND, STATS = RELEASE / "ad-csen-good-stnd.csv.gz", RELEASE / "ad-csen-trk-mean-sd.txt"


def _count(store, table: str) -> int:
    from sqlalchemy import text
    with store.engine.connect() as conn:
        return int(conn.execute(text(f"SELECT COUNT(*) FROM {table}")).scalar())


def test_retract_is_audited_and_refused_when_published(db_url):
    from leaderboard.publish.snapshots import publish_rankings
    from leaderboard.storage import Store
    from leaderboard.storage.imports import audit_log, list_imports, retract_import
    store = Store(db_url)
    first = make_judgments("c", "cs-en", seed=1)
    second = make_judgments("c", "de-en", seed=2)
    store.load_judgments(first, file_name="cs.csv", input_format="canonical")
    store.load_texts("c", [("cs-en", "source", "source", ["a", "b"], "t.cs-en.src.cs")])
    store.load_judgments(second, file_name="de.csv", input_format="canonical")
    imports = list_imports(store, "c")
    assert list(imports["kind"]) == ["judgments", "texts", "judgments"] and imports["retractable"].all()
    de_id = int(imports["id"].iloc[2])
    before = _count(store, "judgments")

    with pytest.raises(InputError, match="no import #999"):
        retract_import(store, "c", 999, actor="olga")
    with pytest.raises(InputError, match="no campaign"):
        retract_import(store, "nope", de_id, actor="olga")
    entry = retract_import(store, "c", de_id, actor="olga", reason="uploaded to the wrong campaign")
    assert _count(store, "judgments") == before - len(second)
    assert set(store.judgments("c")["lp"]) == {"cs-en"}
    log = audit_log(store, "c")
    assert len(log) == 1 and log.iloc[0]["actor"] == "olga" and log.iloc[0]["target"] == f"import #{de_id}"
    assert log.iloc[0]["reason"] == "uploaded to the wrong campaign" and log.iloc[0]["action"] == "retract-import"
    details = json.loads(log.iloc[0]["details"])
    assert details["file_name"] == "de.csv" and details["rows_deleted"] == len(second)
    assert details["contents"] == [{"lp": "de-en", "assessment": "adequacy", "rows": len(second)}]
    assert entry["id"] == int(log.iloc[0]["id"])
    # the same file can be stored again
    store.load_judgments(second, file_name="de.csv", input_format="canonical")

    # once a version is published, every import stored before it is part of it
    publish_rankings(store, "c", "olga", lp="cs-en", qc="none")
    imports = list_imports(store, "c")
    assert not imports["retractable"].any()
    assert imports.loc[imports["kind"] == "judgments", "published_in"].str.contains("cs-en adequacy v1").all()
    assert imports.loc[imports["kind"] == "texts", "published_in"].eq("cs-en adequacy v1").all()
    n = _count(store, "judgments")
    with pytest.raises(InputError, match="published version\\(s\\) cs-en adequacy v1") as err:
        retract_import(store, "c", int(imports["id"].iloc[0]), actor="olga")
    assert err.value.column == "id"
    assert _count(store, "judgments") == n and len(audit_log(store, "c")) == 1  # nothing changed
    # an import stored after the last publication can still go
    third = make_judgments("c", "fr-en", seed=3)
    store.load_judgments(third, file_name="fr.csv", input_format="canonical")
    last = list_imports(store, "c").iloc[-1]
    assert last["retractable"] and last["file_name"] == "fr.csv"
    retract_import(store, "c", int(last["id"]), actor="olga", reason="test")
    assert len(store.judgments("c")) == n


def test_release_without_stats_warned_retracted_and_stored_again(tmp_path, monkeypatch, capsys):
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    monkeypatch.setattr("sys.stdin", io.StringIO("organiser-pass\n"))
    assert main(["user", "add", "olga", "--role", "organiser", "--password-stdin", "--database-url", url]) == 0
    capsys.readouterr()
    assert main(["ingest", str(STND), "--campaign", "w22", "--database-url", url, "--json"]) == 0
    out = capsys.readouterr()
    stored = json.loads(out.out)
    assert stored["raw_scores"] == 0 and len(stored["warnings"]) == 1
    assert "mean/sd file" in stored["warnings"][0] and "Ave will be empty" in stored["warnings"][0]
    assert "warning: no raw scores" in out.err
    # the same judgments with the stats file are refused while the first import is stored
    assert main(["ingest", str(STND), "--worker-stats", str(STATS), "--campaign", "w22", "--database-url", url]) == 2
    assert "already imported" in capsys.readouterr().err

    assert main(["imports", "list", "--campaign", "w22", "--database-url", url, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [(i["kind"], i["rows"], i["retractable"]) for i in listed] == [("judgments", stored["judgments"], True)]
    import_id = listed[0]["id"]
    # wrong password: refused, nothing deleted
    monkeypatch.setenv("MTLB_PASSWORD", "not-the-password")
    assert main(["imports", "retract", "--campaign", "w22", "--id", str(import_id), "--user", "olga",
                 "--database-url", url]) == 2
    assert "wrong user name or password" in capsys.readouterr().err
    monkeypatch.delenv("MTLB_PASSWORD")
    monkeypatch.setattr("sys.stdin", io.StringIO("organiser-pass\n"))
    assert main(["imports", "retract", "--campaign", "w22", "--id", str(import_id), "--user", "olga",
                 "--password-stdin", "--reason", "no mean/sd file", "--database-url", url, "--json"]) == 0
    entry = json.loads(capsys.readouterr().out)
    assert entry["actor"] == "olga" and entry["reason"] == "no mean/sd file"
    assert entry["details"]["rows_deleted"] == stored["judgments"]

    assert main(["ingest", str(STND), "--worker-stats", str(STATS), "--campaign", "w22", "--database-url", url,
                 "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["raw_scores"] == again["judgments"] == stored["judgments"] and again["warnings"] == []
    assert main(["imports", "log", "--campaign", "w22", "--database-url", url, "--json"]) == 0
    log = json.loads(capsys.readouterr().out)
    assert len(log) == 1 and log[0]["details"]["file_name"] == STND.name


@pytest.fixture()
def organiser_env(tmp_path, monkeypatch):
    from leaderboard.accounts.auth import create_user
    store = fresh_store(tmp_path, monkeypatch)
    create_user(store, "olga", "organiser-pass", "organiser")
    return store


def _upload(at, stats: bool, allow: bool = False):
    at.selectbox(key="up_campaign").set_value("(new campaign…)").run()
    at.text_input(key="up_campaign_new").set_value("w22").run()
    at.file_uploader(key="up_judgments").set_value((STND.name, STND.read_bytes(), "application/gzip")).run()
    if stats:
        at.file_uploader(key="up_stats").set_value((STATS.name, STATS.read_bytes(), "text/plain")).run()
    if allow:
        at.checkbox(key="up_allow_no_raw").check().run()
    at.button(key="up_go").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_upload_page_warns_and_imports_tab_retracts(organiser_env):
    store = organiser_env
    at = _upload(run_app("organiser.py", user=ORGANISER), stats=False)
    assert any("Not stored: no raw scores" in unmd(w.value) for w in at.warning), [w.value for w in at.warning]
    assert store.judgments("w22").empty
    at = _upload(run_app("organiser.py", user=ORGANISER), stats=False, allow=True)
    assert any("Stored 25,070 judgments" in unmd(s.value) for s in at.success)
    assert any("Ave will be empty" in unmd(w.value) for w in at.warning)
    assert store.judgments("w22")["raw"].isna().all()

    at = run_app("organiser.py", user=ORGANISER)
    at.selectbox(key="imp_campaign").set_value("w22").run()
    at.text_input(key="imp_reason").set_value("stored without the mean/sd file")  # a form: values go
    at.checkbox(key="imp_sure").check()  # with the submit button
    at.button(key="FormSubmitter:retract_import-Retract import").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Retracted import" in unmd(s.value) for s in at.success), [e.value for e in at.error]
    assert store.judgments("w22").empty
    from leaderboard.storage.imports import audit_log
    log = audit_log(store, "w22")
    assert list(log["actor"]) == ["olga"] and list(log["reason"]) == ["stored without the mean/sd file"]

    at = _upload(run_app("organiser.py", user=ORGANISER), stats=True)
    assert any("Stored 25,070 judgments" in unmd(s.value) for s in at.success)
    raw = store.judgments("w22")["raw"].to_numpy(dtype=float)
    assert np.isfinite(raw).all() and ((raw >= 0) & (raw <= 100)).all()
