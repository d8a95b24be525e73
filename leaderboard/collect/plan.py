"""A contrastive-ESA (cESA) campaign before it is stored: documents, tutorial, attention checks, settings.

Three ways in, one result (:class:`CesaPlan`):

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
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from .allocation_api import DEFAULT_RULE, rotate_words

PROTOCOL = "cesa"
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
_MEDIA = re.compile(r"""\b(?:src|poster)\s*=\s*(["'])(.*?)\1""", re.I | re.S)


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
    source_file: str | None = None

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


# --------------------------------------------------------------------------- checks of documents


def _where(file: str | None, line: int | None, column: str, message: str) -> InputError:
    return InputError(message, file=file, line=line, column=column)


def check_document(doc: Any, *, file: str | None, line: int | None, what: str, same_models: bool,
                   special_tokens: list[str]) -> list[dict]:
    """A document as a list of segments, each with ``src``, a non-empty ``tgt`` of texts, the same models on
    every segment; validation rules only on known models and spans inside the text or on a special token."""
    if not isinstance(doc, list) or not doc:
        raise _where(file, line, what, f"a document must be a non-empty list of segments, got {type(doc).__name__}")
    models = None
    out = []
    for k, seg in enumerate(doc):
        col = f"{what}[{k}]"
        if not isinstance(seg, dict):
            raise _where(file, line, col, "a segment must be an object with src and tgt")
        if not isinstance(seg.get("src", ""), str):
            raise _where(file, line, f"{col}.src", "the source must be text (it may hold HTML)")
        tgt = seg.get("tgt")
        if not isinstance(tgt, dict) or not tgt:
            raise _where(file, line, f"{col}.tgt", "tgt must map model names to their translations")
        for model, text in tgt.items():
            if not isinstance(text, str):
                raise _where(file, line, f"{col}.tgt.{model}", f"the translation of model {model!r} must be text, "
                                                              f"got {type(text).__name__}")
            if str(model).isdigit():
                raise _where(file, line, f"{col}.tgt", f"model names must not be all digits, got {model!r}")
        if models is None:
            models = list(tgt)
        elif set(tgt) != set(models):
            missing = sorted(set(models) - set(tgt)) or sorted(set(tgt) - set(models))
            raise _where(file, line, f"{col}.tgt", f"model {missing[0]!r} is missing from this segment or only on "
                                                   "it: every segment of a document must have the same models")
        if seg.get("validation") is not None:
            _check_validation(seg["validation"], tgt, file=file, line=line, col=f"{col}.validation",
                              special_tokens=special_tokens)
        for key in ("instructions", "item_id"):
            if seg.get(key) is not None and not isinstance(seg[key], str):
                raise _where(file, line, f"{col}.{key}", f"{key} must be text")
        out.append(dict(seg))
    return out


def _check_validation(rules: Any, tgt: dict, *, file, line, col, special_tokens) -> None:
    if not isinstance(rules, dict):
        raise _where(file, line, col, "validation must map model names to rules")
    for model, rule in rules.items():
        if model not in tgt:
            raise _where(file, line, f"{col}.{model}", f"validation names model {model!r}, which is not in tgt")
        if not isinstance(rule, dict):
            raise _where(file, line, f"{col}.{model}", "a validation rule must be an object")
        if "score" in rule and not (isinstance(rule["score"], list) and len(rule["score"]) == 2):
            raise _where(file, line, f"{col}.{model}.score", "score must be [low, high]")
        other = rule.get("score_greaterthan")
        if other is not None and other not in tgt:
            raise _where(file, line, f"{col}.{model}.score_greaterthan", f"model {other!r} is not in tgt")
        limit = len(tgt[model]) + len(special_tokens) - 1
        for j, span in enumerate(rule.get("error_spans") or []):
            for end in ("start_i", "end_i"):
                value = span.get(end) if isinstance(span, dict) else None
                bounds = value if isinstance(value, list) else [value]
                if value is None:
                    continue
                if any(isinstance(b, bool) or not isinstance(b, (int, float)) or not 0 <= b <= limit for b in bounds):
                    raise _where(file, line, f"{col}.{model}.error_spans[{j}].{end}",
                                 f"{value!r} lies outside the translation ({len(tgt[model])} characters) and its "
                                 f"special tokens")


def media_paths(text: str) -> list[str]:
    """Every ``src`` / ``poster`` address in a source's HTML."""
    return [m.group(2).strip() for m in _MEDIA.finditer(text or "")]


def check_assets(plan: CesaPlan, assets: str | Path | None) -> None:
    """Every media path a source refers to must be a file inside the asset folder (no address with a scheme,
    no absolute path, nothing leaving the folder)."""
    root = Path(assets).resolve() if assets else None
    file = plan.source_file
    for what, docs in (("data", plan.documents), ("data_welcome", plan.welcome), ("data_random", plan.checks)):
        for d, doc in enumerate(docs):
            for s, seg in enumerate(doc):
                for path in media_paths(seg.get("src", "")) + media_paths(seg.get("instructions") or ""):
                    col = f"{what}[{d}][{s}].src"
                    where = dict(file=file, line=seg.get("_line", d + 1), column=col)
                    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", path) or path.startswith("//"):
                        raise InputError(f"media {path!r} is an address outside the service: sources are served "
                                         "from the campaign's asset folder only (no internet)", **where)
                    if root is None:
                        raise InputError(f"media {path!r} needs the campaign's asset folder", **where)
                    target = (root / path).resolve()
                    if path.startswith("/") or not target.is_relative_to(root):
                        raise InputError(f"media path {path!r} leaves the asset folder {root}", **where)
                    if not target.is_file():
                        raise InputError(f"media file {path!r} is not in the asset folder {root}", **where)


# --------------------------------------------------------------------------- Pearmut campaign files


def _task_list(data: Any, file: str) -> list[list[list[dict]]]:
    if isinstance(data, dict):  # stored task-based form: user id -> task
        return list(data.values())
    return data


def from_pearmut(path: str | Path, *, assets: str | Path | None = None) -> tuple[str, CesaPlan]:
    """(campaign id, plan) of a Pearmut campaign file (organiser's or stored form)."""
    file = str(path)
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError("no such file", file=file) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"not a JSON campaign file: {exc}", file=file) from None
    if not isinstance(raw, dict):
        raise InputError("a Pearmut campaign file is one JSON object with campaign_id, info and data", file=file)
    info = raw.get("info")
    if not isinstance(info, dict):
        raise InputError("the campaign has no info object", file=file, column="info")
    cid = raw.get("campaign_id")
    if not isinstance(cid, str) or not cid.strip():
        raise InputError("campaign_id must be a non-empty text", file=file, column="campaign_id")
    protocol = str(info.get("protocol", "")).lower()
    if protocol != PROTOCOL:
        raise InputError(f"protocol {info.get('protocol')!r} is not supported here: only cESA campaign files run as "
                         "they are (DA and ESA campaigns are created from outputs)", file=file, column="info.protocol")
    kind = info.get("assignment")
    if kind not in ("dynamic", "task-based", "single-stream"):
        raise InputError(f"unknown assignment {kind!r} (dynamic, task-based or single-stream)", file=file,
                         column="info.assignment")
    tokens = info.get("special_tokens", list(SPECIAL_TOKENS))
    if not isinstance(tokens, list) or not all(isinstance(t, str) and t for t in tokens):
        raise InputError("special_tokens must be a list of texts", file=file, column="info.special_tokens")
    users = info.get("users")
    max_annotators = users if isinstance(users, int) and not isinstance(users, bool) else \
        (len(users) if isinstance(users, list) else None)
    threshold = info.get("validation_threshold", 0)
    try:
        settings = settings_with(
            models_per_item=info.get("dynamic_models", 3) if kind == "dynamic" else None,
            coldstart=info.get("dynamic_coldstart"), coldstart_pool=info.get("dynamic_coldstart_pool"),
            docs_per_user=info.get("docs_per_user"), max_annotators=max_annotators,
            check_prob=info.get("data_random_prob"), special_tokens=tokens,
            instructions=info.get("instructions") if isinstance(info.get("instructions"), str) else None,
            word_level=bool(info.get("word_level", True)), threshold=threshold,
            rule_params={"coldstart": int(info.get("dynamic_coldstart", DEFAULTS["coldstart"]))})
    except InputError as exc:
        raise InputError(exc.message, file=file, column=f"info.{exc.column}") from None
    data = raw.get("data")
    if not isinstance(data, (list, dict)) or not data:
        raise InputError("data must hold the documents to annotate", file=file, column="data")
    documents: list[list[dict]] = []
    tasks: list[list[int]] | None = None
    if kind == "task-based":
        tasks = []
        for t, task in enumerate(_task_list(data, file)):
            if not isinstance(task, list):
                raise InputError("a task must be a list of documents", file=file, line=t + 1, column=f"data[{t}]")
            ids = []
            for d, doc in enumerate(task):
                documents.append(check_document(doc, file=file, line=t + 1, what=f"data[{t}][{d}]",
                                                same_models=False, special_tokens=tokens))
                ids.append(len(documents) - 1)
            tasks.append(ids)
    else:
        for d, doc in enumerate(data):
            documents.append(check_document(doc, file=file, line=d + 1, what=f"data[{d}]", same_models=True,
                                            special_tokens=tokens))
        models = list(documents[0][0]["tgt"])
        for d, doc in enumerate(documents):
            if set(doc[0]["tgt"]) != set(models):
                other = sorted(set(models) ^ set(doc[0]["tgt"]))[0]
                raise InputError(f"model {other!r} is missing from this document or only in it: a dynamic campaign "
                                 "needs every model on every document", file=file, line=d + 1,
                                 column=f"data[{d}][0].tgt")
        if settings["models_per_item"] > len(models):
            raise InputError(f"dynamic_models is {settings['models_per_item']} but the documents have "
                             f"{len(models)} models", file=file, column="info.dynamic_models")
    welcome = [check_document(doc, file=file, line=d + 1, what=f"data_welcome[{d}]", same_models=False,
                              special_tokens=tokens) for d, doc in enumerate(raw.get("data_welcome") or [])]
    checks = [check_document(doc, file=file, line=d + 1, what=f"data_random[{d}]", same_models=False,
                             special_tokens=tokens) for d, doc in enumerate(raw.get("data_random") or [])]
    loud = any(rule.get("warning") for doc in checks for seg in doc for rule in (seg.get("validation") or {}).values())
    settings["check_mode"] = "loud" if loud else "silent"
    settings["campaign_id"] = cid
    plan = CesaPlan(documents, settings, "fixed" if kind == "task-based" else "dynamic", tasks, welcome, checks,
                    source_file=file)
    if kind == "single-stream":
        plan.settings["models_per_item"] = max(2, min(MAX_MODELS_PER_ITEM, len(plan.models)))
    check_assets(plan, assets)
    plan.settings["assets"] = str(Path(assets).resolve()) if assets else None
    return cid, plan


