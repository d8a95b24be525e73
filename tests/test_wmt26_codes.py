"""WMT26 language codes and document ids accepted wherever a language pair or a document is."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from leaderboard.cli import main
from leaderboard.errors import InputError
from leaderboard.hits.degrade import uses_characters
from leaderboard.collect.spans import tokens
from leaderboard.ingest.documents import lp_of_documents
from leaderboard.ingest.texts import parse_text_name
from leaderboard.languages import (bleu_tokeniser, parse_language, script_direction, split_lp, split_lp_codes,
                                   word_split_by_character)


def test_codes_parse():
    lang = parse_language("zho_Hant_TW")
    assert (lang.language, lang.script, lang.region, lang.iso1) == ("zho", "Hant", "TW", "zh")
    assert split_lp_codes("eng_Latn-isl_Latn") == ("eng_Latn", "isl_Latn")
    assert split_lp("eng_Latn-zho_Hant_TW") == ("eng", "zho") and split_lp_codes("eng_Latn-arz_Arab")[1] == "arz_Arab"
    assert split_lp("en-zh_TW") == ("en", "zh")  # the short codes keep working
    for bad in ("eng_Latn--isl_Latn", "eng_Latn", "e-isl", "eng Latn-isl_Latn"):
        with pytest.raises(InputError):
            split_lp(bad)


@pytest.mark.parametrize("code, tokeniser, by_char, direction", [
    ("zho_Hans", "zh", True, "ltr"), ("zho_Hant_TW", "zh", True, "ltr"), ("jpn_Jpan", "ja-mecab", True, "ltr"),
    ("tha_Thai", "char", True, "ltr"), ("kor_Hang", "ko-mecab", False, "ltr"), ("arz_Arab", "13a", False, "rtl"),
    ("pes_Arab", "13a", False, "rtl"), ("heb_Hebr", "13a", False, "rtl"), ("ara_Latn", "13a", False, "ltr"),
    ("eng_Latn", "13a", False, "ltr"), ("isl_Latn", "13a", False, "ltr"), ("zh", "zh", True, "ltr"),
    ("ja", "ja-mecab", True, "ltr"), ("th", "char", True, "ltr"), ("ar", "13a", False, "rtl")])
def test_what_a_code_decides(code, tokeniser, by_char, direction):
    assert bleu_tokeniser(code) == tokeniser
    assert word_split_by_character(code) is by_char and uses_characters(code) is by_char
    assert script_direction(code) == direction


def test_character_level_span_snapping_for_wmt26_codes():
    assert len(tokens("我们去北京", "zho_Hans")) == 5
    assert tokens("สวัสดี ครับ", "tha_Thai")[:2] == ((0, 1), (1, 3))  # a vowel mark stays with its base
    assert len(tokens("Dobrý den", "ces_Latn")) == 2


def test_file_names_with_wmt26_codes():
    info = parse_text_name("wmt26.eng_Latn-zho_Hant_TW.hyp.Sys-A.zho_Hant_TW")
    assert (info.lp, info.kind, info.name, info.lang) == ("eng_Latn-zho_Hant_TW", "hypothesis", "Sys-A", "zho_Hant_TW")
    assert parse_text_name("generaltest2022.cs-en.src.cs").lp == "cs-en"
    assert lp_of_documents("eng_Latn-isl_Latn.docs") == "eng_Latn-isl_Latn"
    from metrics.textfiles import lp_of_name, reference_name, system_name
    assert system_name("wmt26.eng_Latn-zho_Hant_TW.hyp.Sys-A.zho_Hant_TW") == "Sys-A"
    assert reference_name("wmt26.eng_Latn-isl_Latn.ref.A.isl_Latn") == "A"
    assert lp_of_name("wmt26.eng_Latn-isl_Latn.src.eng_Latn", "src") == "eng_Latn-isl_Latn"


def test_judgments_with_wmt26_pairs_and_documents_ingest_and_rank(tmp_path, capsys):
    rng = np.random.default_rng(7)
    rows = []
    docs = ["news_###_brisbanetimes.com.au.377358", "speech_###_talk.12"]
    for w in range(6):
        for seg in range(12):
            for sysname, q in (("Sys-A", 80), ("Sys-B", 60)):
                rows.append({"campaign": "wmt26", "lp": "eng_Latn-isl_Latn", "assessment": "esa", "worker": f"w{w}",
                             "hit": f"w{w}", "position": len(rows) + 1, "segment": f"{docs[seg % 2]}_###_{seg}",
                             "system": sysname, "item_type": "SYSTEM", "raw": float(np.clip(rng.normal(q, 10), 0, 100)),
                             "doc": docs[seg % 2]})
    csv = tmp_path / "judgments.csv"
    pd.DataFrame(rows).to_csv(csv, index=False)
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    assert main(["ingest", str(csv), "--database-url", url, "--json"]) == 0
    stored = json.loads(capsys.readouterr().out)
    assert stored["lp"] == "eng_Latn-isl_Latn" and stored["judgments"] == len(rows)
    listing = tmp_path / "eng_Latn-isl_Latn.docs"
    listing.write_text("canary\tcanary\n" + "".join(f"{d.split('_###_')[0]}\t{d}\n" for d in docs), encoding="utf-8")
    assert main(["rank", str(csv), "--protocol", "wmt25-signed-rank", "--qc", "none", "--documents", str(listing), "--json",
                 "--resamples", "0"]) == 0
    ranking = json.loads(capsys.readouterr().out)
    assert ranking["lp"] == "eng_Latn-isl_Latn" and [s["system"] for s in ranking["systems"]] == ["Sys-A", "Sys-B"]
    assert set(ranking["systems"][0]["domains"]) == {"news", "speech"}
    assert main(["rank", str(csv), "--protocol", "wmt24-esa", "--json", "--resamples", "0"]) == 0
    assert set(json.loads(capsys.readouterr().out)["systems"][0]["domains"]) == {"news", "speech"}


def test_testset_with_a_wmt26_pair_picks_the_tokeniser(tmp_path, capsys):
    src = tmp_path / "src.txt"
    src.write_text("Hello.\nGood morning.\n", encoding="utf-8")
    ref = tmp_path / "ref.txt"
    ref.write_text("你好。\n早上好。\n", encoding="utf-8")
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    assert main(["testset", "add", "--campaign", "wmt26", "--lp", "eng_Latn-zho_Hant_TW", "--source", str(src),
                 "--ref", str(ref), "--database-url", url, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["lp"] == "eng_Latn-zho_Hant_TW" and out["bleu_tokenize"] == "zh"
