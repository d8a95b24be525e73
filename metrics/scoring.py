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
import logging
import threading
import weakref
from collections import OrderedDict
from typing import Mapping, Sequence

import numpy as np
from sacrebleu.metrics import BLEU, CHRF, TER
from sacrebleu.metrics.helpers import extract_all_char_ngrams, extract_word_ngrams

from leaderboard.errors import InputError
from metrics import stats_folder

#: Metric names accepted by :func:`score_systems` (and ``mtlb score --metric``).
METRICS = ("bleu", "chrf", "chrf++", "ter")
#: Direction of each metric: True when a higher score is better.
HIGHER_IS_BETTER = {"bleu": True, "chrf": True, "chrf++": True, "ter": False}


def make_metric(name: str, *, segment: bool = False, references: Sequence[Sequence[str]] | None = None,
                tokenize: str | None = None):
    """A sacrebleu metric object with default settings (``segment`` → sentence-level BLEU settings).

    ``tokenize`` names BLEU's tokeniser (default 13a); see :func:`bleu_tokeniser` for the WMT
    choice by target language. ``references`` are counted for the signature at once, as sacrebleu
    counts them, but pre-processed only when statistics must be computed (:func:`with_references`):
    when every statistic is in the cache, their n-grams are never extracted.
    """
    key = name.lower()
    if key == "bleu":
        obj = BLEU(effective_order=segment, tokenize=tokenize)
    elif key == "chrf":
        obj = CHRF()
    elif key == "chrf++":
        obj = CHRF(word_order=2)
    elif key == "ter":
        obj = TER()
    else:
        raise InputError(f"unknown metric {name!r} (choose from {', '.join(METRICS)})", column="metric")
    if references is not None:
        obj.num_refs = reference_count(references)
        _pending_references[obj] = references
    return obj


def reference_count(references: Sequence[Sequence[str]]) -> int:
    """References per segment as sacrebleu's signature counts them (missing ones, None, dropped): the
    one count, or -1 when it varies (sacrebleu prints ``nrefs:var``)."""
    counts = {sum(line is not None for line in segment) for segment in zip(*references)}
    return counts.pop() if len(counts) == 1 else -1


#: metric objects whose references are not pre-processed yet (by object identity)
_pending_references: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_references_lock = threading.Lock()


def with_references(metric_obj):
    """``metric_obj`` with its references pre-processed (sacrebleu's reference cache), done once per
    object even when threads share it."""
    if metric_obj in _pending_references:
        with _references_lock:  # the entry goes only once the cache is there: no thread sees neither
            pending = _pending_references.get(metric_obj)
            if pending is not None:
                metric_obj._ref_cache = metric_obj._cache_references(pending)
                del _pending_references[metric_obj]
    return metric_obj


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
    key = (metric_obj.get_signature().format(), references_key, hypotheses_key or text_digest(hypotheses))
    found = _cached_stats(key)
    if found is not None:
        return found.tolist()
    stats = with_references(metric_obj)._extract_corpus_statistics(list(hypotheses), None)
    _keep_stats(key, stats)
    return stats


def _cached_stats(key: tuple[str, str, str]) -> np.ndarray | None:
    """Statistics kept in memory, else in the statistics folder (``MTLB_STATS_CACHE``), else None."""
    with _stats_lock:
        found = _stats_cache.get(key)
        if found is not None:
            _stats_cache.move_to_end(key)
            return found
    found = stats_folder.load(key)
    if found is not None:
        _keep_in_memory(key, found)
    return found


def _keep_stats(key: tuple[str, str, str], stats: list) -> None:
    kept = np.asarray(stats)
    _keep_in_memory(key, kept)
    stats_folder.save(key, kept)


def _keep_in_memory(key: tuple[str, str, str], kept: np.ndarray) -> None:
    global _stats_size
    with _stats_lock:
        if key not in _stats_cache and kept.size <= _STATS_LIMIT:
            _stats_cache[key] = kept
            _stats_size += kept.size
            while _stats_size > _STATS_LIMIT:
                _stats_size -= _stats_cache.popitem(last=False)[1].size


