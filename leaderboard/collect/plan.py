"""A contrastive-ESA (cESA) campaign before it is stored: documents, tutorial, attention checks, settings.

Three ways in, one result (:class:`CesaPlan`); the files are read and checked by the readers of
:mod:`leaderboard.ingest` (:mod:`~leaderboard.ingest.pearmut_campaign`, :mod:`~leaderboard.ingest.wmt26`):

* :func:`from_pearmut` — a Pearmut campaign file (``info``, ``data``, ``data_welcome``, ``data_random``)
  runs here as it is: its assignment, models per item, cold start, caps, special tokens, check probability
  and instructions become the campaign's settings;
* :func:`from_wmt26` — a WMT26-style test set (JSON lines per document) and one JSON-lines file per system;
* :func:`from_sources` — aligned texts (the primary submissions of a test set, or files).

A document is a list of segments ``{"item_id", "src", "tgt": {model: text}, "instructions"?,
"validation"?}`` — the layout of a Pearmut document. Every refusal names the file, the line (document)
and the field, and nothing is stored.
"""

from __future__ import annotations

import html
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError
from ..hits.rotation import rotate_words
from .allocation_api import DEFAULT_RULE

ASSIGNMENTS = ("fixed", "dynamic")
CHECK_MODES = ("loud", "silent")
SPECIAL_TOKENS = ("[missing]", "[instructions fault]")
CHECK_LABELS = ("1st translation", "2nd translation", "3rd translation", "4th translation")
DEFAULTS: dict[str, Any] = {
    "models_per_item": 3, "rule": DEFAULT_RULE, "rule_params": {}, "coldstart": 20, "coldstart_pool": None,
    "docs_per_user": None, "max_annotators": None, "check_prob": 0.2, "check_mode": "loud", "threshold": 0,
    "special_tokens": list(SPECIAL_TOKENS), "instructions": "", "word_level": True, "assets": None,
    "checks": 5,
}
MAX_MODELS_PER_ITEM = 4


@dataclass
class CesaPlan:
    """What a cESA campaign shows: ``documents`` (``tasks``: per fixed HIT, document indices), ``welcome``
    (tutorial documents), ``checks`` (attention-check documents) and ``settings``."""

    documents: list[list[dict]]
    settings: dict[str, Any]
    assignment: str = "dynamic"
    tasks: list[list[int]] | None = None
    welcome: list[list[dict]] = field(default_factory=list)
    checks: list[list[dict]] = field(default_factory=list)

    @property
    def models(self) -> list[str]:
        seen: dict[str, None] = {}
        for doc in self.documents:
            for seg in doc:
                seen.update(dict.fromkeys(seg["tgt"]))
        return list(seen)


def settings_with(**given: Any) -> dict[str, Any]:
    """The default settings updated with ``given`` (None values keep the default), checked."""
    out = {**DEFAULTS, **{k: v for k, v in given.items() if v is not None}}
    k = out["models_per_item"]
    if isinstance(k, bool) or not isinstance(k, int) or not 2 <= k <= MAX_MODELS_PER_ITEM:
        raise InputError(f"models per item must be 2 to {MAX_MODELS_PER_ITEM}, got {k!r}", column="models-per-item")
    p = out["check_prob"]
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
        raise InputError(f"the attention-check probability must lie between 0 and 1, got {p!r}", column="check-prob")
    if out["check_mode"] not in CHECK_MODES:
        raise InputError(f"attention checks are loud or silent, got {out['check_mode']!r}", column="check-mode")
    for key in ("docs_per_user", "max_annotators", "coldstart_pool"):
        v = out[key]
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
            raise InputError(f"{key.replace('_', ' ')} must be a whole number of at least 1, got {v!r}", column=key)
    t = out["threshold"]
    if isinstance(t, bool) or not isinstance(t, (int, float)) or t < 0:
        raise InputError(f"the check threshold must be a number of at least 0, got {t!r}", column="threshold")
    return out


# --------------------------------------------------------------------------- Pearmut campaign files


def _documents(items: pd.DataFrame) -> list[list[dict]]:
    """Documents (lists of Pearmut segments) from a campaign reader's item rows of one part, in file order."""
    out = []
    for _, doc in items.groupby(["task", "doc_index"], sort=False, dropna=False):
        segments = []
        for _, seg in doc.groupby("segment_index", sort=True):
            rules = {m: json.loads(v) for m, v in zip(seg["model"], seg["validation"]) if isinstance(v, str) and v}
            first = seg.iloc[0]
            segment = {"item_id": first["item_id"], "src": first["source"] if isinstance(first["source"], str) else "",
                       "tgt": dict(zip(seg["model"].astype(str), seg["target"].astype(str)))}
            if isinstance(first["instructions"], str) and first["instructions"]:
                segment["instructions"] = first["instructions"]
            if rules:
                segment["validation"] = rules
            segments.append(segment)
        out.append(segments)
    return out


