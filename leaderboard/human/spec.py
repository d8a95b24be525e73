"""The ranking specification: everything that determines a ranking (protocol, worker QC, judgment
selection, standardisation, left-out systems, test, threshold, cluster rule, resamples, seed…), frozen,
stored with every snapshot as JSON (its ``spec`` artifact), and the one source of its signature string.

Four kinds: :class:`RankingSpec` (DA-style rankings of judgments), :class:`WavesSpec` (the WMT25
two-wave ESA ranking), :class:`MqmSpec` (MQM rankings) and :class:`PublishedSpec` (tables read from
the organisers' papers). Each has the attributes the pages describe (``kind``, ``protocol``, ``score``,
``sort``, ``test``, ``trials``, ``seed``, ``alpha``, ``cluster_rule``, ``qc_label``, ``std_label``,
``resamples``; None when the kind does not record it). Code that needs to know how a ranking was made
reads the spec, never the signature: :func:`legacy_spec` is the one reader of signature strings, for
snapshots stored before specs were (:func:`snapshot_spec` calls it only when the artifact is absent)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar, Mapping, Union

from .. import __version__
from ..signature import make_signature

CI_LABEL = "bootstrap-segments@0.95"


@dataclass(frozen=True)
class RankingSpec:
    """How a DA-style ranking was computed.

    ``qc``: ``none``, ``release`` (already filtered) or the QC method, with ``qc_alpha``;
    ``standardise``: ``given`` (the data's z) or ``worker`` (z per worker from raw, with
    ``exclude_ref`` / ``exclude_bad_ref`` / ``zero_sd``); ``items``: which judgments count
    (``system+repeat``; ``system-latest``: the WMT24 selection); ``score`` / ``sort`` / ``test``:
    the score ranked, the sort key and the pairwise test (``trials``: approximate randomisation);
    ``alpha`` / ``cluster_rule``: wins and clusters; ``resamples`` (0: no intervals) and ``seed``;
    ``domains``: ``doc-id`` or ``documents@<digest>`` (None: no domains); ``exclude``: shell patterns
    of systems left out.
    """
    protocol: str
    qc: str
    standardise: str
    items: str
    score: str
    sort: str
    test: str
    alpha: float
    cluster_rule: str
    qc_alpha: float | None = None
    exclude_ref: bool = False
    exclude_bad_ref: bool = False
    zero_sd: str = "drop"
    trials: int | None = None
    resamples: int = 0
    seed: int | None = None
    domains: str | None = None
    exclude: tuple[str, ...] = ()
    kind: str = "da"
    version: str = f"mtlb-{__version__}"

    @property
    def qc_label(self) -> str:
        """The signature's ``qc`` field: ``none``, ``release`` or ``<method>@<alpha>``."""
        return self.qc if self.qc in ("none", "release") else f"{self.qc}@{self.qc_alpha:g}"

    @property
    def std_label(self) -> str:
        """The signature's ``std`` field: ``given`` or ``worker[-noref][-nobadref]-sd0drop|-sd0one``."""
        if self.standardise == "given":
            return "given"
        return ("worker" + ("-noref" if self.exclude_ref else "") + ("-nobadref" if self.exclude_bad_ref else "")
                + ("-sd0one" if self.zero_sd == "one" else "-sd0drop"))

    def signature(self, *, systems: int, segments: int, judgments: int) -> str:
        """The signature string of a ranking made with this spec (with the ranking's counts)."""
        out: dict[str, Any] = {"protocol": self.protocol, "qc": self.qc_label, "std": self.std_label,
                               "items": self.items, "score": self.score, "sort": self.sort, "test": self.test}
        if self.trials is not None:
            out["trials"] = self.trials
        out.update({"p": self.alpha, "clusters": self.cluster_rule, "systems": systems, "segments": segments,
                    "judgments": judgments})
        if self.resamples:
            out.update(ci=CI_LABEL, resamples=self.resamples)
        out["seed"] = self.seed
        if self.domains is not None:
            out["domains"] = self.domains
        if self.exclude:
            out["exclude"] = ",".join(self.exclude)
        out["version"] = self.version
        return make_signature(out, self.kind)

    def to_dict(self) -> dict[str, Any]:
        """The spec as JSON-ready values: what a snapshot stores (its ``spec`` artifact)."""
        out = asdict(self)
        out["exclude"] = list(self.exclude)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "RankingSpec":
        """The spec of :meth:`to_dict` (unknown keys refused: a spec names everything it holds)."""
        values = _known(cls, data)
        values["exclude"] = tuple(values.get("exclude") or ())
        return cls(**values)


