"""Reading user files safely: size limit, encoding check, one place for both."""

from __future__ import annotations

import gzip
import os
import zlib
from pathlib import Path

from ..errors import InputError

#: Uploads larger than this are refused before parsing (override with MTLB_MAX_INPUT_BYTES).
MAX_INPUT_BYTES = int(os.environ.get("MTLB_MAX_INPUT_BYTES", str(2 * 1024**3)))


def read_text(path: str | os.PathLike, name: str | None = None) -> str:
    """Return the file's text, decoded as UTF-8 (a BOM is allowed).

    Refuses missing, over-large, empty and undecodable files with the line of the first bad byte.
    """
    p = Path(path)
    label = name or str(path)
    if not p.exists():
        raise InputError("file not found", file=label)
    size = p.stat().st_size
    if size > MAX_INPUT_BYTES:
        raise InputError(f"file is {size:,} bytes; the limit is {MAX_INPUT_BYTES:,}", file=label)
    return decode(read_bytes(p, label), label)


def read_bytes(path: str | os.PathLike, label: str, limit: int | None = None) -> bytes:
    """The file's bytes, gunzipped when it is gzip-compressed (by content, not by name).

    ``limit`` reads at most that many (decompressed) bytes, for format sniffing.
    """
    with open(path, "rb") as fh:
        magic = fh.read(2)
        fh.seek(0)
        if magic != b"\x1f\x8b":
            return fh.read() if limit is None else fh.read(limit)
        try:
            with gzip.GzipFile(fileobj=fh) as gz:
                data = gz.read(MAX_INPUT_BYTES + 1 if limit is None else limit)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(f"corrupt gzip data: {exc}", file=label) from None
    if limit is None and len(data) > MAX_INPUT_BYTES:
        raise InputError(f"file decompresses to more than {MAX_INPUT_BYTES:,} bytes", file=label)
    return data


def decode(data: bytes, label: str) -> str:
    """Decode UTF-8 bytes or raise an :class:`InputError` pointing at the first bad byte."""
    if not data.strip():
        raise InputError("the file is empty", file=label)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "save the file as UTF-8", file=label, line=line,
        ) from None
