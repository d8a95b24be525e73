"""Parameters of a simulated ESA / contrastive-ESA campaign, fitted to real ESA judgments.

The score model (docs/method/allocation.md#the-simulated-campaign) is additive on the 0–100 scale,
clipped and rounded as the annotation slider is::

    score = clip(round(mu_s + doc_d + seg_i + bias_a + nu_si + sd_s,d + noise), 0, 100)

with ``mu_s`` the system's true mean, ``doc_d`` / ``seg_i`` the difficulty of a document and of a
segment inside it, ``bias_a`` the annotator's leniency, ``nu_si`` the system's idiosyncratic quality
on a segment (its *spread*; left-skewed: most outputs are fine, some have major errors), ``sd_s,d`` a
system × document part (segments of one document share it) and ``noise`` the annotator's
disagreement with themselves and others on the same output.

:func:`fit_esa` estimates every part from a canonical judgment frame of an ESA campaign (the WMT24
Appraise export is the one we use): an additive model ``score ~ system + segment + annotator`` fitted
by alternating means, per language pair; the noise from outputs scored by two or more annotators;
each system's spread from its residual variance minus the noise; the document part from the
residual covariance of segments of one system and document; the residual shape as quantiles; the
attention-check drop from the degraded quality-control copies (``BAD_REF``). :data:`WMT24_ESA` holds
that fit of WMT24 wave 3 (English → Japanese, English → Chinese), so the simulator works without the
file; a test refits the file and compares.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

#: share of the per-output residual variance taken as annotator noise (the rest is the output's own
#: quality, shared when an output is scored twice); the WMT24 export scores each output once, so the
#: split cannot be fitted from it
NOISE_SHARE = 0.5
#: quantile levels of the standardised residual shape kept by the fit
SHAPE_LEVELS: tuple[float, ...] = tuple(np.round(np.linspace(0.0, 1.0, 41), 4))


@dataclass(frozen=True)
class EsaFit:
    """What the campaign simulator needs, on the 0–100 score scale (standard deviations unless said)."""

    system_mean: float          # mean of the systems' true means
    system_sd: float            # spread of the systems' true means around it (within a language pair)
    spread_log_mean: float      # log of a system's spread (sd of nu_si): mean ...
    spread_log_sd: float        # ... and sd over systems
    spread_slope: float         # d log(spread) / d mean: weaker systems are less consistent
    doc_sd: float               # document difficulty
    segment_sd: float           # segment difficulty inside its document
    annotator_sd: float         # annotator leniency (bias)
    noise_sd: float             # annotator noise on one output (median annotator)
    noise_log_sd: float         # annotators differ in noise: sd of log(noise sd)
    system_doc_sd: float        # system x document part shared by the segments of one document
    shape: tuple[float, ...]    # quantiles (at SHAPE_LEVELS) of the standardised residual, mean 0 sd 1
    doc_lengths: tuple[tuple[int, int], ...]    # (segments, documents with that many), over distinct documents
    check_drop_mean: float      # score drop of a spoiled translation (attention check) ...
    check_drop_sd: float        # ... and its sd
    source: str = ""
    per_pair: dict = field(default_factory=dict, compare=False)


def _additive(y: np.ndarray, s: np.ndarray, i: np.ndarray, a: np.ndarray, rounds: int = 200
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Least-squares fit of y = mu[s] + seg[i] + ann[a] by alternating means (backfitting)."""
    mu, seg, ann = (np.zeros(v.max() + 1) for v in (s, i, a))
    ns, ni, na = (np.bincount(v) for v in (s, i, a))
    for _ in range(rounds):
        mu = np.bincount(s, y - seg[i] - ann[a]) / ns
        seg = np.bincount(i, y - mu[s] - ann[a]) / ni
        seg -= seg.mean()
        ann = np.bincount(a, y - mu[s] - seg[i]) / na
        ann -= ann.mean()
    return mu, seg, ann


