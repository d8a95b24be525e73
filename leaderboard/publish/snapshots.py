"""Publishing rankings as immutable snapshots: rank the stored judgments, store each ranking as a new
version with the artifacts its pages show."""

from __future__ import annotations

from typing import Any, Callable, Mapping

import pandas as pd

from ..errors import InputError
from ..storage.store import Store, frame_hash


def rank(frame: pd.DataFrame, **options: Any) -> list[dict]:
    """The rankings of every (lp, assessment) in ``frame`` (see :mod:`leaderboard.human.ranking`)."""
    from ..human.ranking import rank_judgments
    return rank_judgments(frame, **options)


def publish_rankings(store: Store, campaign: str, publisher: str, *, lp: str | None = None,
                     assessment: str | None = None, note: str = "", extra_artifacts: dict | None = None,
                     documents_files: list[str] | None = None, **options: Any) -> list[dict]:
    """Rank the stored judgments of ``campaign`` and publish each ranking as a new version.

    Human translations: the organisers' marks (:mod:`leaderboard.storage.marks`), else WMT naming.

    Each version is stored with its artifacts (:mod:`leaderboard.publish.artifacts`, what its pages show) in
    the same transaction; ``extra_artifacts`` (name → value, or a function of the ranking giving
    the value or None) adds others, e.g. a WMT release's own per-worker QC verdicts.

    ``qc="auto"`` means what it means in ``mtlb rank``: ``release`` when every judgment file of the
    campaign is a WMT release, the protocol's own choice when it fixes one, else the QC module's default
    method. ``documents_files``: the test set's documents lists (``mtlb rank --documents``), read now
    and matched to the stored language pairs; the rankings then carry per-domain scores. Returns one
    ``{"lp", "assessment", "version", "signature", "data_hash"}`` per snapshot.
    """
    from ..storage.marks import human_marks
    options.setdefault("human_systems", human_marks(store, campaign))
    frame = store.judgments(campaign, lp, assessment) if assessment != "mqm" else None
    prepared = mqm_rankings(store, campaign, lp=lp, **options) if assessment in (None, "mqm") else []
    if (frame is None or frame.empty) and not prepared:
        raise InputError(f"no stored judgments for campaign {campaign!r}"
                         + (f", lp {lp}" if lp else "") + (f", assessment {assessment}" if assessment else ""))
    if "qc" in options:
        from ..human.ranking import resolve_qc
        imports = store.imports(campaign)
        options["qc"] = resolve_qc(options["qc"], imports.loc[imports["kind"] == "judgments", "input_format"],
                                   options.get("protocol"))
    if documents_files and frame is not None and not frame.empty:
        from ..ingest.documents import documents_for
        options["documents"] = documents_for(documents_files, [lp] if lp else frame["lp"].astype(str).unique())
        options["documents_source"] = ", ".join(documents_files)
    cache: dict = {}  # worker QC verdicts pool language pairs: computed once for all rankings
    for ranking in (rank(frame, **options) if frame is not None and not frame.empty else []):
        lp_, assessment_ = ranking["lp"], ranking["assessment"]
        data_hash = frame_hash(frame[(frame["lp"] == lp_) & (frame["assessment"] == assessment_)])
        prepared.append((lp_, assessment_, ranking, data_hash,
                         snapshot_artifacts(store, campaign, ranking, frame, extra_artifacts, cache)))
    # everything is computed before anything is written; then one transaction stores every version
    versions = store.publish_all(campaign, prepared, publisher=publisher, note=note)
    return [{"lp": lp_, "assessment": assessment_, "version": version, "signature": ranking.get("signature"),
             "data_hash": data_hash} for (lp_, assessment_, ranking, data_hash, _), version in zip(prepared, versions)]


def snapshot_artifacts(store: Store, campaign: str, ranking: dict, frame: pd.DataFrame,
                       extra: dict | None = None, cache: dict | None = None) -> dict:
    """What the pages of this ranking will show, computed now so that they open at once
    (:mod:`leaderboard.publish.artifacts`): per-segment scores, the QC behind it, BLEU/chrF baselines and
    their correlations. ``frame``: the judgments the ranking was computed from."""
    from .artifacts import compute_artifacts
    part = frame[frame["assessment"].astype(str) == str(ranking["assessment"])]
    out = compute_artifacts(ranking, part, store.texts(campaign, str(ranking["lp"])), cache)
    for name, value in (extra or {}).items():
        value = value(ranking) if callable(value) else value
        if value is not None:
            out[name] = value
    return out


def mqm_rankings(store: Store, campaign: str, *, lp: str | None = None, **options: Any) -> list[tuple]:
    """The MQM rankings of every language pair with stored annotations, ready for
    :meth:`Store.publish_all`: ``(lp, "mqm", ranking, data_hash, None)`` each."""
    from ..expert.ranking import rank_mqm
    from ..storage.expert import errors_hash, mqm_errors
    errors = mqm_errors(store, campaign, lp)
    if errors.empty:
        return []
    keep = {k: options[k] for k in ("alpha", "cluster_rule", "human_systems", "n_resamples", "seed") if k in options}
    if options.get("exclude_systems"):
        import fnmatch
        names = errors["system"].astype(str)
        errors = errors[~names.map(lambda s: any(fnmatch.fnmatchcase(s, p) for p in options["exclude_systems"]))]
    return [(ranking["lp"], "mqm", ranking, errors_hash(errors[errors["lp"] == ranking["lp"]]), None)
            for ranking in rank_mqm(errors, **keep)]


def publish_published_tables(store: Store, campaign: str, rankings: list[dict], publisher: str, *,
                             lp: str | None = None, note: str = "") -> list[dict]:
    """Publish rankings read from the organisers' published tables (e.g.
    :func:`leaderboard.ingest.wmt23_results.results_rankings`) as versions of ``campaign`` (created when
    missing), so they can be compared with other campaigns on the Across years page. No judgments are
    behind them: their pages show the table, not per-segment scores."""
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
                 payload_hash(json.dumps(r, sort_keys=True, ensure_ascii=False, allow_nan=False)), None) for r in chosen]
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
