"""Human ranking of systems from DA judgments: the ``mtlb rank`` computation.

For every (language pair, assessment) in a canonical judgment frame (docs/method/standardisation.md,
docs/method/significance-and-clusters.md, docs/method/protocols.md):

1. optional worker QC (:func:`leaderboard.human.qc.filter_judgments`), pooled over language pairs;
2. z-scores: the frame's own (``standardise="keep"``, e.g. the WMT release) or recomputed per
   (worker, lp, assessment) from raw (``"worker"``, see :mod:`leaderboard.human.standardise`);
3. system scores from SYSTEM and REPEAT items: repeats averaged per (system, segment) first,
   then Ave, Ave z, N, N.ALL per system (:mod:`leaderboard.human.scores`);
4. every ordered pair of systems tested one-sided on the per-segment scores
   (:mod:`leaderboard.human.significance`), wins / losses over all other systems, rank ranges and
   clusters (:mod:`leaderboard.human.clusters`);
5. 95% bootstrap intervals of Ave and Ave z and rank shares, resampling the test set's segments
   (:mod:`leaderboard.human.intervals`; 1000 resamples, seeded); human translations marked (``human``:
   the organisers' marks, else WMT naming);
6. a signature string recording protocol, thresholds, counts, resamples, seed and version.

Protocols (:data:`PROTOCOLS`; name them, never mix silently):

- ``wmt-da`` (default, WMT19-22): z-scores, Mann-Whitney U "greater" on per-segment z
  averages, sorted by Ave z.
- ``wmt23-raw``: the same test on raw per-segment averages, sorted by raw Ave (WMT23).
- ``wmt25-signed-rank``: one-sided Wilcoxon signed-rank on the segments both systems share,
  raw scores, sorted by raw Ave (WMT25; WMT24 used a two-sided variant per domain).
- ``approx-randomisation``: paired approximate randomisation on shared segments, z-scores,
  1000 trials, seeded.
- ``wmt23``: the WMT23 DA+SQM procedure: z per rater and language pair (sample sd, sd 0 → 1), segment
  averages, sorted by raw Ave, one-sided Mann-Whitney U on the segments both systems have, and the
  "H" score (mean of min(round(raw / 25) + 1, 4)); no worker QC.
- ``wmt24-esa``: the WMT24 ESA procedure (:mod:`leaderboard.human.selection`: TGT items, no tutorial
  systems, no ``#incomplete`` / ``#dup`` / canary documents, each rater's latest rating); Ave is the
  mean over domains of the per-domain means (domains from the release's documents list, else the
  document id); two-sided Wilcoxon signed-rank per domain on shared segments, combined with
  Stouffer's Z (:func:`leaderboard.human.significance.stouffer_signed_rank_matrix`); a win needs
  p < alpha and the higher Ave; no worker QC; with ``--cluster-rule wmt24`` the organisers' clusters.
- ``wmt25``: two ratings per item (:mod:`leaderboard.human.waves`; not on judgment frames).
- ``wmt26``: the WMT26 cESA rule (:mod:`leaderboard.human.wmt26`): raw item means, sorted by their mean,
  a two-sided paired or unpaired t-test with p < alpha, only a higher model can be better, strict
  clusters; no worker QC.

- ``anytime-paired``: the anytime paired test (:mod:`leaderboard.human.adaptive_tests`), valid under
  any (adaptive) allocation: one e-process per pair from the pages (``hit``) on which both models were
  fresh, a pair separated when sup K >= 1/alpha; models ordered by their paired strength, WMT26's
  strict clusters; no worker QC. The p-value matrix holds 1/sup K (an anytime-valid p-value).

``score="z" | "raw"`` overrides the score a protocol uses (and sorts by it).

Reproduction notes (tests/test_rank_wmt.py): the WMT22 cs-en and lv-en and WMT21 cs-en tables
reproduce exactly from the release; WMT21 de-en reproduces Ave z, N, p-values and clusters
exactly (three systems' Ave / N.ALL include judgments missing from the release, see the data
README). WMT22 de-en: the published table also counts 73 judgments (65 system-segment cells,
e.g. Lan-Bridge.1 11 segments, Online-G.7 21, Online-Y.3 17) with raw 0 and z exactly 0 that the
release does not contain (they are listed in ad-seg-scores-de-en.csv); from the release, N and
N.ALL of those systems are short by those counts and Ave z differs by < 0.002, while the
clusters and wins are the published ones. Adding the zero rows back reproduces that table too.
"""

from __future__ import annotations

import fnmatch
import warnings
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from .clusters import CLUSTER_RULES, cluster_ends, cluster_numbers, cluster_spans, rank_walks, wins_losses
from .domains import domain_macro_average, domain_means
from ..errors import InputError
from .intervals import DEFAULT_RESAMPLES, system_intervals
from ..naming import is_human
from .scores import segment_table, system_scores_from_segments
from .spec import RankingSpec
from .significance import (DEFAULT_SEED, DEFAULT_TRIALS, approximate_randomisation_matrix, directional,
                           mwu_greater_matrix, mwu_greater_shared_matrix, score_matrix,
                           signed_rank_greater_matrix)
from .standardise import ZERO_SD_OPTIONS, worker_z