def _pooled_within_var(values: np.ndarray, groups: np.ndarray) -> float:
    """Pooled within-group variance over the groups with two or more values."""
    frame = pd.DataFrame({"v": values, "g": groups})
    stats = frame.groupby("g")["v"].agg(["var", "count"])
    stats = stats[stats["count"] >= 2]
    return float((stats["var"] * (stats["count"] - 1)).sum() / (stats["count"] - 1).sum())


def fit_pair(frame: pd.DataFrame) -> dict:
    """The parts of the score model for one language pair's ``SYSTEM`` judgments (canonical columns)."""
    y = frame["raw"].to_numpy(float)
    s = pd.factorize(frame["system"])[0]
    item_key = frame["doc"].astype(str) + "\x00" + frame["segment"].astype(str)
    i = pd.factorize(item_key)[0]
    a = pd.factorize(frame["worker"])[0]
    mu, seg, ann = _additive(y, s, i, a)
    resid = y - mu[s] - seg[i] - ann[a]
    # system x document: residuals of one system's segments in one document are correlated (the
    # residual varies more across documents than inside one); the excess is the shared part
    sys_doc = s.astype(str) + "\x00" + frame["doc"].astype(str).to_numpy()
    within = _pooled_within_var(resid, sys_doc)
    system_doc_var = max(float(resid.var()) - within, 0.0)
    # each output is scored once here, so the rest of the residual mixes the output's own quality
    # and the annotator's noise; NOISE_SHARE of it is taken as noise (see the module docs)
    noise_var = NOISE_SHARE * within
    # annotators differ in how noisy they are: the spread of their residual sds
    per_ann = pd.Series(resid).groupby(a).std().dropna()
    # spread: a system's residual variance beyond the noise and the document part
    sys_var = pd.Series(resid).groupby(s).var().to_numpy()
    spread = np.sqrt(np.maximum(sys_var - noise_var - system_doc_var, 1.0))
    # document vs segment difficulty
    seg_doc = pd.Series(frame["doc"].astype(str).to_numpy()).groupby(i).first().to_numpy()
    doc_means = pd.Series(seg).groupby(seg_doc).transform("mean").to_numpy()
    doc_sd = float(pd.Series(seg).groupby(seg_doc).mean().std())
    segment_sd = float((seg - doc_means).std())
    lengths = frame.drop_duplicates(["doc", "segment"]).groupby("doc").size()
    # standardised residual shape: each residual over its system's residual sd
    z = resid / np.sqrt(sys_var)[s]
    return {
        "system_means": mu, "spread": spread, "doc_sd": doc_sd, "segment_sd": segment_sd,
        "annotator_sd": float(ann.std()), "noise_sd": float(np.sqrt(noise_var)),
        "noise_log_sd": float(np.log(per_ann[per_ann > 0]).std()),
        "system_doc_sd": float(np.sqrt(system_doc_var)), "z": z, "doc_lengths": lengths,
    }


def _length_histogram(lengths: pd.Series) -> tuple[tuple[int, int], ...]:
    """(segments, documents) pairs over distinct document ids (a document shared by two language
    pairs counts once, with its larger length)."""
    per_doc = lengths.groupby(level=0).max()
    counts = per_doc.value_counts().sort_index()
    return tuple((int(n), int(c)) for n, c in counts.items())


