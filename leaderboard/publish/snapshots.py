"""Publishing rankings as immutable snapshots: rank the stored judgments, store each ranking as a new
version with the artifacts its pages show."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

import pandas as pd

from ..errors import InputError
from ..storage.store import Store, frame_hash


def rank(frame: pd.DataFrame, **options: Any) -> list[dict]:
    """The rankings of every (lp, assessment) in ``frame`` (see :mod:`leaderboard.human.ranking`)."""
    from ..human.ranking import rank_judgments
    return rank_judgments(frame, **options)


@dataclass
class Prepared:
    """A ranking ready to be stored as a version: its JSON ``ranking``, the hash of its judgments, and what
    its pages show (``artifacts``, computed by :func:`add_artifacts`) from the judgments it was ranked
    from (``frame``: the campaign's, all language pairs of the assessment; None for MQM) and the QC it
    ran (``qc``: :class:`leaderboard.human.ranking.QualityControl`, so QC is not run again)."""
    lp: str
    assessment: str
    ranking: dict
    data_hash: str
    frame: pd.DataFrame | None = None
    qc: Any = None
    spec: Any = None
    artifacts: dict | None = None


def rank_stored(store: Store, campaign: str, *, lp: str | None = None, assessment: str | None = None,
                documents: Mapping[str, Mapping[str, str]] | None = None, **options: Any) -> list[Prepared]:
    """Rank the stored judgments (and MQM annotations) of ``campaign``: one :class:`Prepared` per
    (lp, assessment), nothing stored.

    Worker QC pools the campaign's language pairs (one verdict per worker, as WMT did) and runs once for
    every ranking. Human translations: the organisers' marks (:mod:`leaderboard.storage.marks`), else
    WMT naming. ``qc="auto"`` means what it means in ``mtlb rank``: ``release`` when every judgment file
    of the campaign is a WMT release, the protocol's own choice when it fixes one, else the QC module's
    default method. ``documents``: the test set's documents list per language pair (the rankings then
    carry per-domain scores).
    """
    from ..human.ranking import rank_result
    from ..storage.marks import human_marks
    options.setdefault("human_systems", human_marks(store, campaign))
    frame = store.judgments(campaign, None, assessment) if assessment != "mqm" else None
    prepared = [Prepared(*row[:4], artifacts=row[4]) for row in mqm_rankings(store, campaign, lp=lp, **options)] \
        if assessment in (None, "mqm") else []
    if frame is not None and lp is not None and not (frame["lp"].astype(str) == lp).any():
        frame = frame.iloc[:0]
    if (frame is None or frame.empty) and not prepared:
        raise InputError(f"no stored judgments for campaign {campaign!r}"
                         + (f", lp {lp}" if lp else "") + (f", assessment {assessment}" if assessment else ""),
                         code="no_judgments", value=campaign)
    if frame is None or frame.empty:
        return prepared
    if "qc" in options:
        from ..human.ranking import resolve_qc
        imports = store.imports(campaign)
        options["qc"] = resolve_qc(options["qc"], imports.loc[imports["kind"] == "judgments", "input_format"],
                                   options.get("protocol"))
    if documents is not None:
        options["documents"] = documents
    result = rank_result(frame, lp=lp, **options)
    lps, assessments = frame["lp"].astype(str), frame["assessment"].astype(str)
    for ranking in result.rankings:
        own = frame[(lps == ranking.lp).to_numpy() & (assessments == ranking.assessment).to_numpy()]
        prepared.append(Prepared(ranking.lp, ranking.assessment, ranking.to_dict(), frame_hash(own),
                                 frame, result.qc, ranking.spec))
    return prepared


def add_artifacts(store: Store, campaign: str, prepared: list[Prepared], extra: dict | None = None) -> None:
    """Compute what the pages of each prepared ranking show (:mod:`leaderboard.publish.artifacts`:
    per-segment scores, the QC behind it, BLEU/chrF baselines and their correlations), so that they open
    at once; ``extra`` (name → value, or a function of the ranking giving the value or None) adds others,
    e.g. a WMT release's own per-worker QC verdicts."""
    from .artifacts import compute_artifacts
    for item in prepared:
        if item.frame is None:
            continue
        part = item.frame[item.frame["assessment"].astype(str) == item.assessment]
        out = compute_artifacts(item.ranking, part, store.texts(campaign, item.lp), item.qc, item.spec)
        for name, value in (extra or {}).items():
            value = value(item.ranking) if callable(value) else value
            if value is not None:
                out[name] = value
        item.artifacts = out


