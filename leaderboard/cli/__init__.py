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


def build_parser() -> argparse.ArgumentParser:
    """The full parser with every discovered sub-command."""
    parser = argparse.ArgumentParser(
        prog="mtlb",
        description="MT shared-task leaderboard: DA judgments in, rankings and metric validation out.",
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
