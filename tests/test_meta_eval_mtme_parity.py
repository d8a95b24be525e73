"""`mtlb meta-eval` against Google's mt-metrics-eval on real data: newstest2020 zh-en MQM (Freitag et al.
2021), segments 1801-2000, five WMT20 metrics (Mathur et al. 2020), with the reference tool's own output
(values, p-values at k = 1000 without early stopping, clusters, the two-task global average).

Values must be equal (acc_eq 1e-9, SPA 1e-4); p-values come from other random draws, so each must lie
within 4 Monte-Carlo standard errors of the difference of two k-draw estimates, sqrt(2 p (1 − p) / k),
plus 1/k; clusters must be equal except where a p-value lies within that band around alpha.
"""

from __future__ import annotations

import itertools
import json
import math

import pandas as pd
import pytest

from leaderboard.cli import main

K = 1000
ALPHA = 0.05


@pytest.fixture(scope="module")
def sample(shared):
    folder = shared / "mtme-parity-sample"
    if not folder.exists():
        pytest.skip("the mt-metrics-eval parity sample is not available")
    return folder


def run(capsys, *argv) -> dict:
    capsys.readouterr()
    code = main([*map(str, argv), "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def sample_command(sample, *extra):
    return ("meta-eval", "--human", sample / "human.csv", "--human-format", "canonical", "--human-score", "z",
            "--metric-scores", sample / "seg.tsv", "--lp", "zh-en", "--draws", K, *extra)


def band(p: float) -> float:
    return 4 * math.sqrt(2 * p * (1 - p) / K) + 1 / K


def near_alpha(table: dict) -> bool:
    return any(abs(p - ALPHA) <= band(ALPHA) for row in table.values() for p in row.values())


def clusters_of(rows: list[dict], key: str = "cluster") -> list[tuple[str, int]]:
    return [(r["metric"], r[key]) for r in rows]


@pytest.fixture(scope="module")
def expected(sample):
    return json.loads((sample / "mtme_expected.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def runs(sample, capsys_module):
    return {seed: capsys_module(sample_command(sample, "--seed", seed)) for seed in (12345, 7)}


@pytest.fixture(scope="module")
def capsys_module():
    """Run the CLI and parse its JSON (module-scoped: capsys is function-scoped)."""
    import contextlib
    import io

    def call(argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main([*map(str, argv), "--json"])
        assert code == 0, err.getvalue()
        return json.loads(out.getvalue())
    return call


def test_systems_and_values_equal_the_reference(runs, expected):
    out = runs[12345]
    assert out["systems"] == expected["systems"] and out["n_segments"] == 200
    rows = {r["metric"]: r for r in out["metrics"]}
    assert set(rows) == set(expected["metrics"])
    for name, want in expected["metrics"].items():
        assert rows[name]["acc_eq"] == pytest.approx(want["acc_eq"], abs=1e-9), name
        assert rows[name]["epsilon"] == pytest.approx(want["epsilon"], abs=1e-12), name
        assert rows[name]["spa"] == pytest.approx(want["spa"], abs=1e-4), name
        assert rows[name]["sys_accuracy"] == pytest.approx(want["sys_accuracy"], abs=1e-9), name


@pytest.mark.parametrize("seed", [12345, 7])
def test_pvalues_lie_within_monte_carlo_error(runs, expected, seed):
    out = runs[seed]
    for stat, table in expected["pvalues"].items():
        for a, row in table.items():
            for b, want in row.items():
                got = out["pvalues"][stat][a][b]                 # a is ranked above b here too
                assert abs(got - want) <= band(want), (stat, a, b, got, want)
    glob = expected["global_two_tasks"]["pvalues"]
    for a, row in glob.items():
        for b, want in row.items():
            got = out["global_pvalues"][a][b]
            assert abs(got - want) <= band(want), ("global", a, b, got, want)


@pytest.mark.parametrize("seed", [12345, 7])
def test_clusters_equal_unless_a_pvalue_is_within_error_of_alpha(runs, expected, seed):
    out = runs[seed]
    for stat, want in expected["clusters"].items():
        if clusters_of(out["clusters"][stat]) != clusters_of(want):
            assert near_alpha(expected["pvalues"][stat]), stat
        assert [r["metric"] for r in out["clusters"][stat]] == [r["metric"] for r in want]
    ours = [r for r in out["global_ranking"] if r["complete"]]
    want = expected["global_two_tasks"]["ranking"]
    assert [r["metric"] for r in ours] == [r["metric"] for r in want]
    for got, ref in zip(ours, want):
        assert got["avg_score"] == pytest.approx(ref["avg_score"], abs=1e-4)
    if clusters_of(ours, "global_cluster") != clusters_of(want, "global_cluster"):
        assert near_alpha(expected["global_two_tasks"]["pvalues"])


def test_draws_are_exact_and_the_seed_moves_only_the_pvalues(runs):
    a, b = runs[12345], runs[7]
    assert a["draws"] == K and all(n == K for stat in a["draws_done"].values() for row in stat.values()
                                   for n in row.values())
    assert a["metrics"] == [{**r, "acc_eq_cluster": a_r["acc_eq_cluster"], "spa_cluster": a_r["spa_cluster"]}
                            for r, a_r in zip(b["metrics"], a["metrics"])]
    assert a["pvalues"] != b["pvalues"]


def test_reference_points(runs, sample):
    out = runs[12345]
    kinds = {r["metric"]: r["kind"] for r in out["metrics"]}
    assert kinds == {"chrF": "baseline", "TER": "baseline", "BAQ_dyn": "metric", "SWSS+METEOR": "metric",
                     "YiSi-2": "metric"}
    chance = out["reference_points"]["chance"]
    # a constant metric ties every pair, so it is right exactly on the human ties: their share per segment
    human = pd.read_csv(sample / "human.csv")
    shares = []
    for _, seg in human.groupby("segment"):
        pairs = list(itertools.combinations(seg["z"].tolist(), 2))
        shares.append(sum(x == y for x, y in pairs) / len(pairs))
    assert chance["constant_metric"]["acc_eq"] == pytest.approx(sum(shares) / len(shares), abs=1e-12)
    assert 0.3 < chance["random_metric"]["acc_eq"] < 0.6 and 0.3 < chance["random_metric"]["spa"] < 0.8


def test_early_stopping_is_opt_in(sample, capsys):
    out = run(capsys, *sample_command(sample, "--early-stop", 100))
    done = out["draws_done"]
    assert all(n % 100 == 0 and n <= K for stat in done.values() for row in stat.values() for n in row.values())
    for stat in done:
        for a, row in done[stat].items():
            for b, n in row.items():
                assert abs(out["pvalues"][stat][a][b] * n - round(out["pvalues"][stat][a][b] * n)) < 1e-9
    # the acc_eq test checks only after a block whose last draw was itself ≥ Δ: with p = 0 it never stops
    assert done["acc_eq"]["chrF"]["YiSi-2"] == K