#: the test of the wmt26 protocol as its signature records it (leaderboard.human.wmt26 runs it)
WMT26_TEST = "wmt26-paired-or-unpaired-t"
#: the test of the anytime-paired protocol (leaderboard.human.adaptive_tests.TEST_ANYTIME)
ANYTIME_TEST = "anytime-paired"


@dataclass(frozen=True)
class Protocol:
    """How systems are compared: which score, which test, how many randomisation trials.

    The other fields are the protocol's own defaults where the organisers' procedure fixes them:
    ``alpha`` and ``cluster_rule`` (None: the caller's, 0.05 and ``organisers``), ``qc`` (what
    ``--qc auto`` means), ``standardise`` / ``zero_sd`` (how z is computed), ``selection`` (which
    judgments count, :mod:`leaderboard.human.selection`), ``domains`` (the score is the mean over
    domains of per-domain means) and ``ranks`` (``wins``: 1 + losses … N − wins; ``walk``: the WMT25
    walks of :func:`leaderboard.human.clusters.rank_walks`).
    """
    name: str
    score: str          # "z" | "raw"
    test: str           # "mwu-greater" | "signed-rank-greater" | "ar-greater" | ...
    trials: int | None = None
    description: str = ""
    alpha: float | None = None
    cluster_rule: str | None = None
    qc: str = "auto"
    standardise: str | None = None
    zero_sd: str | None = None
    selection: str | None = None
    domains: bool = False
    ranks: str = "wins"


PROTOCOLS: dict[str, Protocol] = {
    "wmt-da": Protocol("wmt-da", "z", "mwu-greater",
                       description="WMT19-22: Mann-Whitney U on per-segment z averages, sort by Ave z"),
    "wmt23-raw": Protocol("wmt23-raw", "raw", "mwu-greater",
                          description="WMT23: Mann-Whitney U on per-segment raw averages, sort by Ave"),
    "wmt23": Protocol("wmt23", "raw", "mwu-greater-shared", qc="none", standardise="worker", zero_sd="one",
                      description="WMT23 DA+SQM as the organisers computed it: z per rater and pair (sample sd, "
                                  "sd 0 -> 1), segment averages, sort by raw Ave, one-sided Mann-Whitney U on "
                                  "the segments both systems have, H score"),
    "wmt25-signed-rank": Protocol("wmt25-signed-rank", "raw", "signed-rank-greater",
                                  description="WMT25: one-sided Wilcoxon signed-rank on shared segments, raw"),
    "approx-randomisation": Protocol("approx-randomisation", "z", "ar-greater", DEFAULT_TRIALS,
                                     description="paired approximate randomisation on shared segments, z"),
    "wmt24-esa": Protocol("wmt24-esa", "raw", "signed-rank-domain-stouffer", qc="none", selection="wmt24",
                          domains=True,
                          description="WMT24 ESA as the organisers computed it: TGT items without tutorial "
                                      "systems and unusable documents, each rater's latest rating, mean over "
                                      "domains of per-domain means, two-sided Wilcoxon signed-rank per domain "
                                      "Stouffer-combined, a win needs p < alpha and the higher score"),
    "wmt26": Protocol("wmt26", "raw", WMT26_TEST, alpha=0.05, cluster_rule="strict", qc="none",
                      description="WMT26 cESA: per item the mean of its annotations, sort by the mean of item means, "
                                  "A above B is better when a two-sided paired (common items) or unpaired t-test "
                                  "gives p < alpha, a cluster line where every model above beats every model below"),
    "anytime-paired": Protocol("anytime-paired", "raw", ANYTIME_TEST, alpha=0.05, cluster_rule="strict", qc="none",
                               description="cESA under adaptive allocation: one e-process per pair on the pages "
                                           "where both models were fresh, better when sup K >= 1/alpha, order by "
                                           "paired strength, a cluster line where every model above beats every "
                                           "model below"),
    "wmt25": Protocol("wmt25", "raw", "wave-signed-rank-greater", alpha=0.025, cluster_rule="wmt25", qc="none",
                      ranks="walk",
                      description="WMT25: two ESA ratings per item (wave 1, wave 2; input with a wave column), "
                                  "a+a against b+swap(b), one-sided Wilcoxon signed-rank, p < 0.025, rank walks"),
}
STANDARDISE_OPTIONS: tuple[str, ...] = ("keep", "worker")
QC_NONE = ("none", "release")


