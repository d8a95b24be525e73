"""Simulated crowd DA campaigns and simulated Mechanical Turk answers (for the demo, tests, benchmarks).

The model (all draws from one ``numpy`` generator seeded with ``seed``):

* System s has a true mean quality ``mu_s ~ Normal(65, 8)`` (0–100 scale); segment g a difficulty
  ``d_g ~ Normal(0, 10)``; each (system, segment) output an idiosyncratic part
  ``e_sg ~ Normal(0, 8)``. The true quality of the output is ``q = clip(mu_s + d_g + e_sg, 0, 100)``;
  both showings of a repeat share it.
* A reference translation (``REF`` item, shown next to itself for adequacy) has quality
  ``clip(Normal(93, 4), 0, 100)`` per segment.
* A bad reference (``BAD_REF``) has the quality of its original minus a drop
  ``clip(Normal(22, 6), 8, 40)`` per item, so consistent workers score originals 15–30 points
  higher on average (the margin seen in real WMT data).
* A worker answers ``clip(round(50 + scale_w * (q - 50) + bias_w + Normal(0, sigma_w)), 0, 100)``:

  ======== ==================== ==================== ===================
  kind     scale_w              bias_w               sigma_w
  ======== ==================== ==================== ===================
  good     Uniform(0.85, 1.15)  Normal(0, 6)         Uniform(6, 10)
  lenient  Uniform(0.45, 0.65)  Normal(+22, 4)       Uniform(5, 8)
  harsh    Uniform(0.85, 1.15)  Normal(-20, 4)       Uniform(6, 10)
  random   (uniform whole numbers 0–100, ignoring the item)
  ======== ==================== ==================== ===================

  so lenient workers are shifted up and compressed, harsh ones shifted down, and repeats of a
  consistent worker differ only by noise (sd of the difference ≈ √2·sigma_w).
* Seconds per item: log-normal with median 12 s (consistent workers) or 3 s (random clickers).

:func:`simulate_campaign` lays judgments out exactly as the HIT builder does (70 genuine outputs,
10 REF, 10 BAD_REF, 10 REPEAT per HIT, blocks i / i+5 holding each other's pairs, shuffled inside
blocks; :func:`leaderboard.hits.builder.hit_template`), vectorised with numpy: a million
judgments take a few seconds. :func:`simulate_answers` answers a built batch (``hits.csv``) as
MTurk batch results, for the round trip builder → MTurk → importer → QC.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import InputError
from ..hits.builder import HIT_SIZE, N_GENUINE, block_shuffle, hit_template, system_slots

KINDS: tuple[str, ...] = ("good", "lenient", "harsh", "random")
SYSTEM_MEAN, SYSTEM_SD = 65.0, 8.0
SEGMENT_SD, OUTPUT_SD = 10.0, 8.0
REF_MEAN, REF_SD = 93.0, 4.0
DROP_MEAN, DROP_SD, DROP_MIN, DROP_MAX = 22.0, 6.0, 8.0, 40.0
#: kind -> (scale low, scale high, bias mean, bias sd, sigma low, sigma high)
WORKER_MODEL = {
    "good": (0.85, 1.15, 0.0, 6.0, 6.0, 10.0),
    "lenient": (0.45, 0.65, 22.0, 4.0, 5.0, 8.0),
    "harsh": (0.85, 1.15, -20.0, 4.0, 6.0, 10.0),
}


def _check_workers(workers: dict[str, int]) -> list[str]:
    """The workers' kinds, one entry per worker, in KINDS order."""
    unknown = sorted(set(workers) - set(KINDS))
    if unknown:
        raise InputError(f"unknown worker kind(s) {', '.join(unknown)}; use {', '.join(KINDS)}",
                         code="unknown_worker_kind", value=unknown[0])
    negative = [k for k, n in workers.items() if int(n) < 0]
    if negative:
        raise InputError("worker counts must be >= 0", code="negative_workers", column=negative[0],
                         value=workers[negative[0]])
    kinds = [k for k in KINDS for _ in range(int(workers.get(k, 0)))]
    if not kinds:
        raise InputError("no workers to simulate", code="no_workers")
    return kinds


def _worker_ids(kinds: list[str], prefix: str = "W-") -> list[str]:
    counter: dict[str, int] = {}
    ids = []
    for k in kinds:
        counter[k] = counter.get(k, 0) + 1
        ids.append(f"{prefix}{k}-{counter[k]:04d}")
    return ids


