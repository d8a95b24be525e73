"""A test set's own BLEU tokeniser: stored with it, used for every score, shown in the signature, and
equal to sacrebleu's command line with the same ``-tok``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from sqlalchemy import func, select

from leaderboard.cli import main
from leaderboard.errors import InputError
from leaderboard.outputs.service import add_testset
from leaderboard.outputs.service import testset_json as json_form
from leaderboard.storage import Store
from leaderboard.storage import models as m
from leaderboard.storage.outputs import OutputStore


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def sacrebleu_cli(refs: list[Path], hyp: Path, tok: str) -> float:
    exe = Path(sys.executable).with_name("sacrebleu")
    if not exe.exists():
        pytest.skip("sacrebleu's command line is not installed beside this Python")
    out = subprocess.run([str(exe), *map(str, refs), "-i", str(hyp), "-m", "bleu", "-tok", tok, "-b", "-w", "6"],
                         capture_output=True, text=True, check=True).stdout
    return float(out.strip())


def test_stored_with_the_test_set(db_url, tmp_path):
    src, ref = tmp_path / "src.txt", tmp_path / "ref.txt"
    src.write_text("eins zwei\ndrei vier\n", encoding="utf-8")
    ref.write_text("one two\nthree four\n", encoding="utf-8")
    store = Store(db_url)
    add_testset(store, "c", "de-en", src, [ref], bleu_tokenize="intl")
    add_testset(store, "c", "en-ja", src, [ref])
    out = OutputStore(store)
    assert out.testset("c", "de-en")["bleu_tokenize"] == "intl"
    assert out.testset("c", "en-ja")["bleu_tokenize"] is None  # stored as "by target language"
    assert json_form(out.testset("c", "en-ja"))["bleu_tokenize"] == "ja-mecab"
    assert json_form(out.testset("c", "de-en"))["bleu_tokenize"] == "intl"
    assert list(out.testsets("c")["bleu_tokenize"]) == ["intl", None]
    with pytest.raises(InputError, match="unknown BLEU tokeniser"):
        add_testset(store, "c", "fr-en", src, [ref], bleu_tokenize="13b")
    with store.engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(m.testsets)).scalar_one() == 2


@pytest.fixture()
def cs_en(shared, tmp_path, capsys):
    general = shared / "wmt22-general"
    files = {"src": general / "sources" / "generaltest2022.cs-en.src.cs",
             "refs": [general / "references" / f"generaltest2022.cs-en.ref.{x}.en" for x in "BC"],
             "hyp": general / "system-outputs" / "generaltest2022.cs-en.hyp.Online-B.en"}
    db = ["--database-url", f"sqlite:///{tmp_path / 'db.sqlite'}"]
    code, out, err = run(["testset", "add", "--campaign", "wmt22", "--lp", "cs-en", "--source", files["src"],
                          "--ref", *files["refs"], "--bleu-tokenize", "intl", "--json", *db], capsys)
    assert code == 0, err
    assert json.loads(out)["bleu_tokenize"] == "intl"
    assert run(["team", "add", "T", "--verified", *db], capsys)[0] == 0
    return {**files, "db": db, "general": general}


def test_scores_equal_sacrebleu_cli_with_the_test_sets_tokeniser(cs_en, capsys):
    """WMT22 cs-en (two references): BLEU with -tok intl, then char, then the default again, which
    reproduces the organisers' published bleu-all for Online-B."""
    db = cs_en["db"]
    code, out, err = run(["outputs", "submit", cs_en["hyp"], "--campaign", "wmt22", "--lp", "cs-en", "--team", "T",
                          "--system", "Online-B", "--json", *db], capsys)
    assert code == 0, err
    sub = json.loads(out)
    intl = sacrebleu_cli(cs_en["refs"], cs_en["hyp"], "intl")
    assert sub["scores"]["bleu"] == pytest.approx(intl, abs=1e-6)
    assert "tok:intl" in sub["signatures"]["bleu"] and "tok:intl" in sub["signatures"]["bleu-B"]
    code, out, err = run(["outputs", "leaderboard", "--campaign", "wmt22", "--lp", "cs-en", "--resamples", "10",
                          "--json", *db], capsys)
    assert code == 0, err
    board = json.loads(out)
    assert "tok:intl" in board["signature"] and board["bleu_tokenize"] == "intl"

    code, out, err = run(["testset", "set", "--campaign", "wmt22", "--lp", "cs-en", "--bleu-tokenize", "char",
                          "--json", *db], capsys)
    assert code == 0, err
    assert json.loads(out)["bleu_tokenize"] == "char" and json.loads(out)["rescored"] == 1
    stored = OutputStore(Store(db[1])).submission(sub["id"])
    assert stored["scores"]["bleu"] == pytest.approx(sacrebleu_cli(cs_en["refs"], cs_en["hyp"], "char"), abs=1e-6)
    assert "tok:char" in stored["signatures"]["bleu"]

    code, out, err = run(["testset", "set", "--campaign", "wmt22", "--lp", "cs-en", "--bleu-tokenize", "default",
                          "--json", *db], capsys)
    assert code == 0 and json.loads(out)["bleu_tokenize"] == "13a"
    stored = OutputStore(Store(db[1])).submission(sub["id"])
    published = pd.read_csv(cs_en["general"] / "automatic-scores.tsv", sep="\t")
    row = published[(published["pair"] == "cs-en") & (published["system"] == "Online-B")
                    & (published["metric"] == "bleu-all")]
    assert stored["scores"]["bleu"] == pytest.approx(float(row["score"].iloc[0]), abs=1e-6)
    assert "tok:13a" in stored["signatures"]["bleu"]


def test_bad_tokeniser_changes_nothing(cs_en, capsys):
    db = cs_en["db"]
    code, _, err = run(["testset", "set", "--campaign", "wmt22", "--lp", "cs-en", "--bleu-tokenize", "nope",
                        "--max-submissions", "3", *db], capsys)
    assert code == 2 and "nope" in err
    ts = OutputStore(Store(db[1])).testset("wmt22", "cs-en")
    assert ts["bleu_tokenize"] == "intl" and ts["max_submissions"] == 20
    code, _, err = run(["testset", "add", "--campaign", "x", "--lp", "cs-en", "--source", cs_en["src"],
                        "--bleu-tokenize", "13b", *db], capsys)
    assert code == 2 and "13b" in err
    assert OutputStore(Store(db[1])).testsets("x").empty

