"""Domains of a test set: the domain of each segment, for per-domain scores and tests.

The domain of a segment is read from its document id (``test-en-news_seattle.123`` → ``news``: the
text before the first ``_``, after its last ``-``), as WMT24's document ids carry it.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd


def domain_of(doc: str | None) -> str:
    """``test-en-news_seattle.123`` → ``news``; a document id without that shape is its own domain."""
    if doc is None or (isinstance(doc, float) and np.isnan(doc)) or doc is pd.NA:
        return "all"
    head = str(doc).split("_", 1)[0]
    return head.rsplit("-", 1)[-1] if "-" in head else head


def segment_domains(frame: pd.DataFrame) -> Mapping[tuple[str, str], str]:
    """(lp, segment) → domain, from the judgments' document ids."""
    docs = frame.drop_duplicates(["lp", "segment"])
    return {(str(lp), str(seg)): domain_of(doc) for lp, seg, doc in zip(docs["lp"], docs["segment"], docs["doc"])}
