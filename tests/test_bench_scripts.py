"""Every benchmark script compiles and documents itself (the benchmarks are run by `make bench`, and
the page and annotation benches by `make docs-images`; they measure, tests do not)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
SCRIPTS = sorted(BENCH.glob("bench_*.py"))


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.name for s in SCRIPTS])
def test_bench_script_compiles_and_says_what_it_measures(script: Path):
    tree = ast.parse(script.read_text(encoding="utf-8"), filename=str(script))
    compile(tree, str(script), "exec")
    doc = ast.get_docstring(tree)
    assert doc and len(doc.split()) >= 8, f"{script.name}: a docstring saying what it measures"
    assert "json" in script.read_text(encoding="utf-8"), f"{script.name}: prints JSON"
