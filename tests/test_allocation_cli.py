"""``mtlb allocation-sim``: the command-line contract of issue 44 and its refusals."""

from __future__ import annotations

import json

import pytest

from leaderboard.cli import main

TESTS = {"wmt26", "wmt26-calibrated", "anytime-paired"}


@pytest.mark.slow(weight=3)
def test_contract_prints_per_rule_judgments_95_false_claim_rate_and_test(capsys):
    argv = ["allocation-sim", "--rules", "uniform", "running-rank", "race", "--systems", "20",
            "--runs", "3", "--seed", "7", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out["rules"]) == ["uniform", "running-rank", "race"]
    for name, res in out["rules"].items():
        assert res["test"] in TESTS
        assert res["judgments_95"] is None or (isinstance(res["judgments_95"], int) and res["judgments_95"] > 0)
        assert 0.0 <= res["false_claim_rate"] <= 1.0
        assert set(res["by_test"]) == TESTS
        assert res["by_test"][res["test"]]["judgments_95"] == res["judgments_95"]
    assert out["rules"]["race"]["test"] == "anytime-paired"
    assert out["rules"]["running-rank"]["test"] == "wmt26"
    sc = out["scenario"]
    assert sc["systems"] == 20 and len(sc["top_cluster"]) == 1 and len(sc["tied_pairs"]) == 4
    assert out["runs"] == 3 and out["seed"] == 7


def test_same_seed_same_numbers_and_text_output(capsys):
    argv = ["allocation-sim", "--rules", "race", "uniform", "--systems", "6", "--runs", "4", "--seed", "3",
            "--docs", "80", "--pool-docs", "10", "--max-judgments", "2500", "--coldstart", "3", "--json"]
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(argv) == 0
    second = json.loads(capsys.readouterr().out)
    for out in (first, second):
        for res in out["rules"].values():
            for key in ("seconds", "seconds_per_run"):
                res.pop(key)
    assert first == second
    assert main(argv[:-1]) == 0
    text = capsys.readouterr().out
    assert "true top cluster" in text and "anytime-paired" in text and "race" in text


@pytest.mark.parametrize("argv, message", [
    (["--rules", "bandit"], "unknown rule"),
    (["--systems", "3"], "at least 4"),
    (["--runs", "0"], "--runs must be at least 1"),
    (["--careless-share", "1.5"], "between 0 and 1"),
])
def test_bad_options_are_refused_with_a_clear_message(capsys, argv, message):
    assert main(["allocation-sim", *argv, "--json"]) == 2
    assert message in capsys.readouterr().err
