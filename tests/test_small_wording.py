"""Small wording of issue 42.9 outside the Organiser page: each would have read wrong before."""

from __future__ import annotations

from leaderboard.cli import main
from leaderboard.webapp.outputs_views import flag_text, rank_sentence


def test_submission_notes_count_one_line_in_the_singular():
    assert flag_text("lines_copied_from_source", 1) == "1 line copied from source"
    assert flag_text("lines_copied_from_source", 3) == "3 lines copied from source"
    assert flag_text("empty_lines", 1) == "1 empty line"
    assert flag_text("lines_equal_to_reference_A", 1) == "1 line equal to reference A"


def _board(primary: bool) -> dict:
    systems = [{"team": t, "system": f"{t}-sys", "chrf": c, "rank_lo": r, "rank_hi": r, "primary": True}
               for t, c, r in (("a", 60.0, 1), ("b", 55.0, 2), ("mine", 50.0, 3), ("d", 45.0, 4))]
    systems[2]["primary"] = primary
    return {"systems": systems + [{"team": "e", "system": "e-sys", "chrf": None, "rank_lo": None, "rank_hi": None,
                                   "primary": True}]}


def test_team_rank_says_it_ranks_the_primary_submission():
    sentence = rank_sentence(_board(True), "mine", "C", "cs-en")
    assert sentence.startswith("Your team's primary submission (mine-sys) is ranked 3 of 4 teams")
    other = rank_sentence(_board(False), "mine", "C", "cs-en")
    assert "best submission by chrF (mine-sys; it has no primary submission)" in other
    assert rank_sentence(_board(True), "nobody", "C", "cs-en") is None


def test_collect_create_says_a_da_campaign(tmp_path, capsys):
    from collecting import write_testset
    files = write_testset(tmp_path / "files", n_lines=40)
    db = ["--database-url", f"sqlite:///{tmp_path / 'store.sqlite'}"]
    assert main(["collect", "create", "--campaign", "c", "--lp", "de-en", "--protocol", "da", "--hyp",
                 *map(str, files["hyps"]), "--ref", str(files["ref"]), "--hits", "1", *db]) == 0
    assert "created a DA annotation campaign" in capsys.readouterr().out
    assert main(["collect", "create", "--campaign", "e", "--lp", "de-en", "--protocol", "esa", "--hyp",
                 *map(str, files["hyps"]), "--ref", str(files["ref"]), "--docs", str(files["docs"]), "--hits", "1",
                 *db]) == 0
    assert "created an ESA annotation campaign" in capsys.readouterr().out
