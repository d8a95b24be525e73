"""The ``mtlb`` command line.

Each sub-command lives in its own module of this package and exposes
``register(subparsers) -> None``, which adds its parser and sets ``func`` (called with the parsed
arguments, returning an exit code). Modules are discovered, so adding a command means adding a file.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from .. import __version__
from ..errors import InputError


EPILOG = """\
a typical session (README.md runs it on the WMT data in ../shared/data):
  mtlb ingest ../shared/data/wmt22-toen-da/ad-csen-good-stnd.csv \\
      --worker-stats ../shared/data/wmt22-toen-da/ad-csen-trk-mean-sd.txt --campaign wmt22
  mtlb texts ../shared/data/wmt22-general/*/generaltest2022.cs-en.* --campaign wmt22
  mtlb rank --input ../shared/data/wmt22-toen-da/ad-csen-good-stnd.csv --json
  mtlb user add alice --role organiser
  mtlb publish --campaign wmt22 --user alice

environment:
  DATABASE_URL          the store (default: SQLite in MTLB_DATA_DIR); every store command also
                        takes --database-url
  MTLB_DATA_DIR         folder of the default SQLite store
  MTLB_PASSWORD         password of `user add` / `publish` unless --password-stdin is given
  MTLB_MAX_INPUT_BYTES  largest input file accepted (default 2 GiB)
  MTLB_DEMO_DIR         demo campaigns for `mtlb demo` and the app (default: packaged)
  MTLB_NO_DEMO          the app does not load the demo into an empty store
  BROWSER_PATH          Chromium for the app's PNG/SVG chart downloads
"""


def build_parser() -> argparse.ArgumentParser:
    """The full parser with every discovered sub-command."""
    parser = argparse.ArgumentParser(
        prog="mtlb",
        description="MT shared-task leaderboard: DA judgments in, rankings and metric validation out.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"mtlb {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``mtlb`` console script; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except InputError as exc:
        print(f"mtlb {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