@dataclass
class Ranking:
    """One (lp, assessment) ranking; :meth:`to_dict` gives the JSON object of ``mtlb rank``."""
    lp: str
    assessment: str
    signature: str
    systems: pd.DataFrame          # in ranking order
    pvalues: np.ndarray            # [i, j] in ranking order
    extra: dict = field(default_factory=dict)
    spec: RankingSpec | None = None  # how it was computed (None: rankings of other kinds)

    def to_dict(self) -> dict[str, Any]:
        names = self.systems["system"].tolist()
        shares = self.extra.get("_rank_shares")
        domain_means = self.extra.get("_domain_means")
        rows = []
        for i, rec in enumerate(self.systems.to_dict(orient="records")):
            rows.append({
                "system": str(rec["system"]),
                "ave": _float(rec["ave"]), "ave_z": _float(rec["ave_z"]),
                "ave_ci": _interval(rec.get("ave_lo"), rec.get("ave_hi")),
                "ave_z_ci": _interval(rec.get("ave_z_lo"), rec.get("ave_z_hi")),
                "human": bool(rec.get("human", False)),
                "n": int(rec["n"]), "n_all": int(rec["n_all"]),
                "rank_lo": int(rec["rank_lo"]), "rank_hi": int(rec["rank_hi"]),
                "cluster": int(rec["cluster"]), "wins": int(rec["wins"]), "losses": int(rec["losses"]),
                "cluster_start": int(rec["cluster_start"]), "cluster_end": int(rec["cluster_end"]),
                "rank_shares": None if shares is None else [round(float(v), 4) for v in shares[i]],
            })
            if "h" in rec:
                rows[-1]["h"] = _float(rec["h"])
            for key in ("mean", "items", "annotations"):  # the wmt26 protocol's names (mean of item means, ...)
                if key in rec:
                    rows[-1][key] = _float(rec[key]) if key == "mean" else int(rec[key])
            if domain_means is not None:
                rows[-1]["domains"] = {str(d): _float(v) for d, v in domain_means.iloc[i].items()}
        extra = {k: v for k, v in self.extra.items() if not k.startswith("_")}
        pv = {a: {b: _float(self.pvalues[i, j]) for j, b in enumerate(names) if j != i}
              for i, a in enumerate(names)}
        return {"lp": self.lp, "assessment": self.assessment, "signature": self.signature,
                "systems": rows, "pvalues": pv, **extra}


def _float(v: Any) -> float | None:
    v = float(v)
    return None if np.isnan(v) else v


def _interval(lo: Any, hi: Any) -> list[float] | None:
    """``[lo, hi]`` or None when the interval was not computed (no resamples, no raw scores)."""
    if lo is None or hi is None or np.isnan(float(lo)) or np.isnan(float(hi)):
        return None
    return [float(lo), float(hi)]


def human_flags(systems: Sequence[str], overrides: Mapping[str, bool] | None = None) -> list[bool]:
    """Whether each system is a human translation: the organisers' setting, else WMT naming."""
    overrides = overrides or {}
    return [bool(overrides[s]) if s in overrides else is_human(s) for s in systems]


def _segment_intervals(seg: pd.DataFrame, systems: Sequence[str], sort_score: str, n_resamples: int,
                       seed: int, segment_domains: np.ndarray | None = None) -> tuple[pd.DataFrame, np.ndarray]:
    """Bootstrap intervals (resampling segments) of Ave and Ave z and the rank shares of ``sort_score``.

    ``segment_domains`` (the domain of each segment, in ``pd.factorize`` order of ``seg["segment"]``):
    the score is the mean over domains of per-domain means, recomputed in every resample from the same
    draws of the whole test set.
    """
    from .intervals import bootstrap_means, percentile_intervals, rank_shares
    rows = pd.Index(systems).get_indexer(seg["system"])
    cols, uniq = pd.factorize(seg["segment"])
    mats = []
    for col in ("raw", "z"):
        m = np.full((len(systems), len(uniq)), np.nan)
        m[rows, cols] = seg[col].to_numpy(dtype=float)
        mats.append(m)
    if segment_domains is None:
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            points = [np.nanmean(m, axis=1) for m in mats]
        (ave, ave_z), shares = system_intervals(mats, points, sort_by=0 if sort_score == "raw" else 1,
                                                n_resamples=n_resamples, seed=seed)
    else:
        names = pd.unique(segment_domains)
        parts = [np.where(segment_domains[None, :] == d, m, np.nan) for m in mats for d in names]
        samples = bootstrap_means(parts, n_resamples, seed)
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            macro = [np.nanmean(np.stack(samples[k * len(names):(k + 1) * len(names)]), axis=0) for k in (0, 1)]
            points = [np.nanmean(np.stack([np.nanmean(p, axis=1) for p in parts[k * len(names):(k + 1) * len(names)]]),
                                 axis=0) for k in (0, 1)]
        ave, ave_z = (percentile_intervals(s, p) for s, p in zip(macro, points))
        shares = rank_shares(macro[0 if sort_score == "raw" else 1])
    table = pd.DataFrame({"ave_lo": ave[:, 0], "ave_hi": ave[:, 1], "ave_z_lo": ave_z[:, 0],
                          "ave_z_hi": ave_z[:, 1]})
    return table, shares


def resolve_protocol(protocol: str, score: str | None = None) -> Protocol:
    """The named protocol, with its score optionally overridden."""
    if protocol not in PROTOCOLS:
        raise InputError(f"unknown protocol {protocol!r} (choose from {', '.join(PROTOCOLS)})",
                         column="protocol")
    p = PROTOCOLS[protocol]
    if score is not None and score != p.score:
        if score not in ("z", "raw"):
            raise InputError(f"score must be 'z' or 'raw', not {score!r}", column="score")
        p = replace(p, score=score)
    return p


RELEASE_FORMAT = "wmt-stnd"  # the WMT release: its files hold only the workers who passed QC


def resolve_qc(qc: str, input_formats: Iterable[str], protocol: str | None = None) -> str:
    """``auto`` becomes ``release`` when every input is a WMT release file, and the protocol's own
    choice when it fixes one (``none`` for the WMT23-25 organisers' protocols); other choices stay.

    ``mtlb rank`` (formats of its input files) and ``mtlb publish`` (formats recorded in the
    campaign's import log) both use it, so the same data gets the same QC label.
    """
    if qc == "auto" and protocol in PROTOCOLS and PROTOCOLS[protocol].qc != "auto":
        return PROTOCOLS[protocol].qc
    formats = [f for fmt in input_formats for f in str(fmt).split(",") if f]
    if qc == "auto" and formats and all(f == RELEASE_FORMAT for f in formats):
        return "release"
    return qc


