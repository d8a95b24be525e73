"""One check for a metric developer's scores, whichever view takes them: `mtlb submit --campaign` and the
Metrics page's upload compare a file with the same systems (human judgments, MQM annotations, automatic
leaderboards), the same human scores and the same segment ids (the stored test set's lines), and store the
same rows."""

from __future__ import annotations

import json

import pandas as pd

from conftest import ROOT
from leaderboard.cli import main
from leaderboard.usecases.metric_scores import campaign_systems
from test_app_pages import DEVELOPER, app_env, run_app, unmd  # noqa: F401 (fixture)

MQM = ROOT / "data" / "mqm" / "mqm_ted_ende.seg1-100.tsv.gz"


def _scores(systems: dict[str, set[str]]) -> str:
    rows = [f"M,{lp},{name},{i / 10}" for lp in sorted(systems) for i, name in enumerate(sorted(systems[lp]))]
    return "metric,lp,system,score\n" + "\n".join(rows) + "\n"


def test_command_line_and_page_check_against_the_same_systems(app_env, tmp_path, capsys):  # noqa: F811
    store = app_env["store"]
    url = str(store.engine.url)
    assert main(["ingest", str(MQM), "--campaign", "Y2021", "--lp", "en-de", "--database-url", url]) == 0
    systems, human = campaign_systems(store, "Y2021")
    judged = store.judgments("Y2021")
    mqm = set(pd.read_csv(MQM, sep="\t")["system"].astype(str))
    assert systems == {"cs-en": set(judged.loc[judged["lp"] == "cs-en", "system"]),
                       "de-en": set(judged.loc[judged["lp"] == "de-en", "system"]), "en-de": mqm}
    assert set(human["lp"]) == {"cs-en", "de-en"}
    body = _scores(systems)
    path = tmp_path / "m.csv"
    path.write_text(body, encoding="utf-8")
    capsys.readouterr()
    # the command line accepts the MQM pair's systems as the page does
    assert main(["submit", str(path), "--campaign", "Y2021", "--database-url", url, "--json"]) == 0, \
        capsys.readouterr().err
    by_cli = store.metric_scores(json.loads(capsys.readouterr().out)["stored"][0])
    at = run_app("metrics.py", user=DEVELOPER, params={"campaign": "Y2021", "lp": "cs-en", "tab": "Upload scores"})
    at.file_uploader(key="metric_file").set_value(("m.csv", body.encode(), "text/csv")).run()
    at.button(key="metric_go").click().run()
    assert any("Stored 1 submission(s)" in unmd(s.value) for s in at.success), [e.value for e in at.error]
    sid = int(store.metric_submissions("Y2021", include_private=True)["id"].max())
    by_page = store.metric_scores(sid)
    columns = ["lp", "system", "segment", "score"]
    key = ["lp", "system"]
    assert len(by_cli) == sum(len(v) for v in systems.values())
    pd.testing.assert_frame_equal(by_cli[columns].sort_values(key).reset_index(drop=True),
                                  by_page[columns].sort_values(key).reset_index(drop=True))


def test_segment_ids_outside_the_stored_test_set_are_refused_on_both(demo_template, tmp_path, capsys, monkeypatch):
    from stores import copy_store

    from leaderboard.storage import Store
    folder = copy_store(demo_template, tmp_path / "store").parent
    monkeypatch.setenv("MTLB_DATA_DIR", str(folder))
    url = f"sqlite:///{folder / 'mtlb.sqlite'}"
    store = Store(url)
    campaign = "WMT22 cs-en (demo)"
    lines = len(store.texts(campaign, "cs-en", kind="source"))
    systems, _ = campaign_systems(store, campaign, "cs-en")
    rows = [f"M\tcs-en\ttest\tref\t{s}\t{seg}\t0.5" for s in sorted(systems["cs-en"]) for seg in (1, lines + 1)]
    path = tmp_path / "m.seg.score"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["submit", str(path), "--campaign", campaign, "--lp", "cs-en", "--database-url", url]) == 2
    err = capsys.readouterr().err
    assert f"'{lines + 1}'" in err and "nothing was stored" in err, err
    at = run_app("metrics.py", user={"name": "demo-metrics", "role": "metric-developer"},
                 params={"campaign": campaign, "lp": "cs-en", "tab": "Upload scores"})
    at.file_uploader(key="metric_file").set_value(("m.seg.score", path.read_bytes(), "text/plain")).run()
    at.button(key="metric_go").click().run()
    shown = " ".join(unmd(e.value) for e in at.error)
    assert f"'{lines + 1}'" in shown and not at.success, shown
    assert store.metric_submissions(campaign, include_private=True).empty
