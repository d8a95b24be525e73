"""Pearmut campaign files (Pearmut 1.1.6, as WMT26 writes them) read into a validated campaign object.

A campaign file is one JSON object: ``campaign_id``; ``info`` (settings: ``assignment``, ``protocol``,
``dynamic_models`` / ``dynamic_coldstart`` / ``dynamic_coldstart_pool`` / ``dynamic_warmup``, ``users``,
``docs_per_user``, ``data_random_prob``, ``special_tokens``, ``instructions``, ``shuffle``, ``seed``, …);
``data`` (the documents: a list of documents for ``dynamic`` and ``single-stream``, a list of tasks —
one per annotator, each a list of documents — for ``task-based``, or, as Pearmut stores it, user id →
task); ``data_welcome`` (tutorial documents), ``data_random`` (attention checks), ``data_goodbye``.
A document is a list of segments ``{"src", "tgt": {model: text}, "item_id", "instructions",
"validation", "skippable", "error_spans"}``.

:func:`read_pearmut_campaign` applies Pearmut's own checks (with its defaults: ``single-stream``,
``cESA``, ``[missing]`` as the special token of span protocols) and the ones a campaign run here needs,
and refuses with file, line and field: an unknown assignment or protocol; settings of the wrong type
or range; a model missing from some segment of a document (of any document, in ``dynamic``); an
all-digit model name; a validation rule for a model that is not shown, or with a score range outside
0–100; a span (pre-filled, or expected by a rule) outside its text and the special tokens; an item id
naming two different texts of one model; a media path (``<video src>``, ``<img src>`` in a source) that
is a URL or leaves the asset folder (and, with the folder given, names no file there).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ..errors import InputError, brief
from .jsonio import JsonDocument, field_name, json_document
from .media import asset_problem, media_references
from .pearmut_log import lp_from_campaign_id

ASSIGNMENTS: tuple[str, ...] = ("task-based", "single-stream", "dynamic")
PROTOCOLS: tuple[str, ...] = ("DA", "ESA", "cESA", "MQM")
#: protocols whose answers carry error spans (Pearmut gives them ``[missing]`` by default)
SPAN_PROTOCOLS: frozenset[str] = frozenset({"ESA", "cESA", "MQM"})
ITEM_COLUMNS = ("part", "task", "doc_index", "segment_index", "item_id", "doc", "model", "source", "target",
                "instructions", "validation", "skippable")
_INT_SETTINGS = ("dynamic_models", "dynamic_coldstart", "dynamic_coldstart_pool", "dynamic_warmup", "docs_per_user")


@dataclass(frozen=True)
class CampaignUser:
    """One annotator of ``info.users``: the id, and the completion codes when the file gives them."""
    user_id: str
    token_pass: str | None = None
    token_fail: str | None = None


@dataclass(frozen=True)
class CampaignInfo:
    """The settings of ``info``, checked, with Pearmut's defaults filled in (``raw`` keeps the rest)."""
    assignment: str
    protocol: str
    special_tokens: tuple[str, ...]
    users: int | tuple[CampaignUser, ...] | None = None
    dynamic_models: int | None = None
    dynamic_coldstart: int | None = None
    dynamic_coldstart_pool: int | None = None
    dynamic_warmup: int | None = None
    docs_per_user: int | None = None
    data_random_prob: float | None = None
    instructions: str | None = None
    shuffle: bool = True
    seed: int | None = None
    word_level: bool | None = None
    show_progress: bool | None = None
    validation_threshold: float | None = None
    raw: dict[str, Any] = field(default_factory=dict)


@dataclass
class PearmutCampaign:
    """A validated campaign file.

    ``items``: one row per segment × model of every part (:data:`ITEM_COLUMNS`): ``part`` (``data``,
    ``data_welcome``, ``data_random``, ``data_goodbye``), ``task`` (task-based: the task's index, or
    the user id of Pearmut's stored form; else None), ``doc_index`` / ``segment_index`` within the part
    (or task), the segment's ``item_id`` and document (``doc``: the id before its last ``_###_``),
    the model and its text, the source, ``instructions``, ``validation`` (the model's rule as JSON text)
    and ``skippable``. ``media``: every media path the
    sources load (``<video src>``, ``<img src>``), checked.
    """
    campaign_id: str
    lp: str | None
    info: CampaignInfo
    items: pd.DataFrame
    media: list[str]
    file: str

    @property
    def models(self) -> list[str]:
        """The models of the documents to annotate (``data``), in order of first appearance."""
        part = self.items[self.items["part"] == "data"]
        return list(pd.unique(part["model"]))


