"""sacrebleu's BLEU and chrF formulas applied to many rows of sufficient statistics at once.

sacrebleu's paired bootstrap sums each resample's segment statistics as ``float32`` and computes
the score with its scalar Python code, so the numbers it compares carry float32 rounding (chrF is
computed entirely in float32; BLEU's precisions are float32, the rest float64 through ``math``).
These functions repeat exactly those operations, in the same order and precision, on arrays of
shape (rows, statistics), so every bootstrap score equals sacrebleu's bit for bit (the tests
compare them with ``==``). ``math.log`` / ``math.exp`` are applied element-wise on purpose: numpy's
own ``exp`` / ``log`` differ from them in the last bit for a few percent of arguments.

Defaults only: BLEU with 4-gram precisions and exponential smoothing, chrF with character order 6,
no word n-grams, beta 2 (sacrebleu's defaults and the WMT organisers' settings).
"""

from __future__ import annotations

import math
import sys

import numpy as np

BLEU_ORDER = 4
CHRF_ORDER = 6
CHRF_BETA = 2
#: Number of statistics per segment: BLEU (hyp len, ref len, 4 matches, 4 totals), chrF (3 × 6).
N_STATS = {"bleu": 2 + 2 * BLEU_ORDER, "chrf": 3 * CHRF_ORDER}

_log = np.frompyfunc(math.log, 1, 1)
_exp = np.frompyfunc(math.exp, 1, 1)


def _python_sum(columns: list[np.ndarray]) -> np.ndarray:
    """``sum([a, b, c, d])`` of Python floats, row-wise: plain left-to-right addition before
    Python 3.12, Neumaier's compensated summation (what ``sum`` does for floats) from 3.12 on."""
    total = columns[0].copy()
    if sys.version_info < (3, 12):
        for col in columns[1:]:
            total = total + col
        return total
    comp = np.zeros_like(total)
    for col in columns[1:]:
        t = total + col
        comp += np.where(np.abs(total) >= np.abs(col), (total - t) + col, (col - t) + total)
        total = t
    return np.where((comp != 0) & np.isfinite(comp), total + comp, total)


def bleu_scores(stats: np.ndarray) -> np.ndarray:
    """Corpus BLEU of each row of summed statistics (``float32`` as sacrebleu's bootstrap keeps them).

    Columns: hypothesis length, reference length, matches of 1..4-grams, totals of 1..4-grams.
    Returns float64 scores in 0-100.
    """
    s = np.asarray(stats, dtype=np.float32)
    sys_len = s[:, 0].astype(np.int64)
    ref_len = s[:, 1].astype(np.int64)
    correct, total = s[:, 2:2 + BLEU_ORDER], s[:, 2 + BLEU_ORDER:2 + 2 * BLEU_ORDER]
    rows = len(s)
    # brevity penalty: math.exp(1 - ref_len / sys_len) in float64, 0 for an empty output
    bp = np.ones(rows)
    short = sys_len < ref_len
    ratio = np.divide(ref_len, sys_len, out=np.zeros(rows), where=short & (sys_len > 0))
    bp[short] = 0.0
    live = short & (sys_len > 0)
    if live.any():
        bp[live] = _exp(1.0 - ratio[live]).astype(np.float64)
    # n-gram precisions in float32; sacrebleu stops at the first order with no n-grams at all
    smooth = np.ones(rows, dtype=np.float32)
    stopped = np.zeros(rows, dtype=bool)
    logs = []
    hundred = np.float32(100.0)
    for n in range(BLEU_ORDER):
        stopped |= total[:, n] == 0
        zero = correct[:, n] == 0
        smooth = np.where(zero & ~stopped, smooth * np.float32(2), smooth)
        with np.errstate(divide="ignore", invalid="ignore"):
            prec = np.where(zero, hundred / (smooth * total[:, n]), (hundred * correct[:, n]) / total[:, n])
        prec = np.where(stopped, np.float32(1), prec)  # placeholder; a stopped row scores 0 below
        logs.append(_log(prec.astype(np.float64)).astype(np.float64))
    score = bp * _exp(_python_sum(logs) / BLEU_ORDER).astype(np.float64)
    # a stopped row has a zero precision (log floored at -9999999999: exp gives 0); no match at all: 0
    score[stopped | ~(correct != 0).any(axis=1)] = 0.0
    return score


def chrf_scores(stats: np.ndarray) -> np.ndarray:
    """chrF of each row of summed statistics, computed in float32 as sacrebleu's bootstrap does.

    Columns: (hypothesis n-grams, reference n-grams, matches) for character orders 1..6. The
    result is float32 unless a row scores exactly 0 through sacrebleu's Python-float branch, in
    which case (as ``np.array`` of the mixed list would be) it is float64.
    """
    s = np.asarray(stats, dtype=np.float32)
    rows = len(s)
    avg_prec = np.zeros(rows, dtype=np.float32)
    avg_rec = np.zeros(rows, dtype=np.float32)
    eff = np.zeros(rows, dtype=np.int64)
    for i in range(CHRF_ORDER):
        n_hyp, n_ref, n_match = s[:, 3 * i], s[:, 3 * i + 1], s[:, 3 * i + 2]
        ok = (n_hyp > 0) & (n_ref > 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            avg_prec = np.where(ok, avg_prec + n_match / n_hyp, avg_prec)
            avg_rec = np.where(ok, avg_rec + n_match / n_ref, avg_rec)
        eff += ok
    with np.errstate(divide="ignore", invalid="ignore"):
        avg_prec = np.where(eff > 0, avg_prec / eff.astype(np.float32), np.float32(0))
        avg_rec = np.where(eff > 0, avg_rec / eff.astype(np.float32), np.float32(0))
        factor = np.float32(CHRF_BETA ** 2)
        score = (np.float32(1 + CHRF_BETA ** 2) * avg_prec) * avg_rec
        score = score / ((factor * avg_prec) + avg_rec)
        score = np.float32(100) * score
    python_zero = (avg_prec + avg_rec) == 0
    if python_zero.any():
        return np.where(python_zero, 0.0, score.astype(np.float64))
    return score.astype(np.float32)


SCORERS = {"bleu": bleu_scores, "chrf": chrf_scores}