def fit_esa(frame: pd.DataFrame, source: str = "") -> EsaFit:
    """Fit :class:`EsaFit` to a canonical ESA judgment frame (every language pair in it pooled).

    System rows whose name contains ``tutorial`` (Appraise's tutorial documents) are left out; the
    degraded copies (``BAD_REF``) give the attention-check drop, matched to the annotator's score of
    the same system and segment.
    """
    systems = frame[(frame["item_type"] == "SYSTEM")
                    & ~frame["system"].astype(str).str.contains("tutorial", case=False)]
    # an output logged twice by its annotator (same score) counts once
    systems = systems.drop_duplicates(["lp", "worker", "system", "doc", "segment"])
    if systems.empty:
        raise ValueError("no SYSTEM judgments to fit")
    parts = {lp: fit_pair(g) for lp, g in systems.groupby("lp", sort=True)}
    centred = np.concatenate([p["system_means"] - p["system_means"].mean() for p in parts.values()])
    means = np.concatenate([p["system_means"] for p in parts.values()])
    log_spread = np.log(np.concatenate([p["spread"] for p in parts.values()]))
    slope, _ = np.polyfit(centred, log_spread, 1)
    z = np.concatenate([p["z"] for p in parts.values()])
    z = (z - z.mean()) / z.std()
    bad = frame[frame["item_type"] == "BAD_REF"]
    keys = ["lp", "worker", "system", "segment"]
    matched = bad.merge(systems, on=keys, suffixes=("_bad", ""))
    drop = (matched["raw"] - matched["raw_bad"]).to_numpy(float)

    def avg(key: str) -> float:
        return float(np.mean([p[key] for p in parts.values()]))

    return EsaFit(
        system_mean=float(means.mean()), system_sd=float(centred.std(ddof=len(parts))),
        spread_log_mean=float(log_spread.mean()), spread_log_sd=float(log_spread.std()),
        spread_slope=float(slope), doc_sd=avg("doc_sd"), segment_sd=avg("segment_sd"),
        annotator_sd=avg("annotator_sd"), noise_sd=avg("noise_sd"), noise_log_sd=avg("noise_log_sd"),
        system_doc_sd=avg("system_doc_sd"),
        shape=tuple(float(q) for q in np.quantile(z, SHAPE_LEVELS)),
        doc_lengths=_length_histogram(pd.concat([p["doc_lengths"] for p in parts.values()])),
        check_drop_mean=float(drop.mean()) if drop.size else 0.0,
        check_drop_sd=float(drop.std()) if drop.size else 0.0,
        source=source,
        per_pair={lp: {"systems": len(p["system_means"]), "system_sd": float(p["system_means"].std(ddof=1)),
                       "doc_sd": p["doc_sd"], "segment_sd": p["segment_sd"], "annotator_sd": p["annotator_sd"],
                       "noise_sd": p["noise_sd"], "system_doc_sd": p["system_doc_sd"]}
                  for lp, p in parts.items()},
    )


#: :func:`fit_esa` of the WMT24 ESA release (Appraise export, wave 3: English → Japanese and
#: English → Chinese, 13 systems each, 112 annotators, 9,934 judgments; the fit rounded to 4 decimals)
WMT24_ESA = EsaFit(
    system_mean=89.1167, system_sd=2.2097,
    spread_log_mean=1.9836, spread_log_sd=0.3587, spread_slope=-0.1103,
    doc_sd=6.1237, segment_sd=7.0105, annotator_sd=6.1187,
    noise_sd=8.0946, noise_log_sd=0.3992, system_doc_sd=3.4860,
    shape=(-9.5254, -2.4762, -1.4917, -1.0604, -0.8120, -0.6613, -0.5388, -0.4574, -0.3843, -0.3266,
           -0.2756, -0.2283, -0.1856, -0.1456, -0.1103, -0.0709, -0.0366, -0.0027, 0.0004, 0.0309,
           0.0656, 0.1016, 0.1331, 0.1692, 0.2073, 0.2407, 0.2809, 0.3199, 0.3609, 0.4055,
           0.4577, 0.5046, 0.5651, 0.6280, 0.6996, 0.7933, 0.9199, 1.0652, 1.2454, 1.5721, 4.2488),
    doc_lengths=((1, 59), (2, 2), (3, 2), (4, 1), (5, 4), (6, 2), (7, 5), (8, 6), (9, 5), (10, 25)),
    check_drop_mean=58.8832, check_drop_sd=27.0673,
    source="WMT24 ESA wave 3 (en-ja, en-zh)",
)
