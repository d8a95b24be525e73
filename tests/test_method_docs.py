"""The method documentation: every citation of it points to a document that ships, and the app shows it.

The method is documented in ``docs/method/*.md``; the package ships the same files (its
``leaderboard/webapp/method`` folder links there) and the app's Method page shows them. Code, docs
and tests cite the papers by author and year and the method by ``docs/method/<page>.md#<section>``.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest
from conftest import ROOT

METHOD = ROOT / "docs" / "method"
PAGE = str(ROOT / "leaderboard" / "webapp" / "pages" / "method.py")
# what the project's files may not cite: working names of the papers and a method file that never
# shipped; the patterns are assembled here so that this file does not match them itself
FORBIDDEN = re.compile("|".join(["se" + r"eds?[-_ ]?0\d\d", "MET" + r"HOD\.md", "se" + "eds/"]), re.IGNORECASE)
SCANNED = ["README.md", "pyproject.toml", "app.py", "Dockerfile", "Makefile", "docker-compose.yml", ".dockerignore",
           "docs", "leaderboard", "metrics", "tests", "bench", "docker", ".streamlit", ".ci"]
TEXT_SUFFIXES = {".py", ".md", ".toml", ".txt", ".sh", ".html", ".yml", ".yaml", ".cfg", ".ini", ".json", ".csv",
                 ".tsv", ""}
SKIPPED_DIRS = {"__pycache__", ".venv", ".git", "build", "dist", "test-artifacts", ".pytest_cache", ".hypothesis"}


def shipped_files() -> list[Path]:
    files = []
    for name in SCANNED:
        path = ROOT / name
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            files.extend(p for p in sorted(path.rglob("*")) if p.is_file()
                         and not SKIPPED_DIRS & set(p.relative_to(ROOT).parts) and p.suffix in TEXT_SUFFIXES)
    return files


def test_scan_covers_code_docs_and_tests():
    names = {p.relative_to(ROOT).as_posix() for p in shipped_files()}
    for expected in ("README.md", "docs/method/README.md", "leaderboard/human/longitudinal.py",
                     "leaderboard/webapp/pages/longitudinal.py", "metrics/testsets.py", "tests/test_method_docs.py",
                     "tests/conftest.py"):
        assert expected in names, expected
    assert len(names) > 300


def test_the_pattern_finds_what_it_must():
    for bad in ("(" + "se" + "ed 002)", "Se" + "ed 000 §4", "se" + "ed-001 Tables", "test_se" + "ed003_x",
                "MET" + "HOD.md §7", "../se" + "eds/x.pdf"):
        assert FORBIDDEN.search(bad), bad
    for fine in ("1000 resamples, seed 12345", "--seed 2026", "seed=0", "docs/method/hits.md"):
        assert not FORBIDDEN.search(fine), fine


def test_no_file_cites_working_names_or_a_missing_method_file():
    found = []
    for path in shipped_files():
        rel = path.relative_to(ROOT).as_posix()
        if FORBIDDEN.search(rel):
            found.append(f"{rel}: the file name")
        text = path.read_bytes().decode("utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            if FORBIDDEN.search(line):
                found.append(f"{rel}:{number}: {line.strip()[:120]}")
    assert not found, "\n".join(found)



def test_the_package_and_its_docs_never_point_at_the_workspace_data():
    """The product's code, help texts and docs name data by what it is, not by where this workspace keeps it."""
    workspace = "../" + "shared"
    found = [f"{p.relative_to(ROOT).as_posix()}:{n}" for p in shipped_files()
             if p.relative_to(ROOT).parts[0] in {"leaderboard", "metrics", "docs", "app.py"}
             for n, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
             if workspace in line]
    assert not found, found

# ---- links to the method documents -------------------------------------------------------------
def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = unicodedata.normalize("NFC", heading.strip().lower())
    text = "".join(ch for ch in text if ch.isalnum() or ch in " -_")
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
    return {slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.+?)\s*$", text, re.MULTILINE)}


def test_slug_matches_github():
    assert slug("The organisers' rule") == "the-organisers-rule"
    assert slug("WMT19 to WMT22 crowd DA") == "wmt19-to-wmt22-crowd-da"
    assert slug("acc_eq") == "acc_eq"
    assert slug("Google's 2023+ files: side-by-side ratings") == "googles-2023-files-side-by-side-ratings"


def method_references() -> list[tuple[str, str, str]]:
    """(where, document file name, section) of every reference to a method document: the path
    ``docs/method/<page>.md#<section>`` anywhere, relative Markdown links in the docs and the README,
    and the app's ``method_link("<page>", …)`` calls."""
    refs = []
    for path in shipped_files():
        if path.suffix not in (".py", ".md", ".toml"):
            continue
        rel = path.relative_to(ROOT).as_posix()
        text = path.read_text(encoding="utf-8")
        # the convention itself, `docs/method/<page>.md#<section>`, is no reference
        for m in re.finditer(r"docs/method/([\w.-]+?\.md)(#[\w-]+)?", text):
            refs.append((rel, m.group(1), (m.group(2) or "")[1:]))
        if path.suffix == ".md":
            for m in re.finditer(r"\]\(([^)\s]+?\.md)(#[\w-]+)?\)", text):
                target = (path.parent / m.group(1)).resolve()
                if target.parent == METHOD.resolve():
                    refs.append((rel, target.name, (m.group(2) or "")[1:]))
            if path.parent == METHOD:  # links to a section of the same page
                refs.extend((rel, path.name, m.group(1)) for m in re.finditer(r"\]\(#([\w-]+)\)", text))
        for m in re.finditer(r"method_link\(\s*\"([\w-]+)\"", text):
            refs.append((rel, m.group(1) + ".md", ""))
    return refs


