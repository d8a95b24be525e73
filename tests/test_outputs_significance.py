"""The automatic leaderboard's paired bootstrap equals sacrebleu's own, p-value for p-value.

sacrebleu tests each system against one baseline; ours computes every pair from one set of draws.
The p-values, intervals and even the resampled scores must be the same numbers as sacrebleu's
(its Python API with the default seed 12345 and 1000 resamples, and its ``--paired-bs`` command line).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.significance import PairedTest, _bootstrap_resample

from leaderboard.outputs.board import build_board, directional, pick_entries
from leaderboard.outputs.sacrestats import bleu_scores, chrf_scores
from leaderboard.outputs.significance import paired_bootstrap, resampled_sums, resample_indices
from metrics.textfiles import read_segments

SACREBLEU = Path(sys.executable).with_name("sacrebleu")


def random_stats(metric: str, rows: int, seed: int) -> np.ndarray:
    """Plausible summed statistics, with the corner cases sacrebleu branches on."""
    rng = np.random.default_rng(seed)
    if metric == "bleu":
        hyp_len = rng.integers(0, 60, rows)
        ref_len = rng.integers(1, 60, rows)
        total = np.stack([np.maximum(hyp_len - n, 0) for n in range(4)], axis=1)
        correct = (total * rng.random((rows, 4)) * rng.integers(0, 2, (rows, 4))).astype(int)
        return np.column_stack([hyp_len, ref_len, correct, total]).astype(np.float32)
    n_hyp = rng.integers(0, 300, (rows, 6)) * rng.integers(0, 2, (rows, 6))
    n_ref = rng.integers(0, 300, (rows, 6)) * rng.integers(0, 2, (rows, 6))
    n_match = (np.minimum(n_hyp, n_ref) * rng.random((rows, 6))).astype(int)
    stats = np.stack([n_hyp, n_ref, n_match], axis=2).reshape(rows, 18)
    stats[:5] = 0  # nothing at all: sacrebleu returns a Python 0.0
    return stats.astype(np.float32)


@pytest.mark.parametrize("metric, scorer, cls", [("bleu", bleu_scores, BLEU), ("chrf", chrf_scores, CHRF)])
def test_vectorised_scores_equal_sacrebleu_bit_for_bit(metric, scorer, cls):
    stats = random_stats(metric, 3000, seed=7)
    obj = cls()
    theirs = np.array([obj._compute_score_from_stats(row).score for row in stats])
    mine = scorer(stats)
    assert mine.dtype == theirs.dtype
    assert np.array_equal(mine, theirs)


def test_resampled_sums_are_sacrebleus_float32_sums():
    rng = np.random.default_rng(3)
    stats = rng.integers(0, 500, (137, 18))
    idxs = resample_indices(137, 50, seed=12345)
    expected = np.stack([stats.astype(np.float32)[row].sum(0) for row in idxs])
    assert np.array_equal(resampled_sums(stats, idxs), expected)
    # the draws are sacrebleu's
    assert np.array_equal(idxs, np.random.default_rng(12345).choice(137, size=(50, 137), replace=True))


@pytest.fixture(scope="module")
def excerpt(shared):
    """The first 300 segments of five WMT22 cs-en systems and both references."""
    general = shared / "wmt22-general"
    refs = [read_segments(general / "references" / f"generaltest2022.cs-en.ref.{x}.en")[:300] for x in "BC"]
    names = ["Online-W", "Online-B", "CUNI-Transformer", "CUNI-DocTransformer", "SHOPLINE-PL"]
    hyps = {n: read_segments(general / "system-outputs" / f"generaltest2022.cs-en.hyp.{n}.en")[:300] for n in names}
    return refs, hyps


@pytest.mark.parametrize("metric, cls, key", [("bleu", BLEU, "BLEU"), ("chrf", CHRF, "chrF2")])
def test_pvalues_and_intervals_equal_sacrebleu_paired_bootstrap(excerpt, metric, cls, key):
    refs, hyps = excerpt
    names = list(hyps)
    obj = cls(references=refs)
    stats = {n: np.array(obj._extract_corpus_statistics(h, None)) for n, h in hyps.items()}
    ours = paired_bootstrap(stats, metric)
    compared = 0
    for b, baseline in enumerate(names[:3]):  # every system against three baselines: all pairs of those
        order = [baseline] + [n for n in names if n != baseline]
        _, results = PairedTest([(n, hyps[n]) for n in order], {key: cls(references=refs)}, references=None,
                                test_type="bs")()
        for name, res in zip(order, results[key]):
            i = names.index(name)
            assert ours.scores[i] == res.score
            # sacrebleu's "± ci" is half the 95% interval; its mean is that of its own float dtype
            assert 0.5 * (ours.ci[i, 1] - ours.ci[i, 0]) == pytest.approx(res.ci, abs=1e-9)
            assert ours.mean[i] == pytest.approx(res.mean, abs=1e-4)
            if name != baseline:
                assert ours.pvalues[names.index(baseline), i] == res.p_value  # exactly equal
                compared += 1
    assert compared == 12
    assert np.allclose(ours.pvalues, ours.pvalues.T, equal_nan=True)
    # the resampled scores themselves are sacrebleu's
    _, samples = _bootstrap_resample(stats[names[0]].tolist(), cls(), 1000)
    theirs = np.array([s.score for s in samples])
    assert np.array_equal(ours.samples[0].astype(theirs.dtype), theirs)
    assert 0 < np.nanmin(ours.pvalues) < np.nanmax(ours.pvalues) <= 1


def _cli_pvalues(text: str) -> list[tuple[float, float]]:
    """(BLEU p, chrF p) of each non-baseline row of sacrebleu's text table."""
    rows = re.findall(r"\(p = ([0-9.]+)\)\*?\s*│\s*\(p = ([0-9.]+)\)", text)
    return [(float(a), float(b)) for a, b in rows]