def _settings(metric_obj) -> dict:
    """The metric's signature fields but the number of references (what must match to share work)."""
    return {k: v for k, v in metric_obj.get_signature().info.items() if k != "nrefs"}


def _shares_work(configs: Sequence[tuple[object, str]], n: int) -> bool:
    """Whether :func:`statistics_by_reference` may share work across ``configs`` of ``n`` hypotheses:
    one metric class (BLEU or chrF) with one setting, every reference cache of ``n`` segments and, for
    chrF, the first configuration holding, per segment, one reference per following configuration."""
    first = configs[0][0]
    if not isinstance(first, (BLEU, CHRF)) or len(configs) < 2:
        return False
    settings = _settings(first)
    for obj, _ in configs:
        if type(obj) is not type(first) or _settings(obj) != settings or obj._ref_cache is None \
                or len(obj._ref_cache) != n:
            return False
    if isinstance(first, CHRF):
        r = len(configs) - 1
        return all(len(seg["ref_ngrams"]) == r for seg in first._ref_cache) and \
            all(len(seg["ref_ngrams"]) == 1 for obj, _ in configs[1:] for seg in obj._ref_cache)
    return True


def _warn_if_tokenised(metric_obj, hypotheses: Sequence[str]) -> None:
    """sacrebleu's warning about hypotheses that look tokenised (once, as one corpus pass gives it)."""
    if not metric_obj._force and sum(h.endswith(" .") for h in hypotheses) >= 100:
        log = logging.getLogger("sacrebleu")
        log.warning("That's 100 lines that end in a tokenized period ('.')")
        log.warning("It looks like you forgot to detokenize your test data, which may hurt your score.")
        log.warning("If you insist your data is detokenized, or don't care, you can suppress this message "
                    "with the `force` parameter.")


def _bleu_statistics(configs: Sequence[tuple[object, str]], hypotheses: list[str]) -> list[list]:
    """BLEU per configuration, each hypothesis segment tokenised once (sacrebleu's segment statistics
    with each configuration's cached reference n-grams and lengths)."""
    first = configs[0][0]
    tokenised = [first._preprocess_segment(h) for h in hypotheses]
    return [[obj._compute_segment_statistics(h, ref) for h, ref in zip(tokenised, obj._ref_cache)]
            for obj, _ in configs]


def _chrf_statistics(configs: Sequence[tuple[object, str]], hypotheses: list[str]) -> list[list]:
    """chrF per configuration: each hypothesis segment's n-grams extracted once and matched once against
    each reference alone; against all references, per segment, the statistics of the reference with
    the best sentence f-score, the first on ties (sacrebleu's rule in ``CHRF._compute_segment_statistics``)."""
    first = configs[0][0]
    singles = [obj._ref_cache for obj, _ in configs[1:]]
    every: list[list[int]] = []
    alone: list[list[list[int]]] = [[] for _ in singles]
    word_orders = range(1, first.word_order + 1)
    for i, hyp in enumerate(hypotheses):
        hyp = first._preprocess_segment(hyp)
        hyp_ngrams = extract_all_char_ngrams(hyp, first.char_order, first.whitespace)
        if first.word_order > 0:
            words = first._remove_punctuation(hyp)
            hyp_ngrams.extend([extract_word_ngrams(words, n) for n in word_orders])
        best, best_f = [], -1.0
        for k, cache in enumerate(singles):
            stats: list[int] = []
            for h, r in zip(hyp_ngrams, cache[i]["ref_ngrams"][0]):
                stats.extend(first._get_match_statistics(h, r))
            alone[k].append(stats)
            f_score = first._compute_f_score(stats)
            if f_score > best_f:
                best, best_f = stats, f_score
        every.append(list(best))
    return [every, *alone]


