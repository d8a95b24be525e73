"""Submissions are scored as the WMT22 organisers scored them (sacrebleu 2.x, tokeniser by target language).

The references are the organisers' ``automatic-scores.tsv`` and sacrebleu's own command line on
hand-made Chinese, Japanese, Korean and Thai files.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from leaderboard.cli import main

SACREBLEU = Path(sys.executable).with_name("sacrebleu")

# small hand-made test sets: (source, reference, hypothesis) lines per target language
HANDMADE = {
    "zh": (["The weather is nice today.", "I like machine translation.", "He went to Beijing yesterday.",
            "This book is very interesting.", "Please close the window.", "We will meet at the station."],
           ["今天天气很好。", "我喜欢机器翻译。", "他昨天去了北京。", "这本书非常有意思。", "请关上窗户。", "我们将在车站见面。"],
           ["今天天气不错。", "我喜欢机器翻译。", "他昨天去北京了。", "这本书很有趣。", "请把窗户关上。", "我们在车站见。"]),
    "ja": (["The weather is nice today.", "I like machine translation.", "He went to Tokyo yesterday.",
            "This book is very interesting.", "Please close the window.", "We will meet at the station."],
           ["今日は天気が良いです。", "私は機械翻訳が好きです。", "彼は昨日東京へ行きました。", "この本はとても面白いです。",
            "窓を閉めてください。", "駅で会いましょう。"],
           ["今日はいい天気です。", "私は機械翻訳が好きです。", "彼は昨日東京に行った。", "この本は非常に面白い。",
            "窓を閉めて下さい。", "駅で会います。"]),
    "ko": (["The weather is nice today.", "I like machine translation.", "He went to Seoul yesterday.",
            "This book is very interesting.", "Please close the window.", "We will meet at the station."],
           ["오늘 날씨가 좋습니다.", "나는 기계 번역을 좋아합니다.", "그는 어제 서울에 갔습니다.", "이 책은 매우 재미있습니다.",
            "창문을 닫아 주세요.", "우리는 역에서 만날 것입니다."],
           ["오늘은 날씨가 좋다.", "나는 기계 번역을 좋아한다.", "그는 어제 서울에 갔다.", "이 책은 정말 재미있다.",
            "창문을 닫아주세요.", "우리는 역에서 만난다."]),
    "th": (["The weather is nice today.", "I like machine translation.", "He went to Bangkok yesterday.",
            "This book is very interesting.", "Please close the window.", "We will meet at the station."],
           ["วันนี้อากาศดี", "ฉันชอบการแปลด้วยเครื่อง", "เขาไปกรุงเทพเมื่อวานนี้", "หนังสือเล่มนี้น่าสนใจมาก",
            "กรุณาปิดหน้าต่าง", "เราจะพบกันที่สถานี"],
           ["วันนี้อากาศดีมาก", "ฉันชอบการแปลภาษาด้วยเครื่อง", "เมื่อวานเขาไปกรุงเทพ", "หนังสือเล่มนี้น่าสนใจ",
            "โปรดปิดหน้าต่าง", "เราจะเจอกันที่สถานี"]),
}
#: what sacrebleu's command line must be told to tokenise as we do
CLI_TOKENISE = {"zh": ["-l", "en-zh"], "ja": ["-l", "en-ja"], "ko": ["-l", "en-ko"], "th": ["--tokenize", "char"]}
EXPECTED_TOK = {"zh": "tok:zh", "ja": "tok:ja-mecab", "ko": "tok:ko-mecab", "th": "tok:char"}


def run_cli(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def sacrebleu_cli(ref: Path, hyp: Path, extra: list[str]) -> tuple[float, float]:
    if not SACREBLEU.exists():
        pytest.skip("sacrebleu console script not found")
    done = subprocess.run([str(SACREBLEU), str(ref), "-i", str(hyp), "-m", "bleu", "chrf", "-b", "-w", "6", *extra],
                          capture_output=True, text=True, check=True)
    bleu, chrf = json.loads(done.stdout)
    return float(bleu), float(chrf)


@pytest.mark.parametrize("lang", sorted(HANDMADE))
def test_target_language_tokeniser_matches_sacrebleu_cli(lang, tmp_path, capsys):
    source, ref, hyp = HANDMADE[lang]
    lp = f"en-{lang}"
    db = ["--database-url", f"sqlite:///{tmp_path / 'db.sqlite'}"]
    src_f, ref_f, hyp_f = (write(tmp_path / f"f.{lp}.{k}", lines) for k, lines in
                           (("src", source), ("ref", ref), ("hyp", hyp)))
    assert run_cli(["testset", "add", "--campaign", "c", "--lp", lp, "--source", str(src_f), "--ref", str(ref_f),
                    "--json", *db], capsys)[0] == 0
    assert run_cli(["team", "add", "t", "--verified", "--json", *db], capsys)[0] == 0
    code, out, err = run_cli(["outputs", "submit", str(hyp_f), "--campaign", "c", "--lp", lp, "--team", "t",
                              "--json", *db], capsys)
    assert code == 0, err
    result = json.loads(out)
    cli_bleu, cli_chrf = sacrebleu_cli(ref_f, hyp_f, CLI_TOKENISE[lang])
    assert result["scores"]["bleu"] == pytest.approx(cli_bleu, abs=1e-6)
    assert result["scores"]["chrf"] == pytest.approx(cli_chrf, abs=1e-6)
    assert EXPECTED_TOK[lang] in result["signatures"]["bleu"]
    # 13a would split these scripts differently: the choice of tokeniser matters on these files
    plain_bleu, _ = sacrebleu_cli(ref_f, hyp_f, ["--tokenize", "13a"])
    assert plain_bleu != pytest.approx(cli_bleu, abs=0.01)


def test_mtlb_score_picks_the_tokeniser_from_the_language_pair(tmp_path, capsys):
    source, ref, hyp = HANDMADE["ja"]
    ref_f = write(tmp_path / "t.en-ja.ref.A.ja", ref)
    hyp_f = write(tmp_path / "t.en-ja.hyp.sys.ja", hyp)
    code, out, err = run_cli(["score", "--lp", "en-ja", "--hyp", str(hyp_f), "--ref", str(ref_f), "--metric", "bleu",
                              "--decimals", "-1", "--json"], capsys)
    assert code == 0, err
    result = json.loads(out)
    assert "tok:ja-mecab" in result["signature"]
    assert result["systems"]["sys"] == pytest.approx(sacrebleu_cli(ref_f, hyp_f, ["-l", "en-ja"])[0], abs=1e-6)


@pytest.mark.slow(weight=5)  # 20 submissions, each scored against 2 references and each one (~60 s)
@pytest.mark.xdist_group("wmt22-scores")  # with tests/test_metrics_scoring.py: each output's statistics once
def test_every_wmt22_submission_reproduces_the_organisers_scores(shared, tmp_path, capsys):
    general = shared / "wmt22-general"
    organisers = pd.read_csv(general / "automatic-scores.tsv", sep="\t")
    db = ["--database-url", f"sqlite:///{tmp_path / 'db.sqlite'}"]
    checked = 0
    for lp in ("cs-en", "de-en"):
        refs = sorted((general / "references").glob(f"generaltest2022.{lp}.ref.*"))
        src = general / "sources" / f"generaltest2022.{lp}.src.{lp[:2]}"
        assert run_cli(["testset", "add", "--campaign", "wmt22", "--lp", lp, "--source", str(src),
                        "--ref", *map(str, refs), "--json", *db], capsys)[0] == 0
        for hyp in sorted((general / "system-outputs").glob(f"generaltest2022.{lp}.hyp.*")):
            system = hyp.name.split(".")[3]
            if run_cli(["team", "add", system, "--verified", *db], capsys)[0] != 0:
                pass  # the same team submits for both language pairs
            code, out, err = run_cli(["outputs", "submit", str(hyp), "--campaign", "wmt22", "--lp", lp, "--team",
                                      system, "--json", *db], capsys)
            assert code == 0, err
            result = json.loads(out)
            assert result["valid"] is True and result["team"] == system and result["system"] == system
            mine = organisers[(organisers["pair"] == lp) & (organisers["system"] == system)]
            for row in mine[mine["metric"].str.match(r"^(bleu|chrf)-")].itertuples():
                key = row.metric.replace("-all", "")
                assert result["scores"][key] == pytest.approx(row.score, abs=0.01), (lp, system, row.metric)
                checked += 1
    assert checked == 120  # bleu/chrf -all and per reference, 20 systems
    code, out, _ = run_cli(["outputs", "leaderboard", "--campaign", "wmt22", "--lp", "cs-en", "--json", *db], capsys)
    board = json.loads(out)
    assert board["lp"] == "cs-en" and len(board["systems"]) == 11
    chrf = [s["chrf"] for s in board["systems"]]
    assert chrf == sorted(chrf, reverse=True)
    published = organisers[(organisers["pair"] == "cs-en") & (organisers["metric"] == "chrf-all")]
    assert [s["system"] for s in board["systems"]] == \
        list(published.sort_values("score", ascending=False)["system"])
    for s in board["systems"]:
        assert set(s) >= {"team", "system", "bleu", "chrf", "bleu_ci", "chrf_ci", "cluster"}
        assert s["chrf_ci"][0] <= s["chrf"] <= s["chrf_ci"][1] and s["bleu_ci"][0] <= s["bleu"] <= s["bleu_ci"][1]
    assert [s["cluster"] for s in board["systems"]] == sorted(s["cluster"] for s in board["systems"])


DEMO_TEXTS = Path(__file__).resolve().parents[1] / "leaderboard" / "demo_data" / "wmt22-cs-en" / "texts"


@pytest.mark.slow
def test_score_output_equals_plain_sacrebleu_for_every_reference_configuration(monkeypatch):
    """Scores, signatures and the kept statistics of a submission against both WMT22 cs-en references
    and each alone are sacrebleu's own (fresh metric objects, nothing shared), to the last bit."""
    from collections import OrderedDict

    import numpy as np
    from sacrebleu.metrics import BLEU, CHRF, TER

    import metrics.scoring as scoring
    from leaderboard.outputs.scoring import score_output
    from metrics.textfiles import read_aligned
    monkeypatch.setattr(scoring, "_stats_cache", OrderedDict())  # computed here, not read back
    monkeypatch.setattr(scoring, "_stats_size", 0)
    monkeypatch.delenv("MTLB_STATS_CACHE", raising=False)
    systems = ("JDExploreAcademy",)
    texts = read_aligned([DEMO_TEXTS / f"generaltest2022.cs-en.ref.{x}.en.gz" for x in "BC"] +
                         [DEMO_TEXTS / f"generaltest2022.cs-en.hyp.{s}.en.gz" for s in systems])
    refs = {"B": texts[0], "C": texts[1]}
    for hyp in texts[2:]:
        got = score_output(hyp, refs, "cs-en")
        configs = {"": list(refs.values()), "-B": [refs["B"]], "-C": [refs["C"]]}
        for metric, make in (("bleu", lambda r: BLEU(tokenize="13a", references=r)),
                             ("chrf", lambda r: CHRF(references=r))):
            for suffix, ref_set in configs.items():
                plain = make(ref_set)
                extracted = []  # the statistics sacrebleu's own corpus_score extracts, kept as it passes
                extract = plain._extract_corpus_statistics
                plain._extract_corpus_statistics = lambda h, r: extracted.append(extract(h, r)) or extracted[-1]
                score = plain.corpus_score(hyp, None)
                assert got.scores[metric + suffix] == score.score, metric + suffix
                assert got.signatures[metric + suffix] == f"{score.name}|{plain.get_signature().format()}"
                if suffix == "":
                    assert len(extracted) == 1 and np.array_equal(got.stats[metric], np.asarray(extracted[0]))
        assert set(got.scores) == {"bleu", "chrf", "bleu-B", "bleu-C", "chrf-B", "chrf-C"}
    # TER is scored configuration by configuration (a short slice: TER is slow)
    short = {k: v[:60] for k, v in refs.items()}
    got = score_output(texts[2][:60], short, "cs-en", ter=True)
    assert got.scores["ter"] == TER().corpus_score(texts[2][:60], list(short.values())).score
    assert got.scores["ter-C"] == TER().corpus_score(texts[2][:60], [short["C"]]).score
