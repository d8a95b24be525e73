"""`mtlb correlate` against the published WMT20 Metrics task system-level tables (cs-en, en-cs).

Published: Pearson r and Kendall tau-b rounded to 3 decimals (Human-A.0 excluded, no outlier
removal, HUMAN_RAW = raw human score used as a metric) and one-sided Williams p-values (0.12 =
not significant / not tested, empty = identical scores).
"""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from leaderboard.cli import main

LPS = ["cs-en", "en-cs"]


def _run(capsys, *argv: str) -> dict:
    code = main(["correlate", *argv, "--json"])
    out = capsys.readouterr().out
    assert code == 0
    return json.loads(out)


@pytest.fixture(params=LPS)
def published(request, shared, capsys):
    lp = request.param
    d = shared / "wmt20-metrics"
    result = _run(capsys, "--human", str(d / f"metrics-ad-sys-scores-{lp}.csv"),
                  "--metric-scores", str(d / "metric-sys-scores.tsv"), "--lp", lp,
                  "--exclude", "Human-A.0", "--human-raw-metric", "--resamples", "200")
    corr = pd.read_csv(d / "published-correlations.tsv", sep="\t")
    will = pd.read_csv(d / f"published-williams-{lp}.tsv", sep="\t", index_col=0)
    return lp, result, corr[corr["lp"] == lp], will


def test_pearson_kendall_reproduce_published(published):
    lp, result, corr, _ = published
    ours = {m["metric"]: m for m in result["metrics"]}
    assert set(ours) == set(corr["metric"])
    assert result["skipped"] == []
    assert "Human-A.0" not in result["systems"]
    for row in corr.itertuples():
        m = ours[row.metric]
        assert m["n_systems"] == row.n_systems
        # published values are rounded to 3 decimals
        assert abs(m["pearson"] - row.pearson) <= 0.0005 + 1e-9, (lp, row.metric, m["pearson"], row.pearson)
        assert abs(m["kendall"] - row.kendall) <= 0.0005 + 1e-9, (lp, row.metric, m["kendall"], row.kendall)
        lo, hi = m["pearson_ci"]
        assert lo <= m["pearson"] + 1e-9 and hi >= m["pearson"] - 0.05


def test_williams_reproduce_published(published):
    lp, result, _, will = published
    w = result["williams"]
    checked_exact = 0
    for a in will.index:
        for b in will.columns:
            pub = will.loc[a, b]
            ours = w[a][b]
            if a == b or pd.isna(pub):
                assert ours is None
            elif pub == 0.12:           # placeholder: not significant or row metric is lower
                assert ours > 0.05, (lp, a, b, ours)
            else:
                assert ours == pytest.approx(pub, rel=1e-7, abs=1e-12), (lp, a, b)
                checked_exact += 1
    assert checked_exact > 50
    # directional: the reverse of a significant pair is far from significant
    a, b = result["metrics"][0]["metric"], result["metrics"][-1]["metric"]
    assert w[a][b] < 0.05 and w[b][a] > 0.5
    assert w[a][b] + w[b][a] == pytest.approx(1.0)


def test_clusters_follow_williams(published):
    _, result, _, _ = published
    clusters = result["clusters"]
    assert [c["metric"] for c in clusters] == [m["metric"] for m in result["metrics"]]
    assert clusters[0]["cluster"] == 1
    assert all(b["cluster"] - a["cluster"] in (0, 1) for a, b in zip(clusters, clusters[1:]))
    w = result["williams"]
    start = 0
    for i, c in enumerate(clusters[1:], start=1):
        beaten = any((w[o["metric"]][c["metric"]] or 1.0) < 0.05 for o in clusters[start:i])
        assert (c["cluster"] == clusters[i - 1]["cluster"] + 1) == beaten
        if beaten:
            start = i


