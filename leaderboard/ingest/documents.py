"""A test set's documents list: the domain of every document (WMT24's ``txt/documents/<lp>.docs``).

One line per line of the test set, ``domain<TAB>document id``; the first line is the canary
(``canary<TAB>canary``), and a document's lines repeat its id. :func:`read_documents` returns the
document → domain table of one language pair; :func:`documents_for` matches several files to the
language pairs being ranked.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Sequence

from ..errors import InputError
from ..languages import LANGUAGE_PAIR
from ..naming import unsafe_char
from .textio import read_text

#: the two fields of a line, for error messages
FIELDS = ("domain (field 1)", "doc_id (field 2)")
#: first-line field names that make it a column header, which the release's lists do not have
_HEADER_NAMES = ({"domain"}, {"doc", "doc_id", "docid", "document", "document_id", "documentid"})
_PAIR = LANGUAGE_PAIR  # en-cs, en-it_IT, eng_Latn-zho_Hant_TW


def lp_of_documents(path: str | os.PathLike) -> str | None:
    """``en-cs.docs`` → ``en-cs`` (``en-it_IT.docs`` → ``en-it_IT``, ``eng_Latn-isl_Latn.docs`` → ``eng_Latn-isl_Latn``);
    None when the name is no pair."""
    stem = Path(path).name.split(".", 1)[0]
    return stem if _PAIR.match(stem) else None


def read_documents(path: str | os.PathLike, name: str | None = None) -> dict[str, str]:
    """Document id → domain, refusing (with file, line and column) a line without exactly two tab-separated
    fields, an empty domain or id, a control or text-direction character in either, a column header
    instead of the canary line, a document listed under two domains, and a file listing no document."""
    label = name or str(path)
    if not Path(path).is_file():
        raise InputError("documents file not found", file=label, column="documents")
    text = read_text(path, label, nul_ok=False)
    out: dict[str, str] = {}
    first_line: dict[str, int] = {}
    last = 0
    for i, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        last = i
        fields = line.split("\t")
        if len(fields) != 2:
            raise InputError(f"expected 2 tab-separated fields (domain, document id), found {len(fields)}",
                             file=label, line=i)
        for field, column in zip(fields, FIELDS):
            bad = unsafe_char(field)
            if bad is not None:
                raise InputError(f"control character {bad} in the value (domains and document ids may hold no "
                                 "control or text-direction characters)", file=label, line=i, column=column)
        domain, doc = fields[0].strip(), fields[1].strip()
        if not domain:
            raise InputError("empty domain", file=label, line=i, column=FIELDS[0])
        if not doc:
            raise InputError("empty document id", file=label, line=i, column=FIELDS[1])
        if not out and domain.lower() in _HEADER_NAMES[0] and doc.lower() in _HEADER_NAMES[1]:
            raise InputError("the first line is a column header; a documents list has none (line 1 is the "
                             "canary, then domain<TAB>document id per test-set line)", file=label, line=i,
                             column=FIELDS[1])
        if out.setdefault(doc, domain) != domain:
            raise InputError(f"document {doc!r} is listed under domain {out[doc]!r} on line {first_line[doc]} "
                             f"and {domain!r} here", file=label, line=i, column=FIELDS[0])
        first_line.setdefault(doc, i)
    if not set(out) - {"canary"}:
        raise InputError("no documents listed (the file holds at most the canary line)", file=label,
                         line=last or None)
    return out


def documents_for(paths: Sequence[str], lps: Iterable[str]) -> dict[str, dict[str, str]]:
    """The documents list of each language pair from ``--documents`` files.

    A file ``LP=PATH`` is that pair's; a file named ``<lp>.docs`` (the release's naming) is that pair's;
    one file given for one language pair is that pair's whatever its name. Two files for one pair,
    and a file left unmatched, are refused.
    """
    wanted = sorted(set(lps))
    out: dict[str, dict[str, str]] = {}
    unmatched: list[str] = []
    for spec in paths:
        lp, sep, path = spec.partition("=")
        if not (sep and _PAIR.match(lp)):
            lp, path = "", spec
        lp = lp or lp_of_documents(path) or ""
        if not lp:
            unmatched.append(path)
            continue
        if lp in out:
            raise InputError(f"two documents files for language pair {lp}", file=path, column="documents")
        out[lp] = read_documents(path)
    if unmatched:
        if len(unmatched) == 1 and len(paths) == 1 and len(wanted) == 1:
            return {wanted[0]: read_documents(unmatched[0])}
        raise InputError("cannot tell which language pair this documents file is for: name it <lp>.docs "
                         "or pass LP=FILE", file=unmatched[0], column="documents")
    return out
