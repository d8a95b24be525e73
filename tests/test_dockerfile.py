"""The Dockerfile's promises, checked structurally (no Docker engine runs here)."""

from __future__ import annotations

import re

from conftest import ROOT


def test_dockerfile_structure():
    text = (ROOT / "Dockerfile").read_text()
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    assert lines[0].startswith("FROM python:3.11-slim")
    users = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert users and users[-1] not in ("root", "0")
    assert "EXPOSE 8501" in lines
    assert re.search(r"HEALTHCHECK.*\n?.*_stcore/health", text)
    # every path the image copies exists in the repository
    for line in lines:
        if line.startswith("COPY "):
            for src in line.split()[1:-1]:
                assert (ROOT / src).exists(), f"Dockerfile copies missing {src}"
    cmd = [line for line in lines if line.startswith("CMD ")][-1]  # the last CMD is the one that runs
    assert "mtlb demo --if-empty" in cmd and "streamlit run app.py" in cmd
