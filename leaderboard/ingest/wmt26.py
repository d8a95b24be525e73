"""WMT26 test sets and system outputs (JSON lines) read into validated frames, and the cESA items they make.

Test set: one document per line, ``{"doc_id", "domain", "src_lang", "tgt_lang", "src_text", "video",
"screenshot", "gold_transcript", "prompt_instruction", "multimodal_instruction", "evaluation_instruction",
"refs"}``; ``video`` and ``screenshot`` are ``{"id", "path"}`` (an mp4 for the speech domain, an image for
the social one) or null; ``refs`` maps a reference's name to its text (may be empty). System output:
one JSON-lines file per system, ``{"doc_id", "hypothesis", "metadata"}``, the hypothesis a document
whose paragraphs are ``<p>…</p>``.

:func:`read_wmt26_testset` and :func:`read_wmt26_system` refuse, naming file, line and field: a line
that is not a JSON object, a missing or empty ``doc_id``, a document id given twice, a language code
that is not one (``eng_Latn``, ``zho_Hant_TW``), texts that are not texts, a media object without a
path, a media path that is a URL or leaves the asset folder (or, with the folder given, names no
file), a hypothesis for a document the test set does not have.
:func:`wmt26_items` lays the documents out as cESA items (module function docstring).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from html import unescape
from pathlib import Path
from typing import Any, Mapping

import pandas as pd

from ..errors import InputError, brief
from ..languages import parse_language
from ..naming import unsafe_char
from .jsonio import field_name, json_lines
from .media import asset_problem

TESTSET_TEXT_FIELDS = ("src_text", "gold_transcript", "prompt_instruction", "multimodal_instruction",
                       "evaluation_instruction")
DOCUMENT_COLUMNS = ("doc_id", "domain", "lp", "src_lang", "tgt_lang", "src_text", "video_id", "video_path",
                    "screenshot_id", "screenshot_path", "gold_transcript", "prompt_instruction",
                    "multimodal_instruction", "evaluation_instruction", "refs", "line")
OUTPUT_COLUMNS = ("system", "doc_id", "hypothesis", "paragraphs", "line")
ITEM_COLUMNS = ("item_id", "doc", "doc_id", "domain", "lp", "segment_index", "source", "video_path",
                "screenshot_path", "instructions", "system", "target")
_PARAGRAPH = re.compile(r"<p(?:\s[^>]*)?>(.*?)</p\s*>", re.DOTALL | re.IGNORECASE)
MAX_ID = 200


@dataclass
class Wmt26TestSet:
    """The documents of a WMT26 test set (:data:`DOCUMENT_COLUMNS`, one row per document; ``refs`` as
    JSON text) and the file they came from."""
    documents: pd.DataFrame
    file: str

    @property
    def lps(self) -> list[str]:
        return sorted(self.documents["lp"].unique())


def _error(label: str, line: int, path: list, message: str) -> InputError:
    return InputError(message, file=label, line=line, column=field_name(path) or None)


def _text(entry: dict, key: str, label: str, line: int, *, required: bool = False) -> str | None:
    value = entry.get(key)
    if value is None:
        if required:
            raise _error(label, line, [key], f"{key} is missing")
        return None
    if not isinstance(value, str):
        raise _error(label, line, [key], f"{key} must be a text, got {brief(value)!r}")
    return value


def _doc_id(entry: dict, label: str, line: int) -> str:
    value = entry.get("doc_id")
    if not isinstance(value, str) or not value.strip():
        raise _error(label, line, ["doc_id"], f"doc_id must be a non-empty text, got {brief(value)!r}")
    value = value.strip()
    if len(value) > MAX_ID:
        raise _error(label, line, ["doc_id"], f"doc_id is {len(value):,} characters long; at most {MAX_ID} are allowed")
    bad = unsafe_char(value)
    if bad is not None:
        raise _error(label, line, ["doc_id"], f"doc_id holds the character {bad}")
    return value


def _media(entry: dict, key: str, label: str, line: int, assets: str | os.PathLike | None) -> tuple[str | None, str | None]:
    value = entry.get(key)
    if value is None:
        return None, None
    if not isinstance(value, dict) or not isinstance(value.get("path"), str):
        raise _error(label, line, [key], f"{key} must be null or an object with a path, got {brief(value)!r}")
    problem = asset_problem(value["path"], assets)
    if problem is not None:
        raise _error(label, line, [key, "path"], problem)
    media_id = value.get("id")
    return (None if media_id is None else str(media_id)), value["path"].strip()


def read_wmt26_testset(path: str | os.PathLike, *, assets: str | os.PathLike | None = None, lp: str | None = None,
                       name: str | None = None) -> Wmt26TestSet:
    """Read a WMT26 test set (module docstring); ``assets``: the folder videos and screenshots are in;
    ``lp``: keep only this language pair's documents (a file holding none of them is refused)."""
    label = name or str(path)
    rows, seen = [], {}
    for line, entry in json_lines(path, label):
        if not isinstance(entry, dict):
            raise InputError("a test-set line must be a JSON object (one document)", file=label, line=line)
        doc_id = _doc_id(entry, label, line)
        langs = []
        for key in ("src_lang", "tgt_lang"):
            code = entry.get(key)
            if not isinstance(code, str):
                raise _error(label, line, [key], f"{key} must be a language code such as eng_Latn, got {brief(code)!r}")
            try:
                langs.append(parse_language(code).code)
            except InputError as exc:
                raise _error(label, line, [key], exc.message) from None
        pair = f"{langs[0]}-{langs[1]}"
        if (pair, doc_id) in seen:
            raise _error(label, line, ["doc_id"], f"document {doc_id!r} of {pair} is also on line {seen[(pair, doc_id)]}")
        seen[(pair, doc_id)] = line
        domain = _text(entry, "domain", label, line, required=True).strip()
        if not domain:
            raise _error(label, line, ["domain"], "domain is empty")
        texts = {key: _text(entry, key, label, line) for key in TESTSET_TEXT_FIELDS}
        video = _media(entry, "video", label, line, assets)
        screenshot = _media(entry, "screenshot", label, line, assets)
        if texts["src_text"] is None and video[1] is None and screenshot[1] is None:
            raise _error(label, line, ["src_text"], "the document has no source: no src_text, video or screenshot")
        refs = entry.get("refs") or {}
        if not isinstance(refs, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in refs.items()):
            raise _error(label, line, ["refs"], "refs must map reference names to texts")
        rows.append((doc_id, domain, pair, langs[0], langs[1], texts["src_text"], *video, *screenshot,
                     texts["gold_transcript"], texts["prompt_instruction"], texts["multimodal_instruction"],
                     texts["evaluation_instruction"], json.dumps(refs, ensure_ascii=False), line))
    frame = pd.DataFrame(rows, columns=list(DOCUMENT_COLUMNS))
    if frame.empty:
        raise InputError("the test set holds no document", file=label)
    if lp is not None:
        keep = frame["lp"] == lp
        if not keep.any():
            raise InputError(f"the test set holds no document of {lp} (it holds {', '.join(sorted(frame['lp'].unique()))})",
                             file=label, column="lp")
        frame = frame[keep].reset_index(drop=True)
    return Wmt26TestSet(frame, label)


