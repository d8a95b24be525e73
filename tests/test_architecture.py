"""The import rule of docs/architecture.md holds for every import of the code, read from the sources.

The layer order is read from the document itself, so the page and this test cannot drift apart.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from conftest import ROOT

DOC = ROOT / "docs" / "architecture.md"
TOPS = ("leaderboard", "metrics")
VIEWS = ("cli", "webapp")
ALLOWED_VIEW_CROSSING = {("leaderboard.cli.serve", "webapp")}  # `mtlb serve` starts the app


def layer_order(text: str) -> list[list[str]]:
    """The documented layers, lowest first: ``helpers < ingest < … < cli, webapp``."""
    line = next(ln for ln in text.splitlines() if ln.startswith("helpers <"))
    return [[name.strip() for name in part.split(",")] for part in line.split("<")]


def module_names() -> dict[str, Path]:
    out = {}
    for top in TOPS:
        for path in (ROOT / top).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out[name] = path
    return out


def package_of(module: str) -> str:
    """The stage package of a module: ``metrics``, a subpackage of ``leaderboard``, or ``helpers``."""
    parts = module.split(".")
    if parts[0] == "metrics":
        return "metrics"
    if len(parts) > 1 and (ROOT / "leaderboard" / parts[1]).is_dir():
        return parts[1]
    return "helpers"


def imports_of(module: str, path: Path, known: set[str]) -> set[str]:
    """Project modules that ``module`` imports anywhere in its file (function bodies included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    here = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(here[:len(here) - node.level + 1] + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in known and target != module:
                found.add(target)
    return found


def violations(graph: dict[str, set[str]], layers: list[list[str]]) -> list[str]:
    """Every import that breaks the rule, and every import circle, in words."""
    rank = {name: i for i, group in enumerate(layers) for name in group}
    problems = []
    for module, targets in sorted(graph.items()):
        mine = package_of(module)
        for target in sorted(targets):
            theirs = package_of(target)
            if mine == theirs:
                continue
            if mine in VIEWS and theirs in VIEWS:
                if (module, theirs) not in ALLOWED_VIEW_CROSSING:
                    problems.append(f"{module} imports {target}: cli and webapp never import each other")
            elif rank[theirs] >= rank[mine]:
                problems.append(f"{module} ({mine}) imports {target} ({theirs}), which is not below it")
    problems += [f"import circle: {' -> '.join(c)}" for c in circles(graph)]
    return problems


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), each as a sorted list."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def project_graph() -> dict[str, set[str]]:
    names = module_names()
    return {m: imports_of(m, p, set(names)) for m, p in names.items()}


def test_every_package_is_placed_in_the_documented_order():
    layers = layer_order(DOC.read_text(encoding="utf-8"))
    documented = [name for group in layers for name in group]
    packages = {package_of(m) for m in module_names()}
    assert packages == set(documented), (
        f"packages missing from docs/architecture.md: {sorted(packages - set(documented))}; "
        f"documented but absent: {sorted(set(documented) - packages)}")
    assert documented[0] == "helpers" and set(layers[-1]) == set(VIEWS)
    table = DOC.read_text(encoding="utf-8")
    for name in documented:
        if name not in ("helpers", "metrics"):
            assert f"`leaderboard/{name}/`" in table, f"docs/architecture.md does not describe leaderboard/{name}/"


def test_imports_follow_the_rule():
    layers = layer_order(DOC.read_text(encoding="utf-8"))
    problems = violations(project_graph(), layers)
    assert not problems, "imports against docs/architecture.md:\n" + "\n".join(problems)


def test_nothing_below_the_views_loads_streamlit_or_plotly():
    """Statistics, storage and publishing stay usable without the web stack."""
    for module, path in module_names().items():
        if package_of(module) in VIEWS:
            continue
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"^\s*(import|from)\s+(streamlit|plotly)\b", text, re.M), f"{module} imports the web stack"


def test_the_checker_sees_upward_imports_circles_and_view_crossings():
    layers = [["helpers"], ["ingest"], ["human"], ["storage"], ["cli", "webapp"]]
    graph = {
        "leaderboard.errors": set(),
        "leaderboard.human.ranking": {"leaderboard.storage.store", "leaderboard.errors"},  # up: refused
        "leaderboard.storage.store": {"leaderboard.storage.outputs"},
        "leaderboard.storage.outputs": {"leaderboard.storage.store"},  # circle
        "leaderboard.webapp.state": {"leaderboard.cli._common"},  # sideways between views
        "leaderboard.cli.serve": {"leaderboard.webapp.warmup"},  # the one allowed crossing
        "leaderboard.ingest.textio": {"leaderboard.errors"},  # down: fine
    }
    problems = violations(graph, layers)
    assert any("leaderboard.human.ranking (human) imports leaderboard.storage.store" in p for p in problems)
    assert "import circle: leaderboard.storage.outputs -> leaderboard.storage.store" in problems
    assert any(p.startswith("leaderboard.webapp.state imports leaderboard.cli._common") for p in problems)
    assert not any("cli.serve" in p or "ingest.textio" in p for p in problems)
    assert len(problems) == 3