@dataclass
class QualityControl:
    """What worker QC did before a ranking: the signature's ``label`` (``none``, ``release``,
    ``<method>@<alpha>``), the ``method`` and ``alpha`` it ran (None: nothing filtered here), the
    judgments it ``kept`` and its per-worker ``report`` (pooled over language pairs; None when nothing
    was tested)."""
    label: str
    method: str | None
    alpha: float | None
    kept: pd.DataFrame
    report: pd.DataFrame | None = None


def run_qc(frame: pd.DataFrame, qc: str, qc_alpha: float = 0.05) -> QualityControl:
    """Filter workers with ``leaderboard.human.qc`` unless ``qc`` is "none" / "release".

    ``"auto"`` here means the QC module's default method (the callers map ``auto`` to ``release``
    for the WMT release, whose files hold only workers who passed).
    """
    if qc in QC_NONE:
        return QualityControl(qc, None, None, frame)
    from . import qc as qc_module
    method = qc_module.DEFAULT_METHOD if qc == "auto" else qc
    kept, report = qc_module.filter_judgments(frame, method, qc_alpha)
    return QualityControl(f"{method}@{qc_alpha:g}", method, float(qc_alpha), kept, report)


def _z_scores(frame: pd.DataFrame, standardise: str | None, exclude_ref: bool, exclude_bad_ref: bool,
              zero_sd: str) -> tuple[np.ndarray, str]:
    z_given = frame["z"].to_numpy(dtype=float, na_value=np.nan) if "z" in frame.columns \
        else np.full(len(frame), np.nan)
    if standardise is None:
        standardise = "keep" if len(frame) and np.isfinite(z_given).all() else "worker"
    if standardise not in STANDARDISE_OPTIONS:
        raise InputError(f"standardise must be one of {', '.join(STANDARDISE_OPTIONS)}, not {standardise!r}",
                         column="standardise")
    if standardise == "keep":
        if not np.isfinite(z_given).all():
            raise InputError("some judgments have no z-score; standardise from raw scores per worker instead",
                             column="z", code="missing_z")
        return z_given, "given"
    if zero_sd not in ZERO_SD_OPTIONS:
        raise InputError(f"zero_sd must be one of {', '.join(ZERO_SD_OPTIONS)}", column="zero_sd")
    raw = frame["raw"].to_numpy(dtype=float, na_value=np.nan)
    if len(frame) and np.isnan(raw).all():
        raise InputError("no raw scores to standardise (for the WMT release, store its worker mean/sd file with "
                         "it, or keep the file's z-scores)", column="raw", code="no_raw_to_standardise")
    z = worker_z(frame, exclude_ref=exclude_ref, exclude_bad_ref=exclude_bad_ref, zero_sd=zero_sd)
    label = ("worker" + ("-noref" if exclude_ref else "") + ("-nobadref" if exclude_bad_ref else "")
             + ("-sd0one" if zero_sd == "one" else "-sd0drop"))
    return z, label


def _test_matrix(protocol: Protocol, seg: pd.DataFrame, systems: Sequence[str], seed: int,
                 trials: int | None, domains: dict | None = None) -> np.ndarray:
    col = protocol.score
    if protocol.test == "mwu-greater":
        codes, names = pd.factorize(seg["system"])  # grouped on integer codes, not by sorting strings
        values = seg[col].to_numpy(dtype=float)
        order = np.argsort(codes, kind="stable")
        starts = np.flatnonzero(np.r_[True, np.diff(codes[order]) != 0])
        parts = dict(zip(np.asarray(names, dtype=object)[codes[order][starts]], np.split(values[order], starts[1:])))
        return mwu_greater_matrix([parts[s] for s in systems])
    matrix = score_matrix(seg, systems, col)
    if protocol.test == "signed-rank-greater":
        return signed_rank_greater_matrix(matrix)
    if protocol.test == "mwu-greater-shared":
        return mwu_greater_shared_matrix(matrix)
    if protocol.test == "signed-rank-domain-stouffer":
        from .significance import stouffer_signed_rank_matrix
        lp = str(seg["lp"].iloc[0]) if "lp" in seg.columns and len(seg) else ""
        keys = sorted(seg["segment"].astype(str).unique())  # the column order of score_matrix
        return stouffer_signed_rank_matrix(matrix, [(domains or {}).get((lp, k), "all") for k in keys])
    if protocol.test == "ar-greater":
        return approximate_randomisation_matrix(matrix, trials=trials or protocol.trials or DEFAULT_TRIALS,
                                                seed=seed)
    raise ValueError(protocol.test)  # pragma: no cover


