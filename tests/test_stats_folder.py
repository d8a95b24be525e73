"""The statistics folder (MTLB_STATS_CACHE): what one process computes, the next reads back, with the
same scores as sacrebleu; a damaged file is computed again; without the setting nothing is written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import OrderedDict

import pytest
from sacrebleu.metrics import BLEU, CHRF

import metrics.scoring as scoring
from metrics.stats_folder import STATS_CACHE_ENV

HYPS = {"A": ["The cat sat on the mat.", "It was raining all day .", "Short one"],
        "B": ["A cat is sitting on a mat.", "Rain fell the whole day.", "A short line"]}
REFS = [["The cat sat on the mat.", "It rained all day.", "A short line."],
        ["A cat was on the mat.", "The whole day it rained.", "One short line."]]


@pytest.fixture()
def folder(tmp_path, monkeypatch):
    """An empty statistics folder and an empty memory cache."""
    monkeypatch.setenv(STATS_CACHE_ENV, str(tmp_path / "stats"))
    monkeypatch.setattr(scoring, "_stats_cache", OrderedDict())
    monkeypatch.setattr(scoring, "_stats_size", 0)
    return tmp_path / "stats"


def sacrebleu_scores(metric) -> dict[str, float]:
    return {name: metric.corpus_score(lines, REFS).score for name, lines in HYPS.items()}


def test_a_second_process_reads_the_statistics_back(folder):
    first = scoring.score_systems(HYPS, REFS, "chrf")["systems"]
    assert first == pytest.approx(sacrebleu_scores(CHRF()), abs=1e-9)
    files = sorted(folder.rglob("*.npy"))
    assert len(files) == len(HYPS)  # one per system: chrF against both references
    # another process, whose sacrebleu may not compute anything: every statistic comes from the folder
    code = ("import json, sys\nfrom sacrebleu.metrics import CHRF\nimport metrics.scoring as s\n"
            "def refuse(*a, **k):\n    raise AssertionError('computed again')\n"
            "CHRF._extract_corpus_statistics = refuse\n"
            f"print(json.dumps(s.score_systems({HYPS!r}, {REFS!r}, 'chrf')['systems']))\n")
    # nor pre-process the references: their n-grams are only needed to compute statistics
    code = code.replace("CHRF._extract_corpus_statistics = refuse\n",
                        "CHRF._extract_corpus_statistics = refuse\nCHRF._cache_references = refuse\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, STATS_CACHE_ENV: str(folder)})
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == pytest.approx(first, abs=1e-12)


@pytest.mark.parametrize("metric, make", [("bleu", BLEU), ("chrf", CHRF), ("chrf++", lambda **k: CHRF(word_order=2, **k))])
def test_signatures_count_references_as_sacrebleu_does(metric, make):
    """References are read lazily, yet the signature counts them as sacrebleu's own object does: two,
    one, or a varying number (a missing reference is None; sacrebleu prints nrefs:var)."""
    varying = [REFS[0], [REFS[1][0], None, REFS[1][2]]]
    for refs in (REFS, REFS[:1], varying):
        ours = scoring.make_metric(metric, references=refs)
        assert ours.get_signature().format() == make(references=refs).get_signature().format()
        assert ours._ref_cache is None  # nothing extracted yet


def test_a_damaged_file_is_computed_again(folder, monkeypatch):
    scoring.score_systems(HYPS, REFS, "bleu")
    for path in folder.rglob("*.npy"):
        path.write_bytes(b"not numbers")
    monkeypatch.setattr(scoring, "_stats_cache", OrderedDict())
    monkeypatch.setattr(scoring, "_stats_size", 0)
    again = scoring.score_systems(HYPS, REFS, "bleu")["systems"]
    assert again == pytest.approx(sacrebleu_scores(BLEU()), abs=1e-9)
    import numpy as np
    assert all(np.load(path).ndim == 2 for path in folder.rglob("*.npy"))  # written anew


def test_without_the_setting_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.delenv(STATS_CACHE_ENV, raising=False)
    monkeypatch.setattr(scoring, "_stats_cache", OrderedDict())
    monkeypatch.setattr(scoring, "_stats_size", 0)
    monkeypatch.chdir(tmp_path)
    assert scoring.score_systems(HYPS, REFS, "chrf")["systems"] == pytest.approx(sacrebleu_scores(CHRF()), abs=1e-9)
    assert not list(tmp_path.rglob("*.npy"))
