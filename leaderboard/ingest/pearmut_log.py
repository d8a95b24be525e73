"""Pearmut annotation logs (Pearmut 1.1.6, the tool of WMT26's contrastive ESA) as judgments and error spans.

A log is JSON lines, one submitted page (document) per line, appended as annotators submit::

    {"annotation": [{model: {"score", "error_spans": [...], "textfield"}} per segment],
     "item": [{"item_id", "src", "tgt": {model: text}, ...} per segment],
     "actions": [...], "user_id": U, "item_i": 3 | "welcome_0" | "random_1" | "goodbye_0"}

Which lines count, as Pearmut itself reads a log (and as issue 43 adopts):

* a line ``{"user_id": U, "annotation": "__RESET__"}`` voids **that user's** lines up to and including
  the user's **last** reset line; other users' lines stay;
* pages whose ``item_i`` starts with ``welcome_`` (tutorial), ``random_`` (attention check) or
  ``goodbye_`` do not count, nor, by the organisers' rule, a page whose first segment has no
  ``item_id``, an ``item_id`` starting with ``attention_check_`` or holding ``_#_tutorial_#_``; a segment
  of a counted page with such an id, without an id, or skipped by the annotator (annotation ``null``)
  is left out too; a questionnaire page (Pearmut's form items, ``text`` and ``form``) holds no
  translation. Every one of them is counted in :attr:`PearmutLog.report`.

How a cESA screen lands in the canonical judgment frame (the store keeps it as it is):

* one judgment per (segment × model) of a counted page: ``worker`` = ``user_id``, ``system`` = the
  model, ``segment`` = the ``item_id`` (so models pair up on it, and several annotations of one item
  × model average in the ranking), ``doc`` = the ``item_id`` before its last ``_###_`` (WMT26's
  ``news_###_site.1004_###_0`` → ``news_###_site.1004``), ``item_type`` SYSTEM, ``raw`` = the score;
* ``hit`` = ``"<item_i>@<line>"``: the page and the log line it came from; ``position`` = the slot on
  the page in display order (segment by segment, models in the order shown). The k translations of
  one screen are therefore the rows sharing (worker, hit, segment), in position order;
* ``seconds``: the page's time as Pearmut counts it (gaps between actions, each at most 61 s) shared
  equally among the page's judgments.

Error spans keep Pearmut's offsets (``end_i`` inclusive; stored end-exclusive like every span here),
``category`` and ``severity``. A span on a special token sits just past the text: ``start_i == end_i ==
len(text) + k`` for the campaign's k-th special token (``[missing]`` at ``len(text)``, ``[instructions
fault]`` after it); those offsets are kept, and the token is named in the ``token`` column. Any other
span outside the text is refused, as is a score that is not a number from 0 to 100: every error names
the file, the line and the field (``annotation[0]["Aurora-MT"].score``), and nothing is returned.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any, Iterable, Sequence

import pandas as pd

from ..errors import InputError, brief
from ..languages import LANGUAGE_CODE, split_lp_codes
from ..schema import LINE, validate_judgments
from .jsonio import field_name, json_lines

RESET = "__RESET__"
TUTORIAL_MARK = "_#_tutorial_#_"
ATTENTION_PREFIX = "attention_check_"
#: ``item_i`` prefixes of the pages that never count, and what they are
SPECIAL_PAGES: dict[str, str] = {"welcome_": "tutorial", "random_": "attention_check", "goodbye_": "goodbye"}
#: WMT26's special tokens, in their order (the default when the campaign's are not given)
WMT26_SPECIAL_TOKENS: tuple[str, ...] = ("[missing]", "[instructions fault]")
DEFAULT_ASSESSMENT = "cesa"
#: Pearmut counts at most this many seconds between two actions of a page
MAX_ACTION_GAP = 61.0
SPAN_COLUMNS = ("campaign", "lp", "system", "segment", "rater", "category", "severity", "span_start", "span_end",
                "line", "hit", "position", "token")
ITEM_COLUMNS = ("segment", "doc", "system", "source", "target", "instructions", "line")
CHECK_COLUMNS = ("worker", "line", "item_i", "kind", "items", "passed", "validations")
_CAMPAIGN_LP = re.compile(rf"^\s*({LANGUAGE_CODE})---({LANGUAGE_CODE})(?:\s|$)")


@dataclass
class PearmutLog:
    """What a Pearmut annotation log holds, validated.

    ``judgments``: the canonical judgment frame (module docstring). ``spans``: one row per error span
    (:data:`SPAN_COLUMNS`; ``span_end`` exclusive; ``hit``/``position`` name the judgment it belongs to,
    ``line`` the log line; ``token`` the special token a span marks, else None). ``items``: the texts
    the counted judgments were given on (:data:`ITEM_COLUMNS`, one row per item × model). ``checks``:
    every active tutorial and attention-check page with Pearmut's ``validations`` outcome
    (:data:`CHECK_COLUMNS`; ``passed`` None when the page carried no rule). ``report``: what was read,
    counted and left out, and why.
    """
    campaign: str
    lp: str
    judgments: pd.DataFrame
    spans: pd.DataFrame
    items: pd.DataFrame
    checks: pd.DataFrame
    report: dict[str, Any] = field(default_factory=dict)


def lp_from_campaign_id(campaign_id: str | None) -> str | None:
    """``"eng_Latn---isl_Latn v3"`` → ``"eng_Latn-isl_Latn"`` (WMT26's campaign ids); None for other ids."""
    if not campaign_id:
        return None
    m = _CAMPAIGN_LP.match(str(campaign_id))
    return f"{m.group(1)}-{m.group(2)}" if m else None


def page_kind(entry: dict[str, Any]) -> str:
    """``"reset"``, ``"tutorial"``, ``"attention_check"``, ``"goodbye"``, ``"no_item_id"`` or ``"counted"``."""
    if entry.get("annotation") == RESET:
        return "reset"
    item_i = entry.get("item_i")
    if isinstance(item_i, str):
        for prefix, kind in SPECIAL_PAGES.items():
            if item_i.startswith(prefix):
                return kind
    items = entry.get("item")
    first = items[0] if isinstance(items, list) and items and isinstance(items[0], dict) else {}
    item_id = first.get("item_id")
    if item_id is None:
        return "no_item_id"
    return _segment_kind(str(item_id))


def _segment_kind(item_id: str) -> str:
    if item_id.startswith(ATTENTION_PREFIX):
        return "attention_check"
    if TUTORIAL_MARK in item_id:
        return "tutorial"
    return "counted"


def active_lines(entries: Sequence[tuple[int, dict[str, Any]]]) -> list[tuple[int, dict[str, Any]]]:
    """Pearmut's reading of resets: per user, every line up to and including the user's last reset
    line is void; reset lines themselves never count. Other users' lines are kept, in log order."""
    last_reset: dict[Any, int] = {}
    for k, (_, entry) in enumerate(entries):
        if entry.get("annotation") == RESET:
            last_reset[entry.get("user_id")] = k
    return [(n, e) for k, (n, e) in enumerate(entries)
            if e.get("annotation") != RESET and k > last_reset.get(e.get("user_id"), -1)]


def read_pearmut_log(path: str | os.PathLike, *, campaign: str | None = None, lp: str | None = None,
                     assessment: str = DEFAULT_ASSESSMENT,
                     special_tokens: Sequence[str] = WMT26_SPECIAL_TOKENS,
                     name: str | None = None) -> PearmutLog:
    """Read and validate a Pearmut annotation log (module docstring).

    ``campaign`` defaults to the file's name without ``.jsonl`` (Pearmut names a log by its campaign
    id); ``lp`` to the pair a WMT26 campaign id names (``eng_Latn---isl_Latn v3``: first ``campaign``,
    then the file name). ``special_tokens``: the campaign's ``info.special_tokens`` (they decide
    which offsets past the end of a text are legitimate; WMT26's two by default). ``name`` labels the
    file in errors.
    """
    label = name or str(path)
    stem = Path(path).name
    stem = stem[:-6] if stem.endswith(".jsonl") else Path(stem).stem
    campaign = campaign or stem or "pearmut"
    lp = lp or lp_from_campaign_id(campaign) or lp_from_campaign_id(stem)
    if lp is None:
        raise InputError("the language pair of this log is unknown: give it (SRC-TGT, e.g. eng_Latn-isl_Latn), or "
                         "name the campaign as WMT26 does (eng_Latn---isl_Latn v3)", file=label, column="lp")
    split_lp_codes(lp)
    entries = []
    for number, entry in json_lines(path, label, repeated_keys=False):  # Pearmut writes with json.dumps
        _check_line(entry, label, number)
        entries.append((number, entry))
    if not entries:
        raise InputError("the log holds no lines", file=label)
    reader = _Reader(label, campaign, lp, assessment, tuple(special_tokens))
    active = {n for n, _ in active_lines(entries)}
    for number, entry in entries:
        reader.read(number, entry, number in active)
    return reader.result(len(entries), len(active))


def _check_line(entry: Any, label: str, line: int) -> None:
    if not isinstance(entry, dict):
        raise InputError("a log line must be a JSON object", file=label, line=line)
    user = entry.get("user_id")
    if not isinstance(user, str) or not user.strip():
        raise InputError(f"user_id must be a non-empty string, got {brief(user)!r}", file=label, line=line,
                         column="user_id")
    if entry.get("annotation") == RESET:
        return
    item_i = entry.get("item_i")
    if isinstance(item_i, bool) or not (isinstance(item_i, str) and item_i.strip()
                                        or isinstance(item_i, int) and item_i >= 0):
        raise InputError(f"item_i must be a page number (0 or more) or a page name such as welcome_0, got "
                         f"{brief(item_i)!r}", file=label, line=line, column="item_i")
    items, annotation = entry.get("item"), entry.get("annotation")
    if not isinstance(items, list) or not items or not all(isinstance(x, dict) for x in items):
        raise InputError("item must be a non-empty list of segments (objects)", file=label, line=line, column="item")
    if not isinstance(annotation, list) or len(annotation) != len(items):
        got = f"{len(annotation)} entries" if isinstance(annotation, list) else brief(annotation)
        raise InputError(f"annotation must be a list with one entry per segment of item ({len(items)}), got {got}",
                         file=label, line=line, column="annotation")


class _Reader:
    """Collects rows line by line; one instance per file."""

    def __init__(self, label: str, campaign: str, lp: str, assessment: str, tokens: tuple[str, ...]) -> None:
        self.label, self.campaign, self.lp, self.assessment, self.tokens = label, campaign, lp, assessment, tokens
        self.rows: list[tuple] = []
        self.spans: list[tuple] = []
        self.items: dict[tuple[str, str], tuple] = {}
        self.checks: list[tuple] = []
        self.kinds = {"reset": 0, "tutorial": 0, "attention_check": 0, "goodbye": 0, "no_item_id": 0, "counted": 0}
        self.active_counted = 0
        self.left_out = {"skipped_by_annotator": 0, "without_item_id": 0, "tutorial": 0, "attention_check": 0,
                         "without_score": 0}
        self.users: set[str] = set()
        self.forms = 0

    def error(self, message: str, line: int, path: Iterable[str | int]) -> InputError:
        return InputError(message, file=self.label, line=line, column=field_name(list(path)))

    def read(self, line: int, entry: dict[str, Any], active: bool) -> None:
        kind = page_kind(entry)
        self.kinds[kind] += 1
        if kind == "reset":
            return
        if _is_form(entry["item"]):  # a questionnaire page (Pearmut's form items): no translations to read
            self.forms += 1
            return
        # every line is checked, also those a reset voided: a malformed log is refused whole
        page = self.page(line, entry)
        if not active:
            return
        self.users.add(entry["user_id"])
        if kind == "counted":
            self.active_counted += 1
            self.keep(line, entry, page)
        elif kind in ("tutorial", "attention_check"):
            validations = entry.get("validations")
            passed = all(bool(v) for v in validations) if isinstance(validations, list) and validations else None
            ids = [str(s.get("item_id")) for s in entry["item"] if s.get("item_id") is not None]
            self.checks.append((entry["user_id"], line, str(entry["item_i"]), kind, ids, passed,
                                validations if isinstance(validations, list) else None))

    def page(self, line: int, entry: dict[str, Any]) -> list[tuple]:
        """Every annotated (segment, model) of a page, validated: (segment index, model, slot, score, spans)."""
        out = []
        slot = 0
        for s, (item, answer) in enumerate(zip(entry["item"], entry["annotation"])):
            tgt = item.get("tgt")
            if not isinstance(tgt, dict) or not tgt or not all(isinstance(v, str) for v in tgt.values()):
                raise self.error("tgt must map each model to its translation (text)", line, ["item", s, "tgt"])
            slots = {model: slot + k + 1 for k, model in enumerate(tgt)}
            slot += len(tgt)
            if answer is None:
                continue  # a skipped segment
            if not isinstance(answer, dict):
                raise self.error("a segment's annotation must map models to answers (or be null when skipped)",
                                 line, ["annotation", s])
            for model, given in answer.items():
                where = ["annotation", s, model]
                if model not in tgt:
                    raise self.error(f"an answer for model {brief(model)!r}, which this segment does not show "
                                     f"(it shows {', '.join(map(repr, tgt))})", line, where)
                if not isinstance(given, dict):
                    raise self.error("an answer must be an object with score and error_spans", line, where)
                score = self.score(given, line, where)
                spans = self.span_list(given.get("error_spans"), tgt[model], line, [*where, "error_spans"])
                out.append((s, model, slots[model], score, spans))
        return out

    def score(self, given: dict[str, Any], line: int, where: list) -> float | None:
        value = given.get("score")
        path = [*where, "score"]
        if value is None and isinstance(given.get("sliders"), dict):
            # Pearmut's multi-slider answers: the mean of the sliders that were set
            parts = [(k, v) for k, v in given["sliders"].items() if v is not None]
            for key, part in parts:
                self.number(part, line, [*where, "sliders", key])
            value = sum(float(v) for _, v in parts) / len(parts) if parts else None
            path = [*where, "sliders"]
        if value is None:
            return None
        number = self.number(value, line, path)
        if not 0 <= number <= 100:
            raise self.error(f"score {number:g} is outside 0-100", line, path)
        return number

    def number(self, value: Any, line: int, path: list) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise self.error(f"score must be a number from 0 to 100, got {brief(value)!r}", line, path)
        return float(value)

    def span_list(self, spans: Any, text: str, line: int, path: list) -> list[tuple]:
        if spans is None:
            return []
        if not isinstance(spans, list):
            raise self.error("error_spans must be a list", line, path)
        out = []
        for k, span in enumerate(spans):
            where = [*path, k]
            if not isinstance(span, dict):
                raise self.error("an error span must be an object with start_i, end_i and severity", line, where)
            start, end = span.get("start_i"), span.get("end_i")
            for key, value in (("start_i", start), ("end_i", end)):
                if isinstance(value, bool) or not isinstance(value, int):
                    raise self.error(f"{key} must be a whole number, got {brief(value)!r}", line, [*where, key])
            token = None
            if start < 0 or end < start:
                raise self.error(f"span {start}..{end} is not a range of characters", line, where)
            if end >= len(text):
                k_token = start - len(text)
                if start != end or not 0 <= k_token < len(self.tokens):
                    allowed = ", ".join(f"{len(text) + i} ({t})" for i, t in enumerate(self.tokens)) or "none"
                    raise self.error(f"span {start}..{end} lies outside the translation ({len(text)} characters) "
                                     f"and is not on a special token (offsets past the text: {allowed})", line, where)
                token = self.tokens[k_token]
            severity = span.get("severity")
            if not isinstance(severity, str) or not severity.strip():
                raise self.error(f"severity must be a non-empty text (minor or major), got {brief(severity)!r}",
                                 line, [*where, "severity"])
            category = span.get("category")
            if category is not None and not isinstance(category, str):
                raise self.error(f"category must be a text or null, got {brief(category)!r}", line,
                                 [*where, "category"])
            out.append((category, severity.strip().lower(), start, end + 1, token))
        return out

    def keep(self, line: int, entry: dict[str, Any], page: list[tuple]) -> None:
        user, items = entry["user_id"], entry["item"]
        hit = f"{entry['item_i']}@{line}"
        kept = []
        for s, model, slot, score, spans in page:
            item_id = items[s].get("item_id")
            if item_id is None:
                continue
            kind = _segment_kind(str(item_id))
            if kind != "counted":
                continue
            if score is None:
                self.left_out["without_score"] += 1
                continue
            kept.append((s, model, slot, score, spans))
        for s, (item, answer) in enumerate(zip(items, entry["annotation"])):
            item_id = item.get("item_id")
            if answer is None:
                self.left_out["skipped_by_annotator"] += 1
            elif item_id is None:
                self.left_out["without_item_id"] += 1
            elif _segment_kind(str(item_id)) != "counted":
                self.left_out[_segment_kind(str(item_id))] += 1
        share = _page_seconds(entry.get("actions")) / len(kept) if kept else math.nan
        for s, model, slot, score, spans in kept:
            item = items[s]
            segment = _text_id(item.get("item_id"), line, self, ["item", s, "item_id"])
            doc = segment.rsplit("_###_", 1)[0] if "_###_" in segment else None
            self.rows.append((self.campaign, self.lp, self.assessment, user, hit, slot, segment, model, "SYSTEM",
                              score, share, doc, line))
            for category, severity, start, end, token in spans:
                self.spans.append((self.campaign, self.lp, model, segment, user, category, severity, start, end,
                                   line, hit, slot, token))
            source = item.get("src")
            note = item.get("instructions")
            text = (segment, doc, model, source if isinstance(source, str) else "", item["tgt"][model],
                    note if isinstance(note, str) else None, line)
            seen = self.items.setdefault((segment, model), text)
            if seen[4] != text[4]:
                raise self.error(f"item {segment!r} of model {brief(model)!r} has another translation here than on "
                                 f"line {seen[-1]}; an item id must name one text", line, ["item", s, "tgt", model])

    def result(self, n_lines: int, n_active: int) -> PearmutLog:
        if not self.rows:
            raise InputError("no counted annotations: every page of the log is a tutorial, an attention check, or "
                             "was voided by a reset", file=self.label)
        frame = pd.DataFrame(self.rows, columns=["campaign", "lp", "assessment", "worker", "hit", "position",
                                                 "segment", "system", "item_type", "raw", "seconds", "doc", LINE])
        frame.attrs["source_columns"] = {"worker": "user_id", "segment": "item.item_id", "system": "annotation model",
                                         "raw": "score", "hit": "item_i"}
        judgments = validate_judgments(frame, file=self.label)
        spans = pd.DataFrame(self.spans, columns=list(SPAN_COLUMNS))
        spans["span_start"] = spans["span_start"].astype("Int64")
        spans["span_end"] = spans["span_end"].astype("Int64")
        items = pd.DataFrame(list(self.items.values()), columns=list(ITEM_COLUMNS))
        checks = pd.DataFrame(self.checks, columns=list(CHECK_COLUMNS))
        several = int(judgments.groupby(["system", "segment"]).size().gt(1).sum())
        report = {
            "campaign": self.campaign, "lp": self.lp, "lines": n_lines, "active_lines": n_active,
            "voided_lines": n_lines - n_active - self.kinds["reset"],
            "lines_by_kind": dict(self.kinds), "counted_lines": self.active_counted, "form_pages": self.forms,
            "segments_left_out": dict(self.left_out),
            "judgments": len(judgments), "items": int(judgments["segment"].nunique()),
            "systems": int(judgments["system"].nunique()), "users": len(self.users),
            "item_x_model_with_several_annotations": several,
            "error_spans": len(spans), "special_token_spans": int(spans["token"].notna().sum()),
            "special_tokens": list(self.tokens),
            "checks": {"pages": len(checks), "passed": int((checks["passed"] == True).sum()),  # noqa: E712
                       "failed": int((checks["passed"] == False).sum())},  # noqa: E712
        }
        return PearmutLog(self.campaign, self.lp, judgments, spans, items, checks, report)


def _is_form(items: list[dict[str, Any]]) -> bool:
    """Pearmut's test for a form (questionnaire) document: its first item has ``text`` and ``form``."""
    return "text" in items[0] and "form" in items[0]


def _text_id(value: Any, line: int, reader: _Reader, path: list) -> str:
    if isinstance(value, str) and value.strip():
        return value.strip()
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise reader.error(f"item_id must be a non-empty text, got {brief(value)!r}", line, path)


def _page_seconds(actions: Any) -> float:
    """Pearmut's time of a page: the gaps between its actions, each counted up to 61 seconds."""
    if not isinstance(actions, list):
        return math.nan
    times = [a.get("time") for a in actions if isinstance(a, dict)]
    times = [float(t) for t in times if isinstance(t, (int, float)) and not isinstance(t, bool) and math.isfinite(t)]
    if len(times) < 2:
        return math.nan
    return float(sum(min(max(b - a, 0.0), MAX_ACTION_GAP) for a, b in pairwise(times)))


def looks_like_pearmut_log(head: str) -> bool:
    """True when the first non-blank line is a JSON object with Pearmut's ``user_id`` and ``annotation`` keys."""
    for line in head.splitlines():
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            return False
        return isinstance(entry, dict) and "user_id" in entry and "annotation" in entry
    return False
