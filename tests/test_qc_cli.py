"""``mtlb qc`` end to end through leaderboard.cli.main."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from leaderboard.human import qc
from leaderboard.cli import main


@pytest.fixture()
def campaign_csv(tmp_path):
    frame = qc.simulate_judgments(10, random_share=0.3, seed=8, degradation=40.0)
    path = tmp_path / "judgments.csv"
    frame.drop(columns=["z"]).to_csv(path, index=False)
    return path, frame


def test_qc_json_and_kept_file(campaign_csv, tmp_path, capsys):
    path, frame = campaign_csv
    out = tmp_path / "kept.csv"
    assert main(["qc", "--input", str(path), "--json", "--out-kept", str(out)]) == 0
    result = json.loads(capsys.readouterr().out)
    summary = result["summary"]
    expected_kept, expected = qc.filter_judgments(frame)
    assert summary["method"] == "paired-t" and summary["workers_total"] == 10
    assert summary["workers_kept"] == int(expected["passed"].sum())
    assert summary["judgments_kept"] == len(expected_kept)
    workers = {w["worker"]: w for w in result["workers"]}
    assert set(workers) == set(frame["worker"])
    assert workers["W9"]["passed"] is True and workers["W9"]["p_value"] < 0.05
    kept = pd.read_csv(out)
    assert len(kept) == summary["judgments_kept"]
    assert set(kept["worker"]) == {w for w, r in workers.items() if r["passed"]}


def test_qc_text_output_and_options(campaign_csv, capsys):
    path, _ = campaign_csv
    assert main(["qc", "--input", str(path), "--method", "mwu", "--alpha", "0.01", "--per-lp"]) == 0
    out = capsys.readouterr().out
    assert "method mwu, alpha 0.01:" in out and "workers pass" in out
    assert "W0" in out and "mean_bad_ref" in out


def test_qc_bad_alpha_is_an_input_error(campaign_csv, capsys):
    path, _ = campaign_csv
    assert main(["qc", "--input", str(path), "--alpha", "2"]) == 2
    assert "mtlb qc: error:" in capsys.readouterr().err


def test_qc_wmt_release_with_worker_stats(shared, capsys):
    folder = shared / "wmt22-toen-da"
    args = ["qc", "--input", str(folder / "ad-lven-good-stnd.csv"),
            "--worker-stats", str(folder / "ad-lven-trk-mean-sd.txt"), "--json"]
    assert main(args) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["summary"]["judgments_total"] == 5782
    assert all(w["score"] == "raw" for w in result["workers"])
    # two stats files for one input is refused
    bad = args[:-1] + [str(folder / "ad-lven-trk-mean-sd.txt"), "--json"]
    assert main(bad) == 2


def test_qc_on_a_release_says_it_is_a_what_if(shared, tmp_path, capsys):
    """As the Quality control page does (issue 42.9): a re-test of released workers is a what-if."""
    folder = shared / "wmt22-toen-da"
    args = ["qc", "--input", str(folder / "ad-lven-good-stnd.csv"),
            "--worker-stats", str(folder / "ad-lven-trk-mean-sd.txt")]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "note: a what-if, not the published QC" in out and "qc:release" in out
    assert main(args + ["--json"]) == 0
    assert "loses power" in json.loads(capsys.readouterr().out)["summary"]["caveat"]


def test_qc_on_other_files_has_no_release_caveat(campaign_csv, capsys):
    path, _ = campaign_csv
    assert main(["qc", "--input", str(path)]) == 0
    assert "what-if" not in capsys.readouterr().out
