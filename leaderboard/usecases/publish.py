"""Preview and publish a ranking of stored judgments: ``mtlb publish`` and the Organiser page's
"QC, preview and publish" tab both call :func:`preview` and :func:`commit` with the same
:class:`PublishOptions`, so the same inputs and options store the same snapshot."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

from ..errors import InputError
from ..publish.snapshots import Prepared, add_artifacts, rank_stored, store_versions
from .store_files import InputFile


@dataclass(frozen=True)
class PublishOptions:
    """Every option of a publication (the defaults are those of ``mtlb publish``).

    ``lp`` / ``assessment`` None: every stored one. ``qc``: ``none``, ``release``, ``auto`` or a QC
    method name, with threshold ``qc_alpha``. ``alpha`` / ``cluster_rule`` None: the protocol's own.
    ``exclude_systems``: shell patterns of systems left out. ``n_resamples`` / ``seed``: the bootstrap of
    the intervals. ``documents``: the test set's documents lists (a file ``<lp>.docs`` or ``LP=PATH``).
    """
    lp: str | None = None
    assessment: str | None = None
    protocol: str = "wmt-da"
    alpha: float | None = None
    cluster_rule: str | None = None
    qc: str = "auto"
    qc_alpha: float = 0.05
    exclude_systems: tuple[str, ...] = ()
    n_resamples: int = 1000
    seed: int = 12345
    documents: tuple[InputFile, ...] = field(default_factory=tuple)

    def check(self) -> None:
        """Refuse impossible values before anything is read."""
        if self.n_resamples < 0:
            raise InputError("the number of resamples must be 0 or more", column="resamples",
                             code="negative_resamples", value=self.n_resamples)
        if not 0 < self.qc_alpha < 1:
            raise InputError("the QC threshold must lie strictly between 0 and 1", column="qc_alpha",
                             code="bad_qc_alpha", value=self.qc_alpha)

    def ranking_options(self) -> dict[str, Any]:
        """The options of :func:`leaderboard.publish.snapshots.rank_stored` (documents read apart)."""
        out = {k: v for k, v in asdict(self).items() if k not in ("lp", "assessment", "documents")}
        out["exclude_systems"] = list(self.exclude_systems)
        if not out["exclude_systems"]:
            del out["exclude_systems"]
        return out


@dataclass
class Preview:
    """The rankings a publication will store, computed once: what the page previews is what it publishes."""
    campaign: str
    options: PublishOptions
    prepared: list[Prepared]

    @property
    def rankings(self) -> list[dict]:
        return [p.ranking for p in self.prepared]


@dataclass(frozen=True)
class ReleaseQC:
    """A WMT release's own worker QC files, read and validated (published with each version)."""
    stats: Any
    verdicts: Any
    source: str


def read_release_qc(stats: InputFile | None, verdicts: InputFile | None = None) -> ReleaseQC | None:
    """Read a release's ``ad-trk-stats.csv`` and, optionally, its ``ad-trk-stats.class`` (None: no files)."""
    if stats is None and verdicts is None:
        return None
    if stats is None:
        raise InputError("the verdicts need the per-worker statistics file too (ad-trk-stats.csv)",
                         file=verdicts.name, column="release_qc", code="verdicts_without_stats")
    from ..ingest.release_qc import read_trk_class, read_trk_stats
    frame = read_trk_stats(str(stats.path), stats.name)
    classes = read_trk_class(str(verdicts.path), verdicts.name) if verdicts is not None else None
    source = "release files " + ", ".join(Path(f.name).name for f in (stats, verdicts) if f is not None)
    return ReleaseQC(frame, classes, source)


def preview(store: Any, campaign: str, options: PublishOptions) -> Preview:
    """Rank what ``campaign`` has stored with ``options`` (nothing is stored)."""
    options.check()
    documents = None
    extra: dict[str, Any] = {}
    if options.documents:
        lps = [options.lp] if options.lp else _stored_lps(store, campaign, options.assessment)
        documents = _documents(options.documents, lps)
        extra["documents_source"] = ", ".join(f.name for f in options.documents)
    prepared = rank_stored(store, campaign, lp=options.lp, assessment=options.assessment, documents=documents,
                           **options.ranking_options(), **extra)
    return Preview(campaign, options, prepared)


def commit(store: Any, preview: Preview, publisher: str, *, note: str = "",
           release_qc: ReleaseQC | None = None) -> list[dict]:
    """Publish a preview: each ranking with what its pages show, every version in one transaction.
    Returns one ``{"lp", "assessment", "version", "signature", "data_hash"}`` per snapshot."""
    extra = None
    if release_qc is not None:
        from ..publish.snapshots import release_qc_of
        extra = {"release_qc": release_qc_of(store, preview.campaign, release_qc.stats, release_qc.verdicts,
                                             release_qc.source)}
    add_artifacts(store, preview.campaign, preview.prepared, extra)
    return store_versions(store, preview.campaign, preview.prepared, publisher, note)


def publish(store: Any, campaign: str, publisher: str, options: PublishOptions, *, note: str = "",
            release_qc: ReleaseQC | None = None) -> list[dict]:
    """:func:`preview` then :func:`commit`."""
    return commit(store, preview(store, campaign, options), publisher, note=note, release_qc=release_qc)


def publish_tables(store: Any, campaign: str, table: InputFile, publisher: str, *, lp: str | None = None,
                   assessment: str | None = None, note: str = "") -> list[dict]:
    """Publish the organisers' own published tables (WMT23.results.txt) instead of ranking judgments."""
    from ..ingest.wmt23_results import read_wmt23_results
    from ..publish.published_tables import published_spec, results_rankings
    from ..publish.snapshots import publish_published_tables
    rankings = results_rankings(read_wmt23_results(str(table.path)), table.name, assessment=assessment or "adequacy")
    return publish_published_tables(store, campaign, rankings, publisher, lp=lp, note=note,
                                    spec=published_spec(table.name))


def _stored_lps(store: Any, campaign: str, assessment: str | None) -> list[str]:
    stored = store.campaigns()
    stored = stored[(stored["campaign"] == campaign) & (stored["judgments"] > 0)]
    if assessment:
        stored = stored[stored["assessment"] == assessment]
    return sorted(stored["lp"].dropna().astype(str).unique())


def _documents(files: Sequence[InputFile], lps: Sequence[str]) -> dict:
    """The documents list of each language pair (a file named ``<lp>.docs``, or ``LP=PATH``)."""
    from ..ingest.documents import documents_for
    return documents_for([str(f.path) for f in files], lps)