def read_pearmut_campaign(path: str | os.PathLike, *, assets: str | os.PathLike | None = None,
                          lp: str | None = None, name: str | None = None) -> PearmutCampaign:
    """Read and validate a Pearmut campaign file (module docstring); ``assets``: the campaign's media
    folder (paths are checked against it); ``lp``: the pair, default the one a WMT26 campaign id names."""
    label = name or str(path)
    doc = json_document(path, label)
    return _Campaign(doc, assets, lp).read()


class _Campaign:
    def __init__(self, doc: JsonDocument, assets: str | os.PathLike | None, lp: str | None) -> None:
        self.doc, self.assets, self.lp = doc, assets, lp
        self.rows: list[tuple] = []
        self.media: list[str] = []
        self.texts: dict[tuple[str, str], tuple[str, tuple]] = {}

    def error(self, message: str, path: list) -> InputError:
        return self.doc.error(message, path)

    def read(self) -> PearmutCampaign:
        top = self.doc.value
        if not isinstance(top, dict):
            raise self.error("a campaign file must be a JSON object with campaign_id, info and data", [])
        cid = top.get("campaign_id")
        if not isinstance(cid, str) or not cid.strip():
            raise self.error(f"campaign_id must be a non-empty text, got {brief(cid)!r}", ["campaign_id"])
        if "data" not in top:
            raise self.error("the campaign has no data (the documents to annotate)", ["data"])
        info = self.info(top.get("info", {}))
        self.tokens = info.special_tokens
        n_tasks = self.data(top["data"], info)
        for part in ("data_welcome", "data_random", "data_goodbye"):
            if part in top:
                docs = top[part]
                if not isinstance(docs, list):
                    raise self.error(f"{part} must be a list of documents", [part])
                for d, document in enumerate(docs):
                    self.document(document, [part, d], part, None, d)
        if top.get("data_random") and info.data_random_prob is None:
            raise self.error("data_random_prob (the chance of an attention check) must be set when data_random "
                             "holds documents", ["info"])
        if info.assignment == "task-based" and isinstance(info.users, tuple) and len(info.users) != n_tasks:
            raise self.error(f"users lists {len(info.users)} annotators but data holds {n_tasks} tasks (one each)",
                             ["info", "users"])
        items = pd.DataFrame(self.rows, columns=list(ITEM_COLUMNS))
        if not (items["part"] == "data").any():
            raise self.error("data holds no document to annotate", ["data"])
        lp = self.lp or lp_from_campaign_id(cid)
        return PearmutCampaign(cid.strip(), lp, info, items, sorted(set(self.media)), self.doc.label)

    # ---- info ---------------------------------------------------------------------------------------
    def info(self, raw: Any) -> CampaignInfo:
        if not isinstance(raw, dict):
            raise self.error("info must be an object of settings", ["info"])
        assignment = raw.get("assignment", "single-stream")
        if assignment not in ASSIGNMENTS:
            raise self.error(f"unknown assignment {brief(assignment)!r} (Pearmut knows {', '.join(ASSIGNMENTS)})",
                             ["info", "assignment"])
        protocol = raw.get("protocol", "cESA")
        if protocol not in PROTOCOLS:
            raise self.error(f"unknown protocol {brief(protocol)!r} (Pearmut knows {', '.join(PROTOCOLS)})",
                             ["info", "protocol"])
        tokens = raw.get("special_tokens", ["[missing]"] if protocol in SPAN_PROTOCOLS else [])
        if not isinstance(tokens, list) or not all(isinstance(t, str) and t.strip() for t in tokens) \
                or len(set(tokens)) != len(tokens):
            raise self.error("special_tokens must be a list of different, non-empty texts", ["info", "special_tokens"])
        ints = {}
        for key in _INT_SETTINGS:
            value = raw.get(key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise self.error(f"{key} must be a whole number of at least 1, got {brief(value)!r}", ["info", key])
            ints[key] = value
        if assignment == "dynamic":
            ints["dynamic_models"] = ints["dynamic_models"] or 1  # Pearmut's defaults
            ints["dynamic_warmup"] = ints["dynamic_warmup"] or 5
        prob = raw.get("data_random_prob")
        if prob is not None and (isinstance(prob, bool) or not isinstance(prob, (int, float))
                                 or not math.isfinite(prob) or not 0 <= prob <= 1):
            raise self.error(f"data_random_prob must be a probability from 0 to 1, got {brief(prob)!r}",
                             ["info", "data_random_prob"])
        instructions = raw.get("instructions")
        if instructions is not None and not isinstance(instructions, str):
            raise self.error("instructions must be a text (HTML)", ["info", "instructions"])
        for key in ("shuffle", "word_level", "show_progress"):
            if key in raw and not isinstance(raw[key], bool):
                raise self.error(f"{key} must be true or false, got {brief(raw[key])!r}", ["info", key])
        seed = raw.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise self.error(f"seed must be a whole number, got {brief(seed)!r}", ["info", "seed"])
        threshold = raw.get("validation_threshold")
        if threshold is not None and (isinstance(threshold, bool) or not isinstance(threshold, (int, float))
                                      or not math.isfinite(threshold) or threshold < 0):
            raise self.error(f"validation_threshold must be a number of 0 or more, got {brief(threshold)!r}",
                             ["info", "validation_threshold"])
        return CampaignInfo(assignment=assignment, protocol=protocol, special_tokens=tuple(tokens),
                            users=self.users(raw.get("users")), data_random_prob=None if prob is None else float(prob),
                            instructions=instructions, shuffle=raw.get("shuffle", True), seed=seed,
                            word_level=raw.get("word_level"), show_progress=raw.get("show_progress"),
                            validation_threshold=threshold, raw=dict(raw), **ints)

    def users(self, value: Any) -> int | tuple[CampaignUser, ...] | None:
        where = ["info", "users"]
        if value is None:
            return None
        if isinstance(value, int) and not isinstance(value, bool):
            if value < 1:
                raise self.error(f"users must be at least 1, got {value}", where)
            return value
        if not isinstance(value, list) or not value:
            raise self.error("users must be a number of annotators or a non-empty list of them", where)
        out = []
        for k, user in enumerate(value):
            if isinstance(user, str) and user.strip():
                out.append(CampaignUser(user.strip()))
            elif isinstance(user, dict) and isinstance(user.get("user_id"), str) and user["user_id"].strip():
                tokens = [user.get("token_pass"), user.get("token_fail")]
                if not all(t is None or isinstance(t, str) for t in tokens):
                    raise self.error("token_pass and token_fail must be texts", [*where, k])
                out.append(CampaignUser(user["user_id"].strip(), *tokens))
            else:
                raise self.error("each user must be an id, or an object with user_id (and token_pass, token_fail)",
                                 [*where, k])
        if len({u.user_id for u in out}) != len(out):
            raise self.error("users lists an annotator twice", where)
        if len({type(u) for u in value}) != 1:
            raise self.error("users must be all ids or all objects", where)
        return tuple(out)

    # ---- documents ----------------------------------------------------------------------------------
    def data(self, data: Any, info: CampaignInfo) -> int:
        if info.assignment == "task-based":
            tasks = list(data.items()) if isinstance(data, dict) else (
                list(enumerate(data)) if isinstance(data, list) else None)
            if not tasks:
                raise self.error("a task-based campaign's data must be a non-empty list of tasks (one per annotator), "
                                 "each a list of documents", ["data"])
            for key, task in tasks:
                if not isinstance(task, list) or not task:
                    raise self.error("a task must be a non-empty list of documents", ["data", key])
                for d, document in enumerate(task):
                    self.document(document, ["data", key, d], "data", key, d)
            return len(tasks)
        if not isinstance(data, list) or not data:
            raise self.error(f"a {info.assignment} campaign's data must be a non-empty list of documents", ["data"])
        models = None
        for d, document in enumerate(data):
            shown = self.document(document, ["data", d], "data", None, d)
            if info.assignment == "dynamic":  # Pearmut picks models per item: every item must have them all
                if models is None:
                    models = shown
                elif shown != models:
                    self.model_mismatch(models, shown, ["data", d, 0, "tgt"], "every document of a dynamic campaign")
        return 1

    def model_mismatch(self, expected: list[str], got: list[str], path: list, scope: str) -> None:
        missing = [m for m in expected if m not in got]
        extra = [m for m in got if m not in expected]
        what = (f"model {missing[0]!r} is missing" if missing else f"model {extra[0]!r} is not in the others")
        raise self.error(f"{what}: {scope} must show the same models ({', '.join(map(repr, expected))})", path)

    def document(self, document: Any, path: list, part: str, task: Any, d: int) -> list[str]:
        if not isinstance(document, list) or not document:
            raise self.error("a document must be a non-empty list of segments", path)
        models: list[str] | None = None
        for s, segment in enumerate(document):
            where = [*path, s]
            if not isinstance(segment, dict):
                raise self.error("a segment must be an object with src, tgt and item_id", where)
            if "text" in segment and "form" in segment:
                raise self.error("form pages (text and form) are not annotation segments; this service runs "
                                 "annotation documents only", where)
            shown = self.segment(segment, where, part, task, d, s)
            if models is None:
                models = shown
            elif sorted(shown) != sorted(models):
                self.model_mismatch(models, shown, [*where, "tgt"], "every segment of one document")
        return sorted(models or [])

    def segment(self, seg: dict[str, Any], where: list, part: str, task: Any, d: int, s: int) -> list[str]:
        tgt = seg.get("tgt")
        if not isinstance(tgt, dict) or not tgt:
            raise self.error("tgt must map each model to its translation", [*where, "tgt"])
        for model, text in tgt.items():
            if not model.strip() or model.isdigit():
                raise self.error(f"model name {model!r} must be a non-empty text that is not all digits (Pearmut's "
                                 "page orders such names as numbers)", [*where, "tgt", model])
            if not isinstance(text, str):
                raise self.error(f"the translation of model {model!r} must be a text", [*where, "tgt", model])
        src = seg.get("src", "")
        if not isinstance(src, str):
            raise self.error("src must be a text (it may hold HTML such as a <video> tag)", [*where, "src"])
        if "ref" in seg and not isinstance(seg["ref"], str):
            raise self.error("ref must be a text", [*where, "ref"])
        item_id = seg.get("item_id")
        if item_id is not None and (not isinstance(item_id, str) or not item_id.strip()):
            raise self.error(f"item_id must be a non-empty text, got {brief(item_id)!r}", [*where, "item_id"])
        instructions = seg.get("instructions")
        if instructions is not None and not isinstance(instructions, str):
            raise self.error("instructions must be a text (HTML)", [*where, "instructions"])
        skippable = seg.get("skippable", False)
        if not isinstance(skippable, bool):
            raise self.error("skippable must be true or false", [*where, "skippable"])
        for tag, ref in media_references(src):
            problem = asset_problem(ref, self.assets)
            if problem is not None:
                raise self.error(f"the <{tag}> of this source: {problem}", [*where, "src"])
            self.media.append(ref)
        prefilled = seg.get("error_spans")
        if prefilled is not None:
            if not isinstance(prefilled, dict):
                raise self.error("error_spans must map models to lists of spans", [*where, "error_spans"])
            for model, spans in prefilled.items():
                self.spans(spans, tgt, model, [*where, "error_spans", model])
        rules = seg.get("validation")
        if rules is not None:
            self.validation(rules, tgt, [*where, "validation"])
        if item_id is not None:
            for model, text in tgt.items():
                seen = self.texts.setdefault((item_id, model), (text, tuple(where)))
                if seen[0] != text:
                    raise self.error(f"item {item_id!r} has another text of model {model!r} at "
                                     f"{field_name(list(seen[1]))}; an item id must name one text per model",
                                     [*where, "tgt", model])
        doc = item_id.rsplit("_###_", 1)[0] if item_id and "_###_" in item_id else None
        for model, text in tgt.items():
            rule = rules.get(model) if isinstance(rules, dict) else None
            self.rows.append((part, task, d, s, item_id, doc, model, src, text, instructions,
                              None if rule is None else json.dumps(rule, ensure_ascii=False), skippable))
        return list(tgt)

    def spans(self, spans: Any, tgt: dict[str, str], model: str, where: list, expected: bool = False) -> None:
        if model not in tgt:
            raise self.error(f"spans for model {model!r}, which this segment does not show", where)
        if not isinstance(spans, list):
            raise self.error("error spans must be a list", where)
        text = tgt[model]
        for k, span in enumerate(spans):
            if not isinstance(span, dict):
                raise self.error("an error span must be an object with start_i and end_i", [*where, k])
            bounds = []
            for key in ("start_i", "end_i"):
                value = span.get(key)
                values = value if expected and isinstance(value, list) and len(value) == 2 else [value]
                if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
                    raise self.error(f"{key} must be a whole number" + (" or a [low, high] range" if expected else "")
                                     + f", got {brief(value)!r}", [*where, k, key])
                bounds.append((min(values), max(values)))
            (start_lo, start_hi), (end_lo, end_hi) = bounds
            problem = _span_problem(start_lo, end_hi, len(text), len(self.tokens)) \
                if not expected else _range_problem(start_lo, start_hi, end_lo, end_hi, len(text), len(self.tokens))
            if problem:
                raise self.error(problem, [*where, k])

    def validation(self, rules: Any, tgt: dict[str, str], where: list) -> None:
        if not isinstance(rules, dict):
            raise self.error("validation must map models to rules", where)
        for model, rule in rules.items():
            at = [*where, model]
            if model not in tgt:
                raise self.error(f"a rule for model {model!r}, which this segment does not show", at)
            if not isinstance(rule, dict):
                raise self.error("a validation rule must be an object", at)
            score = rule.get("score")
            if score is not None:
                if not (isinstance(score, list) and len(score) == 2
                        and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in score)
                        and 0 <= score[0] <= score[1] <= 100):
                    raise self.error(f"score must be a [low, high] range within 0-100, got {brief(score)!r}",
                                     [*at, "score"])
            other = rule.get("score_greaterthan")
            if other is not None and (other not in tgt or other == model):
                raise self.error(f"score_greaterthan names {brief(other)!r}, which is not another model of this "
                                 "segment", [*at, "score_greaterthan"])
            if "error_spans" in rule:
                self.spans(rule["error_spans"], tgt, model, [*at, "error_spans"], expected=True)
            if "warning" in rule and not isinstance(rule["warning"], str):
                raise self.error("warning must be a text", [*at, "warning"])


def _span_problem(start: int, end: int, length: int, n_tokens: int) -> str | None:
    if start < 0 or end < start:
        return f"span {start}..{end} is not a range of characters"
    if end < length:
        return None
    if start == end and 0 <= start - length < n_tokens:
        return None
    return (f"span {start}..{end} lies outside the translation ({length} characters) and is not on one of its "
            f"{n_tokens} special token(s) (offsets {length}..{length + n_tokens - 1})" if n_tokens else
            f"span {start}..{end} lies outside the translation ({length} characters)")


def _range_problem(start_lo: int, start_hi: int, end_lo: int, end_hi: int, length: int, n_tokens: int) -> str | None:
    """An expected span of a tutorial rule (each end a number or a [low, high] range) must be able to lie
    within the translation or on a special token."""
    if start_lo < 0 or end_hi < start_lo:
        return f"the expected span {start_lo}..{end_hi} is not a range of characters"
    if start_lo >= length + n_tokens or end_lo >= length + n_tokens:
        return (f"the expected span {start_lo}..{end_hi} lies outside the translation ({length} characters) and "
                f"its {n_tokens} special token(s)")
    return None
