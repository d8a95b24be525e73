"""User text shown literally in Streamlit's Markdown: the one escape every page uses."""

from __future__ import annotations

import re

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$])")
# Streamlit turns bare URLs, www. addresses and e-mail addresses into links even when escaped; an
# invisible word joiner (U+2060) keeps the text as it reads while breaking those patterns
_AUTOLINK = re.compile(r"(?i)\b(https?|ftp|mailto|file)(?=:)|\b(www)(?=\.)|(?=@)")
WORD_JOINER = "\u2060"


def md_escape(text: str) -> str:
    """User text (names, file names, notes, messages) for a Markdown context, shown literally.

    Markdown syntax is backslash-escaped; ``&`` and ``:`` become character references (so entities,
    emoji codes and ``:material/…:`` icons stay text); URLs, www. and e-mail addresses get an
    invisible word joiner so they are not turned into links.
    """
    text = str(text).replace("&", "&amp;")
    text = _AUTOLINK.sub(lambda m: (m.group(1) or m.group(2) or "") + WORD_JOINER, text)
    return _MD_SPECIAL.sub(r"\\\1", text).replace(":", "&#58;")