def _wmt26_tests(seg: pd.DataFrame, table: pd.DataFrame, alpha: float) -> tuple[np.ndarray, dict[str, Any]]:
    """The wmt26 protocol's comparisons (:mod:`leaderboard.human.wmt26`) of the systems of ``table`` (in
    ranking order): the matrix the cluster and win rules read (the smaller of the two p-values of a
    pair, above the diagonal only: a lower model is never better), the per-system names of the rule
    added to ``table``, and the pairs for the JSON."""
    from .wmt26 import comparisons, pair_tests, significance
    systems = table["system"].tolist()
    tests = pair_tests(score_matrix(seg, systems, "raw"))
    sig = significance(tests, alpha)
    p = np.where(np.triu(np.ones(sig.shape, dtype=bool), k=1), tests.either(), np.nan)
    table["mean"], table["items"], table["annotations"] = table["ave"], table["n"], table["n_all"]
    return p, comparisons(systems, tests, sig)


def _anytime_group(table: pd.DataFrame, rows: pd.DataFrame | None, *, lp: str, assessment: str, protocol: Protocol,
                   alpha: float, spec: RankingSpec, human_systems: Mapping[str, bool] | None) -> Ranking:
    """The anytime-paired protocol on one group: :func:`~leaderboard.human.adaptive_tests.anytime_paired_ranking`
    on its judgments, put in the ranking table's shape (p-values: 1/sup K in the direction of the claim)."""
    from .adaptive_tests import anytime_paired_ranking
    if rows is None or "hit" not in rows.columns:
        raise InputError("the anytime-paired protocol needs the page of every judgment (a hit column, e.g. a "
                         "Pearmut log) in collection order", column="protocol")
    res = anytime_paired_ranking(rows, alpha)
    systems = [s["system"] for s in res["systems"]]
    index = {name: i for i, name in enumerate(systems)}
    table = table.set_index("system").loc[systems].reset_index()
    n = len(systems)
    p = np.full((n, n), np.nan)
    better = np.zeros((n, n), bool)
    e_values: dict[str, dict[str, float]] = {a: {} for a in systems}
    for pair in res["pairs"]:
        i, j = index[pair["a"]], index[pair["b"]]
        e = float(np.exp(pair["log_e"]))
        e_values[pair["a"]][pair["b"]] = e_values[pair["b"]][pair["a"]] = e
        better[i, j], better[j, i] = bool(pair["a_better"]), bool(pair["b_better"])
        if pair["a_better"] or pair["b_better"]:
            hi, lo = (i, j) if pair["a_better"] else (j, i)
            p[hi, lo] = min(1.0, 1.0 / e)
    table["mean"] = [s["mean"] for s in res["systems"]]
    table["items"] = [s["items"] for s in res["systems"]]
    table["strength"] = [s["strength"] for s in res["systems"]]
    numbers = np.array([s["cluster"] for s in res["systems"]], int)
    start, end = cluster_spans(numbers)
    table["wins"], table["losses"] = better.sum(axis=1), better.sum(axis=0)
    table["rank_lo"], table["rank_hi"] = 1 + table["losses"], n - table["wins"]
    table["cluster"], table["cluster_start"], table["cluster_end"] = numbers, start, end
    table["human"] = human_flags(systems, human_systems)
    pairs = [{"a": str(q["a"]), "b": str(q["b"]), "pages": int(q["pages"]),
              "mean_difference": float(q["mean_difference"]), "e_value": float(np.exp(q["log_e"])),
              "a_better": bool(q["a_better"]), "b_better": bool(q["b_better"])} for q in res["pairs"]]
    extra = {"protocol": protocol.name, "alpha": alpha, "cluster_rule": "strict", "pairs": pairs,
             "significantly_better": {a: {b: bool(better[i, j]) for j, b in enumerate(systems) if j != i}
                                      for i, a in enumerate(systems)},
             "e_values": e_values, "strength": dict(zip(systems, table["strength"].astype(float)))}
    return Ranking(lp=lp, assessment=assessment, systems=table, pvalues=p, extra=extra, spec=spec,
                   signature=spec.signature(systems=n, segments=int(rows["segment"].nunique()),
                                            judgments=int(table["n_all"].sum())))


def _system_table(seg: pd.DataFrame) -> pd.DataFrame:
    """Ave, Ave z, N, N.ALL per system; a numpy fast path when ``seg`` is sorted by system."""
    names = seg["system"].to_numpy(dtype=object)
    if len(names) == 0 or not (names[1:] >= names[:-1]).all():
        return system_scores_from_segments(seg[["system", "segment", "raw", "z", "n"]])
    starts = np.flatnonzero(np.r_[True, names[1:] != names[:-1]])
    counts = np.diff(np.r_[starts, len(names)])
    out = {"system": [str(x) for x in names[starts]]}
    for col, name in (("raw", "ave"), ("z", "ave_z")):
        values = seg[col].to_numpy(dtype=float)
        ok = ~np.isnan(values)
        total = np.add.reduceat(np.where(ok, values, 0.0), starts)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[name] = total / np.add.reduceat(ok.astype(float), starts)
    out["n"] = counts
    out["n_all"] = np.add.reduceat(seg["n"].to_numpy(dtype=np.int64), starts)
    return pd.DataFrame(out)


