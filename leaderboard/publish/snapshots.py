"""Publishing rankings as immutable snapshots: rank the stored judgments, store each ranking as a new
version with the artifacts its pages show."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..errors import InputError
from ..storage.store import Store, frame_hash


def rank(frame: pd.DataFrame, **options: Any) -> list[dict]:
    """The rankings of every (lp, assessment) in ``frame`` (see :mod:`leaderboard.human.ranking`)."""
    from ..human.ranking import rank_judgments
    return rank_judgments(frame, **options)


def publish_rankings(store: Store, campaign: str, publisher: str, *, lp: str | None = None,
                     assessment: str | None = None, note: str = "", extra_artifacts: dict | None = None,
                     **options: Any) -> list[dict]:
    """Rank the stored judgments of ``campaign`` and publish each ranking as a new version.

    Human translations: the organisers' marks (:mod:`leaderboard.storage.marks`), else WMT naming.

    Each version is stored with its artifacts (:mod:`leaderboard.publish.artifacts`, what its pages show) in
    the same transaction; ``extra_artifacts`` (name → value, or a function of the ranking giving
    the value or None) adds others, e.g. a WMT release's own per-worker QC verdicts.

    ``qc="auto"`` means what it means in ``mtlb rank``: ``release`` when every judgment file of the
    campaign is a WMT release, else the QC module's default method. Returns one
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
        options["qc"] = resolve_qc(options["qc"], imports.loc[imports["kind"] == "judgments", "input_format"])
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
