"""``mtlb texts``: store a test set's sources, references and system outputs (WMT file names)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import InputError
from ..ingest.texts import check_aligned, parse_text_name, read_lines
from ._common import add_json_flag, print_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("texts", help="store sources, references and system outputs of a test set",
                       description="Files are named <testset>.<lp>.<src|ref|hyp>.<name>.<lang> (optionally .gz); "
                                   "a directory stands for every such file in it. All files are checked "
                                   "(names, encoding, equal line counts per language pair) before any is stored.")
    p.add_argument("paths", nargs="+", metavar="FILE_OR_DIR")
    p.add_argument("--campaign", required=True)
    p.add_argument("--database-url", help="override DATABASE_URL")
    add_json_flag(p)
    p.set_defaults(func=run)


def _expand(paths: list[str]) -> list[Path]:
    files: list[Path] = []
    for path in map(Path, paths):
        files.extend(sorted(f for f in path.rglob("*") if f.is_file()) if path.is_dir() else [path])
    return files


def run(args: argparse.Namespace) -> int:
    from ..storage import Store

    parsed = []
    for path in _expand(args.paths):
        info = parse_text_name(str(path))
        parsed.append((info, read_lines(path), path))
    if not parsed:
        raise InputError("no files found", file=", ".join(args.paths))
    check_aligned([(info, lines, str(path)) for info, lines, path in parsed])
    Store(args.database_url).load_texts(
        args.campaign, [(info.lp, info.kind, info.name, lines, path.name) for info, lines, path in parsed])
    stored = [{"lp": info.lp, "kind": info.kind, "name": info.name, "lines": len(lines)}
              for info, lines, _ in parsed]
    if args.json:
        print_json({"campaign": args.campaign, "files": stored})
    else:
        for row in stored:
            print(f"stored {row['kind']} {row['name']} ({row['lp']}, {row['lines']} lines)")
    return 0
