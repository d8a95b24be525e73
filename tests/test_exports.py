"""CSV exports neutralise spreadsheet formulas; LaTeX tables escape names and draw cluster rules."""

from __future__ import annotations

import io

import pandas as pd

from leaderboard.publish import latex_escape, ranking_table, ranking_to_latex
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
    assert table.columns.tolist()[:5] == ["rank", "system", "ave", "ave_z", "n"]
