"""Creating an annotation campaign: its HITs, from the primary submissions or from files.

``da`` HITs are the crowd-DA batches of :func:`leaderboard.hits.builder.build_hits` (100 items by
default: 70 outputs, 10 bad references, 10 references, 10 repeats; ``hit_size`` scales the design
for pilots), shown against the reference (assessment ``adequacy``) or, ``source_based``, against the
source (assessment ``source-based``). ``esa`` HITs are documents
(:func:`leaderboard.hits.documents.build_document_hits`), shown against the source when it is known
(else the reference), with three tutorial items first that do not count (assessment ``esa``).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..errors import InputError
from ..hits.builder import Sources, build_hits, read_sources
from ..hits.documents import build_document_hits, document_ids, tutorial_items
from ..ingest.texts import read_lines
from ..storage import Store
from ..storage.collect import create_collection

PROTOCOLS: tuple[str, ...] = ("da", "esa")
#: a held HIT returns to the pool after this many seconds without an answer
DEFAULT_TIMEOUT = 1800
MAX_REDUNDANCY = 50


def sources_from_files(hyps: list[str], ref: str, lp: str, src: str | None = None,
                       docs: str | None = None) -> Sources:
    """System outputs, reference and optionally source and document ids, all aligned line by line."""
    sources = read_sources(hyps, ref, lp)
    n = len(sources.reference)
    for name, path in (("source", src), ("docs", docs)):
        if path is None:
            continue
        lines = read_lines(path)
        if len(lines) != n:
            raise InputError(f"has {len(lines)} lines but the reference has {n}; the {name} must be aligned with it",
                             file=str(path), line=min(len(lines), n) + 1)
        setattr(sources, name, lines)
    return sources


def sources_from_primaries(store: Store, campaign: str, lp: str, reference: str | None = None) -> Sources:
    """The primary submissions of (campaign, lp) with the test set's reference, source and documents."""
    from ..outputs.service import primary_sources
    from ..storage.outputs import OutputStore
    sources = primary_sources(store, campaign, lp, reference)
    out = OutputStore(store)
    source, _, docs = out.testset_texts(out.testset(campaign, lp)["id"])
    sources.source = list(source)
    sources.docs = list(docs) if any(d for d in docs) else None
    sources.testset_lines = True
    return sources


def _check(protocol: str, hits: int | None, redundancy: int, timeout_seconds: int) -> None:
    if protocol not in PROTOCOLS:
        raise InputError(f"protocol must be one of {', '.join(PROTOCOLS)}, got {protocol!r}", column="protocol")
    if hits is not None and hits < 1:
        raise InputError(f"the number of HITs must be at least 1, got {hits}", column="hits", code="too_few_hits",
                         value=hits)
    if not 1 <= redundancy <= MAX_REDUNDANCY:
        raise InputError(f"redundancy must lie between 1 and {MAX_REDUNDANCY}, got {redundancy}", column="redundancy")
    if timeout_seconds < 60:
        raise InputError(f"the timeout must be at least 60 seconds, got {timeout_seconds}", column="timeout")


def da_items(sources: Sources, *, hits: int | None, hit_size: int, seed: int, source_based: bool) -> pd.DataFrame:
    """DA items: the builder's batch, one row per item, with what the annotator reads it against."""
    frame = build_hits(sources, "adequacy", hits, seed, hit_prefix="H", hit_size=hit_size)
    line = frame["segment"].astype(int).to_numpy() - 1
    docs = pd.Series(sources.docs, dtype=object).iloc[line].to_numpy() if sources.docs else None
    source = pd.Series(sources.source or [""] * len(sources.reference), dtype=object).iloc[line].to_numpy()
    return pd.DataFrame({
        "hit": frame["hit"], "seq": frame["position"], "position": frame["position"],
        "item_type": frame["item_type"], "system": frame["system"], "segment": frame["segment"],
        "doc": docs, "segment_doc": docs, "pair_id": frame["pair_id"], "text": frame["text"],
        "source": source, "reference": pd.Series(sources.reference, dtype=object).iloc[line].to_numpy(),
        "note": None,
    })


def esa_items(sources: Sources, *, hits: int | None, hit_size: int, seed: int, context: str) -> pd.DataFrame:
    """ESA items: each HIT's tutorial items (no position: they do not count), then its documents."""
    frame = build_document_hits(sources, hits, seed, hit_size, hit_prefix="H", context=context)
    tutorial = tutorial_items(sources, seed, context)
    line_doc = document_ids(sources)
    n_tut = len(tutorial)
    parts = []
    for hit, part in frame.groupby("hit", sort=True):
        tut = tutorial.assign(hit=hit, seq=range(1, n_tut + 1), position=pd.NA, segment_doc=None)
        real = part.assign(seq=part["position"] + n_tut, note=None,
                           segment_doc=[line_doc[int(g) - 1] for g in part["segment"]])
        parts += [tut, real]
    out = pd.concat(parts, ignore_index=True)
    return out[["hit", "seq", "position", "item_type", "system", "segment", "doc", "segment_doc", "pair_id", "text",
                "source", "reference", "note"]]