def statistics_by_reference(configs: Sequence[tuple[object, str]], hypotheses: Sequence[str], *,
                            hypotheses_key: str | None = None) -> list[list]:
    """:func:`corpus_statistics` of ``hypotheses`` for several reference configurations of one metric,
    sharing the hypothesis work: ``configs`` = [(metric object made with all R references, their
    :func:`text_digest`), (the same metric made with reference 1 alone, its digest), … reference R].

    Returns the statistics in the order of ``configs``, equal to sacrebleu's for each (the
    content-keyed cache of :func:`corpus_statistics` is read and filled). BLEU tokenises each
    hypothesis segment once; chrF (and chrF++) extracts its n-grams once and matches them once per
    reference, which gives the statistics against all references too (sacrebleu keeps the
    reference with the best f-score). Any other metric, or configurations that are not one setting
    with the references as described, are computed one by one.
    """
    hyp_key = hypotheses_key or text_digest(hypotheses)
    keys = [(obj.get_signature().format(), ref_key, hyp_key) for obj, ref_key in configs]
    found = [_cached_stats(key) for key in keys]
    if all(f is not None for f in found):
        return [f.tolist() for f in found]
    hyps = list(hypotheses)
    for obj, _ in configs:
        with_references(obj)
    if not _shares_work(configs, len(hyps)):
        return [corpus_statistics(obj, ref_key, hyps, hypotheses_key=hyp_key) for obj, ref_key in configs]
    _warn_if_tokenised(configs[0][0], hyps)
    stats = (_chrf_statistics if isinstance(configs[0][0], CHRF) else _bleu_statistics)(configs, hyps)
    for key, one in zip(keys, stats):
        _keep_stats(key, one)
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
    by_reference: bool = False,
) -> dict:
    """Score every system against the same references (one or several reference streams).

    Returns ``{"metric", "signature", "higher_is_better", "systems": {system: corpus score}}``,
    plus ``"segments": {system: [segment scores]}`` and ``"segment_signature"`` when
    ``segments`` is true. ``progress`` shows a tqdm bar over systems on stderr. ``lp`` chooses
    BLEU's tokeniser by target language as WMT does (``zh``, ``ja-mecab``, ``ko-mecab``, else 13a).
    ``by_reference`` adds ``"by_reference"``: per reference stream, in order, ``{"signature", "systems"}``
    of the scores against it alone; every configuration shares the hypothesis work
    (:func:`statistics_by_reference`).
    """
    _check_lengths(hyps, refs)
    key = metric.lower()
    tokenize = bleu_tokeniser_for(lp)
    corpus_metric = make_metric(key, references=refs, tokenize=tokenize)
    seg_metric = make_metric(key, segment=True, tokenize=tokenize) if segments and key == "bleu" else corpus_metric
    systems: dict[str, float] = {}
    seg_scores: dict[str, list[float]] = {}
    score_name = ""
    configs = [(corpus_metric, text_digest(*refs))]
    if by_reference and len(refs) > 1:
        configs += [(make_metric(key, references=[ref], tokenize=tokenize), text_digest(ref)) for ref in refs]
    alone: list[dict[str, float]] = [{} for _ in configs[1:]]
    items = list(hyps.items())
    if progress:
        from tqdm import tqdm
        items = tqdm(items, desc=f"{key} systems", unit="system", disable=None, leave=False)
    for system, lines in items:
        # per-segment statistics against the cached references; the corpus score sums them
        stats, *stats_alone = statistics_by_reference(configs, lines)
        for scores, (obj, _), one in zip(alone, configs[1:], stats_alone):
            scores[system] = float(obj._aggregate_and_compute(one).score)
        score = corpus_metric._aggregate_and_compute(stats)
        score_name = score.name
        systems[system] = float(score.score)
        if segments:
            seg_scores[system] = [float(seg_metric._compute_score_from_stats(s).score) for s in stats]
    result = {"metric": key, "signature": signature(corpus_metric, score_name),
              "higher_is_better": HIGHER_IS_BETTER[key], "systems": systems}
    if by_reference:
        result["by_reference"] = ([{"signature": signature(obj, score_name), "systems": scores}
                                   for (obj, _), scores in zip(configs[1:], alone)]
                                  or [{"signature": result["signature"], "systems": dict(systems)}])
    if segments:
        if seg_metric is not corpus_metric:
            seg_metric.num_refs = corpus_metric.num_refs  # the signature needs it; set by the ref cache
        result["segments"] = seg_scores
        result["segment_signature"] = signature(seg_metric, score_name)
    return result
