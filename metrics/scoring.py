"""Automatic scores (BLEU, chrF, chrF++, TER) through sacrebleu's metric objects.

Corpus scores are sacrebleu's own (default settings, so they match ``sacrebleu REF -i HYP``),
computed once per reference set: the references are pre-processed once and every system is
scored against that cache. Each result carries sacrebleu's signature, prefixed with the score
name as sacrebleu prints it (``BLEU|nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0``).

Segment scores reuse the per-segment statistics of the corpus pass. For BLEU they are computed
with ``effective_order=True`` (sacrebleu's advice for sentence BLEU), so they have their own
signature (``segment_signature``); for chrF, chrF++ and TER the segment settings equal the
corpus ones and each segment score equals ``metric.sentence_score(hyp, refs)``.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import Mapping, Sequence

import numpy as np
from sacrebleu.metrics import BLEU, CHRF, TER

from leaderboard.errors import InputError

#: Metric names accepted by :func:`score_systems` (and ``mtlb score --metric``).
METRICS = ("bleu", "chrf", "chrf++", "ter")
#: Direction of each metric: True when a higher score is better.
HIGHER_IS_BETTER = {"bleu": True, "chrf": True, "chrf++": True, "ter": False}


def make_metric(name: str, *, segment: bool = False, references: Sequence[Sequence[str]] | None = None,
                tokenize: str | None = None):
    """A sacrebleu metric object with default settings (``segment`` → sentence-level BLEU settings).

    ``tokenize`` names BLEU's tokeniser (default 13a); see :func:`bleu_tokeniser` for the WMT
    choice by target language.
    """
    key = name.lower()
    if key == "bleu":
        return BLEU(effective_order=segment, references=references, tokenize=tokenize)
    if key == "chrf":
        return CHRF(references=references)
    if key == "chrf++":
        return CHRF(word_order=2, references=references)
    if key == "ter":
        return TER(references=references)
    raise InputError(f"unknown metric {name!r} (choose from {', '.join(METRICS)})", column="metric")


def text_digest(*streams: Sequence[str]) -> str:
    """A digest of aligned text streams (their order, lengths and every line)."""
    digest = hashlib.sha256()
    for lines in streams:
        digest.update(f"\0{len(lines)}\0".encode())
        for line in lines:
            digest.update(line.encode("utf-8", "surrogatepass"))
            digest.update(b"\n")
    return digest.hexdigest()


#: Segment statistics already computed, keyed by (metric settings, references, hypotheses); bounded by
#: the number of numbers kept. The same output is scored on several paths (a submission's own scores,
#: the metric baselines of a published ranking, `mtlb score`), and sacrebleu's n-gram extraction is
#: most of the cost of each.
_STATS_LIMIT = 20_000_000
_stats_cache: OrderedDict[tuple[str, str, str], np.ndarray] = OrderedDict()
_stats_size = 0
_stats_lock = threading.Lock()


def corpus_statistics(metric_obj, references_key: str, hypotheses: Sequence[str], *,
                      hypotheses_key: str | None = None) -> list:
    """sacrebleu's per-segment statistics of ``hypotheses`` against the references ``metric_obj`` was
    made with (``references_key``: their :func:`text_digest`), computed once per content and settings.
    ``hypotheses_key``: the hypotheses' :func:`text_digest` when the caller has it already."""
    global _stats_size
    key = (metric_obj.get_signature().format(), references_key, hypotheses_key or text_digest(hypotheses))
    with _stats_lock:
        found = _stats_cache.get(key)
        if found is not None:
            _stats_cache.move_to_end(key)
            return found.tolist()
    stats = metric_obj._extract_corpus_statistics(list(hypotheses), None)
    kept = np.asarray(stats)
    with _stats_lock:
        if key not in _stats_cache and kept.size <= _STATS_LIMIT:
            _stats_cache[key] = kept
            _stats_size += kept.size
            while _stats_size > _STATS_LIMIT:
                _stats_size -= _stats_cache.popitem(last=False)[1].size
    return stats


