"""Reading and checking uploaded system outputs and test-set files.

A system output is plain text, one segment per line, UTF-8 (a BOM is fine), optionally
gzip-compressed. Lines are split on ``\\n`` and trailing whitespace is removed from each, as
sacrebleu's command line does, so stored lines score exactly as the file would with sacrebleu.
Every refusal is an :class:`InputError` naming the file and, where it applies, the line.
"""

from __future__ import annotations

import os
import re
from typing import Mapping, Sequence

from ..errors import InputError
from ..ingest.textio import max_text_bytes, read_text
from ..naming import unsafe_char

_SYSTEM_NAME = re.compile(r"^[^\x00-\x1f\x7f/\\]{1,200}$")


def read_lines(path: str | os.PathLike, label: str | None = None) -> list[str]:
    """The file's segments: missing / empty / over-large / non-UTF-8 files are refused (with the line)."""
    label = label or str(path)
    if os.path.isdir(path):
        raise InputError("is a directory, not a file", file=label)
    # PostgreSQL cannot store NUL; it is never text. Smaller limit than for judgment tables.
    text = read_text(path, label, nul_ok=False, cap=(max_text_bytes(), "MTLB_MAX_TEXT_BYTES"))
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    lines = [line.rstrip() for line in lines]
    if not any(lines):
        raise InputError(f"empty output: all {len(lines)} lines are blank", file=label, line=1)
    return lines


def check_line_count(lines: Sequence[str], expected: int, label: str, what: str = "the source") -> None:
    """Refuse a file whose number of lines differs from ``expected``, naming the first odd line."""
    n = len(lines)
    if n < expected:
        raise InputError(f"has {n} lines but {what} has {expected} segments: line {n + 1} onwards is missing "
                         "(one line per segment, in order)", file=label, line=n + 1)
    if n > expected:
        raise InputError(f"has {n} lines but {what} has {expected} segments: line {expected + 1} is one too many "
                         "(one line per segment, in order)", file=label, line=expected + 1)


def check_output(lines: Sequence[str], source: Sequence[str], references: Mapping[str, Sequence[str]],
                 label: str) -> dict:
    """Validate a system output against its test set; returns warnings (flags) for what is allowed.

    Refused: a different number of lines, an output identical to the source or to a reference.
    Flags: how many lines are empty, copies of the source line, or copies of a reference line.
    """
    check_line_count(lines, len(source), label)
    if list(lines) == [s.rstrip() for s in source]:
        raise InputError("the output is identical to the source (every line is a copy); upload a translation",
                         file=label, line=1)
    for name, ref in references.items():
        if list(lines) == [r.rstrip() for r in ref]:
            raise InputError(f"the output is identical to reference {name!r}; upload your own translation",
                             file=label, line=1)
    flags: dict[str, int] = {}
    empty = sum(1 for line in lines if not line.strip())
    if empty:
        flags["empty_lines"] = empty
    copied = sum(1 for line, src in zip(lines, source) if line.strip() and line == src.rstrip())
    if copied:
        flags["lines_copied_from_source"] = copied
    for name, ref in references.items():
        same = sum(1 for line, r in zip(lines, ref) if line.strip() and line == r.rstrip())
        if same:
            flags[f"lines_equal_to_reference_{name}"] = same
    return flags


def check_system_name(name: str, label: str | None = None) -> str:
    """A system name: 1–200 characters, no control characters or slashes, no surrounding spaces."""
    if name != name.strip() or not _SYSTEM_NAME.match(name) or unsafe_char(name):
        raise InputError(f"system name {name!r} must have 1-200 characters, no surrounding spaces, "
                         "slashes, control or text-direction characters", file=label, column="system")
    return name