def store_versions(store: Store, campaign: str, prepared: list[Prepared], publisher: str,
                   note: str = "") -> list[dict]:
    """Store every prepared ranking as its next version, in one transaction; one ``{"lp", "assessment",
    "version", "signature", "data_hash"}`` each."""
    versions = store.publish_all(campaign, [(p.lp, p.assessment, p.ranking, p.data_hash, p.artifacts)
                                            for p in prepared], publisher=publisher, note=note)
    return [{"lp": p.lp, "assessment": p.assessment, "version": version, "signature": p.ranking.get("signature"),
             "data_hash": p.data_hash} for p, version in zip(prepared, versions)]


def publish_rankings(store: Store, campaign: str, publisher: str, *, lp: str | None = None,
                     assessment: str | None = None, note: str = "", extra_artifacts: dict | None = None,
                     **options: Any) -> list[dict]:
    """Rank the stored judgments of ``campaign`` and publish each ranking as a new version with its
    artifacts, everything computed before one transaction stores it (:func:`rank_stored`,
    :func:`add_artifacts`, :func:`store_versions`)."""
    prepared = rank_stored(store, campaign, lp=lp, assessment=assessment, **options)
    add_artifacts(store, campaign, prepared, extra_artifacts)
    return store_versions(store, campaign, prepared, publisher, note)


def mqm_rankings(store: Store, campaign: str, *, lp: str | None = None, **options: Any) -> list[tuple]:
    """The MQM rankings of every language pair with stored annotations, ready for
    :meth:`Store.publish_all`: ``(lp, "mqm", ranking, data_hash, {"spec": ...})`` each."""
    from ..expert.ranking import mqm_spec, rank_mqm
    from ..storage.expert import errors_hash, mqm_errors
    errors = mqm_errors(store, campaign, lp)
    if errors.empty:
        return []
    keep = {k: options[k] for k in ("alpha", "cluster_rule", "human_systems", "n_resamples", "seed") if k in options}
    if options.get("exclude_systems"):
        import fnmatch
        names = errors["system"].astype(str)
        errors = errors[~names.map(lambda s: any(fnmatch.fnmatchcase(s, p) for p in options["exclude_systems"]))]
    spec = {"spec": mqm_spec(**keep).to_dict()}
    return [(ranking["lp"], "mqm", ranking, errors_hash(errors[errors["lp"] == ranking["lp"]]), dict(spec))
            for ranking in rank_mqm(errors, **keep)]


def publish_published_tables(store: Store, campaign: str, rankings: list[dict], publisher: str, *,
                             lp: str | None = None, note: str = "", spec: Any = None) -> list[dict]:
    """Publish rankings read from the organisers' published tables (e.g.
    :func:`leaderboard.publish.published_tables.results_rankings`) as versions of ``campaign`` (created when
    missing), so they can be compared with other campaigns on the Across years page. No judgments are
    behind them: their pages show the table, not per-segment scores. ``spec``: their
    :class:`leaderboard.human.spec.PublishedSpec` (stored as each snapshot's ``spec`` artifact)."""
    import json
    from ..storage.store import payload_hash
    chosen = [r for r in rankings if lp is None or r["lp"] == lp]
    if not chosen:
        raise InputError(f"the published tables hold no language pair {lp!r}", column="lp")
    try:
        store.campaign_info(campaign)
    except InputError:
        store.create_campaign(campaign, description="published tables")
    prepared = [(r["lp"], r["assessment"], r,
                 payload_hash(json.dumps(r, sort_keys=True, ensure_ascii=False, allow_nan=False)),
                 None if spec is None else {"spec": spec.to_dict()}) for r in chosen]
    versions = store.publish_all(campaign, prepared, publisher=publisher, note=note)  # one transaction
    return [{"lp": lp_, "assessment": assessment_, "version": version, "signature": ranking["signature"],
             "data_hash": data_hash} for (lp_, assessment_, ranking, data_hash, _), version in zip(prepared, versions)]


def release_qc_of(store: Store, campaign: str, stats: pd.DataFrame, verdicts: pd.DataFrame | None,
                  source: str) -> Callable[[Mapping], dict]:
    """An extra artifact for :func:`publish_rankings`: a WMT release's own per-worker QC verdicts
    (:mod:`leaderboard.ingest.release_qc`) of the workers of each published (lp, assessment)."""
    from .artifacts import release_qc_artifact

    def artifact(ranking: Mapping) -> dict:
        judged = store.judgments(campaign, str(ranking["lp"]), str(ranking["assessment"]))
        return release_qc_artifact(stats, verdicts, set(judged["worker"].astype(str)), source)
    return artifact
