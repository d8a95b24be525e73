"""Helpers shared by the sub-commands: JSON output, tables, progress.

Light on purpose (standard library only at the top): every command imports it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from typing import Any, Iterator

from ..jsonable import to_jsonable


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")


def add_store_flags(parser: argparse.ArgumentParser) -> None:
    """``--database-url`` and ``--json``: what every command on the store takes."""
    parser.add_argument("--database-url", help="override DATABASE_URL")
    add_json_flag(parser)


def print_json(obj: Any) -> None:
    # one write of the whole text: json.dump would hand stdout thousands of small pieces
    sys.stdout.write(json.dumps(to_jsonable(obj), indent=2, ensure_ascii=False, allow_nan=False) + "\n")


def token_command(args: argparse.Namespace, store: Any, label: str, whose: str) -> int:
    """``--revoke``: revoke every upload token of ``args.name`` (``whose``: the owner in words); else issue
    one labelled ``label`` and print it, once."""
    from ..accounts.auth import issue_upload_token
    if args.revoke:
        revoked = store.revoke_upload_tokens(args.name)
        print_json({"name": args.name, "revoked": revoked}) if args.json else \
            print(f"revoked {revoked} token(s) of {whose}")
        return 0
    token = issue_upload_token(store, args.name, label)
    if args.json:
        print_json({"name": args.name, "token": token})
    else:
        print(token)
        print("(shown once: only its hash is stored)", file=sys.stderr)
    return 0


def print_table(frame, floatfmt: str = "{:.4f}", *, fit: bool = False, empty: str = "(nothing)") -> None:
    """Plain aligned text table for humans (``frame``: a pandas DataFrame). ``fit``: no wider than the
    terminal (:func:`terminal_width`; long cells cut with "…"); output to a pipe or file is not cut.
    ``empty``: what is printed instead of an empty table (say what is missing where the table is one
    part of a longer output)."""
    import pandas as pd
    if frame.empty:
        print(empty)
        return
    shown = frame.copy()
    for col in shown.columns:
        if pd.api.types.is_float_dtype(shown[col]):
            shown[col] = shown[col].map(lambda v: "" if pd.isna(v) else floatfmt.format(v))
    width = terminal_width() if fit else 0
    if width:
        print(fit_table(shown, width))
    else:
        print(shown.to_string(index=False))


def terminal_width() -> int:
    """Columns of the terminal (``COLUMNS`` when set), 0 when the output is not a terminal."""
    import shutil
    return shutil.get_terminal_size(fallback=(0, 0)).columns


def fit_table(frame, width: int, *, gap: int = 2, min_width: int = 4) -> str:
    """``frame`` as an aligned text table at most ``width`` characters wide when it can be: the columns
    whose cells are the longest give up characters first, down to their header's width, and only then
    the headers (down to ``min_width``); a cell or header that no longer fits is cut, ending in "…".
    Numbers align right, text left."""
    import pandas as pd
    headers = [str(c) for c in frame.columns]
    cells = [["" if (not isinstance(v, (list, tuple, dict)) and pd.isna(v)) else " ".join(str(v).split())
              for v in frame[c]] for c in frame.columns]
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])
               for c in frame.columns]
    widths = [max([len(h)] + [len(x) for x in col]) for h, col in zip(headers, cells)]

    def total() -> int:
        return sum(widths) + gap * (len(widths) - 1)

    # first the cells give way (down to their header's width), then the headers (down to min_width)
    for floors in ([max(min(len(h), w), min_width) for h, w in zip(headers, widths)], [min_width] * len(widths)):
        while total() > width:
            i = max(range(len(widths)), key=lambda k: widths[k] - floors[k])
            if widths[i] <= floors[i]:
                break
            widths[i] -= 1

    def cut(text: str, w: int) -> str:
        return text if len(text) <= w else text[: max(w - 1, 0)] + "…"

    def line(values: list[str]) -> str:
        out = [cut(v, widths[k]).rjust(widths[k]) if numeric[k] else cut(v, widths[k]).ljust(widths[k])
               for k, v in enumerate(values)]
        return (" " * gap).join(out).rstrip()

    rows = [line(headers)]
    rows += [line([col[r] for col in cells]) for r in range(len(frame))]
    return "\n".join(rows)


@contextlib.contextmanager
def pearmut_flags() -> Iterator[None]:
    """Name the options in the error of a Pearmut log whose language pair is unknown."""
    from ..errors import InputError
    try:
        yield
    except InputError as exc:
        if exc.column == "lp" and "language pair of this log is unknown" in exc.message:
            exc.message += " (--lp, or --campaign with such an id)"
        raise