def test_human_a_left_out_by_default_kept_with_include_human(shared, capsys):
    d = shared / "wmt20-metrics"
    args = ("--human", str(d / "metrics-ad-sys-scores-en-cs.csv"), "--metric-scores", str(d / "metric-sys-scores.tsv"),
            "--lp", "en-cs", "--resamples", "0")
    # default: the human translation most metrics do not score is left out (as the task did), and said so
    result = _run(capsys, *args)
    assert result["n_systems"] == 12 and "Human-A.0" not in result["systems"]
    assert result["excluded"] == [{"system": "Human-A.0", "reason": "human translation without metric scores"}]
    assert result["skipped"] == []
    corr = pd.read_csv(d / "published-correlations.tsv", sep="\t")
    corr = corr[(corr["lp"] == "en-cs") & (corr["metric"] != "HUMAN_RAW")]
    ours = {m["metric"]: m for m in result["metrics"]}
    assert set(ours) == set(corr["metric"])
    for row in corr.itertuples():
        assert abs(ours[row.metric]["pearson"] - row.pearson) <= 0.0005 + 1e-9
    # --include-human: the human translation stays; metrics without its score are skipped, as before
    result = _run(capsys, *args, "--include-human")
    assert result["n_systems"] == 13 and "Human-A.0" in result["systems"]
    assert result["excluded"] == []
    # only the four metrics that scored the human translation keep all 13 systems
    kept = {m["metric"] for m in result["metrics"]}
    assert kept == {"COMET-QE", "OpenKiwi-Bert", "OpenKiwi-XLMR", "YiSi-2"}
    assert all(m["n_systems"] == 13 for m in result["metrics"])
    assert len(result["skipped"]) == 22
    assert all(s["missing"] == ["Human-A.0"] for s in result["skipped"])
    assert "pearson_ci" not in result["metrics"][0]


def test_missing_system_skips_metric_and_suffix_matching(shared, tmp_path, capsys):
    d = shared / "wmt20-metrics"
    rows = pd.read_csv(d / "metric-sys-scores.tsv", sep="\t", header=None)
    rows = rows[rows[1] == "cs-en"]
    # BLEU loses one system; chrF names its systems without the ".N" suffix (5-column form)
    bleu_missing = rows[~((rows[0] == "BLEU") & (rows[4] == "OPPO.1481"))]
    chrf = rows[rows[0] == "chrF"].copy()
    chrf[4] = chrf[4].str.replace(r"\.\d+$", "", regex=True)
    other = bleu_missing[bleu_missing[0] != "chrF"]
    path5 = tmp_path / "five.tsv"
    pd.concat([other.drop(columns=[3]), chrf.drop(columns=[3])]).to_csv(path5, sep="\t", header=False, index=False)
    result = _run(capsys, "--human", str(d / "metrics-ad-sys-scores-cs-en.csv"),
                  "--metric-scores", str(path5), "--lp", "cs-en", "--resamples", "0")
    assert result["skipped"] == [{"metric": "BLEU", "missing": ["OPPO.1481"]}]
    ours = {m["metric"]: m for m in result["metrics"]}
    assert "BLEU" not in ours and "BLEU" not in result["williams"]
    assert ours["chrF"]["pearson"] == pytest.approx(0.872, abs=0.0005)


def test_human_json_and_raw_score(shared, tmp_path, capsys):
    d = shared / "wmt20-metrics"
    table = pd.read_csv(d / "metrics-ad-sys-scores-cs-en.csv", sep=r"\s+")
    rank = [{"lp": "en-cs", "systems": [{"system": "x", "ave": 1.0, "ave_z": 0.0}]},
            {"lp": "cs-en", "systems": [{"system": s, "ave": a, "ave_z": z}
                                        for s, a, z in zip(table["SYS"], table["RAW.SCR"], table["Z.SCR"])]}]
    path = tmp_path / "rank.json"
    path.write_text(json.dumps(rank))
    z = _run(capsys, "--human", str(path), "--metric-scores", str(d / "metric-sys-scores.tsv"),
             "--lp", "cs-en", "--resamples", "0")
    raw = _run(capsys, "--human", str(path), "--metric-scores", str(d / "metric-sys-scores.tsv"),
               "--lp", "cs-en", "--resamples", "0", "--human-score", "raw")
    bleu_z = next(m for m in z["metrics"] if m["metric"] == "BLEU")
    bleu_raw = next(m for m in raw["metrics"] if m["metric"] == "BLEU")
    assert bleu_z["pearson"] == pytest.approx(0.851, abs=0.0005)
    import numpy as np
    scores = pd.read_csv(d / "metric-sys-scores.tsv", sep="\t", header=None)
    bleu = scores[(scores[0] == "BLEU") & (scores[1] == "cs-en")].set_index(4)[5].reindex(table["SYS"])
    assert bleu_raw["pearson"] == pytest.approx(np.corrcoef(table["RAW.SCR"], bleu)[0, 1], abs=1e-12)
    assert not math.isclose(bleu_raw["pearson"], bleu_z["pearson"])


