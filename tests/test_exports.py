"""CSV exports neutralise spreadsheet formulas; LaTeX tables escape names and draw cluster rules."""

from __future__ import annotations

import io

import pandas as pd

from leaderboard.tables import latex_escape
from leaderboard.publish.render import ranking_table, ranking_to_latex
from leaderboard.tables import neutralise_formulas, to_csv_bytes

RANKING = {
    "lp": "cs-en", "signature": "da|test:mwu",
    "systems": [
        {"system": "Online-W.2", "ave": 74.01, "ave_z": 0.1325, "n": 1370, "n_all": 1711, "rank_lo": 1, "rank_hi": 1, "cluster": 1},
        {"system": "A_B&C", "ave": 75.26, "ave_z": 0.0555, "n": 1385, "n_all": 1806, "rank_lo": 2, "rank_hi": 3, "cluster": 2},
        {"system": "=cmd|' /C calc'!A0", "ave": 72.48, "ave_z": -0.0039, "n": 1316, "n_all": 1702, "rank_lo": 2, "rank_hi": 3, "cluster": 2},
    ],
}


def test_formulas_are_neutralised_but_numbers_are_not():
    frame = pd.DataFrame({"name": ["=1+2", "+SUM(A1)", "-x", "@cmd", "plain", "\tTAB"], "score": [-1.5, 2, 3, 4, 5, 6]})
    out = neutralise_formulas(frame)
    assert out["name"].tolist() == ["'=1+2", "'+SUM(A1)", "'-x", "'@cmd", "plain", "'\tTAB"]
    assert out["score"].tolist() == [-1.5, 2, 3, 4, 5, 6]
    back = pd.read_csv(io.BytesIO(to_csv_bytes(frame)))
    assert not back["name"].str.match(r"^[=+\-@]").any()


def test_latex_table_has_cluster_rules_and_escapes():
    tex = ranking_to_latex(RANKING)
    body = tex.split(r"\midrule", 1)[1]
    assert body.count(r"\midrule") == 1  # one rule between cluster 1 and cluster 2
    assert r"A\_B\&C" in tex and "2--3" in tex and "0.133" in tex
    assert latex_escape("100%_{x}") == r"100\%\_\{x\}"
    assert tex.strip().endswith(r"\end{table}")


def test_ranking_table_for_csv():
    table = ranking_table(RANKING)
    assert table["rank"].tolist() == ["1", "2-3", "2-3"]
    assert table.columns.tolist()[:9] == ["rank", "system", "human", "ave", "ave_lo", "ave_hi", "ave_z", "ave_z_lo",
                                          "ave_z_hi"]
    assert table["ave_z_lo"].isna().all()  # an older snapshot without intervals
    assert table["human"].tolist() == [False, False, False]


def test_human_translations_marked_and_intervals_in_exports():
    ranking = {**RANKING, "systems": [dict(s) for s in RANKING["systems"]]
               + [{"system": "HUMAN-C", "ave": 61.2, "ave_z": -0.29, "n": 1285, "n_all": 1600, "rank_lo": 4,
                   "rank_hi": 4, "cluster": 3}]}
    ranking["systems"][0].update(ave_z_ci=[0.083, 0.178], ave_ci=[72.65, 75.42], human=False)
    ranking["systems"][1]["human"] = True  # an organiser's mark wins over the name
    table = ranking_table(ranking)
    assert table["human"].tolist() == [False, True, False, True]  # HUMAN-C: older entry, WMT naming
    assert table.loc[0, ["ave_z_lo", "ave_z_hi", "ave_lo", "ave_hi"]].tolist() == [0.083, 0.178, 72.65, 75.42]
    tex = ranking_to_latex(ranking)
    assert r"95\% CI" in tex and "[0.083, 0.178]" in tex and "& -- &" in tex
    marked = [line for line in tex.splitlines() if r"$^\dagger$" in line and "&" in line]
    assert len(marked) == 2 and r"A\_B\&C" in marked[0] and "HUMAN-C" in marked[1]
    assert r"\textcolor{gray}{4}" in marked[1]
    assert r"$^\dagger$\,human translation" in tex
    assert "dagger" not in ranking_to_latex(RANKING)
