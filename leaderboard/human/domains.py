"""Domains of a test set: the domain of each segment, for per-domain scores and tests.

Two sources, named in the ranking's signature (``domains:``):

- the release's documents list (``documents@<digest>``): per language pair, document id → domain, as
  WMT24 ships it (``txt/documents/<lp>.docs``, read by :mod:`leaderboard.ingest.documents`); a judged
  document missing from the list is refused, never guessed;
- the document id itself (``doc-id``): ``test-en-news_seattle.123`` → ``news`` (the text before the
  first ``_``, after its last ``-``), as WMT24's document ids carry it; used when no list is given.

A document id with Appraise's status marks (``doc#bad``) is looked up without them.
"""

from __future__ import annotations

import hashlib
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from ..errors import InputError

#: per language pair, document id → domain
Documents = Mapping[str, Mapping[str, str]]


def domain_of(doc: str | None) -> str:
    """``test-en-news_seattle.123`` → ``news``; a document id without that shape is its own domain."""
    if doc is None or (isinstance(doc, float) and np.isnan(doc)) or doc is pd.NA:
        return "all"
    head = str(doc).split("_", 1)[0]
    return head.rsplit("-", 1)[-1] if "-" in head else head


def documents_digest(documents: Documents) -> str:
    """A short, stable digest of a documents list (recorded in the signature)."""
    h = hashlib.sha256()
    for lp in sorted(documents):
        for doc, domain in sorted(documents[lp].items()):
            h.update(f"{lp}\t{doc}\t{domain}\n".encode("utf-8"))
    return h.hexdigest()[:12]


def domains_label(documents: Documents | None) -> str:
    """The signature's ``domains`` field: ``documents@<digest>`` or ``doc-id``."""
    return f"documents@{documents_digest(documents)}" if documents is not None else "doc-id"


def segment_domains(frame: pd.DataFrame, documents: Documents | None = None,
                    source: str | None = None) -> dict[tuple[str, str], str]:
    """(lp, segment) → domain, from the judgments' document ids.

    With ``documents`` (per lp, document → domain; ``source`` names its file for errors) every
    language pair of ``frame`` must have a list and every judged document must be on it; without,
    the domain is read from the document id (:func:`domain_of`).
    """
    docs = frame.drop_duplicates(["lp", "segment"])
    lps = docs["lp"].astype(str).to_numpy()
    segs = docs["segment"].astype(str).to_numpy()
    ids = docs["doc"].astype("string").fillna("").to_numpy(dtype=object) if "doc" in docs.columns \
        else np.full(len(docs), "", dtype=object)
    if documents is None:
        return {(lp, seg): domain_of(doc or None) for lp, seg, doc in zip(lps, segs, ids)}
    missing = sorted(set(lps) - set(documents))
    if missing:
        raise InputError(f"no documents list for language pair {missing[0]!r} (the documents given cover "
                         f"{', '.join(sorted(documents)) or 'no pair'})", file=source, column="documents")
    out = {}
    for lp, seg, doc in zip(lps, segs, ids):
        table = documents[lp]
        domain = table.get(doc)
        if domain is None:
            domain = table.get(str(doc).split("#", 1)[0])
        if domain is None:
            raise InputError(f"document {doc!r} of language pair {lp} (segment {seg}) is not in the documents "
                             "list, so its domain is unknown", file=source, column="doc_id (field 2)")
        out[(lp, seg)] = domain
    return out


def domain_means(seg: pd.DataFrame, systems: Sequence[str], domains: Mapping[tuple[str, str], str],
                 lp: str, column: str) -> pd.DataFrame:
    """Systems x domains: each system's mean ``column`` over its segments of each domain (NaN: none).

    ``seg``: per-segment scores (system, segment, ``column``); rows in ``systems`` order, domains sorted.
    """
    dom = np.array([domains.get((lp, str(s)), "all") for s in seg["segment"].astype(str)], dtype=object)
    frame = pd.DataFrame({"system": seg["system"].astype(str).to_numpy(), "domain": dom,
                          "value": seg[column].to_numpy(dtype=float)})
    table = frame.groupby(["system", "domain"], sort=True)["value"].mean().unstack("domain")
    return table.reindex(index=list(systems))


def domain_macro_average(means: pd.DataFrame) -> np.ndarray:
    """The mean over domains of each system's per-domain means (the domains the system has)."""
    with np.errstate(invalid="ignore"):
        return means.mean(axis=1, skipna=True).to_numpy(dtype=float)