def worker_parameters(kinds: list[str], rng: np.random.Generator) -> np.ndarray:
    """Each worker's (scale, bias, sigma) drawn from the model of the module docstring (n × 3; random
    clickers get (1, 0, 1), which their answers ignore)."""
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise ValueError(f"unknown worker kind(s) {', '.join(unknown)}; use {', '.join(KINDS)}")
    n_w = len(kinds)
    kind_code = np.array([KINDS.index(k) for k in kinds])
    scale = np.ones(n_w)
    bias = np.zeros(n_w)
    sigma = np.ones(n_w)
    for code, kind in enumerate(KINDS[:3]):
        lo, hi, b_mu, b_sd, s_lo, s_hi = WORKER_MODEL[kind]
        sel = kind_code == code
        m = int(sel.sum())
        scale[sel] = rng.uniform(lo, hi, m)
        bias[sel] = rng.normal(b_mu, b_sd, m)
        sigma[sel] = rng.uniform(s_lo, s_hi, m)
    return np.stack([scale, bias, sigma], axis=1)


def respond(quality: np.ndarray, worker: np.ndarray, kinds: list[str], parameters: np.ndarray,
            rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Raw scores (whole numbers 0-100) and seconds of workers (indices into ``kinds`` / ``parameters``,
    from :func:`worker_parameters`) judging items of true ``quality``."""
    kind_code = np.array([KINDS.index(k) for k in kinds])
    scale, bias, sigma = parameters[:, 0], parameters[:, 1], parameters[:, 2]
    noise = rng.standard_normal(len(quality))
    score = 50 + scale[worker] * (quality - 50) + bias[worker] + sigma[worker] * noise
    clicker = kind_code[worker] == KINDS.index("random")
    uniform = rng.integers(0, 101, len(quality)).astype(float)
    raw = np.where(clicker, uniform, np.clip(np.rint(score), 0, 100))
    seconds = np.round(np.exp(np.where(clicker, np.log(3.0), np.log(12.0)) + 0.5 * rng.standard_normal(len(quality))), 1)
    return raw, seconds


def _respond(quality: np.ndarray, worker: np.ndarray, kinds: list[str],
             rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Raw scores (whole numbers 0-100) and seconds for items of true ``quality`` judged by ``worker``."""
    return respond(quality, worker, kinds, worker_parameters(kinds, rng), rng)


def _distinct_segments(sys_of_slot: np.ndarray, n_segments: int, rng: np.random.Generator) -> np.ndarray:
    """Segments for the genuine slots: distinct per HIT when there are enough, else distinct per system."""
    n_hits, width = sys_of_slot.shape
    distinct_all = n_segments >= width
    seg = rng.integers(0, n_segments, (n_hits, width))
    for _ in range(200):
        key = seg if distinct_all else sys_of_slot * n_segments + seg
        order = np.argsort(key, axis=1, kind="stable")
        sorted_key = np.take_along_axis(key, order, axis=1)
        dup_sorted = np.zeros_like(key, dtype=bool)
        dup_sorted[:, 1:] = sorted_key[:, 1:] == sorted_key[:, :-1]
        if not dup_sorted.any():
            return seg
        dup = np.zeros_like(dup_sorted)
        np.put_along_axis(dup, order, dup_sorted, axis=1)
        seg[dup] = rng.integers(0, n_segments, int(dup.sum()))
    for h in range(n_hits):  # nearly saturated: redraw the few rows left as permutations
        key = seg[h] if distinct_all else sys_of_slot[h] * n_segments + seg[h]
        if len(np.unique(key)) == width:
            continue
        if distinct_all:
            seg[h] = rng.permutation(n_segments)[:width]
            continue
        for s in np.unique(sys_of_slot[h]):
            where = np.flatnonzero(sys_of_slot[h] == s)
            seg[h, where] = rng.permutation(n_segments)[: len(where)]
    return seg


def simulate_campaign(
    n_systems: int = 10,
    n_segments: int = 1000,
    workers: dict[str, int] | None = None,
    hits_per_worker: int = 2,
    seed: int = 0,
    lps: list[str] | tuple[str, ...] = ("xx-en",),
    assessment: str = "adequacy",
    campaign: str = "simulated",
) -> pd.DataFrame:
    """Canonical judgments (raw scores, z empty) of a simulated crowd campaign.

    ``workers`` counts workers per kind (good, lenient, harsh, random) and language pair; each
    does ``hits_per_worker`` HITs of 100 items. Systems are ``sys01``…, segments ``"1"``…,
    workers ``W-<kind>-0001`` (prefixed ``<lp>:`` with several pairs), HITs ``<lp>-H00001``.
    ``attrs``: ``system_quality`` ({lp: {system: mu}}), ``worker_kind`` ({worker: kind}).
    """
    workers = {"good": 8, "lenient": 2, "harsh": 2, "random": 3} if workers is None else workers
    kinds = _check_workers(workers)
    if n_systems < 1 or n_segments < 1 or hits_per_worker < 1:
        raise InputError("n_systems, n_segments and hits_per_worker must be >= 1", code="campaign_too_small",
                         value=(n_systems, n_segments, hits_per_worker))
    if n_systems * n_segments < N_GENUINE or -(-N_GENUINE // n_systems) > n_segments:
        raise InputError(f"{n_systems} systems x {n_segments} segments cannot fill {N_GENUINE} distinct outputs "
                         "per HIT", code="cannot_fill_hits", value=(n_systems, n_segments, hits_per_worker))
    rng = np.random.default_rng(seed)
    tpl = hit_template()
    width = len(str(n_systems))
    sys_names = np.array([f"sys{i + 1:0{max(2, width)}d}" for i in range(n_systems)], dtype=object)
    seg_names = np.array([str(i + 1) for i in range(n_segments)], dtype=object)
    frames = []
    quality_attr: dict[str, dict[str, float]] = {}
    kind_attr: dict[str, str] = {}
    for lp in lps:
        n_hits = len(kinds) * hits_per_worker
        mu = rng.normal(SYSTEM_MEAN, SYSTEM_SD, n_systems)
        diff = rng.normal(0, SEGMENT_SD, n_segments)
        out_q = np.clip(mu[:, None] + diff[None, :] + rng.normal(0, OUTPUT_SD, (n_systems, n_segments)), 0, 100)
        ref_q = np.clip(rng.normal(REF_MEAN, REF_SD, n_segments), 0, 100)
        sys_of_slot = rng.permuted(system_slots(n_systems, n_hits, rng), axis=1)
        seg_of_slot = _distinct_segments(sys_of_slot, n_segments, rng)
        sys_idx = sys_of_slot[:, tpl.slot].reshape(-1)
        seg_idx = seg_of_slot[:, tpl.slot].reshape(-1)
        item_type = np.tile(tpl.item_type, n_hits)
        quality = out_q[sys_idx, seg_idx]
        quality = np.where(item_type == "REF", ref_q[seg_idx], quality)
        is_bad = item_type == "BAD_REF"
        drop = np.clip(rng.normal(DROP_MEAN, DROP_SD, int(is_bad.sum())), DROP_MIN, DROP_MAX)
        quality[is_bad] = np.clip(quality[is_bad] - drop, 0, 100)
        hit = np.repeat(np.arange(n_hits), HIT_SIZE)
        worker = hit // hits_per_worker
        raw, seconds = _respond(quality, worker, kinds, rng)
        # rows in HIT order: row h*100 + (position - 1)
        dest = hit * HIT_SIZE + block_shuffle(rng, n_hits).reshape(-1)
        order = np.empty_like(dest)
        order[dest] = np.arange(len(dest))
        prefix = f"{lp}:" if len(lps) > 1 else ""
        ids = np.array(_worker_ids(kinds, prefix + "W-"), dtype=object)
        hit_names = np.array([f"{lp}-H{h + 1:05d}" for h in range(n_hits)], dtype=object)
        frames.append(pd.DataFrame({
            "campaign": campaign, "lp": lp, "assessment": assessment,
            "worker": ids[worker[order]], "hit": hit_names[hit[order]],
            "position": np.tile(np.arange(1, HIT_SIZE + 1), n_hits),
            "segment": seg_names[seg_idx[order]], "system": sys_names[sys_idx[order]],
            "item_type": item_type[order].astype(object), "raw": raw[order], "z": np.nan,
            "seconds": seconds[order], "doc": pd.Series(pd.NA, index=range(len(order)), dtype="string"),
        }))
        quality_attr[lp] = {str(s): float(m) for s, m in zip(sys_names, mu)}
        kind_attr.update({str(w): k for w, k in zip(ids, kinds)})
    frame = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    frame.attrs.update({"system_quality": quality_attr, "worker_kind": kind_attr})
    return frame


def _mturk_id(rng: np.random.Generator, n: int, length: int = 30) -> np.ndarray:
    alphabet = np.array(list("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"))
    return np.array(["".join(r) for r in alphabet[rng.integers(0, len(alphabet), (n, length))]], dtype=object)


def simulate_answers(
    hits_frame: pd.DataFrame,
    workers: dict[str, int],
    seed: int = 0,
    *,
    assignments: int = 1,
    lp: str | None = None,
    assessment: str | None = None,
    campaign: str = "",
) -> pd.DataFrame:
    """MTurk batch results for a built batch (``hits.csv`` rows), answered by simulated workers.

    Each HIT gets ``assignments`` assignments, dealt round-robin over the workers (so each worker
    does about the same number of HITs and never one HIT twice). Qualities follow the model of
    the module docstring, keyed by the batch's system and segment names. ``lp`` / ``assessment``
    default to ``hits_frame.attrs`` (set by the builder). Columns: MTurk's assignment columns,
    ``Input.*`` (the upload CSV) and ``Answer.score_k`` / ``Answer.time_k``. ``attrs["worker_kind"]``
    maps WorkerId to kind; ``attrs["system_quality"]`` the systems' mu.
    """
    from ..hits.export import upload_frame

    kinds = _check_workers(workers)
    lp = lp or hits_frame.attrs.get("lp") or "xx-en"
    assessment = assessment or hits_frame.attrs.get("assessment") or "adequacy"
    if not 1 <= assignments <= len(kinds):
        raise InputError(f"assignments per HIT must lie between 1 and the number of workers ({len(kinds)})",
                         code="bad_assignments", value=assignments)
    rng = np.random.default_rng(seed)
    items = hits_frame.sort_values(["hit", "position"], kind="stable").reset_index(drop=True)
    hit_ids = items["hit"].drop_duplicates().to_numpy()
    n_hits = len(hit_ids)
    if len(items) != n_hits * HIT_SIZE:
        raise InputError("every HIT must have 100 items", code="short_hit", column="hit")
    systems = np.sort(items["system"].astype(str).unique())
    sys_code = np.searchsorted(systems, items["system"].astype(str).to_numpy())
    seg_code, seg_names = pd.factorize(items["segment"].astype(str))
    mu = rng.normal(SYSTEM_MEAN, SYSTEM_SD, len(systems))
    diff = rng.normal(0, SEGMENT_SD, len(seg_names))
    pair_code, _ = pd.factorize(pd.Series(sys_code).astype(str) + "\t" + pd.Series(seg_code).astype(str))
    own = rng.normal(0, OUTPUT_SD, int(pair_code.max()) + 1)
    ref_q = np.clip(rng.normal(REF_MEAN, REF_SD, len(seg_names)), 0, 100)
    kind_of_item = items["item_type"].to_numpy()
    quality = np.clip(mu[sys_code] + diff[seg_code] + own[pair_code], 0, 100)
    quality = np.where(kind_of_item == "REF", ref_q[seg_code], quality)
    is_bad = kind_of_item == "BAD_REF"
    drop = np.clip(rng.normal(DROP_MEAN, DROP_SD, int(is_bad.sum())), DROP_MIN, DROP_MAX)
    quality[is_bad] = np.clip(quality[is_bad] - drop, 0, 100)
    quality = quality.reshape(n_hits, HIT_SIZE)

    # assignment a of HIT h goes to worker (h * assignments + a) mod W
    n_asg = n_hits * assignments
    asg_hit = np.repeat(np.arange(n_hits), assignments)
    asg_worker = np.arange(n_asg) % len(kinds)
    q = quality[asg_hit].reshape(-1)
    raw, seconds = _respond(q, np.repeat(asg_worker, HIT_SIZE), kinds, rng)
    raw = raw.reshape(n_asg, HIT_SIZE)
    seconds = seconds.reshape(n_asg, HIT_SIZE)

    worker_ids = np.array([f"A{k.upper()}{i:04d}" for k, i in
                           zip(kinds, [kinds[:j + 1].count(kinds[j]) for j in range(len(kinds))])], dtype=object)
    mturk_hit = _mturk_id(rng, n_hits)
    start = pd.Timestamp("2024-06-03 09:00:00") + pd.to_timedelta(rng.integers(0, 7 * 24 * 3600, n_asg), unit="s")
    work = np.rint(seconds.sum(axis=1)).astype(np.int64)
    submit = start + pd.to_timedelta(work, unit="s")
    fmt = "%a %b %d %H:%M:%S PDT %Y"
    columns: dict[str, object] = {
        "HITId": mturk_hit[asg_hit], "HITTypeId": _mturk_id(rng, 1)[0],
        "Title": "Rate the quality of 100 translations", "Reward": "$2.00", "MaxAssignments": assignments,
        "AssignmentId": _mturk_id(rng, n_asg), "WorkerId": worker_ids[asg_worker],
        "AssignmentStatus": "Submitted", "AcceptTime": start.strftime(fmt).to_numpy(),
        "SubmitTime": submit.strftime(fmt).to_numpy(), "WorkTimeInSeconds": work,
    }
    upload = upload_frame(items, lp, assessment, campaign)
    for name in upload.columns:
        columns[f"Input.{name}"] = upload[name].to_numpy()[asg_hit]
    for k in range(HIT_SIZE):
        columns[f"Answer.score_{k + 1}"] = raw[:, k].astype(np.int64)
    for k in range(HIT_SIZE):
        columns[f"Answer.time_{k + 1}"] = seconds[:, k]
    out = pd.DataFrame(columns)
    out.attrs["worker_kind"] = {str(w): k for w, k in zip(worker_ids, kinds)}
    out.attrs["system_quality"] = {str(s): float(m) for s, m in zip(systems, mu)}
    return out