def _known(cls: type, data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` without its ``type`` key, refused when it names a field ``cls`` does not have."""
    values = {k: v for k, v in data.items() if k != "type"}
    unknown = set(values) - {f.name for f in fields(cls)}
    if unknown:
        raise ValueError(f"unknown ranking specification keys: {', '.join(sorted(unknown))}")
    return values


class _Typed:
    """JSON of the specs other than :class:`RankingSpec`: their fields and a ``type`` naming the class."""
    TYPE: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.TYPE, **asdict(self)}  # type: ignore[call-overload]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Any:
        return cls(**_known(cls, data))


@dataclass(frozen=True)
class WavesSpec(_Typed):
    """The WMT25 two-wave ESA ranking (:mod:`leaderboard.human.waves`): raw scores of both waves, a
    wave-aware signed-rank test at ``alpha``, ``cluster_rule``; ``domains``: ``column``, ``documents`` or None."""
    TYPE: ClassVar[str] = "waves"
    alpha: float
    cluster_rule: str
    domains: str | None = None
    version: str = f"mtlb-{__version__}"
    kind: ClassVar[str] = "da"
    protocol: ClassVar[str] = "wmt25"
    qc_label: ClassVar[str] = "none"
    std_label: ClassVar[None] = None
    items: ClassVar[str] = "two-waves"
    score: ClassVar[str] = "raw"
    sort: ClassVar[str] = "ave"
    test: ClassVar[str] = "wave-signed-rank-greater"
    trials: ClassVar[None] = None
    seed: ClassVar[None] = None
    resamples: ClassVar[int] = 0

    def signature(self, *, systems: int, segments: int, judgments: int) -> str:
        out: dict[str, Any] = {"protocol": self.protocol, "qc": self.qc_label, "items": self.items,
                               "score": self.score, "sort": self.sort, "test": self.test, "p": self.alpha,
                               "clusters": self.cluster_rule, "systems": systems, "segments": segments,
                               "judgments": judgments}
        if self.domains is not None:
            out["domains"] = self.domains
        out["version"] = self.version
        return make_signature(out, self.kind)


@dataclass(frozen=True)
class MqmSpec(_Typed):
    """An MQM ranking (:mod:`leaderboard.expert.ranking`): ``weights`` scheme, ``test`` (the signature's
    name, e.g. ``signed-rank-greater-paired``), ``alpha``, ``cluster_rule``; ``trials`` (approximate
    randomisation), ``resamples`` and ``seed`` (None when nothing random was drawn)."""
    TYPE: ClassVar[str] = "mqm"
    weights: str
    test: str
    alpha: float
    cluster_rule: str
    trials: int | None = None
    resamples: int = 0
    seed: int | None = None
    version: str = f"mtlb-{__version__}"
    kind: ClassVar[str] = "mqm"
    protocol: ClassVar[str] = "mqm"
    qc_label: ClassVar[None] = None
    std_label: ClassVar[None] = None
    score: ClassVar[str] = "mqm"
    sort: ClassVar[str] = "mqm-ascending"

    def signature(self, *, systems: int, segments: int, raters: int | None = None,
                  annotations: int | None = None) -> str:
        out: dict[str, Any] = {"protocol": self.protocol, "weights": self.weights, "score": self.score,
                               "sort": self.sort, "test": self.test, "p": self.alpha, "clusters": self.cluster_rule,
                               "systems": systems, "segments": segments, "raters": raters,
                               "annotations": annotations}
        if self.trials is not None:
            out["trials"] = self.trials
        if self.resamples:
            out.update(ci=CI_LABEL, resamples=self.resamples)
        if self.seed is not None:
            out["seed"] = self.seed
        out["version"] = self.version
        return make_signature({k: v for k, v in out.items() if v is not None}, self.kind)


@dataclass(frozen=True)
class PublishedSpec(_Typed):
    """A ranking read from the organisers' published table ``file`` (protocol e.g. ``wmt23``): nothing
    was computed here, so no test, threshold, QC or standardisation is recorded."""
    TYPE: ClassVar[str] = "published"
    protocol: str
    file: str
    sort: str = "ave"
    version: str = f"mtlb-{__version__}"
    kind: ClassVar[str] = "published"
    score: ClassVar[None] = None
    test: ClassVar[None] = None
    trials: ClassVar[None] = None
    seed: ClassVar[None] = None
    alpha: ClassVar[None] = None
    cluster_rule: ClassVar[None] = None
    qc_label: ClassVar[None] = None
    std_label: ClassVar[None] = None
    resamples: ClassVar[int] = 0

    def signature(self, *, systems: int) -> str:
        return make_signature({"protocol": self.protocol, "source": "published", "sort": self.sort,
                               "systems": systems, "file": self.file, "version": self.version}, self.kind)


#: any ranking's specification
Spec = Union[RankingSpec, WavesSpec, MqmSpec, PublishedSpec]
_TYPES: dict[str, Any] = {"da": RankingSpec, "waves": WavesSpec, "mqm": MqmSpec, "published": PublishedSpec}


def spec_from_dict(data: Mapping[str, Any]) -> Spec:
    """The spec of any kind's ``to_dict`` (a dict without ``type``: a :class:`RankingSpec`)."""
    kind = str(data.get("type", "da"))
    if kind not in _TYPES:
        raise ValueError(f"unknown ranking specification type {kind!r}")
    return _TYPES[kind].from_dict(data)


def snapshot_spec(artifact: Mapping[str, Any] | None, ranking: Mapping[str, Any]) -> Spec | None:
    """How a published ranking was made: its stored ``spec`` artifact; for a snapshot stored before
    specs were, :func:`legacy_spec` of its signature (None: a signature no ranking of ours wrote)."""
    if artifact is not None:
        return spec_from_dict(artifact)
    return legacy_spec(str(ranking.get("signature", "")))


#: how a ranking without a spec or a DA signature (hand-made, imported) is read: every judgment's stored z,
#: no worker QC
GIVEN_Z = RankingSpec(protocol="given", qc="none", standardise="given", items="system+repeat", score="z",
                      sort="ave_z", test="none", alpha=0.05, cluster_rule="organisers")


def legacy_spec(signature: str) -> Spec | None:
    """The spec of a ranking published before specs were stored with snapshots, read from its signature
    (None: not a signature of ours). The only reader of signature strings: everything published since
    stores its spec, and :func:`snapshot_spec` calls this only when that artifact is absent."""
    head, *rest = str(signature).split("|")
    f = dict(part.partition(":")[::2] for part in rest)

    def number(key: str, kind: type) -> Any:
        value = f.get(key)
        return None if value in (None, "none") else kind(value)
    version = f.get("version", "")
    if head == "mqm" and "test" in f:
        return MqmSpec(weights=f.get("weights", ""), test=f["test"], alpha=float(f.get("p", 0.05)),
                       cluster_rule=f.get("clusters", "organisers"), trials=number("trials", int),
                       resamples=number("resamples", int) or 0, seed=number("seed", int), version=version)
    if head == "published":
        return PublishedSpec(protocol=f.get("protocol", ""), file=f.get("file", ""), sort=f.get("sort", "ave"),
                             version=version)
    if head != "da" or "protocol" not in f or "test" not in f:
        return None
    if f["protocol"] == WavesSpec.protocol and f.get("items") == WavesSpec.items:
        return WavesSpec(alpha=float(f.get("p", 0.025)), cluster_rule=f.get("clusters", "wmt25"),
                         domains=f.get("domains"), version=version)
    qc, _, qc_alpha = f.get("qc", "none").partition("@")
    if qc == "default":  # early signatures named the QC module's default method so
        from .qc_methods import DEFAULT_METHOD
        qc = DEFAULT_METHOD
    std = f.get("std", "given")
    return RankingSpec(
        protocol=f["protocol"], qc=qc, qc_alpha=float(qc_alpha) if qc_alpha else None,
        standardise="given" if std == "given" else "worker", exclude_ref="-noref" in std,
        exclude_bad_ref="-nobadref" in std, zero_sd="one" if "-sd0one" in std else "drop",
        items=f.get("items", "system+repeat"), score=f.get("score", "z"), sort=f.get("sort", ""), test=f["test"],
        trials=number("trials", int), alpha=float(f.get("p", 0.05)), cluster_rule=f.get("clusters", "organisers"),
        resamples=number("resamples", int) or 0, seed=number("seed", int), domains=f.get("domains"),
        exclude=tuple(p for p in f.get("exclude", "").split(",") if p), version=version)