def paragraphs(text: str) -> list[str]:
    """The paragraphs of a WMT26 hypothesis: the contents of its ``<p>…</p>`` elements (entities decoded,
    ends stripped); a text without them is split on blank lines, else on line breaks."""
    found = _PARAGRAPH.findall(text)
    if found:
        return [unescape(p).strip() for p in found]
    parts = [p.strip() for p in re.split(r"\n\s*\n", text)]
    if len(parts) == 1:
        parts = [p.strip() for p in text.split("\n")]
    return [p for p in parts if p]


def read_wmt26_system(path: str | os.PathLike, *, system: str | None = None, testset: Wmt26TestSet | None = None,
                      name: str | None = None) -> pd.DataFrame:
    """One system's outputs (:data:`OUTPUT_COLUMNS`; ``paragraphs`` a list per document). ``system``
    defaults to the file name without ``.jsonl``; with ``testset``, a document it lacks is refused."""
    label = name or str(path)
    system = system or re.sub(r"\.jsonl?$", "", Path(path).name)
    known = None if testset is None else set(testset.documents["doc_id"])
    rows, seen = [], {}
    for line, entry in json_lines(path, label):
        if not isinstance(entry, dict):
            raise InputError("a system-output line must be a JSON object (one document)", file=label, line=line)
        doc_id = _doc_id(entry, label, line)
        if doc_id in seen:
            raise _error(label, line, ["doc_id"], f"document {doc_id!r} is also on line {seen[doc_id]}")
        seen[doc_id] = line
        if known is not None and doc_id not in known:
            raise _error(label, line, ["doc_id"], f"document {doc_id!r} is not in the test set {testset.file}")
        hypothesis = _text(entry, "hypothesis", label, line, required=True)
        rows.append((system, doc_id, hypothesis, paragraphs(hypothesis), line))
    frame = pd.DataFrame(rows, columns=list(OUTPUT_COLUMNS))
    if frame.empty:
        raise InputError("the system file holds no document", file=label)
    return frame


