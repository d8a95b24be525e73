"""AppTest tests of the Organiser page: QC flowing into preview and publishing, and the Build HITs tab."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pandas as pd
import pytest

from test_app_pages import DEVELOPER, ORGANISER, app_env, run_app, table_frame, unmd  # noqa: F401 (fixture)



def test_qc_choice_is_previewed_published_and_signed(app_env):  # noqa: F811
    from leaderboard.human.qc import filter_judgments, simulate_judgments
    frame = simulate_judgments(8, random_share=0.25, n_systems=4, n_segments=40, seed=3, lp="cs-en")
    frame["campaign"] = "Crowd"
    store = app_env["store"]
    store.load_judgments(frame, file_name="crowd.csv", input_format="canonical")
    at = run_app("organiser.py", user=ORGANISER)
    at.selectbox(key="pub_campaign").set_value("Crowd").run()
    at.selectbox(key="pub_qc").set_value("paired-t").run()
    at.button(key="pub_preview").click().run()
    assert not at.exception, [e.value for e in at.exception]
    # the workers the filter keeps, computed here from the uploaded frame
    kept, report = filter_judgments(frame, "paired-t", 0.05)
    assert 0 < report["passed"].sum() < len(report)
    scoring = kept[kept["item_type"].isin(["SYSTEM", "REPEAT"])]
    preview = table_frame(at)
    expected_n_all = scoring.groupby("system").size()
    shown = dict(zip(preview["System"], preview["N (all)"]))
    assert {s: int(str(v).replace(",", "")) for s, v in shown.items()} == expected_n_all.to_dict()
    assert any("qc:paired-t@0.05" in m.value for m in at.markdown)
    # the preview shows the report of the QC it ran: one row per worker, its verdict as filter_judgments gives it
    shown = next(d.value for d in at.dataframe if {"Worker", "Passed", "p-value", "HITs"} <= set(d.value.columns))
    assert dict(zip(shown["Worker"].astype(str), shown["Passed"].map({"yes": True, "no": False}))) == \
        dict(zip(report["worker"].astype(str), report["passed"].astype(bool)))
    at.button(key="pub_go").click().run()
    assert any("version v1" in s.value for s in at.success)
    snap = store.snapshot("Crowd", "cs-en", "adequacy")
    # as `mtlb publish` stores it: the QC is in the signature and the qc artifact, not in the ranking's JSON
    assert "qc:paired-t@0.05" in snap["signature"] and "qc" not in snap["ranking"]
    assert {s["system"]: s["n_all"] for s in snap["ranking"]["systems"]} == expected_n_all.to_dict()
    # published with what its pages show: the QC verdicts of the same filter, per-segment scores after it
    qc = store.snapshot_artifact("Crowd", "cs-en", "adequacy", 1, "qc")
    assert qc["label"] == "paired-t@0.05" and qc["summary"]["workers_kept"] == int(report["passed"].sum())
    assert qc["method"] == "paired-t" and qc["alpha"] == 0.05
    from leaderboard.publish.artifacts import payload_frame
    seg = payload_frame(store.snapshot_artifact("Crowd", "cs-en", "adequacy", 1, "segment_scores"))
    assert seg.groupby("system")["n"].sum().to_dict() == expected_n_all.to_dict()
    # without QC every judgment counts, and the signature says so
    at.selectbox(key="pub_qc").set_value(at.selectbox(key="pub_qc").options[0]).run()
    at.button(key="pub_preview").click().run()
    assert any("qc:none" in m.value for m in at.markdown)
    all_scoring = frame[frame["item_type"].isin(["SYSTEM", "REPEAT"])].groupby("system").size()
    preview = table_frame(at)
    assert {s: int(str(v).replace(",", "")) for s, v in zip(preview["System"], preview["N (all)"])} == \
        all_scoring.to_dict()


def _texts(n_lines: int = 40, systems: tuple[str, ...] = ("sysA", "sysB", "sysC")) -> dict[str, bytes]:
    rng = np.random.default_rng(0)
    words = "one two three four five six seven eight nine ten eleven twelve".split()
    ref = [" ".join(rng.choice(words, 8)) for _ in range(n_lines)]
    files = {"test.cs-en.ref.A.en": ("\n".join(ref) + "\n").encode()}
    for s in systems:
        files[f"test.cs-en.hyp.{s}.en"] = ("\n".join(" ".join(rng.choice(words, 8)) for _ in ref) + "\n").encode()
    return files


def test_build_hits_tab_matches_the_cli(app_env, tmp_path):  # noqa: F811
    files = _texts()
    at = run_app("organiser.py", user=ORGANISER)
    hyp_names = [n for n in files if ".hyp." in n]
    at.file_uploader(key="hits_hyps").set_value([(n, files[n], "text/plain") for n in hyp_names]).run()
    at.file_uploader(key="hits_ref").set_value(("test.cs-en.ref.A.en", files["test.cs-en.ref.A.en"],
                                                "text/plain")).run()
    at.text_input(key="hits_lp").set_value("cs-en").run()
    at.number_input(key="hits_n").set_value(3).run()
    at.number_input(key="hits_seed").set_value(11).run()
    at.button(key="hits_go").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Built 3 HITs (300 items)" in unmd(s.value) for s in at.success), [e.value for e in at.error]
    batch = at.session_state["hits_batch"]
    hits = pd.read_csv(io.BytesIO(batch["hits.csv"]))
    assert hits.groupby("hit").size().tolist() == [100, 100, 100]
    assert hits.groupby("item_type").size().to_dict() == {"BAD_REF": 30, "REF": 30, "REPEAT": 30, "SYSTEM": 210}
    upload = pd.read_csv(io.BytesIO(batch["mturk-upload.csv"]))
    assert len(upload) == 3 and "item_100_text" in upload.columns
    with zipfile.ZipFile(io.BytesIO(batch["html.zip"])) as zf:
        assert sorted(n for n in zf.namelist() if n.startswith("html/")) == [f"html/H00{i}.html" for i in (1, 2, 3)]
    # the same batch as `mtlb hits build` with the same inputs and seed
    for name, body in files.items():
        (tmp_path / name).write_bytes(body)
    from leaderboard.cli import main as cli_main
    code = cli_main(["hits", "build", "--lp", "cs-en", "--assessment", "adequacy", "--hits", "3", "--seed", "11",
                     "--ref", str(tmp_path / "test.cs-en.ref.A.en"), "--hyp",
                     *[str(tmp_path / n) for n in hyp_names], "--out", str(tmp_path / "out")])
    assert code == 0
    assert (tmp_path / "out" / "hits.csv").read_bytes() == batch["hits.csv"]
    assert (tmp_path / "out" / "mturk-upload.csv").read_bytes() == batch["mturk-upload.csv"]
    labels = {b.label for b in at.get("download_button")}
    assert {"Download HITs (hits.csv)", "Download MTurk upload file (CSV)", "Download HIT task pages (zip)"} <= labels


def test_build_hits_error_names_the_uploaded_file(app_env):  # noqa: F811
    files = _texts()
    short = b"only one line\n"
    at = run_app("organiser.py", user=ORGANISER)
    at.file_uploader(key="hits_hyps").set_value([("test.cs-en.hyp.sysA.en", files["test.cs-en.hyp.sysA.en"],
                                                  "text/plain"), ("test.cs-en.hyp.sysB.en", short, "text/plain")]).run()
    at.file_uploader(key="hits_ref").set_value(("test.cs-en.ref.A.en", files["test.cs-en.ref.A.en"],
                                                "text/plain")).run()
    at.text_input(key="hits_lp").set_value("cs-en").run()
    at.button(key="hits_go").click().run()
    errors = [e.value for e in at.error]
    assert errors and "test\\.cs\\-en\\.hyp\\.sysB\\.en" in errors[0] and "line **2**" in errors[0], errors
    assert "mtlb-upload" not in errors[0]
    assert "hits_batch" not in at.session_state


@pytest.mark.parametrize("user", [None, DEVELOPER])
def test_build_hits_refused_for_other_roles(app_env, user):  # noqa: F811
    at = run_app("organiser.py", user=user)
    assert not [f for f in at.file_uploader if f.key and f.key.startswith("hits_")]
    assert not [b for b in at.button if b.key == "hits_go"]


def test_publish_tab_defaults_to_the_qc_of_mtlb_publish(app_env, tmp_path):  # noqa: F811
    """--qc auto: a WMT release campaign defaults to 'release', a crowd campaign to the default test."""
    from formats import small_campaign, write_wmt_stnd
    from leaderboard.ingest import read_judgments
    stnd, stats = write_wmt_stnd(small_campaign(n_workers=3, n_items=30), tmp_path)
    frame = read_judgments(stnd, "wmt-stnd", worker_stats=stats, campaign="Release")
    app_env["store"].load_judgments(frame, file_name=stnd.name, input_format="wmt-stnd")
    at = run_app("organiser.py", user=ORGANISER)
    at.selectbox(key="pub_campaign").set_value("Release").run()
    assert at.selectbox(key="pub_qc").value == "release (already filtered)"
    at.selectbox(key="pub_campaign").set_value("Y2021").run()
    assert at.selectbox(key="pub_qc").value == "paired-t"
    at.selectbox(key="pub_qc").set_value("none").run()  # an explicit choice stays while the campaign does
    at.button(key="pub_preview").click().run()
    assert at.selectbox(key="pub_qc").value == "none" and not at.exception


def test_human_marks_are_set_on_the_page_and_used_by_preview_and_publish(app_env):  # noqa: F811
    from leaderboard.storage.marks import human_marks
    store = app_env["store"]
    at = run_app("organiser.py", user=ORGANISER)
    at.selectbox(key="pub_campaign").set_value("Y2021").run()
    at.selectbox(key="pub_lp").set_value("cs-en").run()
    at.selectbox(key="pub_qc").set_value("none").run()
    humans = at.multiselect(key="pub_humans-Y2021-cs-en")
    assert humans.value == []  # WMT naming: none of sysA.1, sysB.2, sysC.3 is a human translation
    humans.set_value(["sysB.2"]).run()
    at.button(key="pub_humans_save").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert human_marks(store, "Y2021") == {"sysB.2": True}
    from leaderboard.storage.imports import audit_log
    log = audit_log(store, "Y2021")
    assert (log["action"] == "mark-human").sum() == 1 and "olga" in set(log["actor"])
    at.button(key="pub_preview").click().run()
    assert "sysB.2 †" in set(table_frame(at)["System"])  # the preview uses the stored mark
    at.button(key="pub_go").click().run()
    snap = store.snapshot("Y2021", "cs-en", "adequacy")
    assert {s["system"]: s["human"] for s in snap["ranking"]["systems"]} == \
        {"sysA.1": False, "sysB.2": True, "sysC.3": False}
    # unmarking is a mark too (MT system), and the preview follows it
    at.multiselect(key="pub_humans-Y2021-cs-en").set_value([]).run()
    at.button(key="pub_humans_save").click().run()
    assert human_marks(store, "Y2021") == {"sysB.2": False}
    at.button(key="pub_preview").click().run()
    assert "sysB.2" in set(table_frame(at)["System"])