def rank_group(seg: pd.DataFrame, *, lp: str, assessment: str, protocol: Protocol, alpha: float,
               cluster_rule: str, seed: int, trials: int | None,
               spec: RankingSpec, domains: dict | None = None,
               n_resamples: int = DEFAULT_RESAMPLES, human_systems: Mapping[str, bool] | None = None,
               rows: pd.DataFrame | None = None) -> Ranking:
    """Rank one (lp, assessment) from its per-segment table (system, segment, raw, z, n; optionally h).

    ``rows``: the group's judgments in collection order (segment, system, raw, hit), which the
    anytime-paired protocol reads page by page.

    ``n_resamples`` > 0 adds 95% bootstrap intervals of Ave and Ave z (resampling segments, seeded
    with ``seed``; :mod:`leaderboard.human.intervals`) and the rank shares; ``human_systems`` overrides
    the WMT-naming rule that marks human translations. ``domains`` ((lp, segment) → domain) adds each
    system's per-domain means of the protocol's score; a protocol with ``domains`` ranks by their mean.
    """
    table = _system_table(seg)
    key = "ave_z" if protocol.score == "z" else "ave"
    column = "z" if protocol.score == "z" else "raw"
    if "h" in seg.columns:
        table["h"] = seg.groupby("system", sort=False)["h"].mean().reindex(table["system"]).to_numpy(dtype=float)
    means = None
    if domains is not None:
        means = domain_means(seg, table["system"].tolist(), domains, lp, column)
        if protocol.domains:  # Ave and Ave z: means over domains of the per-domain means
            for col, name in (("raw", "ave"), ("z", "ave_z")):
                table[name] = domain_macro_average(
                    means if col == column else domain_means(seg, table["system"].tolist(), domains, lp, col))
    wmt26_extra = None
    if protocol.test == ANYTIME_TEST:
        return _anytime_group(table, rows, lp=lp, assessment=assessment, protocol=protocol, alpha=alpha, spec=spec,
                              human_systems=human_systems)
    if protocol.test == WMT26_TEST:
        from .wmt26 import model_means
        table["ave"] = model_means(score_matrix(seg, table["system"].tolist(), "raw"))  # the plain mean, to the bit
    table = table.sort_values([key, "system"], ascending=[False, True], kind="mergesort").reset_index(drop=True)
    systems = table["system"].tolist()
    if protocol.test == WMT26_TEST:
        p, wmt26_extra = _wmt26_tests(seg, table, alpha)
    else:
        p = _test_matrix(protocol, seg, systems, seed, trials, domains)
    if protocol.test == "signed-rank-domain-stouffer":
        p = directional(p, table[key].to_numpy(dtype=float))  # the test has no direction: the score gives it
    wins, losses = wins_losses(p, alpha)
    n = len(systems)
    ends = cluster_ends(p, alpha, cluster_rule)
    numbers = cluster_numbers(ends)
    start, end = cluster_spans(numbers)
    table["wins"] = wins
    table["losses"] = losses
    if protocol.ranks == "walk":
        table["rank_lo"], table["rank_hi"] = rank_walks(p, alpha)
    else:
        table["rank_lo"] = 1 + losses
        table["rank_hi"] = n - wins
    table["cluster"] = numbers
    table["cluster_start"] = start
    table["cluster_end"] = end
    table["human"] = human_flags(systems, human_systems)
    extra: dict[str, Any] = {"protocol": protocol.name, "alpha": alpha, "cluster_rule": cluster_rule,
                             **(wmt26_extra or {})}
    if means is not None:
        extra["domain_score"] = key
        extra["_domain_means"] = means.reindex(index=systems)
    if n_resamples:
        by_domain = None
        if means is not None and protocol.domains:
            _, uniq = pd.factorize(seg["segment"])
            by_domain = np.array([domains.get((lp, str(u)), "all") for u in uniq], dtype=object)
        cis, shares = _segment_intervals(seg, systems, protocol.score, n_resamples, seed, by_domain)
        table = pd.concat([table, cis], axis=1)
        extra["_rank_shares"] = shares
    return Ranking(lp=lp, assessment=assessment, systems=table, pvalues=p, extra=extra, spec=spec,
                   signature=spec.signature(systems=n, segments=int(seg["segment"].nunique()),
                                            judgments=int(table["n_all"].sum())))


def rank_judgments(frame: pd.DataFrame, **options) -> list[dict]:
    """Rank the systems of every (lp, assessment) in ``frame``; one JSON-ready dict each.

    Each dict: ``lp``, ``assessment``, ``signature``, ``systems`` (in ranking order: system, ave,
    ave_z, n, n_all, rank_lo, rank_hi, cluster, wins, losses, cluster_start, cluster_end) and
    ``pvalues`` (``pvalues[a][b]`` = one-sided p that a is better than b, every a ≠ b).
    ``options`` are those of :func:`rankings` (protocol, alpha, cluster_rule, standardise, qc, ...).
    """
    return [r.to_dict() for r in rankings(frame, **options)]


@dataclass
class RankingResult:
    """What one ranking run computed, kept for whoever shows or stores it: the worker QC
    (:class:`QualityControl`: label, report, kept judgments) and the rankings of every (lp, assessment),
    each with its system table, p-values, intervals and clusters."""
    qc: QualityControl
    rankings: list[Ranking]


def rankings(frame: pd.DataFrame, **options: Any) -> list[Ranking]:
    """Rank every (lp, assessment) of ``frame`` into :class:`Ranking` objects (see :func:`rank_result`)."""
    return rank_result(frame, **options).rankings


