"""`check_text` refuses exactly what `decode` refuses, with the same message and line, without
decoding ASCII input (the WMT release files are ASCII and a hundred megabytes)."""

from __future__ import annotations

from hypothesis import given, strategies as st

from leaderboard.errors import InputError
from leaderboard.ingest.textio import check_text, decode

PIECES = [b"", b" ", b"\t", b"\n", b"\r\n", b"\x0b", b"\x0c", b"\x1c", b"\x1f", b"\x00", b"a", b"HITId\tWorkerId",
          b"\xc3\xa9", b"\xc3", b"\xff\xfe", b"\xfe\xff", b"\xef\xbb\xbf", b"\xe2\x80\x83", b"h\x00i\x00"]


def outcome(check, data: bytes, nul_ok: bool) -> str:
    try:
        check(data, "f.csv", nul_ok=nul_ok)
    except InputError as exc:
        return str(exc)
    return "accepted"


@given(st.lists(st.sampled_from(PIECES), max_size=12), st.booleans())
def test_check_text_refuses_what_decode_refuses(pieces, nul_ok):
    data = b"".join(pieces)
    assert outcome(check_text, data, nul_ok) == outcome(decode, data, nul_ok)


def test_ascii_data_is_not_decoded(monkeypatch):
    import leaderboard.ingest.textio as textio
    monkeypatch.setattr(textio, "decode", lambda *a, **k: (_ for _ in ()).throw(AssertionError("decoded")))
    check_text(b"HITId WorkerId\nH1\tW1\n", "f.csv", nul_ok=False)
