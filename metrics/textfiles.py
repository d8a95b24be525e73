"""Aligned plain-text files (one segment per line) for automatic scoring.

Lines are split on ``\\n`` only and trailing whitespace is removed from every line, exactly as
sacrebleu's command line reads its inputs, so scores computed from these lines match
``sacrebleu REF -i HYP``. Every refusal is an :class:`InputError` naming the file (and the line
where it applies): missing or empty files, files whose every line is blank, invalid UTF-8, and
files whose line counts differ from the first file's.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Iterable, Sequence

from leaderboard.errors import InputError
from leaderboard.languages import LANGUAGE_CODE, LANGUAGE_PAIR
from leaderboard.ingest.textio import read_text

#: ``<testset>.<lp>.hyp.<system>.<tgtlang>`` (a trailing ``.gz`` is allowed); the codes may be WMT26's
#: (``wmt26.eng_Latn-zho_Hant_TW.hyp.Sys-A.zho_Hant_TW``).
_HYP_NAME = re.compile(rf"^[^.]+\.(?P<lp>{LANGUAGE_CODE}-{LANGUAGE_CODE})\.hyp\.(?P<system>.+)\.{LANGUAGE_CODE}$")
_REF_NAME = re.compile(rf"^[^.]+\.(?P<lp>{LANGUAGE_CODE}-{LANGUAGE_CODE})\.ref\.(?P<name>.+)\.{LANGUAGE_CODE}$")


def _base(path: str | os.PathLike) -> str:
    base = Path(path).name
    return base[:-3] if base.endswith(".gz") else base


def system_name(path: str | os.PathLike) -> str:
    """The system of a hypothesis file: ``generaltest2022.cs-en.hyp.Online-W.en`` → ``Online-W``.

    Names that do not follow the WMT layout fall back to the file stem (``out.txt`` → ``out``).
    """
    base = _base(path)
    m = _HYP_NAME.match(base)
    if m:
        return m.group("system")
    return Path(base).stem or base


def reference_name(path: str | os.PathLike) -> str:
    """The label of a reference file: ``generaltest2022.cs-en.ref.B.en`` → ``B`` (else the stem)."""
    base = _base(path)
    m = _REF_NAME.match(base)
    return m.group("name") if m else (Path(base).stem or base)


def lp_of_name(path: str | os.PathLike, kind: str) -> str | None:
    """The language pair named by a WMT file name of ``kind`` (hyp / ref / src), else None."""
    parts = _base(path).split(".")
    if len(parts) >= 4 and parts[2] == kind and LANGUAGE_PAIR.match(parts[1]):
        return parts[1]
    return None


def expand_paths(paths: Iterable[str | os.PathLike], lp: str | None = None, kind: str = "hyp") -> list[Path]:
    """Files given directly, plus the matching files of each directory given (sorted by name).

    In a directory, a file matches when its name contains ``.<lp>.<kind>.`` (with ``lp``) or
    ``.<kind>.`` (without); files named directly are always kept. An empty expansion is an error.
    """
    files: list[Path] = []
    marker = f".{lp}.{kind}." if lp else f".{kind}."
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(f for f in path.iterdir() if f.is_file() and marker in f.name)
            if not found:
                raise InputError(f"no file whose name contains {marker!r} in this directory", file=str(path))
            files.extend(found)
        else:
            files.append(path)
    return files


def read_segments(path: str | os.PathLike, name: str | None = None) -> list[str]:
    """One file's segments (see the module docstring for the rules)."""
    label = name or str(path)
    text = read_text(path, label)  # missing / empty / over-large / invalid UTF-8 (with its line)
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    lines = [line.rstrip() for line in lines]
    if not any(lines):
        raise InputError(f"empty output: all {len(lines)} lines are blank", file=label)
    return lines


def read_aligned(paths: Sequence[str | os.PathLike], names: Sequence[str] | None = None) -> list[list[str]]:
    """Read files that must be line-aligned; returns their segments in the order given.

    A file whose line count differs from the first file's is refused; the error names the file
    and the first line that has no counterpart in the other file.
    """
    if not paths:
        raise InputError("no input files given")
    labels = list(names) if names is not None else [str(p) for p in paths]
    texts = [read_segments(p, label) for p, label in zip(paths, labels)]
    expected, first = len(texts[0]), labels[0]
    for lines, label in zip(texts[1:], labels[1:]):
        if len(lines) != expected:
            raise InputError(
                f"has {len(lines)} lines but {first} has {expected}; aligned files need equal line counts",
                file=label, line=min(len(lines), expected) + 1)
    return texts
