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


def test_mtlb_submit_lists_every_bad_score_one_per_line(tmp_path, capsys):
    """The README says every problem is listed: not only the first NaN, and each on its own line."""
    path = tmp_path / "m.csv"
    path.write_text("metric,lp,system,score\nM,de-en,a,1\nM,de-en,b,nan\nM,de-en,c,abc\nM,de-en,,2\nM,de-en,e,inf\n",
                    encoding="utf-8")
    assert main(["submit", str(path), "--systems-from", str(_systems(tmp_path)), "--lp", "de-en"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    # the bad rows and, in the same run, what the campaign check finds (system d has no score)
    assert err[0].endswith("5 problems in the submission (all listed; nothing was stored):")
    assert err[1:] == ["- line 3, column 'score': score is missing (nan); every row needs a finite number",
                       "- line 4, column 'score': score 'abc' is not a number",
                       "- line 5, column 'system': the system is empty",
                       "- line 6, column 'score': score is inf; every row needs a finite number",
                       "- column 'system': no scores for 1 campaign system(s) (metric M, lp de-en): d"]


def test_a_file_with_very_many_bad_rows_lists_the_first_and_counts_the_rest(tmp_path):
    import pytest
    from leaderboard.errors import InputError
    from metrics.submissions import MAX_LISTED, read_submission
    path = tmp_path / "m.csv"
    path.write_text("metric,lp,system,score\n" + "".join(f"M,de-en,s{i},x\n" for i in range(MAX_LISTED + 7)),
                    encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_submission(path)
    assert len(err.value.problems) == MAX_LISTED + 1 and "… and 7 more rows with problems" in str(err.value)


def _systems(tmp_path):
    path = tmp_path / "rank.json"
    path.write_text('{"lp": "de-en", "systems": [' + ", ".join(
        f'{{"system": "{s}", "ave_z": {i}}}' for i, s in enumerate("abcde")) + "]}", encoding="utf-8")
    return path


def test_no_help_text_shows_a_doubled_percent_sign():
    """argparse %-formats help= strings (so "95%%" prints 95%) but not descriptions: a description with
    "95%%" printed the two signs (issue 42.9, "~10%%"). Every command's --help, as printed."""
    import argparse
    from leaderboard.cli import build_parser

    def helps(parser: argparse.ArgumentParser, path: str):
        yield path, parser.format_help()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    yield from helps(child, f"{path} {name}")

    shown = dict(helps(build_parser(), "mtlb"))
    assert len(shown) > 40  # every command and sub-command
    doubled = {path: [line for line in text.splitlines() if "%%" in line] for path, text in shown.items()}
    assert not {path: lines for path, lines in doubled.items() if lines}
    assert "95% bootstrap intervals" in " ".join(shown["mtlb outputs leaderboard"].split())


def test_collect_status_before_anyone_works_says_so(tmp_path, capsys):
    """`mtlb collect status` right after `collect create` printed a bare "(nothing)" under the campaign's
    line; it says that there are no annotators yet."""
    from collecting import write_testset
    files = write_testset(tmp_path / "files", n_lines=40)
    db = ["--database-url", f"sqlite:///{tmp_path / 'store.sqlite'}"]
    assert main(["collect", "create", "--campaign", "c", "--lp", "de-en", "--protocol", "da", "--hyp",
                 *map(str, files["hyps"]), "--ref", str(files["ref"]), "--hits", "1", *db]) == 0
    capsys.readouterr()
    assert main(["collect", "status", "--campaign", "c", "--lp", "de-en", *db]) == 0
    out = capsys.readouterr().out
    assert "(nothing)" not in out and "annotators: none yet" in out.splitlines()
