"""``mtlb agreement`` end to end."""

from __future__ import annotations

import json

from leaderboard.human import agreement as ag
from leaderboard.human import qc
from leaderboard.cli import main


def test_agreement_cli_json(tmp_path, capsys):
    frame = qc.simulate_judgments(12, seed=4, n_segments=30, n_systems=3)
    path = tmp_path / "j.csv"
    frame.to_csv(path, index=False)
    assert main(["agreement", "--input", str(path), "--json", "--categories", "5", "2"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["qc_method"] is None and result["judgments"] == len(frame)
    rows = {(r["scope"], r["variant"], r["k"]): r for r in result["kappa"]}
    assert len(rows) == 8
    direct = ag.agreement_table(frame, (5, 2)).set_index(["scope", "variant", "k"])
    for key, r in rows.items():
        assert abs(r["kappa"] - direct.loc[key, "kappa"]) < 1e-12
    diffs = {r["scope"]: r for r in result["differences"]}
    assert diffs["intra"]["n_pairs"] == 12 * 10


def test_agreement_cli_with_qc_text(tmp_path, capsys):
    frame = qc.simulate_judgments(12, seed=4, random_share=0.5)
    path = tmp_path / "j.csv"
    frame.to_csv(path, index=False)
    assert main(["agreement", "--input", str(path), "--method", "paired-t"]) == 0
    out = capsys.readouterr().out
    assert "kappa_cohen" in out and "mean_abs_diff" in out
