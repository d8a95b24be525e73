"""MQM ingestion and scoring against the google/wmt-mqm-human-evaluation release (TED en-de)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from scipy import stats

from leaderboard.cli import main
from leaderboard.errors import InputError
from leaderboard.ingest.mqm import lp_from_name, read_mqm
from leaderboard.expert.ranking import rank_mqm
from leaderboard.expert.scoring import breakdown, segment_scores, system_scores
from leaderboard.ingest import detect_format

HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\tcomment\n"


def write(tmp_path: Path, rows: list[str], name: str = "mqm_test_zhen.tsv") -> Path:
    path = tmp_path / name
    path.write_text(HEADER + "".join(r + "\n" for r in rows), encoding="utf-8")
    return path


def row(system, seg, rater, category, severity, target="Ein <v>Satz</v>.", comment=""):
    return "\t".join([system, "doc1", "1", str(seg), rater, "A sentence.", target, category, severity, comment])


@pytest.fixture(scope="module")
def ted(shared):
    return read_mqm(shared / "mqm-ted-ende" / "mqm_ted_ende.tsv")


def test_segment_scores_equal_the_release(ted, shared):
    seg = segment_scores(ted)
    published = pd.read_csv(shared / "mqm-ted-ende" / "mqm_ted_ende.avg_seg_scores.tsv", sep=r"\s+")
    published = published[published["mqm_avg_score"] != "None"]
    published = published.assign(system=published["system"].replace({"ref-A": "ref"}),
                                 segment=published["seg_id"].astype(str),
                                 expected=-published["mqm_avg_score"].astype(float))
    both = seg.merge(published, on=["system", "segment"], how="inner")
    assert len(both) == len(seg) == 14 * 529           # every rated (system, segment) is in the release
    assert np.abs(both["mqm"] - both["expected"]).max() < 1e-6


def test_system_scores_round_to_the_published_table(ted, shared):
    table = system_scores(segment_scores(ted))
    published = pd.read_csv(shared / "mqm-ted-ende" / "published-system-mqm.tsv", sep="\t")
    published["system"] = published["system"].replace({"ref.A": "ref"})
    both = table.merge(published, on="system")
    assert len(both) == 14
    # The README table disagrees with the release in one cell: eTranslation is printed as 1.96, while the
    # mean of the release's own avg_seg_scores for it (529 rated segments) is 1.9688 (→ 1.97).
    odd = both["system"] == "eTranslation"
    assert [f"{v:.2f}" for v in both.loc[~odd, "mqm_x"]] == [f"{v:.2f}" for v in both.loc[~odd, "mqm_y"]]
    assert abs(both.loc[odd, "mqm_x"].iloc[0] - 1.96) < 0.01
    assert (both["n"] == 529).all()
    # the published order is the order by MQM
    assert both.sort_values("mqm_x")["system"].tolist() == published.sort_values("rank")["system"].tolist()


def test_rank_cli_contract(shared, capsys, ted):
    path = shared / "mqm-ted-ende" / "mqm_ted_ende.tsv"
    assert detect_format(path) == "mqm"
    assert main(["rank", "--input", str(path), "--input-format", "mqm", "--lp", "en-de", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["lp"] == "en-de" and "weights:google-mqm" in result["signature"]
    rows = result["systems"]
    assert [r["mqm"] for r in rows] == sorted(r["mqm"] for r in rows)
    assert rows[0]["system"] == "ref" and round(rows[0]["mqm"], 2) == 0.91
    assert all(r["n"] == 529 and 1 <= r["rank_lo"] <= r["rank_hi"] <= 14 and r["cluster"] >= 1 for r in rows)
    # rank ranges follow the paired tests: ref is never beaten, Nemo beats nobody
    assert rows[0]["rank_lo"] == 1 and rows[-1]["rank_hi"] == 14
    # the p-values are scipy's one-sided Wilcoxon signed-rank test on the paired segments
    seg = segment_scores(ted).pivot(index="segment", columns="system", values="mqm")
    for a, b in (("Facebook-AI", "Online-W"), ("UEdin", "metricsystem4"), ("ref", "Nemo")):
        diff = np.round(seg[b] - seg[a], 9)     # float noise must not break ties (as the ranking does)
        expected = stats.wilcoxon(diff, alternative="greater", method="approx", correction=False).pvalue
        assert result["pvalues"][a][b] == pytest.approx(expected, rel=1e-6)
    # detected by content when --input-format is left out, under any file name
    plain = Path(capsys.readouterr() and path)
    assert main(["rank", "--input", str(plain), "--lp", "en-de", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["systems"] == rows


def test_weights_and_spellings(tmp_path):
    path = write(tmp_path, [
        row("A", 1, "r1", "Accuracy/Mistranslation", "Major"),
        row("A", 1, "r1", "Fluency/Punctuation", "minor"),
        row("A", 1, "r1", "Fluency / Punctuation", "MINOR"),
        row("A", 1, "r2", "Non-translation!", "Major", target="<v>whole output</v>"),
        row("A", 2, "r1", "No-error", "No-error", target="Clean."),
        row("A", 2, "r2", "Style/Awkward", "Neutral"),
        row("A", 3, "r1", "Fluency/Punctuation", "Major"),
        row("A", 3, "r1", "Non-translation", "Minor"),
        row("A", 4, "", "Style/Awkward", "minor", target=""),
        row("B", 1, "r3", "no error", "no-error", target="Gut."),
        row("B", 2, "r3", "Terminology/Inappropriate for context", "Minor"),
    ])
    errors = read_mqm(path)
    assert errors["lp"].iloc[0] == "zh-en"   # from the file name
    seg = segment_scores(errors).set_index(["system", "segment"])["mqm"]
    assert seg[("A", "1")] == pytest.approx((5 + 0.1 + 0.1 + 25) / 2)   # r1: 5.2, r2: 25 (Major Non-translation)
    assert seg[("A", "2")] == 0                                         # No-error and Neutral weigh 0
    # Major punctuation is Major; a Minor Non-translation is an ordinary Minor error (mt-metrics-eval: 25 only
    # when Major)
    assert seg[("A", "3")] == pytest.approx(5 + 1)
    assert seg[("A", "4")] == 1                                         # no rater: one anonymous rater; empty target
    assert seg[("B", "1")] == 0 and seg[("B", "2")] == 1
    sys_ = system_scores(segment_scores(errors)).set_index("system")
    assert sys_.loc["A", "mqm"] == pytest.approx((15.1 + 0 + 6 + 1) / 4) and sys_.loc["A", "n"] == 4
    flat = segment_scores(errors, "major-minor").set_index(["system", "segment"])["mqm"]
    assert flat[("A", "1")] == pytest.approx((5 + 1 + 1 + 5) / 2)
    # the span offsets point into the clean target
    first = errors.iloc[0]
    assert first["target"][first["span_start"]:first["span_end"]] == "Satz" and "<v>" not in first["target"]
    parts = breakdown(errors)
    a = parts[parts["system"] == "A"].set_index(["category", "severity"])
    assert a.loc[("Non-translation!", "major"), "count"] == 1 or a.loc[("Non-translation", "minor"), "count"] == 1


def test_ranking_of_a_small_file(tmp_path):
    rows = []
    for seg in range(1, 31):
        rows.append(row("good", seg, "r1", "No-error", "No-error"))
        rows.append(row("bad", seg, "r1", "Accuracy/Mistranslation", "Major"))
        rows.append(row("mid", seg, "r1", "Style/Awkward", "Minor" if seg % 2 else "No-error"))
    result = rank_mqm(read_mqm(write(tmp_path, rows)))[0]
    assert [s["system"] for s in result["systems"]] == ["good", "mid", "bad"]
    assert [s["cluster"] for s in result["systems"]] == [1, 2, 3]
    assert result["systems"][1]["mqm"] == 0.5


def test_tab_inside_a_text_is_recovered(tmp_path):
    fields = ["A", "doc1", "1", "1", "r1", "A\tsentence.", "Ein <v>Satz</v>\tmehr.", "Fluency/Grammar", "Minor", "note"]
    errors = read_mqm(write(tmp_path, ["\t".join(fields)]))
    first = errors.iloc[0]
    assert (first["source"], first["target"], first["category"], first["severity"], first["comment"]) == \
        ("A\tsentence.", "Ein Satz\tmehr.", "Fluency/Grammar", "minor", "note")


@pytest.mark.parametrize("rows, message, line, column", [
    ([row("A", 1, "r1", "Accuracy/Mistranslation", "Severe")], "unknown severity", 2, "severity"),
    ([row("A", "", "r1", "Accuracy/Mistranslation", "Major")], "empty value", 2, "seg_id"),
    ([row("A", 1, "r1", "", "Major")], "empty value", 2, "category"),
    (["A\tdoc1\t1"], "tab-separated fields", 2, None),
    ([], "only a header", None, None),
])
def test_bad_input(tmp_path, rows, message, line, column):
    with pytest.raises(InputError) as err:
        read_mqm(write(tmp_path, rows))
    assert message in err.value.message and err.value.line == line and err.value.column == column


def test_missing_header_column_and_lp(tmp_path):
    bad = tmp_path / "mqm_x.tsv"
    bad.write_text("system\tseg_id\trater\ttarget\tcategory\nA\t1\tr\tx\tOther\n", encoding="utf-8")
    with pytest.raises(InputError, match="lacks severity"):
        read_mqm(bad)
    nolp = write(tmp_path, [row("A", 1, "r1", "Other", "Major")], name="annotations.tsv")
    with pytest.raises(InputError, match="does not name its language pair"):
        read_mqm(nolp)
    assert read_mqm(nolp, lp="de-en")["lp"].iloc[0] == "de-en"
    assert lp_from_name("mqm_newstest2020_zhen.tsv") == "zh-en" and lp_from_name("x.tsv") is None


def test_cli_errors_exit_2(tmp_path, capsys):
    path = write(tmp_path, [row("A", 1, "r1", "Other", "Critical-ish")])
    assert main(["rank", "--input", str(path), "--json"]) == 2
    err = capsys.readouterr().err
    assert "line 2" in err and "severity" in err
