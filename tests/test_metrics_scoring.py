"""Automatic scoring: reproduce the WMT22 organisers' BLEU / chrF table, sacrebleu's CLI, and errors."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from sacrebleu.metrics import BLEU, CHRF, TER

from leaderboard.cli import main
from leaderboard.errors import InputError
from metrics.scoring import score_systems
from metrics.textfiles import expand_paths, read_aligned, reference_name, system_name

REFS = {"cs-en": ["B", "C"], "de-en": ["A", "B"]}


@pytest.fixture(scope="module")
def general(shared: Path) -> Path:
    return shared / "wmt22-general"


@pytest.fixture(scope="module")
def organisers(general: Path) -> pd.DataFrame:
    return pd.read_csv(general / "automatic-scores.tsv", sep="\t")


#: the tests that score the full WMT22 cs-en / de-en outputs run in one test process, so that sacrebleu's
#: statistics of each output are computed once (metrics.scoring keeps them) and reused by the next test
WMT22_SCORES = pytest.mark.xdist_group("wmt22-scores")


@pytest.fixture(scope="module")
def ours(general: Path) -> dict[tuple[str, str], float]:
    """(lp, system, column) → our score, for every column the organisers publish (computed once)."""
    out = {}
    for lp, letters in REFS.items():
        hyp_files = expand_paths([general / "system-outputs"], lp, "hyp")
        ref_files = [general / "references" / f"generaltest2022.{lp}.ref.{x}.en" for x in letters]
        texts = read_aligned([*ref_files, *hyp_files])
        refs, hyps = texts[:2], {system_name(f): t for f, t in zip(hyp_files, texts[2:])}
        for metric in ("bleu", "chrf"):
            # against both references and each alone, the hypothesis work shared
            res = score_systems(hyps, refs, metric, by_reference=True)
            for label, scores in [("all", res["systems"]), *zip(letters, (r["systems"] for r in res["by_reference"]))]:
                for system, value in scores.items():
                    out[(lp, system, f"{metric}-{label}")] = value
    return out


@pytest.mark.slow(weight=5)  # ~20 s here, minutes on a loaded machine: 20 systems × 3 reference sets × (BLEU + chrF)
@WMT22_SCORES
def test_reproduces_organisers_bleu_and_chrf(organisers: pd.DataFrame, ours: dict) -> None:
    rows = organisers[organisers["metric"].str.match(r"^(bleu|chrf)-")]
    assert len(rows) == 120  # 20 systems × (all + one column per reference they have) × 2 metrics
    checked = 0
    for row in rows.itertuples():
        mine = ours[(row.pair, row.system, row.metric)]
        assert mine == pytest.approx(row.score, abs=0.01), (row.pair, row.system, row.metric)
        checked += 1
    # every (system, column) we computed that the organisers did not publish is only a missing letter
    assert checked == 120
    assert {(r.pair, r.system) for r in rows.itertuples()} == {(lp, s) for lp, s, _ in ours}


@pytest.mark.slow
@WMT22_SCORES
def test_single_reference_scores_are_lower_than_multi_reference(ours: dict) -> None:
    for (lp, system, col), value in ours.items():
        if col.startswith("bleu-") and col != "bleu-all":
            assert value < ours[(lp, system, "bleu-all")]


def test_matches_sacrebleu_command_line(general: Path) -> None:
    hyp = general / "system-outputs" / "generaltest2022.de-en.hyp.Online-B.en"
    refs = [general / "references" / f"generaltest2022.de-en.ref.{x}.en" for x in "AB"]
    exe = Path(sys.executable).with_name("sacrebleu")
    if not exe.exists():
        pytest.skip("sacrebleu console script not found")
    done = subprocess.run([str(exe), *map(str, refs), "-i", str(hyp), "-m", "bleu", "chrf", "-b", "-w", "4"],
                          capture_output=True, text=True, check=True)
    # with several metrics and -b, sacrebleu prints a JSON list of the scores (one number each)
    cli_bleu, cli_chrf = (float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", done.stdout))
    texts = read_aligned([*refs, hyp])
    mine = {m: score_systems({"Online-B": texts[2]}, texts[:2], m)["systems"]["Online-B"] for m in ("bleu", "chrf")}
    assert mine["bleu"] == pytest.approx(cli_bleu, abs=5e-5)
    assert mine["chrf"] == pytest.approx(cli_chrf, abs=5e-5)


def test_cli_json_contract(general: Path, capsys) -> None:
    hyps = [general / "system-outputs" / f"generaltest2022.cs-en.hyp.{s}.en" for s in ("Online-W", "CUNI-Transformer")]
    refs = [general / "references" / f"generaltest2022.cs-en.ref.{x}.en" for x in "BC"]
    code = main(["score", "--lp", "cs-en", "--hyp", *map(str, hyps), "--ref", *map(str, refs),
                 "--metric", "bleu", "chrf", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert [o["metric"] for o in out] == ["bleu", "chrf"]
    for obj in out:
        assert set(obj) == {"lp", "metric", "signature", "systems"}
        assert obj["lp"] == "cs-en"
        assert set(obj["systems"]) == {"Online-W", "CUNI-Transformer"}
    assert out[0]["systems"]["Online-W"] == pytest.approx(68.657, abs=0.001)  # organisers: 68.6573
    assert out[0]["signature"].startswith("BLEU|nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.")
    assert out[1]["signature"].startswith("chrF2|nrefs:2|")


def test_cli_single_metric_with_segments(general: Path, capsys) -> None:
    hyps = [general / "system-outputs" / f"generaltest2022.cs-en.hyp.{s}.en" for s in ("Online-A", "Online-B")]
    code = main(["score", "--lp", "cs-en", "--hyp", *map(str, hyps),
                 "--ref", str(general / "references" / "generaltest2022.cs-en.ref.B.en"),
                 "--metric", "bleu", "--segments", "--json", "--decimals", "-1"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert isinstance(out, dict) and set(out["systems"]) == {"Online-A", "Online-B"}
    assert all(len(v) == 1448 for v in out["segments"].values())
    assert "eff:yes" in out["segment_signature"] and "nrefs:1" in out["signature"]


def test_segment_scores_equal_sentence_scores(general: Path) -> None:
    refs = read_aligned([general / "references" / f"generaltest2022.cs-en.ref.{x}.en" for x in "BC"])
    hyp = read_aligned([general / "system-outputs" / "generaltest2022.cs-en.hyp.Lan-Bridge.en"])[0]
    n = 40
    refs, hyp = [r[:n] for r in refs], hyp[:n]
    for metric, obj in [("bleu", BLEU(effective_order=True)), ("chrf", CHRF()), ("chrf++", CHRF(word_order=2)),
                        ("ter", TER())]:
        res = score_systems({"x": hyp}, refs, metric, segments=True)
        expected = [obj.sentence_score(h, [a, b]).score for h, a, b in zip(hyp, *refs)]
        assert res["segments"]["x"] == pytest.approx(expected, abs=1e-9), metric
        corpus = (BLEU() if metric == "bleu" else obj).corpus_score(hyp, refs).score
        assert res["systems"]["x"] == pytest.approx(corpus, abs=1e-9), metric
    assert res["higher_is_better"] is False  # TER


def test_system_name_parsing() -> None:
    assert system_name("a/generaltest2022.cs-en.hyp.Online-W.en") == "Online-W"
    assert system_name("generaltest2022.cs-en.hyp.Online-W.2.en.gz") == "Online-W.2"
    assert system_name("out/mysystem.txt") == "mysystem"
    assert reference_name("generaltest2022.de-en.ref.A.en") == "A"


# ---- malformed input ------------------------------------------------------------------------

def _write(path: Path, data: bytes | str) -> Path:
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def test_mismatched_line_counts_name_file_and_line(tmp_path: Path) -> None:
    ref = _write(tmp_path / "t.cs-en.ref.A.en", "a b\nc d\ne f\n")
    hyp = _write(tmp_path / "t.cs-en.hyp.S.en", "a b\nc d\n")
    with pytest.raises(InputError) as err:
        read_aligned([ref, hyp])
    assert err.value.file == str(hyp) and err.value.line == 3
    assert "2 lines" in err.value.message and "3" in err.value.message


def test_empty_and_blank_outputs_are_refused(tmp_path: Path) -> None:
    ref = _write(tmp_path / "r.txt", "a\nb\n")
    for content in ("", "\n\n"):
        hyp = _write(tmp_path / "h.txt", content)
        with pytest.raises(InputError) as err:
            read_aligned([ref, hyp])
        assert err.value.file == str(hyp) and "empty" in err.value.message


def test_bad_utf8_names_line(tmp_path: Path) -> None:
    ref = _write(tmp_path / "r.txt", "a\nb\nc\n")
    hyp = _write(tmp_path / "h.txt", b"ok\nfine\nbro\xffken\n")
    with pytest.raises(InputError) as err:
        read_aligned([ref, hyp])
    assert err.value.file == str(hyp) and err.value.line == 3 and "UTF-8" in err.value.message


def test_cli_errors_exit_2_with_location(tmp_path: Path, capsys) -> None:
    ref = _write(tmp_path / "t.cs-en.ref.A.en", "the cat\nsat on\nthe mat\n")
    hyp = _write(tmp_path / "t.cs-en.hyp.S.en", "the cat\nsat\n")
    assert main(["score", "--hyp", str(hyp), "--ref", str(ref)]) == 2
    err = capsys.readouterr().err
    assert "t.cs-en.hyp.S.en, line 3:" in err
    assert main(["score", "--hyp", str(ref), "--ref", str(ref), "--metric", "meteor"]) == 2
    assert "unknown metric 'meteor'" in capsys.readouterr().err
    assert main(["score", "--lp", "de-en", "--hyp", str(tmp_path), "--ref", str(ref)]) == 2
    assert "no file whose name contains '.de-en.hyp.'" in capsys.readouterr().err
    assert main(["score", "--lp", "de-en", "--hyp", str(hyp), "--ref", str(ref)]) == 2
    assert "the file name says language pair cs-en, but --lp is de-en" in capsys.readouterr().err


def test_cli_text_output(tmp_path: Path, capsys) -> None:
    ref = _write(tmp_path / "t.cs-en.ref.A.en", "the cat sat on the mat\nit was a sunny day today\n")
    _write(tmp_path / "t.cs-en.hyp.Good.en", "the cat sat on the mat\nit was a sunny day today\n")
    _write(tmp_path / "t.cs-en.hyp.Bad.en", "a dog stood\nrain\n")
    assert main(["score", "--lp", "cs-en", "--hyp", str(tmp_path), "--ref", str(ref), "--metric", "bleu", "ter"]) == 0
    out = capsys.readouterr().out
    assert "Good" in out and "100.000" in out and "TER|nrefs:1" in out


def test_score_systems_checks_lengths() -> None:
    with pytest.raises(InputError, match="system 'b' has 1 segments"):
        score_systems({"a": ["x y", "z"], "b": ["x"]}, [["x y", "z"]], "bleu")
    with pytest.raises(InputError, match="only empty segments"):
        score_systems({"a": ["", ""]}, [["x y", "z"]], "chrf")


@settings(max_examples=25, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"),
                        min_size=1, max_size=12), min_size=1, max_size=8))
def test_read_segments_roundtrip(tmp_path_factory, lines: list[str]) -> None:
    if not any(line.rstrip() for line in lines):
        return
    path = tmp_path_factory.mktemp("rt") / "f.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    # same rule as sacrebleu's reader: split on \n only, strip trailing whitespace
    assert read_aligned([path])[0] == [line.rstrip() for line in lines]


# ---- every reference configuration at once: equal to plain sacrebleu ---------------------------

DEMO_TEXTS = Path(__file__).resolve().parents[1] / "leaderboard" / "demo_data" / "wmt22-cs-en" / "texts"


@pytest.fixture
def empty_statistics_cache(monkeypatch):
    """A fresh statistics cache, so that what a test checks is computed, not read back."""
    with fresh_statistics() as scoring:
        yield scoring


@contextmanager
def fresh_statistics():
    """metrics.scoring with nothing kept: an empty memory cache and no statistics folder."""
    from collections import OrderedDict
    from unittest import mock

    import metrics.scoring as scoring
    from metrics.stats_folder import STATS_CACHE_ENV
    with mock.patch.object(scoring, "_stats_cache", OrderedDict()), mock.patch.object(scoring, "_stats_size", 0), \
            mock.patch.dict(os.environ):
        os.environ.pop(STATS_CACHE_ENV, None)
        yield scoring


def _demo(systems: tuple[str, ...]) -> tuple[list[list[str]], dict[str, list[str]]]:
    files = [DEMO_TEXTS / f"generaltest2022.cs-en.ref.{x}.en.gz" for x in "BC"]
    files += [DEMO_TEXTS / f"generaltest2022.cs-en.hyp.{s}.en.gz" for s in systems]
    texts = read_aligned(files)
    return texts[:2], dict(zip(systems, texts[2:]))


@pytest.mark.slow
def test_by_reference_scores_equal_plain_sacrebleu_on_wmt22(empty_statistics_cache) -> None:
    refs, hyps = _demo(("Online-W",))
    alone_scores = {}  # (metric, system, reference) → plain sacrebleu's score against that reference alone
    # (chrF++ is checked on statistics below)
    for metric, make in [("bleu", BLEU), ("chrf", CHRF)]:
        res = score_systems(hyps, refs, metric, by_reference=True, segments=True)
        assert len(res["by_reference"]) == 2
        for system, hyp in hyps.items():
            plain_metric = make()
            plain = plain_metric.corpus_score(hyp, refs)
            assert res["systems"][system] == plain.score, (metric, system)  # exactly sacrebleu's number
            for k, ref in enumerate(refs):
                alone = alone_scores[(metric, system, k)] = make().corpus_score(hyp, [ref]).score
                assert res["by_reference"][k]["systems"][system] == alone, (metric, system, k)
        sig = plain_metric.get_signature().format()  # sacrebleu's signature once it has scored with both references
        assert res["signature"] == f"{plain.name}|{sig}" and "nrefs:2" in sig
        assert res["by_reference"][0]["signature"] == f"{plain.name}|{sig.replace('nrefs:2', 'nrefs:1')}"
        # the segment scores against both references are sacrebleu's sentence scores (first 30 checked)
        seg_obj = BLEU(effective_order=True) if metric == "bleu" else make()
        hyp = hyps["Online-W"]
        expected = [seg_obj.sentence_score(h, [a, b]).score for h, a, b in list(zip(hyp, *refs))[:30]]
        assert res["segments"]["Online-W"][:30] == pytest.approx(expected, abs=1e-9)
    # the odd one out: a single reference gives its own scores as the only "by reference" entry
    one = score_systems({"x": hyps["Online-W"]}, refs[:1], "chrf", by_reference=True)
    assert one["by_reference"] == [{"signature": one["signature"], "systems": one["systems"]}]
    assert one["systems"]["x"] == alone_scores[("chrf", "Online-W", 0)]  # CHRF().corpus_score(hyp, refs[:1])


@pytest.mark.slow
def test_statistics_by_reference_equal_sacrebleu_and_fill_the_cache(empty_statistics_cache) -> None:
    scoring = empty_statistics_cache
    refs, hyps = _demo(("Lan-Bridge",))
    n = 500  # a third of the test set: the full one is checked through the scores above
    refs, hyp = [r[:n] for r in refs], hyps["Lan-Bridge"][:n]
    for make in (lambda **kw: BLEU(tokenize="13a", **kw), CHRF, lambda **kw: CHRF(word_order=2, **kw)):
        configs = [(make(references=refs), scoring.text_digest(*refs))]
        configs += [(make(references=[ref]), scoring.text_digest(ref)) for ref in refs]
        got = scoring.statistics_by_reference(configs, hyp)
        assert len(got) == 3
        for ref_set, stats in zip([refs, refs[:1], refs[1:]], got):
            # sacrebleu's own statistics, from a fresh object made with these references
            plain = make(references=ref_set)._extract_corpus_statistics(hyp, None)
            assert np.array_equal(np.asarray(stats), np.asarray(plain))
        # each configuration's statistics are kept: asking again for one reference alone reads the cache
        single, key = configs[2]
        single._extract_corpus_statistics = lambda *a: pytest.fail("recomputed")  # type: ignore[method-assign]
        assert scoring.corpus_statistics(single, key, hyp) == got[2]


_SMALL_LINES = st.lists(st.text(alphabet="ab. ", max_size=6), min_size=1, max_size=6)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_statistics_by_reference_equal_sacrebleu_on_small_texts(data) -> None:
    """Small alphabets make ties in the sentence f-score likely: sacrebleu keeps the first reference."""
    import metrics.scoring as scoring
    hyp = data.draw(_SMALL_LINES)
    n_refs = data.draw(st.integers(2, 3))
    refs = [data.draw(st.lists(st.text(alphabet="ab. ", max_size=6), min_size=len(hyp), max_size=len(hyp)))
            for _ in range(n_refs)]
    with fresh_statistics():
        for make in (BLEU, CHRF, lambda **kw: CHRF(word_order=2, **kw), lambda **kw: CHRF(whitespace=True, **kw)):
            configs = [(make(references=refs), scoring.text_digest(*refs))]
            configs += [(make(references=[ref]), scoring.text_digest(ref)) for ref in refs]
            got = scoring.statistics_by_reference(configs, hyp)
            for ref_set, stats in zip([refs, *([ref] for ref in refs)], got):
                assert stats == make(references=ref_set)._extract_corpus_statistics(hyp, None)


def test_statistics_by_reference_prefers_the_first_reference_on_ties() -> None:
    """Two references with equal sentence f-score but different statistics: sacrebleu's multi-reference
    statistics are the first one's, and so are ours. By hand, character orders 1 and 2: ``ab`` against
    ``c`` is [2 hyp, 1 ref, 0 match] + [0, 0, 0] (sacrebleu counts no hypothesis bigram when the
    reference has none), against ``cc`` [2, 2, 0] +
    [1, 1, 0]; no match, so both f-scores are 0."""
    import metrics.scoring as scoring
    hyp, ref_a, ref_b = ["ab"], ["c"], ["cc"]
    obj = CHRF(char_order=2, word_order=0)
    a = obj._extract_corpus_statistics(hyp, [ref_a])[0]
    b = obj._extract_corpus_statistics(hyp, [ref_b])[0]
    assert a == [2, 1, 0, 0, 0, 0] and b == [2, 2, 0, 1, 1, 0]
    assert obj._compute_f_score(a) == obj._compute_f_score(b) == 0.0
    with fresh_statistics():
        for first, second in ((ref_a, ref_b), (ref_b, ref_a)):
            configs = [(CHRF(char_order=2, word_order=0, references=[first, second]), "both")]
            configs += [(CHRF(char_order=2, word_order=0, references=[r]), name)
                        for r, name in ((first, "first"), (second, "second"))]
            got = scoring.statistics_by_reference(configs, hyp, hypotheses_key=str(first))
            assert got[0] == got[1] == obj._extract_corpus_statistics(hyp, [first])
            assert got[2] == obj._extract_corpus_statistics(hyp, [second])
            assert got[0] == CHRF(char_order=2, word_order=0, references=[first, second]) \
                ._extract_corpus_statistics(hyp, None)
