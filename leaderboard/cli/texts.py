"""``mtlb texts``: store a test set's sources, references and system outputs (WMT file names)."""

from __future__ import annotations

import argparse
import glob
from pathlib import Path

from ..errors import InputError
from ._common import add_store_flags, print_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("texts", help="store sources, references and system outputs of a test set",
                       description="Files are named <testset>.<lp>.<src|ref|hyp>.<name>.<lang> (optionally .gz); "
                                   "a directory stands for every such file in it. All files are checked "
                                   "(names, encoding, equal line counts per language pair) before any is stored.",
                       epilog="Example (the WMT22 general test set: sources/, references/, system-outputs/): "
                              "mtlb texts wmt22-general/*/generaltest2022.cs-en.* --campaign wmt22")
    p.add_argument("paths", nargs="+", metavar="FILE_OR_DIR")
    p.add_argument("--campaign", required=True)
    add_store_flags(p)
    p.set_defaults(func=run)


def _expand(paths: list[str]) -> list[Path]:
    """Files named on the command line: directories stand for their files, patterns are expanded.

    The shell normally expands ``*``; a pattern arrives here unexpanded only when it matched nothing
    (or was quoted), so an unmatched one is reported as such, not as a badly named file.
    """
    files: list[Path] = []
    for arg in paths:
        path = Path(arg)
        if path.is_dir():
            files.extend(sorted(f for f in path.rglob("*") if f.is_file()))
        elif path.exists():
            files.append(path)
        elif any(c in arg for c in "*?["):
            matched = sorted(Path(m) for m in glob.glob(arg, recursive=True) if Path(m).is_file())
            if not matched:
                raise InputError("no file matched this pattern", file=arg)
            files.extend(matched)
        else:
            raise InputError("file not found", file=arg)
    return files


def run(args: argparse.Namespace) -> int:
    from ..storage import Store
    from ..usecases.store_files import InputFile, read_texts, store_texts

    parsed = read_texts([InputFile.of(path) for path in _expand(args.paths)])
    if not parsed:
        raise InputError("no files found", file=", ".join(args.paths))
    stored = store_texts(Store(args.database_url), args.campaign, parsed)
    if args.json:
        print_json({"campaign": args.campaign, "files": stored})
    else:
        for row in stored:
            what = row["kind"] if row["kind"] == "source" else f"{row['kind']} {row['name']}"
            print(f"stored {what} ({row['lp']}, {row['lines']:,} lines)")
    return 0