def test_relative_imports_resolve_like_python(tmp_path):
    """`from ..x import y` inside a package resolves against the file's package, as the interpreter does."""
    src = tmp_path / "m.py"
    src.write_text("from ..errors import InputError\nfrom . import qc\ndef f():\n    from ..storage import Store\n")
    known = {"leaderboard.errors", "leaderboard.human.qc", "leaderboard.storage", "leaderboard.human.ranking"}
    assert imports_of("leaderboard.human.ranking", src, known) == {
        "leaderboard.errors", "leaderboard.human.qc", "leaderboard.storage"}


def use_case_only(text: str) -> list[str]:
    """The stage entry points only use cases call (the ``use-case-only:`` line of the document)."""
    line = next(ln for ln in text.splitlines() if ln.strip().startswith("use-case-only:"))
    return [name.strip() for name in line.split(":", 1)[1].split(",")]


def use_case_violations(module: str, source: str, reserved: list[str]) -> list[str]:
    """Imports of a reserved module or function, and calls of a reserved function or ``Store`` method,
    in a view's source (a call on a name bound to a ``usecases`` import is the use case's own)."""
    modules = [r for r in reserved if "." in r and r.split(".")[0] in TOPS]
    methods = {r.split(".", 1)[1] for r in reserved if r.startswith("Store.")}
    functions = {r for r in reserved if "." not in r}
    use_case_names: set[str] = set()
    found = []
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            target = node.module.lstrip(".")
            if "usecases" in target.split("."):
                use_case_names |= {a.asname or a.name for a in node.names}
                continue
            if any(m.endswith("." + target) or m == target for m in modules):
                found.append(f"{module}:{node.lineno} imports {target}")
            found += [f"{module}:{node.lineno} imports {a.name}" for a in node.names if a.name in functions]
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Attribute):
            receiver = node.func.value
            if isinstance(receiver, ast.Name) and receiver.id in use_case_names:
                continue
            if node.func.attr in methods | functions:
                found.append(f"{module}:{node.lineno} calls {node.func.attr}")
        elif isinstance(node.func, ast.Name) and node.func.id in functions:
            found.append(f"{module}:{node.lineno} calls {node.func.id}")
    return sorted(found)


def test_views_call_use_cases_not_the_stages_they_own():
    reserved = use_case_only(DOC.read_text(encoding="utf-8"))
    assert "leaderboard.publish.snapshots" in reserved and "Store.load_judgments" in reserved
    problems = []
    for module, path in module_names().items():
        if package_of(module) in VIEWS and module != "leaderboard.cli.serve":
            problems += use_case_violations(module, path.read_text(encoding="utf-8"), reserved)
    assert not problems, "views calling what only use cases call:\n" + "\n".join(problems)


def test_the_use_case_checker_sees_imports_and_calls():
    reserved = ["leaderboard.publish.snapshots", "Store.load_judgments", "Store.publish", "save_mqm"]
    source = ("from ..publish.snapshots import rank\nfrom ..storage.expert import save_mqm\n"
              "from ..usecases import publish as uc\n"
              "def f(store, frame):\n    store.load_judgments(frame)\n    store.judgments('c')\n"
              "    uc.publish(store)\n    store.publish('c')\n")
    assert use_case_violations("leaderboard.cli.x", source, reserved) == [
        "leaderboard.cli.x:1 imports publish.snapshots", "leaderboard.cli.x:2 imports save_mqm",
        "leaderboard.cli.x:5 calls load_judgments", "leaderboard.cli.x:8 calls publish"]


def test_statistics_take_frames_not_the_store():
    problems = []
    for module, path in module_names().items():
        if package_of(module) not in ("human", "expert", "metrics"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names = [a.arg for a in node.args.args + node.args.kwonlyargs + node.args.posonlyargs]
                if "store" in names:
                    problems.append(f"{module}.{node.name} takes the store")
    assert not problems, "\n".join(problems)


def test_one_storage_style_no_sql_outside_storage_and_no_private_members_from_outside():
    """Only storage/ speaks SQL (imports sqlalchemy), and no module reaches into another's private
    names (``x._name`` on anything but ``self`` / ``cls``), except third-party objects (sacrebleu's
    metric internals, which the project's scorers document)."""
    third_party = {"_extract_corpus_statistics", "_aggregate_and_compute", "_compute_score_from_stats",
                   "_ref_cache", "_preprocess_segment", "_compute_segment_statistics", "_get_match_statistics",
                   "_compute_f_score", "_remove_punctuation", "_force", "_cache_references", "_SubParsersAction"}
    problems = []
    for module, path in module_names().items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and package_of(module) != "storage":
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                problems += [f"{module}:{node.lineno} imports {n}" for n in names if n.split(".")[0] == "sqlalchemy"]
            if (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                    and node.attr not in third_party
                    and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):
                problems.append(f"{module}:{node.lineno} uses {ast.unparse(node)}")
    assert not problems, "\n".join(problems)