def from_pearmut(path: str | Path, *, assets: str | Path | None = None) -> tuple[str, CesaPlan]:
    """(campaign id, plan) of a Pearmut campaign file (organiser's or stored form), read and checked by
    :func:`leaderboard.ingest.pearmut_campaign.read_pearmut_campaign`; a cESA campaign runs here as it is."""
    from ..ingest.pearmut_campaign import read_pearmut_campaign
    file = str(path)
    campaign = read_pearmut_campaign(path, assets=assets)
    info = campaign.info
    if info.protocol != "cESA":
        raise InputError(f"protocol {info.protocol!r} is not run here from a campaign file: only cESA campaigns run "
                         "as they are (DA and ESA campaigns are created from outputs)", file=file,
                         column="info.protocol")
    users = info.users
    max_annotators = users if isinstance(users, int) else (len(users) if users else None)
    threshold = info.validation_threshold if info.validation_threshold is not None else 0
    if isinstance(threshold, float) and threshold.is_integer() and threshold >= 1:
        threshold = int(threshold)
    try:
        settings = settings_with(
            models_per_item=info.dynamic_models if info.assignment == "dynamic" and info.dynamic_models else None,
            coldstart=info.dynamic_coldstart, coldstart_pool=info.dynamic_coldstart_pool,
            docs_per_user=info.docs_per_user, max_annotators=max_annotators, check_prob=info.data_random_prob,
            special_tokens=list(info.special_tokens), instructions=info.instructions,
            word_level=info.word_level if info.word_level is not None else True, threshold=threshold,
            rule_params={"coldstart": int(info.dynamic_coldstart if info.dynamic_coldstart is not None
                                          else DEFAULTS["coldstart"])})
    except InputError as exc:
        raise InputError(exc.message, file=file, column=f"info.{exc.column}") from None
    items = campaign.items
    documents = _documents(items[items["part"] == "data"])
    tasks = None
    if info.assignment == "task-based":
        data = items[items["part"] == "data"]
        tasks, n = [], 0
        for _, task in data.groupby("task", sort=False, dropna=False):
            count = task["doc_index"].nunique()
            tasks.append(list(range(n, n + count)))
            n += count
    welcome = _documents(items[items["part"] == "data_welcome"])
    checks = _documents(items[items["part"] == "data_random"])
    loud = any(rule.get("warning") for doc in checks for seg in doc for rule in (seg.get("validation") or {}).values())
    settings["check_mode"] = "loud" if loud else "silent"
    settings["campaign_id"] = campaign.campaign_id
    assignment = "fixed" if info.assignment == "task-based" else "dynamic"
    if assignment == "dynamic":
        settings["models_per_item"] = min(settings["models_per_item"], max(2, len(campaign.models)))
    plan = CesaPlan(documents, settings, assignment, tasks, welcome, checks)
    plan.settings["assets"] = str(Path(assets).resolve()) if assets else str(Path(path).resolve().parent)
    return campaign.campaign_id, plan


# --------------------------------------------------------------------------- WMT26-style files


def _media_source(text: str, video: Any, screenshot: Any) -> str:
    src = html.escape(text or "")
    body = f"<p>{src}</p>" if src else ""
    if isinstance(video, str) and video:
        return f'<video controls preload="metadata" src="{html.escape(video)}"></video>' + body
    if isinstance(screenshot, str) and screenshot:
        return f'<img alt="screenshot" src="{html.escape(screenshot)}">' + body
    return src


def from_wmt26(testset: str | Path, systems: str | Path, lp: str, *, assets: str | Path | None = None,
               **settings: Any) -> CesaPlan:
    """A plan from a WMT26 test set and a folder of system files (read by :mod:`leaderboard.ingest.wmt26`): a
    segment per paragraph; a video or screenshot shown as the segment's source, served from the asset folder
    (by default the test set's folder); the domain's evaluation instruction above the document."""
    from ..ingest.wmt26 import read_wmt26_systems, read_wmt26_testset, wmt26_items
    assets = Path(assets) if assets else Path(testset).parent
    read = read_wmt26_testset(testset, assets=assets)  # every pair: system files may hold all of them
    if lp not in read.lps:
        raise InputError(f"the test set has no document of {lp} (it has {', '.join(read.lps)})", file=str(testset),
                         column="tgt_lang")
    outputs = read_wmt26_systems(systems, read)
    items, _ = wmt26_items(read, outputs, lp=lp)
    documents = []
    for _, doc in items.groupby("doc", sort=False):
        segments = []
        for _, seg in doc.groupby("segment_index", sort=True):
            first = seg.iloc[0]
            segment = {"item_id": first["item_id"], "_doc": first["doc_id"],
                       "src": _media_source(first["source"], first["video_path"], first["screenshot_path"]),
                       "tgt": dict(zip(seg["system"].astype(str), seg["target"].astype(str)))}
            if isinstance(first["instructions"], str) and first["instructions"]:
                segment["instructions"] = first["instructions"]
            segments.append(segment)
        documents.append(segments)
    plan = CesaPlan(documents, settings_with(**settings), "dynamic")
    plan.settings["assets"] = str(assets.resolve())
    return plan


