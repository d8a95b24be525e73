"""Errors raised below the views name no command-line flag: each view phrases its own hint from the
error's code (flags only in ``cli/``, controls only in ``webapp/``)."""

from __future__ import annotations

import ast
import re

from conftest import ROOT

FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
ERRORS = {"InputError", "ValueError", "TypeError", "KeyError", "RuntimeError", "Exception"}


def _strings(node: ast.AST) -> list[str]:
    """The literal text of every string (and f-string part) inside ``node``."""
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def flagged_messages(source: str) -> list[tuple[int, str]]:
    """(line, text) of every error message in ``source`` that names a ``--flag``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if name in ERRORS:
                for text in _strings(node):
                    if FLAG.search(text):
                        found.append((node.lineno, text))
    return found


def test_no_module_outside_cli_names_a_flag_in_an_error():
    problems = []
    for top in ("leaderboard", "metrics"):
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT)
            if rel.parts[:2] == ("leaderboard", "cli"):
                continue
            for line, text in flagged_messages(path.read_text(encoding="utf-8")):
                problems.append(f"{rel}:{line}: {text!r}")
    assert not problems, "flags named in errors outside cli/:\n" + "\n".join(problems)


def test_the_scan_finds_flags_in_raised_messages():
    source = ('def f(x):\n    raise InputError(f"pass --lp for {x}", column="lp")\n'
              'def g():\n    raise ValueError("the lp is missing")\n'
              'def h():\n    return "--not-an-error"\n')
    assert flagged_messages(source) == [(2, "pass --lp for ")]
