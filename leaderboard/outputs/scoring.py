"""Scoring one submission with sacrebleu: BLEU and chrF against all references and each one.

The corpus scores are sacrebleu's own (the metric objects of :mod:`metrics.scoring`, default
settings, the BLEU tokeniser chosen by target language, :mod:`leaderboard.languages`, unless the
test set names its own), so they equal ``sacrebleu REF... -i HYP -l SRC-TGT`` (with ``-tok NAME``
when the test set sets one). The segment statistics against all references are kept:
the automatic leaderboard resamples them for intervals and paired significance without
re-tokenising anything. The metric objects of the last test set scored against are kept with their
references' n-grams (sacrebleu caches them), so the next upload to the same test set does not
extract them again: that extraction is most of the cost of scoring one output.
"""

from __future__ import annotations

import hashlib
import io
import threading
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from ..languages import bleu_tokeniser, target_language

#: Scores every submission gets; TER is added on request.
METRICS = ("bleu", "chrf")


@dataclass
class OutputScores:
    """``scores`` / ``signatures`` keyed ``bleu``, ``chrf`` (all references) and ``bleu-<ref>`` …;
    ``stats``: per metric, the segment statistics against all references (segments × columns)."""

    scores: dict[str, float] = field(default_factory=dict)
    signatures: dict[str, str] = field(default_factory=dict)
    stats: dict[str, np.ndarray] = field(default_factory=dict)


def effective_tokeniser(lp: str, bleu_tokenize: str | None = None) -> str:
    """BLEU's tokeniser for a test set of ``lp``: its own setting, else the target language's."""
    return bleu_tokenize or bleu_tokeniser(target_language(lp))


def metric_for(metric: str, lp: str, references: Sequence[Sequence[str]] | None = None,
               bleu_tokenize: str | None = None):
    """A sacrebleu metric object for ``lp`` (BLEU tokenised by ``bleu_tokenize``, else for the target language)."""
    from metrics.scoring import make_metric
    obj = make_metric(metric, references=references, tokenize=effective_tokeniser(lp, bleu_tokenize)
                      if metric == "bleu" else None)
    return obj


_cache_lock = threading.Lock()
_cache: dict = {"key": None, "metrics": {}}


def _references_key(references: Mapping[str, Sequence[str]], lp: str) -> str:
    digest = hashlib.sha256(lp.encode())
    for name, lines in references.items():
        digest.update(f"\0{name}\0{len(lines)}\0".encode())
        digest.update("\n".join(lines).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _cached_metric(key: str, metric: str, suffix: str, lp: str, refs: list[list[str]], bleu_tokenize: str | None):
    """The metric object for these references, made once per test set (the last one scored against) and,
    for BLEU, per tokeniser: changing a test set's BLEU tokeniser leaves its chrF and TER objects (and
    so their cached reference n-grams) as they are."""
    tokeniser = effective_tokeniser(lp, bleu_tokenize) if metric == "bleu" else None
    with _cache_lock:
        if _cache["key"] != key:
            _cache["key"], _cache["metrics"] = key, {}
        found = _cache["metrics"].get((metric, suffix, tokeniser))
        if found is None:
            found = _cache["metrics"][(metric, suffix, tokeniser)] = metric_for(metric, lp, refs, bleu_tokenize)
        return found


def score_output(hypothesis: Sequence[str], references: Mapping[str, Sequence[str]], lp: str, *,
                 ter: bool = False, bleu_tokenize: str | None = None) -> OutputScores:
    """BLEU and chrF (and TER when ``ter``) of one output against all references and each one.

    ``references`` maps reference labels to aligned lines (at least one). Keys of the result:
    ``bleu`` / ``chrf`` / ``ter`` against all references together, ``bleu-<label>`` … against
    each reference alone when there are several. ``bleu_tokenize``: the test set's BLEU tokeniser
    (None: by target language).
    """
    from metrics.scoring import signature, statistics_by_reference, text_digest
    if not references:
        raise ValueError("scoring needs at least one reference")
    out = OutputScores()
    hyp = list(hypothesis)
    names = list(references)
    sets: list[tuple[str, list[list[str]]]] = [("", [list(references[n]) for n in names])]
    if len(names) > 1:
        sets += [(f"-{n}", [list(references[n])]) for n in names]
    key = _references_key(references, lp)
    digests = {suffix: text_digest(*refs) for suffix, refs in sets}
    hyp_digest = text_digest(hyp)
    for metric in METRICS + (("ter",) if ter else ()):
        objs = {suffix: _cached_metric(key, metric, suffix, lp, refs, bleu_tokenize) for suffix, refs in sets}
        # all reference sets at once: the hypothesis is tokenised / its n-grams extracted once
        every = statistics_by_reference([(objs[suffix], digests[suffix]) for suffix, _ in sets], hyp,
                                        hypotheses_key=hyp_digest)
        for (suffix, _), stats in zip(sets, every):
            obj = objs[suffix]
            result = obj._aggregate_and_compute(stats)
            out.scores[metric + suffix] = float(result.score)
            out.signatures[metric + suffix] = signature(obj, result.name)
            if not suffix and metric in ("bleu", "chrf"):
                out.stats[metric] = np.asarray(stats, dtype=np.int64)
    return out


def pack_stats(stats: Mapping[str, np.ndarray]) -> bytes:
    """Compressed bytes of the statistics arrays (stored with the submission)."""
    buf = io.BytesIO()
    np.savez_compressed(buf, **{k: np.asarray(v, dtype=np.int64) for k, v in stats.items()})
    return buf.getvalue()


def unpack_stats(data: bytes | None) -> dict[str, np.ndarray]:
    """The arrays stored by :func:`pack_stats` (empty when nothing was stored)."""
    if not data:
        return {}
    with np.load(io.BytesIO(bytes(data)), allow_pickle=False) as npz:
        return {k: npz[k] for k in npz.files}