def tutorial_documents(path: str | Path) -> list[list[dict]]:
    """Tutorial documents from a Pearmut campaign file's ``data_welcome`` (a per-language tutorial)."""
    from ..ingest.pearmut_campaign import read_pearmut_campaign
    items = read_pearmut_campaign(path).items
    docs = _documents(items[items["part"] == "data_welcome"])
    if not docs:
        raise InputError("the file has no tutorial documents (data_welcome)", file=str(path), column="data_welcome")
    return docs


# --------------------------------------------------------------------------- aligned texts


def from_sources(sources, *, doc_size: int = 10, **settings: Any) -> CesaPlan:
    """A plan from aligned texts (:class:`leaderboard.hits.builder.Sources`): documents by their ids (else
    runs of ``doc_size`` lines), every system on every segment."""
    n = len(sources.reference)
    docs = sources.docs or [f"doc{k // doc_size + 1}" for k in range(n)]
    source = sources.source or [""] * n
    documents: list[list[dict]] = []
    last = None
    for line in range(n):
        seg = {"item_id": str(line + 1), "src": html.escape(source[line]),
               "tgt": {name: out[line] for name, out in sources.systems.items()}, "_doc": docs[line]}
        if docs[line] != last:
            documents.append([])
            last = docs[line]
        documents[-1].append(seg)
    return CesaPlan(documents, settings_with(**settings), "dynamic")


def fixed_tasks(plan: CesaPlan, *, hit_size: int, seed: int) -> list[list[tuple[int, tuple[str, ...]]]]:
    """Fixed HITs of a plan without tasks: every document shown with every model, ``k`` models per page (the
    last page of a document filled with models already shown), pages packed into HITs of about ``hit_size``
    segments."""
    rng = np.random.default_rng(seed)
    k = plan.settings["models_per_item"]
    pages = []
    for d, doc in enumerate(plan.documents):
        models = list(doc[0]["tgt"])
        order = [models[i] for i in rng.permutation(len(models))]
        n_pages = math.ceil(len(order) / k)
        for p in range(n_pages):
            group = order[p * k:(p + 1) * k]
            if len(group) < min(k, len(order)):
                group += [m for m in order if m not in group][: k - len(group)]
            pages.append((d, tuple(group)))
    pages = [pages[i] for i in rng.permutation(len(pages))]
    tasks, current, size = [], [], 0
    for d, group in pages:
        current.append((d, group))
        size += len(plan.documents[d])
        if size >= hit_size:
            tasks.append(current)
            current, size = [], 0
    if current:
        tasks.append(current)
    return tasks


def attention_checks(plan: CesaPlan, lang: str, *, seed: int) -> list[list[dict]]:
    """Attention checks from the campaign's own outputs: the first segment of a document in ``k`` translations of
    randomly drawn models, one with words rotated; the clean ones must score higher (as WMT26 builds them)."""
    rng = np.random.default_rng([seed, 26])
    k = min(plan.settings["models_per_item"], 3)
    out = []
    candidates = [d for d, doc in enumerate(plan.documents) if len(doc[0]["tgt"]) >= k]
    for d in rng.permutation(candidates)[: plan.settings["checks"]]:
        seg = plan.documents[int(d)][0]
        models = [list(seg["tgt"])[i] for i in rng.choice(len(seg["tgt"]), size=k, replace=False)]
        texts = [seg["tgt"][m] for m in models]
        spoiled = int(rng.integers(0, k))
        try:
            rotated = rotate_words(texts[spoiled], lang, rng).text
        except ValueError:  # too few different words to rotate
            continue
        texts[spoiled] = rotated
        labels = list(CHECK_LABELS[:k])
        bad = labels[spoiled]
        validation = {}
        for label in labels:
            if label != bad:
                rule = {"score_greaterthan": bad}
                if plan.settings["check_mode"] == "loud":
                    rule["warning"] = (f"Please read more carefully: the {label} should score higher than the {bad}, "
                                       "which has words out of order.")
                validation[label] = rule
        out.append([{"item_id": f"attention_check_{len(out)}", "src": seg["src"], "tgt": dict(zip(labels, texts)),
                     "validation": validation, "_from_doc": int(d)}])
    return out
