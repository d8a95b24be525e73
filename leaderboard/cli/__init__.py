"""The ``mtlb`` command line.

Each sub-command lives in its own module of this package, named like the command, and exposes
``register(subparsers) -> None``, which adds its parser and sets ``func`` (called with the parsed
arguments, returning an exit code). Modules are discovered, so adding a command means adding a file.
A module's top level imports only the standard library and light project modules: ``mtlb CMD``
imports the one module named CMD (``mtlb --help`` imports them all), and heavy libraries load in the
functions that use them, so start-up costs only what the command needs.

``mtlb --help``, ``mtlb --version`` and a mistyped command build a *listing* parser: every command
with its help line and none of its options (the sub-parsers action has ``listing_only`` True). A
command whose options need a heavy module (``rank`` names the ranking protocols) adds them only
when it is not listing.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys

from .. import __version__
from ..errors import InputError


EPILOG = """\
a typical session, on the WMT22 crowd-DA release and its system outputs (README.md runs it):
  mtlb ingest wmt22-toen-da/ad-csen-good-stnd.csv \\
      --worker-stats wmt22-toen-da/ad-csen-trk-mean-sd.txt --campaign wmt22
  mtlb texts wmt22-general/*/generaltest2022.cs-en.* --campaign wmt22
  mtlb rank --input wmt22-toen-da/ad-csen-good-stnd.csv --json
  mtlb user add alice --role organiser
  mtlb publish --campaign wmt22 --user alice

environment:
  DATABASE_URL          the store (default: SQLite in MTLB_DATA_DIR); every store command also
                        takes --database-url
  MTLB_DATA_DIR         folder of the default SQLite store
  MTLB_PASSWORD         password of `user add` / `publish` unless --password-stdin is given
  MTLB_MAX_INPUT_BYTES  largest input file accepted (default 2 GiB)
  MTLB_MAX_TEXT_BYTES   largest system output or test-set file, also once decompressed
                        (default 128 MiB; a larger gzip archive is refused while it is read)
  MTLB_DEMO_DIR         demo campaigns for `mtlb demo` and the app (default: packaged)
  MTLB_NO_DEMO          the app does not load the demo into an empty store
  BROWSER_PATH          Chromium for the app's PNG/SVG chart downloads
  MTLB_SESSION_HOURS    how long a web-app login lasts (default 12)
  MTLB_AUTO_MIGRATE     0: only `mtlb db upgrade` migrates the schema (default 1: first use does)
  MTLB_SCHEMA_TEMPLATES folder keeping a migrated empty SQLite store, copied into new SQLite
                        stores instead of replaying the migrations (the test suite sets it)
  MTLB_STATS_CACHE      folder keeping BLEU/chrF/TER segment statistics for later processes
  MTLB_DEBUG            1: show the traceback of an unexpected error
  MTLB_PORT, MTLB_ADDRESS   where `mtlb serve` listens (default 8501 on 127.0.0.1; the
                        container sets 0.0.0.0)
container (Dockerfile, docker-compose.yml; read by its start script):
  MTLB_WAIT_FOR_SCHEMA  seconds to wait (`mtlb db wait`) for the schema before serving
"""


def command_names() -> list[str]:
    """Names of the sub-command modules, without importing them."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def build_parser(only: str | None = None, *, listing: bool = False) -> argparse.ArgumentParser:
    """The parser with every discovered sub-command (or just the module named ``only``).

    ``listing``: the sub-commands' help lines without their options, all ``mtlb --help`` shows.
    """
    parser = argparse.ArgumentParser(
        prog="mtlb",
        description="MT shared-task leaderboard: DA judgments in, rankings and metric validation out.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"mtlb {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.listing_only = listing
    for name in command_names():
        if only is not None and name != only:
            continue
        module = importlib.import_module(f"{__name__}.{name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``mtlb`` console script; returns the process exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    # a module named like the command, with "_" for the command's "-" (``mqm-baselines``)
    module = argv[0].replace("-", "_") if argv else None
    command = module if module in command_names() else None
    parser = build_parser(command, listing=command is None)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except InputError as exc:
        from ._hints import cli_message
        return _fail(args, cli_message(exc))
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print(f"mtlb {args.command}: interrupted; nothing more was written", file=sys.stderr)
        return 130
    except Exception as exc:  # last resort: one line instead of a traceback (MTLB_DEBUG=1 shows it)
        if os.environ.get("MTLB_DEBUG"):
            raise
        return _fail(args, *_describe(exc))


def _fail(args: argparse.Namespace, message: str, status: int = 2) -> int:
    # one problem per line when an error lists several; whitespace within a line collapsed
    lines = [" ".join(line.split()) for line in str(message).splitlines() if line.strip()] or [""]
    print(f"mtlb {args.command}: error: " + "\n".join(lines), file=sys.stderr)
    return status


def _describe(exc: BaseException) -> tuple[str, int]:
    """A one-line message and exit status for an exception no command turned into an InputError.

    Problems with the user's files or surroundings exit 2 like refused input; anything else is a
    defect of mtlb and exits 1.
    """
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror or exc}", 2
    if isinstance(exc, MemoryError):
        return "not enough memory for this input", 2
    if type(exc).__module__.startswith(("sqlalchemy", "psycopg", "sqlite3")):
        first = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        return f"database error: {first}", 2
    return f"internal error ({type(exc).__name__}: {exc}); run with MTLB_DEBUG=1 for details", 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