def read_wmt26_systems(folder: str | os.PathLike, testset: Wmt26TestSet | None = None) -> pd.DataFrame:
    """Every ``*.jsonl`` file of ``folder`` as one system (named after the file), stacked."""
    files = sorted(Path(folder).glob("*.jsonl"))
    if not files:
        raise InputError("no system files (*.jsonl) in the folder", file=str(folder))
    return pd.concat([read_wmt26_system(f, testset=testset) for f in files], ignore_index=True)


def wmt26_items(testset: Wmt26TestSet, outputs: pd.DataFrame, *, lp: str | None = None) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The cESA items of a test set and its systems' outputs: one row per segment × system (:data:`ITEM_COLUMNS`).

    A document's segments are its paragraphs; the item id is WMT26's ``<domain>_###_<doc id>_###_<k>``
    (a document id that already starts with ``<domain>_###_`` is not prefixed again), the document
    ``<domain>_###_<doc id>``. Every system must have every document (a missing one is refused,
    naming it). When the systems split a document into different numbers of paragraphs (or a text
    source has another number), the document becomes one item with all its paragraphs, so that the
    translations on one screen always cover the same source; the report counts those documents.
    Videos and screenshots go with every segment of their document; the evaluation instruction
    with its first.
    """
    docs = testset.documents if lp is None else testset.documents[testset.documents["lp"] == lp]
    by_doc: dict[str, dict[str, tuple[list[str], int, str]]] = {}
    for rec in outputs.itertuples(index=False):
        by_doc.setdefault(rec.doc_id, {})[rec.system] = (list(rec.paragraphs), rec.line, rec.system)
    systems = sorted(outputs["system"].unique())
    rows, merged = [], 0
    for doc in docs.itertuples(index=False):
        mine: Mapping[str, tuple[list[str], int, str]] = by_doc.get(doc.doc_id, {})
        lacking = [s for s in systems if s not in mine]
        if lacking:
            raise InputError(f"system {lacking[0]!r} has no hypothesis for document {doc.doc_id!r} ({doc.lp}); "
                             "every system must translate every document", file=testset.file, line=int(doc.line),
                             column="doc_id")
        source = paragraphs(doc.src_text) if doc.src_text else []
        counts = {len(mine[s][0]) for s in systems}
        if doc.src_text and source:
            counts.add(len(source))
        split = len(counts) == 1
        merged += not split
        prefix = f"{doc.domain}_###_"
        base = doc.doc_id if doc.doc_id.startswith(prefix) else prefix + doc.doc_id
        n = counts.pop() if split else 1
        for k in range(n):
            src = (source[k] if source else "") if split else "\n".join(source)
            for s in systems:
                target = mine[s][0][k] if split else "\n".join(mine[s][0])
                rows.append((f"{base}_###_{k}", base, doc.doc_id, doc.domain, doc.lp, k, src, doc.video_path,
                             doc.screenshot_path, doc.evaluation_instruction if k == 0 else None, s, target))
    items = pd.DataFrame(rows, columns=list(ITEM_COLUMNS))
    return items, {"documents": len(docs), "systems": len(systems), "items": int(items["item_id"].nunique()),
                   "documents_kept_whole": merged}