def check_bleu_tokeniser(name: str) -> str:
    """``name`` when sacrebleu can tokenise BLEU with it here, else an InputError listing the choices."""
    from sacrebleu.metrics.bleu import _TOKENIZERS
    if name not in _TOKENIZERS:
        raise InputError(f"unknown BLEU tokeniser {name!r} (sacrebleu has {', '.join(_TOKENIZERS)})",
                         column="bleu_tokenize")
    try:
        BLEU(tokenize=name)
    except Exception as exc:  # e.g. ja-mecab without its dictionary installed
        raise InputError(f"the BLEU tokeniser {name!r} cannot run here: {exc}", column="bleu_tokenize") from None
    return name


def signature(metric_obj, score_name: str) -> str:
    """sacrebleu's full signature, prefixed with the score's name (``chrF2|nrefs:1|...``)."""
    return f"{score_name}|{metric_obj.get_signature().format()}"


def bleu_tokeniser_for(lp: str | None) -> str | None:
    """BLEU's tokeniser for a language pair's target language (None = sacrebleu's default, 13a)."""
    if not lp:
        return None
    from leaderboard.languages import bleu_tokeniser, split_lp
    try:
        return bleu_tokeniser(split_lp(lp)[1])
    except InputError:
        return None


def _check_lengths(hyps: Mapping[str, Sequence[str]], refs: Sequence[Sequence[str]]) -> int:
    if not refs:
        raise InputError("at least one reference is needed")
    if not hyps:
        raise InputError("no system outputs to score")
    n = len(refs[0])
    for i, ref in enumerate(refs[1:], start=2):
        if len(ref) != n:
            raise InputError(f"reference {i} has {len(ref)} segments but reference 1 has {n}")
    for system, lines in hyps.items():
        if len(lines) != n:
            raise InputError(f"system {system!r} has {len(lines)} segments but the references have {n}")
        if not any(line.strip() for line in lines):
            raise InputError(f"system {system!r} has only empty segments")
    return n


def score_systems(
    hyps: Mapping[str, Sequence[str]],
    refs: Sequence[Sequence[str]],
    metric: str,
    segments: bool = False,
    *,
    progress: bool = False,
    lp: str | None = None,
) -> dict:
    """Score every system against the same references (one or several reference streams).

    Returns ``{"metric", "signature", "higher_is_better", "systems": {system: corpus score}}``,
    plus ``"segments": {system: [segment scores]}`` and ``"segment_signature"`` when
    ``segments`` is true. ``progress`` shows a tqdm bar over systems on stderr. ``lp`` chooses
    BLEU's tokeniser by target language as WMT does (``zh``, ``ja-mecab``, ``ko-mecab``, else 13a).
    """
    _check_lengths(hyps, refs)
    key = metric.lower()
    tokenize = bleu_tokeniser_for(lp)
    corpus_metric = make_metric(key, references=refs, tokenize=tokenize)
    seg_metric = make_metric(key, segment=True, tokenize=tokenize) if segments and key == "bleu" else corpus_metric
    systems: dict[str, float] = {}
    seg_scores: dict[str, list[float]] = {}
    score_name = ""
    references_key = text_digest(*refs)
    items = list(hyps.items())
    if progress:
        from tqdm import tqdm
        items = tqdm(items, desc=f"{key} systems", unit="system", disable=None, leave=False)
    for system, lines in items:
        # per-segment statistics against the cached references; the corpus score sums them
        stats = corpus_statistics(corpus_metric, references_key, lines)
        score = corpus_metric._aggregate_and_compute(stats)
        score_name = score.name
        systems[system] = float(score.score)
        if segments:
            seg_scores[system] = [float(seg_metric._compute_score_from_stats(s).score) for s in stats]
    result = {"metric": key, "signature": signature(corpus_metric, score_name),
              "higher_is_better": HIGHER_IS_BETTER[key], "systems": systems}
    if segments:
        if seg_metric is not corpus_metric:
            seg_metric.num_refs = corpus_metric.num_refs  # the signature needs it; set by the ref cache
        result["segments"] = seg_scores
        result["segment_signature"] = signature(seg_metric, score_name)
    return result
