"""JSON and JSON-lines input with errors that name file, line and field.

:func:`json_lines` parses one JSON value per line (blank lines skipped) and refuses, with the line,
what JSON readers disagree on: ``NaN`` / ``Infinity`` (not JSON), a key given twice in one object
(which one counts? — optional for JSON lines, where it is costly), and nesting too deep to be data. :func:`json_document` parses a whole file the
same way; its :meth:`JsonDocument.error` turns a problem found later, at a path such as
``("data", 3, 0, "tgt")``, into an error naming the line that value starts on.

The line of a path is found only when an error is raised: the locator walks the text down that one
path, skipping every other value with the json module's own C scanner, so a valid file costs one
ordinary parse and a large one is not mapped in full (general JSON source-map packages map every
value, and key the map by JSON pointers that cannot tell ``"a/b"`` from a nested ``a`` → ``b``).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence

from ..errors import InputError
from .textio import read_text

#: where a value sits in a JSON document: keys and list indices from the top
FieldPath = Sequence["str | int"]

_WS = re.compile(r"[ \t\n\r]*")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class _Refused(ValueError):
    pass


def _no_constant(name: str) -> Any:
    raise _Refused(f"{name} is not a JSON number")


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Refused(f"the key {key!r} appears twice in one object")
        out[key] = value
    return out


_DECODER = json.JSONDecoder(parse_constant=_no_constant, object_pairs_hook=_pairs)
#: the C decoder's fast path (no per-object hook): JSON lines, where a log holds a million objects
_FAST_DECODER = json.JSONDecoder(parse_constant=_no_constant)


def loads(text: str, label: str, line: int | None = None, *, repeated_keys: bool = True) -> Any:
    """One JSON value, refusing NaN/Infinity, runaway nesting and (``repeated_keys``) a key given twice in
    one object (file and line in the error)."""
    try:
        return (_DECODER if repeated_keys else _FAST_DECODER).decode(text)
    except _Refused as exc:
        raise InputError(f"not valid JSON: {exc}", file=label, line=line) from None
    except json.JSONDecodeError as exc:
        at = line if line is not None else exc.lineno
        where = f" (column {exc.colno})" if line is None or exc.lineno == 1 else ""
        raise InputError(f"not valid JSON: {exc.msg}{where}", file=label, line=at) from None
    except RecursionError:
        raise InputError("not valid JSON: nested too deeply to be data", file=label, line=line) from None


def json_lines(path: str | os.PathLike, name: str | None = None, *,
               repeated_keys: bool = True) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for every non-blank line of a JSON-lines file (1-based line numbers).

    ``repeated_keys=False`` skips the check for a key given twice (the last one counts, as in most JSON
    readers) and parses several times faster: for logs machines wrote, where the check costs more than it finds.
    """
    label = name or str(path)
    text = read_text(path, label, nul_ok=False)
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            yield number, loads(line, label, number, repeated_keys=repeated_keys)


def field_name(path: FieldPath) -> str:
    """``("data", 3, 0, "tgt", "Aurora-MT")`` → ``data[3][0].tgt["Aurora-MT"]`` (for messages)."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _IDENTIFIER.match(part):
            out += f".{part}" if out else part
        else:
            out += f"[{json.dumps(part, ensure_ascii=False)}]"
    return out


def value_offset(text: str, path: FieldPath, start: int = 0) -> int | None:
    """Character offset in ``text`` (valid JSON) where the value at ``path`` starts; None when absent."""
    at = _WS.match(text, start).end()
    for part in path:
        if at >= len(text):
            return None
        opener = text[at]
        if opener == "{" and isinstance(part, str):
            at = _find_key(text, at, part)
        elif opener == "[" and isinstance(part, int):
            at = _find_index(text, at, part)
        else:
            return None
        if at is None:
            return None
    return at


def _skip(text: str, at: int) -> int:
    """The offset just after the value starting at ``at`` and the whitespace after it."""
    _, end = json.JSONDecoder().raw_decode(text, at)
    return _WS.match(text, end).end()


def _find_key(text: str, at: int, wanted: str) -> int | None:
    at = _WS.match(text, at + 1).end()
    while at < len(text) and text[at] == '"':
        key, at = json.decoder.scanstring(text, at + 1)
        at = _WS.match(text, at).end() + 1  # the colon
        at = _WS.match(text, at).end()
        if key == wanted:
            return at
        at = _skip(text, at)
        if text[at] == ",":
            at = _WS.match(text, at + 1).end()
    return None


def _find_index(text: str, at: int, wanted: int) -> int | None:
    at = _WS.match(text, at + 1).end()
    index = 0
    while at < len(text) and text[at] != "]":
        if index == wanted:
            return at
        at = _skip(text, at)
        if text[at] == ",":
            at = _WS.match(text, at + 1).end()
        index += 1
    return None


@dataclass
class JsonDocument:
    """A parsed JSON file: ``value``, and :meth:`error` to report a problem at a path with its line."""
    value: Any
    text: str
    label: str
    first_line: int = 1
    _lines: dict = field(default_factory=dict, repr=False)

    def line_of(self, path: FieldPath) -> int | None:
        """The 1-based line on which the value at ``path`` starts (its parent's when it is absent)."""
        key = tuple(path)
        if key not in self._lines:
            parts = list(path)
            while True:
                offset = value_offset(self.text, parts)
                if offset is not None or not parts:
                    break
                parts.pop()  # a missing key: point at the object that lacks it
            self._lines[key] = None if offset is None else self.first_line + self.text.count("\n", 0, offset)
        return self._lines[key]

    def error(self, message: str, path: FieldPath) -> InputError:
        """An :class:`InputError` at ``path``: the file, the line the value starts on, the field's name."""
        return InputError(message, file=self.label, line=self.line_of(path), column=field_name(path) or None)


def json_document(path: str | os.PathLike, name: str | None = None) -> JsonDocument:
    """Parse a whole JSON file (see :func:`loads`)."""
    label = name or str(path)
    text = read_text(path, label, nul_ok=False)
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        raise InputError("the file is empty", file=label)
    return JsonDocument(loads(text, label), text, label)