def rank_result(
    frame: pd.DataFrame,
    *,
    protocol: str = "wmt-da",
    alpha: float | None = None,
    cluster_rule: str | None = None,
    standardise: str | None = None,
    exclude_ref: bool = False,
    exclude_bad_ref: bool = False,
    zero_sd: str | None = None,
    score: str | None = None,
    seed: int = DEFAULT_SEED,
    trials: int | None = None,
    qc: str = "none",
    qc_alpha: float = 0.05,
    lp: str | None = None,
    assessment: str | None = None,
    exclude_systems: Sequence[str] = (),
    n_resamples: int = DEFAULT_RESAMPLES,
    human_systems: Mapping[str, bool] | None = None,
    documents: Mapping[str, Mapping[str, str]] | None = None,
    documents_source: str | None = None,
) -> RankingResult:
    """Rank every (lp, assessment) of ``frame``; the rankings and the worker QC behind them.

    ``standardise`` None = "keep" when every row has a z-score, else "worker" (then
    ``exclude_ref``, ``exclude_bad_ref`` and ``zero_sd`` apply, see
    :mod:`leaderboard.human.standardise`). ``alpha``: significance level of a win. ``seed`` and
    ``trials``: approximate randomisation only. ``qc``: "none", "release" (already filtered;
    recorded in the signature), "auto" or a QC method name. ``exclude_systems``: shell-style
    patterns (``ende-tutorial*``) of systems left out of the ranking; their judgments still count
    towards each worker's mean and sd, and the patterns are recorded in the signature.
    ``n_resamples``: bootstrap resamples of the segments for the 95% intervals of Ave / Ave z and
    the rank shares (0 = none), seeded with ``seed``; both recorded in the signature.
    ``human_systems``: system name → True / False, the organisers' marking of human translations
    (default: WMT naming, :func:`leaderboard.naming.is_human`). ``alpha``, ``cluster_rule``,
    ``standardise`` and ``zero_sd`` left None take the protocol's own (else 0.05, ``organisers``, as
    above, ``drop``); ``qc="auto"`` means ``none`` for a protocol that fixes it. ``documents`` (per lp,
    document id → domain; ``documents_source`` names its file in errors): each system's per-domain
    scores (:mod:`leaderboard.human.domains`), which a protocol with domains also ranks by; without
    it, such a protocol reads the domain from the document id.
    """
    if n_resamples < 0:
        raise InputError("the number of resamples must be 0 or more", column="resamples")
    proto = resolve_protocol(protocol, score)
    if proto.test == "wave-signed-rank-greater":
        raise InputError("the wmt25 protocol ranks two ratings per item (wave 1 and wave 2): give a file with "
                         "system, segment, wave and score columns (README: Input formats)", column="protocol")
    alpha = alpha if alpha is not None else (proto.alpha or 0.05)
    cluster_rule = cluster_rule or proto.cluster_rule or "organisers"
    if not 0 < alpha < 1:
        raise InputError("alpha must lie strictly between 0 and 1", column="alpha")
    if cluster_rule not in CLUSTER_RULES:
        raise InputError(f"cluster rule must be one of {', '.join(CLUSTER_RULES)}", column="cluster-rule")
    if trials is not None and trials < 1:
        raise InputError("trials must be positive", column="trials")
    qc = resolve_qc(qc, (), proto.name)
    unfiltered = frame
    quality = run_qc(frame, qc, qc_alpha)
    frame, qc_label = quality.kept, quality.label
    if lp is not None:
        frame = frame[frame["lp"].astype(str).to_numpy() == lp]
        unfiltered = unfiltered[unfiltered["lp"].astype(str).to_numpy() == lp]
    if assessment is not None:
        frame = frame[frame["assessment"].astype(str).to_numpy() == assessment]
        unfiltered = unfiltered[unfiltered["assessment"].astype(str).to_numpy() == assessment]
    where = (f" for language pair {lp!r}" if lp else "") + (f" and assessment {assessment!r}" if assessment else "")
    if frame.empty and not unfiltered.empty:
        workers = unfiltered["worker"].nunique()
        raise InputError(f"all {workers} worker(s){where} failed quality control ({qc_label}), so no "
                         f"judgments are left to rank; rank without worker QC or with a looser threshold (higher "
                         f"than p < {qc_alpha:g}); without BAD_REF / REPEAT items no worker can pass, and judgments "
                         "that are already filtered need no worker QC", column="qc", code="all_workers_failed_qc",
                         value=qc_alpha)
    if frame.empty:
        raise InputError("no judgments to rank" + where)
    items = "system+repeat"
    if proto.selection == "wmt24":
        from .selection import wmt24_selection
        frame = wmt24_selection(frame)
        items = "system-latest"
        if frame.empty:
            raise InputError("no judgments left to rank" + where + " after the WMT24 selection (TGT items of "
                             "non-tutorial systems in usable documents)")
    z, std_label = _z_scores(frame, standardise if standardise is not None else proto.standardise,
                             exclude_ref, exclude_bad_ref, zero_sd or proto.zero_sd or "drop")
    score_values = z if proto.score == "z" else frame["raw"].to_numpy(dtype=float, na_value=np.nan)
    usable = ~np.isnan(score_values)  # workers without a z (sd = 0, dropped) do not count
    if exclude_systems:
        names = frame["system"].astype(str)
        excluded = np.zeros(len(frame), dtype=bool)
        for pattern in exclude_systems:
            excluded |= names.map(lambda s, pat=pattern: fnmatch.fnmatchcase(s, pat)).to_numpy(dtype=bool)
        usable &= ~excluded
    if proto.score == "raw" and not usable.any():
        raise InputError("this protocol needs raw scores, and the input has none (for the WMT release, store its "
                         "worker mean/sd file with it)", column="raw", code="no_raw_scores")
    seg_all = segment_table(frame, ["lp", "assessment"], z=z, keep=usable)
    if seg_all.empty:
        raise InputError("no SYSTEM or REPEAT judgments with a usable score to rank")
    if proto.name == "wmt23":
        seg_all["h"] = segment_table(frame.assign(raw=h_scores(frame["raw"])), ["lp", "assessment"], z=z,
                                     keep=usable)["raw"].to_numpy()
    bounds = np.searchsorted(seg_all["_group"].to_numpy(), np.arange(int(seg_all["_group"].max()) + 2)) \
        if len(seg_all) else np.zeros(1, dtype=int)
    domains = None
    domains_text = None
    if proto.domains or documents is not None:
        from .domains import domains_label, segment_domains
        domains = segment_domains(frame[usable], documents, documents_source)
        domains_text = domains_label(documents)
    uses_seed = proto.test == "ar-greater"
    worker = std_label != "given"
    spec = RankingSpec(
        protocol=proto.name, qc=quality.method or quality.label, qc_alpha=quality.alpha,
        standardise="worker" if worker else "given", exclude_ref=bool(exclude_ref) and worker,
        exclude_bad_ref=bool(exclude_bad_ref) and worker,
        zero_sd=(zero_sd or proto.zero_sd or "drop") if worker else "drop", items=items, score=proto.score,
        sort=("ave_z" if proto.score == "z" else "ave") + ("-domain-mean" if domains is not None and proto.domains
                                                           else ""),
        test=proto.test, trials=(trials or proto.trials) if uses_seed else None, alpha=alpha,
        cluster_rule=cluster_rule, resamples=n_resamples, seed=seed if uses_seed or n_resamples else None,
        domains=domains_text, exclude=tuple(exclude_systems))
    out = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        part = seg_all.iloc[a:b]
        rows = None
        if proto.test == ANYTIME_TEST:
            pick = usable & (frame["lp"].astype(str).to_numpy() == str(part["lp"].iloc[0])) \
                & (frame["assessment"].astype(str).to_numpy() == str(part["assessment"].iloc[0]))
            rows = frame[pick]
            if "item_type" in rows.columns:
                rows = rows[rows["item_type"].astype(str).isin(["SYSTEM", "REPEAT"]).to_numpy()]
        out.append(rank_group(part, lp=str(part["lp"].iloc[0]), assessment=str(part["assessment"].iloc[0]), rows=rows,
                              protocol=proto, alpha=alpha, cluster_rule=cluster_rule, seed=seed,
                              trials=trials, spec=spec, domains=domains,
                              n_resamples=n_resamples, human_systems=human_systems))
    out.sort(key=lambda r: (r.lp, r.assessment))
    return RankingResult(quality, out)


