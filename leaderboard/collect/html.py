"""Campaign HTML as the annotator may see it: an allow-list sanitiser (nh3, the Ammonia library) and media
addresses resolved inside the campaign's asset folder.

WMT26 campaign files carry HTML: instructions as styled ``<div>``s, sources as ``<video>`` and ``<img>``
tags. :func:`clean` keeps only an allow-list of tags and attributes; no script, no event handler, no
``<iframe>``/``<object>``/``<form>``/``<link>``/``<style>``, no address with a scheme (``http:``,
``javascript:``, ``data:``…): a media ``src`` must name a file inside the asset folder, and becomes the
address the app serves it at; anything else is dropped. Inline styles keep only properties that
cannot move content out of its box (no ``position``, ``z-index``, ``transform``, sizes…) and no value
sized by the window (``vh``, ``vw``…) or computed (``calc()``, ``url()``); the page also draws campaign
HTML inside a box that clips what it holds.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

import nh3

TAGS = {"div", "p", "span", "b", "strong", "i", "em", "u", "s", "br", "hr", "ul", "ol", "li", "h1", "h2", "h3", "h4",
        "h5", "h6", "small", "sub", "sup", "code", "pre", "blockquote", "table", "thead", "tbody", "tr", "td", "th",
        "img", "video", "source", "audio", "figure", "figcaption", "mark", "abbr", "kbd"}
ATTRIBUTES = {"*": {"class", "style", "dir", "lang", "title"},
              "img": {"src", "alt", "width", "height"},
              "video": {"src", "controls", "width", "height", "poster", "muted", "loop", "preload", "playsinline"},
              "audio": {"src", "controls", "preload"},
              "source": {"src", "type"},
              "td": {"colspan", "rowspan"}, "th": {"colspan", "rowspan"}}
STYLES = {"color", "background-color", "font-weight", "font-style", "font-size", "text-align", "text-decoration",
          "line-height", "margin", "margin-top", "margin-bottom", "margin-left", "margin-right", "padding",
          "padding-top", "padding-bottom", "padding-left", "padding-right", "border", "border-color", "border-width",
          "border-style", "border-radius", "border-left", "border-right", "border-top", "border-bottom",
          "list-style-type", "white-space", "vertical-align"}
#: CSS units that size a box by the window (or by calculation) instead of its content: a value using one could
#: make the box cover or stretch the page, so such declarations are dropped
_WINDOW_UNITS = re.compile(r"(?:\d|\.)(?:vh|vw|vmin|vmax|dvh|svh|lvh|dvw|svw|lvw)\b|calc\(|var\(|url\(|expression",
                           re.IGNORECASE)
MEDIA_ATTRIBUTES = {"src", "poster"}


def asset_path(root: str | Path | None, value: str) -> str | None:
    """The path of ``value`` inside ``root`` (relative, forward slashes), or None when it is no file there:
    an address with a scheme, an absolute path or one that leaves the folder."""
    value = (value or "").strip()
    if root is None or not value or ":" in value.split("/")[0] or value.startswith(("/", "\\")):
        return None
    base = Path(root).resolve()
    target = (base / value).resolve()
    if not target.is_relative_to(base) or not target.is_file():
        return None
    return target.relative_to(base).as_posix()


def clean(text: str | None, *, assets: str | Path | None = None,
          address: Callable[[str], str] | None = None) -> str:
    """``text`` with only allowed HTML; media paths inside ``assets`` turned into ``address(path)``."""
    if not text:
        return ""

    def keep(tag: str, attr: str, value: str) -> str | None:
        if attr == "style":
            kept = [d for d in value.split(";") if d.strip() and not _WINDOW_UNITS.search(d)]
            return "; ".join(d.strip() for d in kept) or None
        if attr in MEDIA_ATTRIBUTES:
            path = asset_path(assets, value)
            if path is None or address is None:
                return None
            return address(path)
        return value

    return nh3.clean(str(text), tags=TAGS, attributes=ATTRIBUTES, attribute_filter=keep, url_schemes=set(),
                     filter_style_properties=STYLES, strip_comments=True, link_rel=None)