# --------------------------------------------------------------------------- WMT26-style files


def _jsonl(path: Path) -> list[tuple[int, dict]]:
    out = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise InputError("no such file", file=str(path)) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text: {exc}", file=str(path)) from None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"not a JSON object: {exc.msg}", file=str(path), line=n) from None
        if not isinstance(row, dict):
            raise InputError("each line must be one JSON object", file=str(path), line=n)
        out.append((n, row))
    return out


_P = re.compile(r"<p>(.*?)</p>", re.S | re.I)


def paragraphs(text: str) -> list[str]:
    """A hypothesis or source as its paragraphs: ``<p>…</p>`` blocks, else blank-line separated blocks."""
    found = [p.strip() for p in _P.findall(text or "")]
    if found:
        return found
    return [p.strip() for p in re.split(r"\n\s*\n", text or "") if p.strip()] or ([text.strip()] if text else [])


def _lp_codes(lp: str) -> tuple[str, str]:
    parts = str(lp).split("-")
    if len(parts) != 2:
        raise InputError(f"language pair {lp!r} is not valid (SRC-TGT, e.g. eng_Latn-isl_Latn)", column="lp")
    return parts[0], parts[1]


def from_wmt26(testset: str | Path, systems: str | Path, lp: str, *, assets: str | Path | None = None,
               **settings: Any) -> CesaPlan:
    """A plan from a WMT26 test set (one JSON object per document) and a folder of system files
    (``<system>.jsonl``, or any ``*.jsonl``: ``doc_id``, ``hypothesis``). Documents of other pairs are skipped;
    a segment is a paragraph; a video or screenshot becomes the segment's source (an ``<video>`` / ``<img>``
    from the asset folder, by default the test set's folder)."""
    testset = Path(testset)
    src_code, tgt_code = _lp_codes(lp)
    assets = Path(assets) if assets else testset.parent
    docs = []
    for n, row in _jsonl(testset):
        for key in ("doc_id", "src_lang", "tgt_lang"):
            if not isinstance(row.get(key), str) or not row[key]:
                raise InputError(f"{key} must be a non-empty text", file=str(testset), line=n, column=key)
        if (row["src_lang"], row["tgt_lang"]) != (src_code, tgt_code):
            continue
        docs.append((n, row))
    if not docs:
        raise InputError(f"no document of {lp} in the test set", file=str(testset), column="src_lang")
    folder = Path(systems)
    files = sorted(folder.glob("*.jsonl")) if folder.is_dir() else []
    if not files:
        raise InputError("no system files (<system>.jsonl) in this folder", file=str(folder))
    hyps: dict[str, dict[str, tuple[int, str]]] = {}
    for path in files:
        name = path.stem
        rows = {}
        for n, row in _jsonl(path):
            if not isinstance(row.get("doc_id"), str):
                raise InputError("doc_id must be a text", file=str(path), line=n, column="doc_id")
            if not isinstance(row.get("hypothesis"), str):
                raise InputError("hypothesis must be a text", file=str(path), line=n, column="hypothesis")
            if row["doc_id"] in rows:
                raise InputError(f"document {row['doc_id']!r} appears twice", file=str(path), line=n, column="doc_id")
            rows[row["doc_id"]] = (n, row["hypothesis"])
        hyps[name] = rows
    documents = []
    for n, row in docs:
        doc_id = row["doc_id"]
        missing = [s for s, rows in hyps.items() if doc_id not in rows]
        if missing:
            raise InputError(f"system {missing[0]!r} has no translation of document {doc_id!r}",
                             file=str(folder / f"{missing[0]}.jsonl"), column="doc_id")
        outs = {s: paragraphs(rows[doc_id][1]) for s, rows in hyps.items()}
        src_parts = paragraphs(str(row.get("src_text") or ""))
        n_seg = max(len(p) for p in outs.values())
        for s, parts in outs.items():
            if len(parts) != n_seg:
                outs[s] = parts + [""] * (n_seg - len(parts))
        domain = str(row.get("domain") or doc_id.split("_", 1)[0])
        video, shot = row.get("video"), row.get("screenshot")
        segments = []
        for k in range(n_seg):
            text = src_parts[k] if k < len(src_parts) else ""
            src = html.escape(text)
            if isinstance(video, dict) and video.get("path") and k == 0:
                src = f'<video controls src="{html.escape(str(video["path"]))}"></video>' + (f"<p>{src}</p>" if src else "")
            if isinstance(shot, dict) and shot.get("path"):
                src = f'<img alt="screenshot" src="{html.escape(str(shot["path"]))}">' + (f"<p>{src}</p>" if src else "")
            seg = {"item_id": f"{domain}_###_{doc_id}_###_{k}", "src": src,
                   "tgt": {s: outs[s][k] for s in outs}, "_line": n}
            if k == 0 and row.get("evaluation_instruction"):
                seg["instructions"] = str(row["evaluation_instruction"])
            segments.append(seg)
        documents.append(segments)
    plan = CesaPlan(documents, settings_with(**settings), "dynamic", source_file=str(testset))
    check_assets(plan, assets)
    plan.settings["assets"] = str(assets.resolve())
    return plan


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
        rotated = rotate_words(texts[spoiled], lang, rng)
        if rotated == texts[spoiled]:
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