def h_scores(raw: pd.Series | np.ndarray) -> np.ndarray:
    """WMT23's "H" score of each 0-100 rating: min(round(raw / 25) + 1, 4) (round half to even, as Python)."""
    values = np.asarray(raw, dtype=float)
    with np.errstate(invalid="ignore"):
        return np.minimum(np.round(values / 25.0) + 1.0, 4.0)


def segment_scores(frame: pd.DataFrame, spec: RankingSpec, lp: str, assessment: str, *,
                   filtered: bool = False) -> pd.DataFrame:
    """Per (system, segment) mean raw and z of ``lp`` / ``assessment`` as the ranking made with ``spec`` had them.

    ``frame``: the stored judgments the ranking started from (worker QC pools a worker's judgments
    over language pairs, so pass the campaign's judgments of the assessment), or, with ``filtered``, the
    judgments its QC kept (QC is not run again). The spec says which workers QC removed, how z was
    computed, which rows counted (a z protocol drops rows without z) and which systems were left out.
    Columns: system, segment, raw, z, n.
    """
    kept = frame if filtered else run_qc(frame, spec.qc, spec.qc_alpha or 0.05).kept
    part = kept[(kept["lp"].astype(str).to_numpy() == lp) & (kept["assessment"].astype(str).to_numpy() == assessment)]
    if spec.items == "system-latest":  # the WMT24 selection (protocol wmt24-esa)
        from .selection import wmt24_selection
        part = wmt24_selection(part)
    if spec.standardise == "given" or part.empty:
        z = part["z"].to_numpy(dtype=float, na_value=np.nan)
    else:
        z = worker_z(part, exclude_ref=spec.exclude_ref, exclude_bad_ref=spec.exclude_bad_ref, zero_sd=spec.zero_sd)
    values = part["raw"].to_numpy(dtype=float, na_value=np.nan) if spec.score == "raw" else z
    keep = ~np.isnan(values)
    if spec.exclude:
        names = part["system"].astype(str)
        keep &= ~names.map(lambda s: any(fnmatch.fnmatchcase(s, p) for p in spec.exclude)).to_numpy(dtype=bool)
    seg = segment_table(part, [], z=z, keep=keep)
    return seg[["system", "segment", "raw", "z", "n"]].astype({"system": str, "segment": str}).reset_index(drop=True)