def test_pvalues_equal_sacrebleu_command_line(tmp_path):
    if not SACREBLEU.exists():
        pytest.skip("sacrebleu console script not found")
    rng = np.random.default_rng(11)
    vocab = [f"w{i}" for i in range(40)]
    ref = [" ".join(rng.choice(vocab, 12)) for _ in range(60)]

    def noisy(p: float) -> list[str]:
        return [" ".join(w if rng.random() > p else rng.choice(vocab) for w in line.split()) for line in ref]

    systems = {f"s{k}": noisy(p) for k, p in enumerate([0.30, 0.32, 0.45, 0.31])}
    paths = {}
    for name, lines in [("ref", ref), *systems.items()]:
        paths[name] = tmp_path / f"{name}.txt"
        paths[name].write_text("\n".join(lines) + "\n")
    done = subprocess.run([str(SACREBLEU), str(paths["ref"]), "-i", *[str(paths[s]) for s in systems],
                           "--paired-bs", "-m", "bleu", "chrf", "-f", "text"], capture_output=True, text=True,
                          check=True)
    cli = _cli_pvalues(done.stdout)
    assert len(cli) == 3
    bleu = paired_bootstrap({n: np.array(BLEU(references=[ref])._extract_corpus_statistics(h, None))
                             for n, h in systems.items()}, "bleu")
    chrf = paired_bootstrap({n: np.array(CHRF(references=[ref])._extract_corpus_statistics(h, None))
                             for n, h in systems.items()}, "chrf")
    for k, (p_bleu, p_chrf) in enumerate(cli, start=1):
        assert round(bleu.pvalues[0, k], 4) == p_bleu
        assert round(chrf.pvalues[0, k], 4) == p_chrf
    assert any(p > 0.05 for pair in cli for p in pair)  # the test is not trivially all-significant


def test_clusters_follow_significance_in_score_order():
    # three systems: a and b tied (p = 0.3), both significantly above c
    p = np.array([[np.nan, 0.3, 0.001], [0.3, np.nan, 0.002], [0.001, 0.002, np.nan]])
    d = directional(p, np.array([70.0, 69.5, 60.0]))
    assert d[0, 1] == 0.3 and d[1, 0] == 1.0 and d[2, 0] == 1.0 and d[0, 2] == 0.001


def test_board_picks_primary_else_best_and_sorts_by_chrf():
    import pandas as pd
    subs = pd.DataFrame({
        "id": [1, 2, 3, 4, 5], "team": ["A", "A", "B", "B", "C"], "system": ["a1", "a2", "b1", "b2", "c1"],
        "primary": [False, True, False, False, False], "withdrawn": [False, False, False, True, False],
        "chrf": [80.0, 60.0, 50.0, 90.0, 55.0]})
    picked = pick_entries(subs)
    assert dict(zip(picked["team"], picked["id"])) == {"A": 2, "B": 3, "C": 5}
    rng = np.random.default_rng(0)
    good = rng.integers(5, 10, (80, 18)) * np.array([1, 1, 1] * 6)
    stats = {}
    for sid, quality in ((2, 0.9), (3, 0.5), (5, 0.7)):
        s = good.copy()
        s[:, 2::3] = (s[:, 0::3] * quality).astype(int)
        b = np.column_stack([s[:, 0], s[:, 0], (s[:, 0:4] * quality).astype(int), s[:, 0:4]])
        stats[sid] = {"chrf": s, "bleu": b}
    board = build_board(picked.assign(constrained=None, open_source=None), stats, n_samples=200)
    assert [s["team"] for s in board["systems"]] == ["A", "C", "B"]
    assert [s["cluster"] for s in board["systems"]] == [1, 2, 3]
    assert board["pvalues"]["chrf"]["a2"]["b1"] == board["pvalues"]["chrf"]["b1"]["a2"]
    # rank stability: in each of sacrebleu's resamples (same indices, seed 12345), rank the systems by
    # their resampled chrF; the board's shares are how often each system lands on each rank
    chrf = paired_bootstrap({name: stats[sid]["chrf"] for name, sid in (("a2", 2), ("c1", 5), ("b1", 3))},
                            "chrf", n_samples=200)
    counts = np.zeros((3, 3))
    for b in range(200):
        column = chrf.samples[:, b]
        for rank, k in enumerate(sorted(range(3), key=lambda k: -column[k])):
            counts[k, rank] += 1
    shares = np.array([s["rank_shares"] for s in board["systems"]])
    assert shares == pytest.approx(counts / 200, abs=1e-4)
    assert shares.sum(axis=0) == pytest.approx(1) and shares.sum(axis=1) == pytest.approx(1)
