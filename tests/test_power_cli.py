"""``mtlb power`` end to end."""

from __future__ import annotations

import json

from leaderboard.human import qc
from leaderboard.cli import main


def test_power_cli_json(tmp_path, capsys):
    frame = qc.simulate_judgments(20, seed=5, n_systems=4, system_spread=10.0)
    path = tmp_path / "j.csv"
    frame.to_csv(path, index=False)
    assert main(["power", "--input", str(path), "--steps", "4", "--json", "--levels", "0.05"]) == 0
    result = json.loads(capsys.readouterr().out)
    curve = result["curve"]
    assert [c["n_hits"] for c in curve] == [5, 10, 15, 20]
    assert all(c["pairs"] == 6 and c["n_systems"] == 4 for c in curve)
    assert curve[-1]["judgments"] == 20 * 80
    assert all(0 <= c["share_0.05"] <= 1 for c in curve)


def test_power_cli_rejects_zero_steps(tmp_path, capsys):
    frame = qc.simulate_judgments(2, seed=5)
    path = tmp_path / "j.csv"
    frame.to_csv(path, index=False)
    assert main(["power", "--input", str(path), "--steps", "0"]) == 2
    assert "mtlb power: error:" in capsys.readouterr().err
