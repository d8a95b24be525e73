"""The Dockerfile's promises, checked structurally (tests/test_docker.py builds and runs it when a
Docker daemon answers)."""

from __future__ import annotations

import re

from conftest import ROOT


def test_dockerfile_structure():
    text = (ROOT / "Dockerfile").read_text()
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    # the official base is the default; docker/build-local.sh passes a local one
    assert lines[0] == "ARG BASE=python:3.11-slim"
    assert [line for line in lines if line.startswith("FROM ")][-1] == "FROM ${BASE}"
    users = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert users and users[-1] not in ("root", "0")
    assert "EXPOSE 8501" in lines
    assert re.search(r"HEALTHCHECK.*\n?.*_stcore/health", text)
    assert any(line.startswith("VOLUME") and "/data" in line for line in lines)
    assert "MTLB_DATA_DIR=/data" in text
    # every path the image copies from the build context exists in the repository
    for line in lines:
        if line.startswith("COPY ") and "--from=" not in line:
            for src in line.split()[1:-1]:
                assert (ROOT / src).exists(), f"Dockerfile copies missing {src}"
                assert not re.match(r"data/?$", src), "the demo data is package data (leaderboard/demo_data)"
    cmd = [line for line in lines if line.startswith("CMD ")][-1]  # the last CMD is the one that runs
    assert cmd == 'CMD ["mtlb-start"]'
    start = (ROOT / "docker" / "start-app.sh").read_text()
    # the demo without demo accounts: the container listens on every address, and the Log in page shows
    # a demo account's password to every visitor
    assert "mtlb demo --no-accounts\n" in start and "MTLB_NO_DEMO" in start
    # the README's start: pages warmed before the server listens, on the container's address and port
    assert 'exec mtlb serve --port "${MTLB_PORT:-8501}" --address "${MTLB_ADDRESS:-0.0.0.0}"' in start


def test_dockerignore_keeps_the_context_small():
    ignored = {line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
               if line.strip() and not line.startswith("#")}
    assert {".git", ".venv", "test-artifacts", "out", ".env"} <= ignored
    assert not any(entry.startswith("docker") and "wheelhouse" in entry for entry in ignored)


def _ignored(path: str, rules: list[str]) -> bool:
    """Whether .dockerignore leaves ``path`` out of the build context (the last matching rule wins; a rule
    that matches a folder covers what is inside)."""
    from fnmatch import fnmatch
    parts = path.split("/")
    prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    verdict = False
    for rule in rules:
        negated = rule.startswith("!")
        pattern = rule[1:] if negated else rule
        if any(fnmatch(prefix, pattern) or fnmatch(prefix, pattern.removeprefix("**/")) for prefix in prefixes):
            verdict = not negated
    return verdict


def test_links_in_the_package_reach_what_the_build_copies():
    """leaderboard/webapp/method links to docs/method: the build stage copies the link's target from a
    context that keeps it, so the installed wheel holds the method documents."""
    lines = [line.strip() for line in (ROOT / "Dockerfile").read_text().splitlines()]
    copied = [src.rstrip("/") for line in lines if line.startswith("COPY ") and "--from=" not in line
              for src in line.split()[1:-1]]
    rules = [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    assert _ignored("docs/architecture.md", rules) and _ignored("tests/conftest.py", rules)
    assert not _ignored("leaderboard/webapp/main.py", rules)
    links = [p for top in ("leaderboard", "metrics") for p in (ROOT / top).rglob("*") if p.is_symlink()]
    assert ROOT / "leaderboard" / "webapp" / "method" in links
    for link in links:
        target = link.resolve().relative_to(ROOT).as_posix()
        assert any(target == src or target.startswith(src + "/") for src in copied), f"{link} -> {target} not copied"
        assert not _ignored(target, rules), f"{target} is left out of the build context"
