"""The Metrics page's error-span and error-free tasks (issue 40): a metric developer's WMT25 task TSV files
scored against the campaign's stored MQM annotations, with intervals, a CSV download and a chart; the
same numbers as ``mtlb span-eval`` / ``mtlb error-free-eval`` on the same store, and hand-known values
(a submission marking exactly the annotated spans has precision = recall = F1 = 1)."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from leaderboard.cli import main
from test_app_metrics import split_intervals
from test_app_pages import DEVELOPER, run_app, shown_table
from test_span_eval import write_tsv

HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\tcomment\n"
LP = "en-de"
SYSTEMS = ("alpha", "beta", "gamma")


def _mqm(path) -> dict:
    """A toy MQM file: a major error on the segment number of some outputs; returns the marked spans."""
    rng = np.random.default_rng(0)
    lines, marked = [], {}
    for seg in range(1, 31):
        for system, p_major in zip(SYSTEMS, (0.05, 0.3, 0.6)):
            if rng.random() < p_major:
                lines.append([system, "d", "1", str(seg), "r1", "src", f"Ausgabe <v>{seg}</v> von {system}",
                              "Accuracy/Mistranslation", "Major", ""])
                marked[(system, seg)] = (8, 8 + len(str(seg)))
            else:
                lines.append([system, "d", "1", str(seg), "r1", "src", f"Ausgabe {seg} von {system}", "No-error",
                              "No-error", ""])
    path.write_text(HEADER + "".join("\t".join(r) + "\n" for r in lines), encoding="utf-8")
    return marked


@pytest.fixture()
def spans_env(tmp_path, monkeypatch):
    monkeypatch.setenv("MTLB_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("MTLB_NO_DEMO", "1")
    monkeypatch.delenv("DATABASE_URL", raising=False)
    marked = _mqm(tmp_path / "mqm_toy_ende.tsv")
    db = ["--database-url", f"sqlite:///{tmp_path / 'mtlb.sqlite'}"]
    assert main(["ingest", str(tmp_path / "mqm_toy_ende.tsv"), "--campaign", "toy", *db]) == 0
    from leaderboard.accounts.auth import create_user
    from leaderboard.publish.snapshots import publish_rankings
    from leaderboard.storage import Store
    store = Store(db[1])
    publish_rankings(store, "toy", "olga")
    create_user(store, "mdev", "developer-pass", "metric-developer")
    rows = [{"lp": LP, "system": s, "segment": g, "doc": "d",
             "spans": [(*marked[(s, g)], "major")] if (s, g) in marked else []}
            for s in SYSTEMS for g in range(1, 31)]
    exact = write_tsv(tmp_path / "exact.tsv", rows)
    rng = np.random.default_rng(5)
    noisy = write_tsv(tmp_path / "noisy.tsv", [
        {**r, "spans": [(0, 7, "minor")] if rng.random() < 0.4 else r["spans"]} for r in rows])
    labels = write_tsv(tmp_path / "labels.tsv", [{**r, "label": "0" if r["spans"] or rng.random() < 0.2 else "1"}
                                                 for r in rows], extra=("label",))
    return {"db": db, "exact": exact, "noisy": noisy, "labels": labels, "marked": marked}


def _upload(at, paths, task: str):
    at.radio(key="span_task").set_value(task).run()
    at.file_uploader(key="span_files").set_value([(p.name, p.read_bytes(), "text/tab-separated-values")
                                                  for p in paths]).run()
    at.button(key="span_go").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def _cli(capsys, command: str, env, *names) -> dict:
    capsys.readouterr()
    preds = [f"{n}={env[n]}" for n in names]
    assert main([command, "--gold-campaign", "toy", "--lp", LP, "--predictions", *preds, "--draws", "1000",
                 "--json", *env["db"]]) == 0
    return json.loads(capsys.readouterr().out)


def test_span_results_with_intervals_csv_and_chart_equal_the_cli(spans_env, capsys):
    from leaderboard.webapp.pages.metrics import MTEVAL_COLUMNS, SPANS_TAB
    at = run_app("metrics.py", user=DEVELOPER, params={"campaign": "toy", "lp": LP, "tab": SPANS_TAB})
    _upload(at, [spans_env["exact"], spans_env["noisy"]], "Error-span detection")
    table = split_intervals(shown_table(at, MTEVAL_COLUMNS, "f1_ci")).set_index("submission")
    assert list(table["pair"]) == [LP, LP]
    # hand-known: marking exactly the annotated spans is perfect
    assert table.loc["exact", ["precision", "recall", "f1"]].tolist() == [1.0, 1.0, 1.0]
    assert table.loc["exact", "f1_ci_lo"] == table.loc["exact", "f1_ci_hi"] == 1.0
    cli = _cli(capsys, "span-eval", spans_env, "exact", "noisy")
    for name in ("exact", "noisy"):
        for key in ("precision", "recall", "f1"):
            row = cli[name][LP]
            assert table.loc[name, key] == pytest.approx(row[key], abs=5e-4)
            assert [table.loc[name, f"{key}_ci_lo"], table.loc[name, f"{key}_ci_hi"]] == \
                pytest.approx(row[f"{key}_ci"], abs=5e-4)
    assert table.loc["noisy", "f1"] < 1 and table.loc["noisy", "f1_ci_lo"] < table.loc["noisy", "f1_ci_hi"]
    assert table.loc["exact", "cluster"] == 1 and table.loc["noisy", "cluster"] == 2
    assert len(at.get("plotly_chart")) == 1
    download = next(b for b in at.get("download_button") if "Download error-span detection" in b.proto.label)
    assert download is not None


def test_error_free_results_equal_the_cli(spans_env, capsys):
    from leaderboard.webapp.pages.metrics import MTEVAL_COLUMNS, SPANS_TAB
    at = run_app("metrics.py", user=DEVELOPER, params={"campaign": "toy", "lp": LP, "tab": SPANS_TAB})
    _upload(at, [spans_env["labels"], spans_env["exact"]], "Error-free detection")
    table = split_intervals(shown_table(at, MTEVAL_COLUMNS, "mcc_ci")).set_index("submission")
    cli = _cli(capsys, "error-free-eval", spans_env, "labels", "exact")
    for name in ("labels", "exact"):
        for key in ("precision", "recall", "f1", "mcc"):
            assert table.loc[name, key] == pytest.approx(cli[name][LP][key], abs=5e-4), (name, key)
            assert [table.loc[name, f"{key}_ci_lo"], table.loc[name, f"{key}_ci_hi"]] == \
                pytest.approx(cli[name][LP][f"{key}_ci"], abs=5e-4)
    # the exact spans convert to exact labels (no span = error-free): the gold itself
    assert table.loc["exact", "mcc"] == 1.0


def test_bad_file_names_its_line_and_nothing_is_shown(spans_env, tmp_path):
    from leaderboard.webapp.pages.metrics import SPANS_TAB
    bad = tmp_path / "bad.tsv"
    text = spans_env["exact"].read_text(encoding="utf-8").splitlines()
    fields = text[2].split("\t")
    fields[1] = "x"  # segment_id
    bad.write_text("\n".join(text[:2] + ["\t".join(fields[:5])] + text[3:]) + "\n", encoding="utf-8")
    at = run_app("metrics.py", user=DEVELOPER, params={"campaign": "toy", "lp": LP, "tab": SPANS_TAB})
    at.file_uploader(key="span_files").set_value([("bad.tsv", bad.read_bytes(), "text/plain")]).run()
    at.button(key="span_go").click().run()
    assert at.error and re.search(r"bad\.tsv.*line 3\b", re.sub(r"[\\*]", "", at.error[0].value))
    assert not at.get("plotly_chart")


def test_participants_are_asked_to_log_in(spans_env):
    from leaderboard.webapp.pages.metrics import SPANS_TAB
    at = run_app("metrics.py", params={"campaign": "toy", "lp": LP, "tab": SPANS_TAB})
    assert any("Log in to evaluate error spans" in w.value for w in at.warning)