def test_bad_input_is_reported(tmp_path, capsys):
    human = tmp_path / "h.csv"
    human.write_text("RAW.SCR Z.SCR N SYS N.ALL\n70 0.1 10 A.1 20\n60 -0.1 10 B.2 20\n65 0.0 10 C.3 20\n")
    metric = tmp_path / "m.tsv"
    metric.write_text("M\tcs-en\tt\tA.1\t1\nM\tcs-en\tt\tB.2\tabc\n")
    code = main(["correlate", "--human", str(human), "--metric-scores", str(metric), "--lp", "cs-en", "--json"])
    err = capsys.readouterr().err
    assert code == 2 and "line 2" in err and "score" in err
    metric.write_text("M\tcs-en\tt\tA.1\t1\nM\tcs-en\tt\tB.2\t2\nM\tcs-en\tt\tC.3\t3\n")
    code = main(["correlate", "--human", str(human), "--metric-scores", str(metric), "--lp", "de-en", "--json"])
    assert code == 2 and "de-en" in capsys.readouterr().err
    assert main(["correlate", "--human", str(human), "--metric-scores", str(metric), "--lp", "cs-en",
                 "--exclude", "Nope", "C", "--resamples", "0", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["exclude_not_found"] == ["Nope"]
    assert result["excluded"] == [{"system": "C.3", "reason": "excluded"}]
    assert result["systems"] == ["A.1", "B.2"]


def test_rank_json_with_two_assessments(tmp_path, capsys):
    rank = [{"lp": "cs-en", "assessment": a, "systems": [{"system": s, "ave": v, "ave_z": v / 100}
                                                        for s, v in zip(["A.1", "B.2", "C.3", "D.4"], vals)]}
            for a, vals in [("adequacy", [70, 60, 65, 50]), ("fluency", [50, 60, 70, 80])]]
    human = tmp_path / "rank.json"
    human.write_text(json.dumps(rank))
    metric = tmp_path / "m.tsv"
    metric.write_text("".join(f"M\tcs-en\tt\t{s}\t{v}\n" for s, v in zip("ABCD", [4, 2, 3, 1])))
    assert main(["correlate", "--human", str(human), "--metric-scores", str(metric), "--lp", "cs-en", "--json"]) == 2
    assert "assessment" in capsys.readouterr().err
    res = _run(capsys, "--human", str(human), "--metric-scores", str(metric), "--lp", "cs-en",
               "--assessment", "adequacy", "--resamples", "0")
    # A > C > B > D on both sides after suffix matching: Kendall 1
    assert res["metrics"][0]["kendall"] == pytest.approx(1.0)


def test_permutation_option(shared, capsys):
    d = shared / "wmt20-metrics"
    res = _run(capsys, "--human", str(d / "metrics-ad-sys-scores-cs-en.csv"),
               "--metric-scores", str(d / "metric-sys-scores.tsv"), "--lp", "cs-en",
               "--resamples", "300", "--permutation")
    perm = res["permutation"]
    names = [m["metric"] for m in res["metrics"]]
    assert set(perm) == set(names)
    top, bottom = names[0], names[-1]
    assert 0 <= perm[top][bottom] < 0.5 < perm[bottom][top] <= 1
    assert perm[top][bottom] + perm[bottom][top] == pytest.approx(1.0, abs=0.02)