def test_references_to_method_documents_exist_with_their_sections():
    refs = method_references()
    cited = {rel for rel, _, _ in refs}
    # the code, the other docs and the app all cite the method
    for expected in ("leaderboard/human/qc.py", "leaderboard/hits/degrade.py", "docs/formats-mturk.md",
                     "docs/method/README.md", "leaderboard/webapp/pages/qc.py", "README.md"):
        assert expected in cited, expected
    broken = []
    for rel, name, section in refs:
        target = METHOD / name
        if not target.is_file():
            broken.append(f"{rel}: {name} does not exist")
        elif section and section not in anchors(target):
            broken.append(f"{rel}: {name}#{section} has no such section")
    assert not broken, "\n".join(broken)


def test_index_lists_every_document():
    listed = set(re.findall(r"^\|\s*\[([\w-]+\.md)\]", (METHOD / "README.md").read_text(), re.MULTILINE))
    assert listed == {p.name for p in METHOD.glob("*.md")} - {"README.md"}


# ---- the package and the app -------------------------------------------------------------------
def test_package_folder_is_the_method_folder():
    """The package's copy is docs/method itself (a link), not a second text to keep in step."""
    folder = ROOT / "leaderboard" / "webapp" / "method"
    assert folder.is_symlink() and folder.resolve() == METHOD.resolve()
    from leaderboard.webapp import method_docs
    assert method_docs.DOCS_DIR.resolve() == METHOD.resolve()


def test_documents_in_the_overview_order():
    from leaderboard.webapp import method_docs
    docs = method_docs.documents()
    names = [d.name for d in docs]
    assert names[0] == "README" and sorted(names) == sorted(p.stem for p in METHOD.glob("*.md"))
    order = re.findall(r"^\|\s*\[([\w-]+)\.md\]", (METHOD / "README.md").read_text(), re.MULTILINE)
    assert names[1:] == order
    titles = dict(docs)
    assert titles["README"] == "The evaluation method" and titles["hits"] == "The 100-item HIT"


def test_markdown_links_open_documents_on_the_page():
    from leaderboard.webapp import method_docs
    text = method_docs.markdown("README")
    assert "](method?doc=hits#degradation-for-adequacy)" in text and "](hits.md" not in text
    assert "](#papers-cited)" in text  # a section of the same page stays as it is
    da = method_docs.markdown("da")
    assert "](../" not in da and "formats-mturk.md (docs/formats-mturk.md in the project's sources)" in da
    for bad in ("../../pyproject", "nonexistent", "README.md", ""):
        with pytest.raises(KeyError):
            method_docs.markdown(bad)


def _app(tmp_path, monkeypatch, doc: str | None):
    from streamlit.testing.v1 import AppTest
    monkeypatch.setenv("MTLB_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("MTLB_NO_DEMO", "1")
    monkeypatch.delenv("DATABASE_URL", raising=False)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at.switch_page(PAGE).run()
    if doc is not None:
        at.query_params["doc"] = doc
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _document(at) -> str:
    shown = [m for m in at.markdown if m.value.lstrip().startswith("# ")]
    assert len(shown) == 1
    assert not shown[0].proto.allow_html  # the documents are shown without raw HTML
    return shown[0].value


def test_method_page_renders_a_linked_document(tmp_path, monkeypatch):
    at = _app(tmp_path, monkeypatch, "longitudinal")
    assert [t.value for t in at.title] == ["Method"]
    assert at.selectbox(key="method_doc").value == "longitudinal"
    text = _document(at)
    assert text.startswith("# Comparing years")
    assert "## The gain" in text and "Graham et al. (2014)" in text
    # choosing another document shows it and the address follows
    at.selectbox(key="method_doc").select("quality-control").run()
    assert _document(at).startswith("# Worker quality control")
    assert at.query_params["doc"] == "quality-control"


def test_method_page_starts_with_the_overview_and_ignores_unknown_names(tmp_path, monkeypatch):
    at = _app(tmp_path, monkeypatch, "../../pyproject")
    assert at.selectbox(key="method_doc").value == "README"
    text = _document(at)
    assert text.startswith("# The evaluation method") and "## Papers cited" in text
    assert "(method?doc=significance-and-clusters#the-organisers-rule)" in text


def test_across_years_page_links_to_its_method_document(tmp_path, monkeypatch):
    at = _app(tmp_path, monkeypatch, None)
    at.switch_page(str(ROOT / "leaderboard" / "webapp" / "pages" / "longitudinal.py")).run()
    assert not at.exception, [e.value for e in at.exception]
    links = [el.proto for el in at.get("page_link")]
    method = [link for link in links if link.page.endswith("method")]
    assert [(link.label, link.query_string) for link in method] == [("Method: comparing years", "doc=longitudinal")]
