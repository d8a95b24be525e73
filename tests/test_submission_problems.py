"""Metric uploads: the evaluation package's names (no .N, no human translation) are accepted, and every
problem of a refused file is reported at once, each with its file, line and column."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from leaderboard.cli import main
from leaderboard.errors import InputError
from metrics.submissions import read_submission, validate_submission
from test_app_pages import DEVELOPER, app_env, run_app, unmd  # noqa: F401 (fixture)

CAMPAIGN = {"cs-en": {"Online-B.0", "Online-W.2", "CUNI-Transformer.7", "HUMAN-C"}}


def test_every_problem_is_reported_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "m.csv"
    path.write_text("metric,lp,system,score\n"
                    "M,cs-en,Online-B,1\n"      # 2: fine (Online-B.0)
                    "M,cs-en,Nope-1,2\n"        # 3: unknown
                    "M,xx-en,Online-W,3\n"      # 4: unknown language pair
                    "M,cs-en,Nope-2,4\n"        # 5: unknown
                    "M,cs-en,Online-B,5\n",     # 6: duplicate of line 2
                    encoding="utf-8")
    with pytest.raises(InputError) as err:  # duplicates are found while reading already
        read_submission(path)
    assert err.value.line == 6 and "first given on line 2" in err.value.message
    lines = path.read_text().split("\n")
    path.write_text("\n".join(lines[:5]) + "\n", encoding="utf-8")
    frame = read_submission(path)
    with pytest.raises(InputError) as err:
        validate_submission(frame, CAMPAIGN, file=str(path))
    problems = [(p.line, p.column, p.message) for p in err.value.problems]
    assert [(line, col) for line, col, _ in problems] == [(3, "system"), (4, "lp"), (5, "system"), (None, "system")]
    assert "unknown system 'Nope-1' for cs-en" in problems[0][2]
    assert "language pair 'xx-en' is not in the campaign" in problems[1][2]
    assert "unknown system 'Nope-2' for cs-en" in problems[2][2]
    # every missing system in one problem; the human translation is not required
    assert problems[3][2] == ("no scores for 2 campaign system(s) (metric M, lp cs-en): CUNI-Transformer.7, "
                              "Online-W.2")
    assert str(err.value).startswith(f"{path}: 4 problems in the submission")
    assert "  - line 3, column 'system': unknown system 'Nope-1'" in str(err.value)


def test_package_names_accepted_without_human_translations() -> None:
    frame = pd.DataFrame({"metric": "M", "lp": "cs-en", "testset": None, "refset": None, "doc": None,
                          "system": ["Online-B", "Online-W", "CUNI-Transformer"], "segment": None,
                          "score": [1.0, 2.0, 3.0], "line": [1, 2, 3]})
    summary = validate_submission(frame, CAMPAIGN)
    assert summary["names"] == {"cs-en": {"Online-B": "Online-B.0", "Online-W": "Online-W.2",
                                          "CUNI-Transformer": "CUNI-Transformer.7"}}
    assert summary["humans_not_scored"] == {"cs-en": ["HUMAN-C"]}


def test_cli_submit_of_package_names_on_the_demo(tmp_path, capsys):
    """`mtlb submit` on the demo campaign with the package's system names (what `mtlb correlate` matches)."""
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    from leaderboard.publish.demo import load_demo
    from leaderboard.storage import Store
    store = Store(url)
    load_demo(store, publish=False, skip={"Simulated crowd (demo)"})
    names = sorted(store.texts("WMT22 cs-en (demo)", "cs-en", kind="hypothesis")["name"].unique())
    path = tmp_path / "pkg.sys.score"
    path.write_text("".join(f"M\tcs-en\tpackage\t{n}\t{i}\n" for i, n in enumerate(names)), encoding="utf-8")
    assert main(["submit", str(path), "--campaign", "WMT22 cs-en (demo)", "--database-url", url, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["names"]["cs-en"]) == 11 and out["humans_not_scored"] == {"cs-en": ["HUMAN-C"]}
    stored = store.metric_scores(out["stored"][0])
    judged = set(store.judgments("WMT22 cs-en (demo)")["system"])
    assert len(stored) == 11 and set(stored["system"]) == judged - {"HUMAN-C"}
    # a wrong name among them: refused with every problem, exit 2, nothing stored
    path.write_text(path.read_text() + "M\tcs-en\tpackage\tNoSuch\t9\nM\tcs-en\tpackage\tOther\t9\n", encoding="utf-8")
    before = len(store.metric_submissions("WMT22 cs-en (demo)", include_private=True))
    assert main(["submit", str(path), "--campaign", "WMT22 cs-en (demo)", "--database-url", url]) == 2
    err = capsys.readouterr().err
    assert "line 12, column 'system': unknown system 'NoSuch'" in err and "line 13" in err and "'Other'" in err
    assert len(store.metric_submissions("WMT22 cs-en (demo)", include_private=True)) == before


def test_metrics_page_accepts_names_without_index(app_env):  # noqa: F811
    at = run_app("metrics.py", user=DEVELOPER, params={"campaign": "Y2021", "lp": "cs-en", "tab": "Upload scores"})
    body = "metric,lp,system,score\nM,cs-en,sysA,0.9\nM,cs-en,sysB,0.5\nM,cs-en,sysC,0.1\n"
    at.file_uploader(key="metric_file").set_value(("m.csv", body.encode(), "text/csv")).run()
    at.button(key="metric_go").click().run()
    assert any("Stored 1 submission(s)" in unmd(s.value) for s in at.success), [e.value for e in at.error]
    assert any("3 system name(s) matched without their .N index" in unmd(c.value) for c in at.caption)
    sid = int(app_env["store"].metric_submissions("Y2021", include_private=True)["id"].iloc[-1])
    assert sorted(app_env["store"].metric_scores(sid)["system"]) == ["sysA.1", "sysB.2", "sysC.3"]
    assert np.isfinite(app_env["store"].metric_scores(sid)["score"]).all()


def test_cli_lists_bad_rows_and_campaign_problems_in_one_run(tmp_path, capsys):
    """Issue 42.9: `mtlb submit` stopped at the bad rows; unknown systems, pairs, duplicates and missing
    systems only appeared once the rows were fixed. One run now lists every problem, one per line."""
    ranking = tmp_path / "rank.json"
    ranking.write_text(json.dumps({"lp": "de-en", "systems": [{"system": s, "ave_z": z} for s, z in
                                                              (("a.1", 1.0), ("b.2", 0.5), ("c.3", 0.0),
                                                               ("d.4", -1.0))]}), encoding="utf-8")
    path = tmp_path / "m.csv"
    path.write_text("metric,lp,system,score\n"
                    "M,de-en,a,1\n"        # 2: fine (a.1)
                    "M,de-en,b,nan\n"      # 3: bad score
                    "M,de-en,zzz,3\n"      # 4: unknown system
                    "M,de-en,a,4\n"        # 5: duplicate of line 2
                    "M,xx-en,c,2\n"        # 6: unknown language pair
                    "M,de-en,,2\n",        # 7: empty system (reported once, not also as unknown)
                    encoding="utf-8")
    db = f"sqlite:///{tmp_path / 's.sqlite'}"
    assert main(["submit", str(path), "--systems-from", str(ranking), "--database-url", db]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0] == f"mtlb submit: error: {path}: 6 problems in the submission (all listed; nothing was stored):"
    assert err[1:] == [
        "- line 3, column 'score': score is missing (nan); every row needs a finite number",
        "- line 4, column 'system': unknown system 'zzz' for de-en",
        "- line 5, column 'system': duplicate score for metric M, lp de-en, system a (first given on line 2)",
        "- line 6, column 'lp': language pair 'xx-en' is not in the campaign (it has de-en)",
        "- line 7, column 'system': the system is empty",
        "- column 'system': no scores for 2 campaign system(s) (metric M, lp de-en): c.3, d.4"]
    # --lp keeps only that pair's rows: the xx-en row is ignored, the rest still listed together
    assert main(["submit", str(path), "--systems-from", str(ranking), "--lp", "de-en"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0].endswith("5 problems in the submission (all listed; nothing was stored):")
    assert not any("xx-en" in line for line in err)


def test_metrics_page_lists_bad_rows_with_unknown_systems(app_env):  # noqa: F811
    """The upload on the Metrics page lists a bad score and an unknown system in one go (issue 42.9)."""
    at = run_app("metrics.py", user=DEVELOPER, params={"campaign": "Y2021", "lp": "cs-en", "tab": "Upload scores"})
    body = "metric,lp,system,score\nM,cs-en,sysA,0.9\nM,cs-en,sysB,oops\nM,cs-en,sysC,0.1\nM,cs-en,sysQ,0.2\n"
    before = len(app_env["store"].metric_submissions("Y2021", include_private=True))
    at.file_uploader(key="metric_file").set_value(("m.csv", body.encode(), "text/csv")).run()
    at.button(key="metric_go").click().run()
    shown = " ".join(unmd(e.value) for e in at.error)
    assert "2 problems" in shown, shown
    assert "line 3, column 'score': score 'oops' is not a number" in shown
    assert "line 5, column 'system': unknown system 'sysQ' for cs-en" in shown
    assert len(app_env["store"].metric_submissions("Y2021", include_private=True)) == before
