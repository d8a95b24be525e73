"""Reading user files safely: what may be opened, a size limit, gzip and encoding checks, in one place.

Every refusal is an :class:`InputError` naming the file (and the line when there is one): a
directory or a device instead of a file, a missing or unreadable file, more bytes than the limit
(also while decompressing), a truncated or corrupt gzip archive, and text that is
not UTF-8 (UTF-16 is named as such; NUL bytes where a table is expected).
"""

from __future__ import annotations

import csv
import io
import math
import os
import stat
import zlib

from ..errors import InputError, brief

#: Uploads larger than this are refused before parsing (override with MTLB_MAX_INPUT_BYTES).
MAX_INPUT_BYTES = 2 * 1024**3
#: System outputs and test-set files (one segment per line) larger than this, as stored or once
#: decompressed, are refused (override with MTLB_MAX_TEXT_BYTES): a WMT test set's file is a few MB.
MAX_TEXT_BYTES = 128 * 1024**2


def max_input_bytes() -> int:
    """The input size limit: ``MTLB_MAX_INPUT_BYTES`` when set to a number, else :data:`MAX_INPUT_BYTES`."""
    value = os.environ.get("MTLB_MAX_INPUT_BYTES", "").strip()
    return int(value) if value.isdigit() else MAX_INPUT_BYTES


def max_text_bytes() -> int:
    """The size limit of a system output or test-set file: ``MTLB_MAX_TEXT_BYTES`` when set to a number,
    else :data:`MAX_TEXT_BYTES` (never more than :func:`max_input_bytes`)."""
    value = os.environ.get("MTLB_MAX_TEXT_BYTES", "").strip()
    return min(int(value) if value.isdigit() else MAX_TEXT_BYTES, max_input_bytes())


def check_readable(path: str | os.PathLike, label: str) -> os.stat_result:
    """Refuse anything that is not an existing regular file; returns its ``stat``.

    Pipes are refused too: a file is read twice (format sniffing, then parsing).
    """
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputError("file not found", file=label) from None
    except OSError as exc:
        raise InputError(f"cannot open: {exc.strerror or exc}", file=label) from None
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        raise InputError("is a directory; give the judgment files inside it", file=label)
    if not stat.S_ISREG(mode):
        kind = "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a pipe or socket"
        raise InputError(f"is {kind}, not a regular file", file=label)
    limit = max_input_bytes()
    if info.st_size > limit:
        raise InputError(f"file is {info.st_size:,} bytes; the limit is {limit:,} (MTLB_MAX_INPUT_BYTES)",
                         file=label)
    return info


def read_text(path: str | os.PathLike, name: str | None = None, *, nul_ok: bool = True,
              cap: tuple[int, str] | None = None) -> str:
    """Return the file's text, decoded as UTF-8 (a BOM is allowed).

    Refuses missing, over-large, empty and undecodable files with the line of the first bad byte;
    ``nul_ok=False`` also refuses NUL characters (tables and stored text: PostgreSQL cannot keep them).
    ``cap``: (bytes, what sets it) a smaller size limit than MTLB_MAX_INPUT_BYTES for this kind of file.
    """
    label = name or str(path)
    return decode(read_bytes(path, label, cap=cap), label, nul_ok=nul_ok)


def read_bytes(path: str | os.PathLike, label: str, limit: int | None = None,
               cap: tuple[int, str] | None = None) -> bytes:
    """The file's bytes, gunzipped when it is gzip-compressed (by content, not by name).

    ``limit`` reads at most that many (decompressed) bytes, for format sniffing; a truncated archive
    is refused even then when the cut falls inside the part read. ``cap`` as in :func:`read_text`.
    Decompression is streamed and stops as soon as the limit is passed, so a small archive that would
    expand to gigabytes (a "gzip bomb") costs no more memory than the limit.
    """
    info = check_readable(path, label)
    cap, setting = cap or (max_input_bytes(), "MTLB_MAX_INPUT_BYTES")
    if limit is None and info.st_size > cap:
        raise InputError(f"file is {info.st_size:,} bytes; the limit is {cap:,} ({setting})", file=label)
    try:
        with open(path, "rb") as fh:
            magic = fh.read(2)
            if magic != b"\x1f\x8b":
                # a regular file within the limit (checked above): read() sizes its buffer from the file;
                # read(n) would reserve n bytes first. Read from the start again rather than joining the
                # two magic bytes on: that join would copy the whole file once more.
                fh.seek(0)
                data = fh.read() if limit is None else fh.read(limit)
                if limit is None and len(data) > cap:  # it grew meanwhile
                    raise InputError(f"file is larger than the limit of {cap:,} bytes ({setting})",
                                     file=label)
                return data
            return _gunzip(fh, magic, label, cap if limit is None else limit, whole=limit is None,
                           setting=setting)
    except IsADirectoryError:
        raise InputError("is a directory; give the judgment files inside it", file=label) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=label) from None