def create(store: Store, campaign: str, lp: str, sources: Sources, *, protocol: str, source_based: bool = False,
           hits: int | None = None, hit_size: int = 100, redundancy: int = 1, seed: int = 0,
           timeout_seconds: int = DEFAULT_TIMEOUT, created_by: str | None = None) -> dict[str, Any]:
    """Build and store an annotation campaign; returns ``{campaign, lp, protocol, hits, items}``
    (``items`` counts every item shown, quality-control and tutorial items included)."""
    _check(protocol, hits, redundancy, timeout_seconds)
    if not str(campaign).strip():
        raise InputError("the campaign name is empty", column="campaign")
    if sources.lp != lp:
        raise InputError(f"the outputs are for {sources.lp}, not {lp}", column="lp")
    if source_based and not sources.source:
        raise InputError("a source-based campaign shows the source: give the source file, or create the campaign "
                         "from the primary submissions, whose test set has it", column="source",
                         code="source_based_without_source")
    # judgments collected from the stored test set are numbered by its lines: segment-level metric scores
    # pair with them (the Metrics page), unless judgments imported earlier number segments otherwise
    lines = sources.testset_lines and not (store.imports(campaign)["kind"] == "judgments").any()
    if protocol == "da":
        items = da_items(sources, hits=hits, hit_size=hit_size, seed=seed, source_based=source_based)
        assessment, context = ("source-based", "source") if source_based else ("adequacy", "reference")
    else:
        context = "source" if sources.source else "reference"
        items = esa_items(sources, hits=hits, hit_size=hit_size, seed=seed, context=context)
        assessment = "esa"
    stored = create_collection(store, campaign, lp, protocol=protocol, assessment=assessment, context=context,
                               hit_size=hit_size, redundancy=redundancy, seed=seed, timeout_seconds=timeout_seconds,
                               items=items, created_by=created_by)
    if lines:
        store.set_segments_are_lines(campaign, True)
    return {"campaign": campaign, "lp": lp, "protocol": protocol, "hits": stored["hits"], "items": stored["items"]}


def create_cesa(store: Store, campaign: str, lp: str, plan, *, assignment: str | None = None, hit_size: int = 30,
                redundancy: int = 1, seed: int = 0, timeout_seconds: int = DEFAULT_TIMEOUT,
                created_by: str | None = None) -> dict[str, Any]:
    """Store a contrastive-ESA campaign from a plan (:mod:`.plan`): fixed HITs (the plan's tasks, else pages of
    every document × ``k`` models packed into HITs of about ``hit_size`` segments) or dynamic assignment; the
    tutorial and attention checks (built from the campaign's own outputs when the plan has none)."""
    from ..languages import split_lp as _split
    from ..storage.collect_cesa import create_cesa as store_cesa
    from .plan import ASSIGNMENTS, attention_checks, fixed_tasks

    assignment = assignment or plan.assignment
    if assignment not in ASSIGNMENTS:
        raise InputError(f"assignment must be one of {', '.join(ASSIGNMENTS)}, got {assignment!r}", column="assignment")
    _check("esa", None, redundancy, timeout_seconds)
    if not str(campaign).strip():
        raise InputError("the campaign name is empty", column="campaign")
    _split(lp)
    k = plan.settings["models_per_item"]
    if len(plan.models) < 2:
        raise InputError("contrastive ESA compares translations: the campaign needs at least two models",
                         column="models")
    if assignment == "dynamic" and len(plan.models) < k:
        raise InputError(f"{k} translations per item, but the campaign has {len(plan.models)} models",
                         column="models-per-item")
    if assignment == "fixed":
        tasks = [[(d, None) for d in task] for task in plan.tasks] if plan.tasks is not None else \
            fixed_tasks(plan, hit_size=hit_size, seed=seed)
    else:
        tasks = None
    checks = plan.checks if plan.checks else attention_checks(plan, _split(lp)[1], seed=seed) \
        if plan.settings.get("checks") else []
    settings = {**plan.settings, "hit_size": hit_size}
    made = store_cesa(store, campaign, lp, assignment=assignment, settings=settings, documents=plan.documents,
                      tasks=tasks, welcome=plan.welcome, checks=checks, redundancy=redundancy, seed=seed,
                      timeout_seconds=timeout_seconds, created_by=created_by)
    return {"campaign": campaign, "lp": lp, "protocol": "cesa", "assignment": assignment,
            "models_per_item": k, "models": len(plan.models), "documents": made["documents"], "hits": made["hits"],
            "items": made["items"], "tutorial": made["tutorial"], "checks": made["checks"]}
