"""Messages from the lower layers, worded for the web.

The lower layers serve the command line too, and some of their messages name what to type there
("pass --lp", "(--standardise worker)", "`mtlb imports retract`"). On a page the visitor clicks and
chooses instead, so :func:`for_web` rewrites those phrases into what to choose on the page; any
flag or command it does not know is dropped from its parenthesis or put in words, so no message
on a page asks for a command-line option.
"""

from __future__ import annotations

import re

# (pattern, replacement), applied in order; the known phrases of the lower layers' messages
PHRASES: tuple[tuple[str, str], ...] = (
    (r"pass --input-format \(([^)]*)\)", r"choose one under “Format” (\1)"),
    (r"pass --input-format", "choose one under “Format”"),
    (r"\(ad-<lp>-trk-mean-sd\.txt, --worker-stats\)", "(ad-<lp>-trk-mean-sd.txt)"),
    (r"\(`?mtlb imports retract`?\)", "(Organiser page, Imports tab)"),
    (r"\(--standardise worker\)", "(standardise per worker)"),
    (r"for the WMT release pass --worker-stats", "for the WMT release, store its worker mean/sd file with it"),
    (r"keep the file's z-scores with --standardise keep", "keep the file's z-scores"),
    (r"rank without it \(--qc none\)", "rank without it (“Worker QC”: none)"),
    (r"a higher --qc-alpha than", "a higher “QC threshold p <” than"),
    (r"need --qc none", "need “Worker QC”: none"),
    (r"\(add one with mtlb testset add[^)]*\)", "(organisers release one on the Test sets page)"),
    (r"; see `?mtlb campaigns human[^)]*`? for the list", ""),
    (r"pass --lp\b", "choose the language pair"),
    (r"pass --reference\b", "choose the human reference"),
    (r"\(export --format appraise holds everyone\)", "(the Appraise export holds everyone)"),
    (r" \(--hyp\)", ""),
    (r" \(--calibration\)", ""),
    (r"unless mapped with --match", "unless mapped to each other"),
)
_COMPILED = tuple((re.compile(p), r) for p, r in PHRASES)
# a parenthesis that only tells what to type
_ASIDE = re.compile(r"\s*\([^()]*(?:--[a-z]|\bmtlb\s+[a-z])[^()]*\)")
_COMMAND = re.compile(r"`?\bmtlb\s+[a-z][^`;.,)]*`?")
_FLAG = re.compile(r"--([a-z][a-z0-9-]*)")


def for_web(text: str) -> str:
    """``text`` without command-line flags or commands (see the module's docstring)."""
    text = str(text)
    for pattern, replacement in _COMPILED:
        text = pattern.sub(replacement, text)
    text = _ASIDE.sub("", text)
    text = _COMMAND.sub("the command line", text)
    return _FLAG.sub(lambda m: "“" + m.group(1).replace("-", " ") + "”", text)
