"""The ranking specification: everything that determines a ranking of judgments (protocol, worker QC,
judgment selection, standardisation, left-out systems, test, threshold, cluster rule, resamples, seed…),
frozen, stored with every snapshot as JSON, and the one source of its signature string
(:meth:`RankingSpec.signature`). Code that needs to know how a ranking was made reads the spec,
never the signature."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from typing import Any, Mapping

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

    def to_json(self) -> str:
        """The spec as JSON text (keys sorted): what a snapshot stores."""
        return json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False, allow_nan=False)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["exclude"] = list(self.exclude)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "RankingSpec":
        """The spec of :meth:`to_dict` (unknown keys refused: a spec names everything it holds)."""
        names = {f.name for f in fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"unknown ranking specification keys: {', '.join(sorted(unknown))}")
        values = dict(data)
        values["exclude"] = tuple(values.get("exclude") or ())
        return cls(**values)

    @classmethod
    def from_json(cls, text: str) -> "RankingSpec":
        return cls.from_dict(json.loads(text))


#: how a ranking without a spec or a DA signature (hand-made, imported) is read: every judgment's stored z,
#: no worker QC
GIVEN_Z = RankingSpec(protocol="given", qc="none", standardise="given", items="system+repeat", score="z",
                      sort="ave_z", test="none", alpha=0.05, cluster_rule="organisers")


def legacy_spec(signature: str) -> RankingSpec | None:
    """The spec of a DA ranking published before specs were stored with snapshots, read once from its
    signature (None: not a DA ranking's signature). The only reader of signature strings: everything
    published since stores its spec."""
    head, *rest = str(signature).split("|")
    f = dict(part.partition(":")[::2] for part in rest)
    if head != "da" or "protocol" not in f or "test" not in f:
        return None
    qc, _, qc_alpha = f.get("qc", "none").partition("@")
    if qc == "default":  # early signatures named the QC module's default method so
        from .qc_methods import DEFAULT_METHOD
        qc = DEFAULT_METHOD
    std = f.get("std", "given")

    def number(key: str, kind: type) -> Any:
        value = f.get(key)
        return None if value in (None, "none") else kind(value)
    return RankingSpec(
        protocol=f["protocol"], qc=qc, qc_alpha=float(qc_alpha) if qc_alpha else None,
        standardise="given" if std == "given" else "worker", exclude_ref="-noref" in std,
        exclude_bad_ref="-nobadref" in std, zero_sd="one" if "-sd0one" in std else "drop",
        items=f.get("items", "system+repeat"), score=f.get("score", "z"), sort=f.get("sort", ""), test=f["test"],
        trials=number("trials", int), alpha=float(f.get("p", 0.05)), cluster_rule=f.get("clusters", "organisers"),
        resamples=number("resamples", int) or 0, seed=number("seed", int), domains=f.get("domains"),
        exclude=tuple(p for p in f.get("exclude", "").split(",") if p), version=f.get("version", ""))
