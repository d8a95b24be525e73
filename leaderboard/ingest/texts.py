"""Aligned text files of a test set (WMT layout): sources, references and system outputs.

File names follow ``<testset>.<lp>.<src|ref|hyp>.<name>.<lang>`` (``.gz`` allowed), e.g.
``generaltest2022.cs-en.hyp.Online-W.en`` or ``generaltest2022.cs-en.ref.B.en``; a source file has no
name part (``generaltest2022.cs-en.src.cs``). Language codes may carry a script and region as WMT26's do
(``wmt26.eng_Latn-zho_Hant_TW.hyp.SysA.zho_Hant_TW``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..languages import LANGUAGE_CODE
from .textio import read_text

_NAME = re.compile(rf"^(?P<testset>[^.]+)\.(?P<lp>{LANGUAGE_CODE}-{LANGUAGE_CODE})\.(?P<kind>src|ref|hyp)"
                   rf"(?:\.(?P<name>.+))?\.(?P<lang>{LANGUAGE_CODE})$")
KINDS = {"src": "source", "ref": "reference", "hyp": "hypothesis"}


@dataclass(frozen=True)
class TextFile:
    testset: str
    lp: str
    kind: str  # source | reference | hypothesis
    name: str  # system name, reference label, or "source"
    lang: str


def parse_text_name(filename: str) -> TextFile:
    """Split a WMT test-set file name into its parts; refuses names that do not follow it."""
    base = Path(filename).name
    if base.endswith(".gz"):
        base = base[:-3]
    m = _NAME.match(base)
    if not m:
        raise InputError("file name does not follow <testset>.<lp>.<src|ref|hyp>.<name>.<lang>",
                         file=filename)
    kind = KINDS[m.group("kind")]
    name = m.group("name") or ("source" if kind == "source" else "")
    if not name:
        raise InputError(f"a {kind} file name needs a name part", file=filename)
    return TextFile(m.group("testset"), m.group("lp"), kind, name, m.group("lang"))


def read_lines(path: str | Path, name: str | None = None) -> list[str]:
    """The file's lines (no trailing newline); refuses empty files and empty last-line-only files."""
    label = name or str(path)
    text = read_text(path, label, nul_ok=False)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        raise InputError("the file is empty", file=label)
    return [line.rstrip("\r") for line in lines]


def check_aligned(files: list[tuple[TextFile, list[str], str]]) -> None:
    """Refuse a set of (info, lines, label) whose files of one language pair differ in line count."""
    first: dict[str, tuple[int, str]] = {}
    for info, lines, label in files:
        n, other = first.setdefault(info.lp, (len(lines), label))
        if len(lines) != n:
            raise InputError(f"has {len(lines)} lines but {Path(other).name} has {n}; aligned files must "
                             "have equal line counts", file=label)