def _gunzip(fh, magic: bytes, label: str, limit: int, whole: bool, setting: str = "MTLB_MAX_INPUT_BYTES") -> bytes:
    """Decompress the gzip members in ``fh`` (first two bytes already read): at most ``limit`` bytes.

    ``whole``: more than ``limit`` is an error; else (sniffing) the first ``limit`` bytes are returned.
    Header, CRC and length of every member are checked; a stream cut short is a truncated archive.
    The output grows in one buffer, at most 1 MiB at a time, so memory stays within the limit.
    """
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    parts = bytearray()
    size = 0
    pending = magic
    while True:
        if not pending:
            pending = fh.read(1 << 20)
            if not pending:
                break
        try:
            out = inflater.decompress(pending, min(limit + 1 - size, 1 << 20))
        except zlib.error as exc:
            raise InputError(f"corrupt gzip archive ({exc})", file=label) from None
        pending = inflater.unconsumed_tail
        parts += out
        size += len(out)
        if size > limit:
            if whole:
                raise InputError(f"file decompresses to more than {limit:,} bytes, the limit ({setting})",
                                 file=label)
            return bytes(parts[:limit])
        if inflater.eof:  # one member done: what follows is another member, padding or garbage
            # what follows the member: in unused_data (unconsumed_tail may hold a copy of it when the
            # output was capped; adding both would double it with every member)
            rest = inflater.unused_data or pending
            if len(rest) < 2:
                rest += fh.read(1 << 20)
            if not rest.strip(b"\x00"):
                return bytes(parts)
            if rest[:2] != b"\x1f\x8b":
                raise InputError("corrupt gzip archive (data after the end of the compressed stream)",
                                 file=label)
            inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
            pending = rest
    raise InputError(f"truncated gzip archive: it ends after {size:,} decompressed bytes, before the end "
                     "of the compressed stream (an incomplete download or copy?)", file=label)


def _looks_utf16(data: bytes) -> bool:
    """A UTF-16 byte-order mark, or ASCII-range text with every other byte NUL."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return True
    even, odd = data[:256:2], data[1:256:2]
    if len(odd) < 2:
        return False
    return (even.count(0) == len(even) and odd.count(0) == 0) or (odd.count(0) == len(odd) and even.count(0) == 0)


#: what ``str.isspace`` counts as blank among ASCII characters
_ASCII_BLANKS = b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"


def check_text(data: bytes, label: str, *, nul_ok: bool = True) -> None:
    """Refuse what :func:`decode` refuses, without keeping the decoded text.

    ASCII data (every WMT release file) is valid UTF-8 as it stands, so its checks run on the bytes:
    no decoded copy of a file of a hundred megabytes is made only to be thrown away.
    """
    if not data.isascii():
        decode(data, label, nul_ok=nul_ok)
        return
    # lstrip returns the very object when nothing leads (no copy); the messages are decode()'s
    if not data.lstrip(b" \t\n\r\x0b\x0c"):
        raise InputError("the file is empty", file=label)
    if _looks_utf16(data):
        raise InputError("the file is UTF-16 encoded; save it as UTF-8", file=label, line=1)
    if not data.lstrip(_ASCII_BLANKS):
        raise InputError("the file is empty (blank characters only)", file=label)
    nul = -1 if nul_ok else data.find(b"\x00")
    if nul >= 0:
        raise InputError("the file holds a NUL byte (binary data, not text)", file=label,
                         line=data.count(b"\n", 0, nul) + 1)


def decode(data: bytes, label: str, *, nul_ok: bool = True) -> str:
    """Decode UTF-8 bytes or raise an :class:`InputError` pointing at the first bad byte."""
    if not data or data.isspace():
        raise InputError("the file is empty", file=label)
    if _looks_utf16(data):
        raise InputError("the file is UTF-16 encoded; save it as UTF-8", file=label, line=1)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "save the file as UTF-8", file=label, line=line,
        ) from None
    if text.isspace():  # Unicode blanks and separators too, as str.strip() sees them
        raise InputError("the file is empty (blank characters only)", file=label)
    nul = -1 if nul_ok else text.find("\x00")
    if nul >= 0:
        raise InputError("the file holds a NUL byte (binary data, not text)", file=label,
                         line=text.count("\n", 0, nul) + 1)
    return text


def csv_rows(text: str, label: str, delimiter: str = ",", what: str = "CSV") -> list[list[str]]:
    """Every row of a CSV (or TSV) text; a line the csv module cannot read (a field over its size limit,
    an unclosed quote in strict mode) is refused with its line, not raised as ``csv.Error``."""
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    try:
        return list(reader)
    except csv.Error as exc:
        raise InputError(f"not a valid {what} line ({exc})", file=label, line=reader.line_num or None) from None


def csv_records(text: str, label: str, delimiter: str = ",", what: str = "CSV") -> list[tuple[int, list[str]]]:
    """The non-blank records of a CSV (or TSV) text, each with the line it starts on (a quoted field may
    span lines); a record the csv module cannot read (a field over its size limit, say) is refused with
    that line, not raised as ``csv.Error``."""
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    records: list[tuple[int, list[str]]] = []
    start = 1
    try:
        for fields in reader:
            line, start = start, reader.line_num + 1
            if any(f.strip() for f in fields):
                records.append((line, fields))
    except csv.Error as exc:
        raise InputError(f"not a valid {what} line ({exc})", file=label, line=start) from None
    return records


def finite_number(text: str, label: str, line: int, column: str, subject: str | None = None,
                  allowed: str = "") -> float:
    """``text`` as a finite float, else an error naming file, line and column.

    The message calls the value by ``subject`` (default: the column's name), shows it cut short (``brief``)
    and adds ``allowed`` (e.g. ``" (or None)"``) to "is not a number".
    """
    subject = column if subject is None else subject
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{subject} {brief(text)!r} is not a number{allowed}", file=label, line=line,
                         column=column) from None
    if not math.isfinite(value):
        raise InputError(f"{subject} {brief(text)!r} is not a finite number", file=label, line=line, column=column)
    return value
