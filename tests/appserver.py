"""The app (`mtlb serve`, or `streamlit run app.py`) on a free local port for the browser tests (test helper)."""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def running_app(python: str | Path, app: Path | None, *, env: dict[str, str], cwd: Path, log: Path,
                timeout: float = 90, port: int | None = None, serve_args: tuple[str, ...] = ()) -> Iterator[str]:
    """Start the app, wait until it answers its health check, yield its base URL, stop it.

    ``app`` None starts it the way the README does, ``mtlb serve`` (warmed up before it listens);
    else ``streamlit run app``. ``port`` defaults to a free one; ``serve_args`` go to ``mtlb serve``.
    """
    port = port or free_port()
    if app is None:
        command = [str(python), "-m", "leaderboard.cli", "serve", "--port", str(port), "--address", "127.0.0.1",
                   *serve_args]
    else:
        command = [str(python), "-m", "streamlit", "run", str(app), "--server.port", str(port),
                   "--server.headless", "true", "--server.address", "127.0.0.1", "--browser.gatherUsageStats",
                   "false"]
    with log.open("w") as out:
        proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            base = f"http://127.0.0.1:{port}"
            deadline = time.time() + timeout
            while True:
                try:
                    urllib.request.urlopen(base + "/_stcore/health", timeout=1)
                    break
                except OSError:
                    if time.time() > deadline or proc.poll() is not None:
                        pytest.fail("streamlit did not start: " + log.read_text(errors="replace")[-2000:])
                    time.sleep(0.3)
            yield base
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
