"""Docker helpers for tests/test_docker.py and tests/test_compose.py (test helper, not a test module).

The images are built once per session by docker/build-local.sh (from python:3.11-slim when it can be
pulled, else from a debootstrap Debian base and a host-built wheelhouse). Every test skips cleanly
when no Docker daemon answers, so ``make test`` passes on machines without Docker.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
APP_IMAGE = os.environ.get("MTLB_TEST_IMAGE", "mtlb:local")
PG_IMAGE = os.environ.get("MTLB_TEST_POSTGRES_IMAGE", "mtlb-postgres:local")
CHROMIUM = "/usr/bin/chromium"
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run"]


def docker_available() -> bool:
    """True when a docker client exists and its daemon answers."""
    if shutil.which("docker") is None:
        return False
    try:
        return subprocess.run(["docker", "info"], capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def require_docker() -> None:
    if not docker_available():
        pytest.skip("no Docker daemon answers (`docker info` fails)")


def docker(*args: str, check: bool = True, timeout: float = 300, **kw) -> subprocess.CompletedProcess:
    """Run ``docker ARGS`` and return the finished process (text output captured)."""
    proc = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout, **kw)
    if check and proc.returncode != 0:
        raise AssertionError(f"docker {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout[-2000:]}"
                             f"\n{proc.stderr[-3000:]}")
    return proc


def build_images(postgres: bool = False) -> dict[str, float]:
    """Build the app image (and the PostgreSQL image) with docker/build-local.sh; seconds taken."""
    env = {**os.environ, "MTLB_IMAGE": APP_IMAGE, "MTLB_POSTGRES_IMAGE": PG_IMAGE, "PYTHON": sys.executable}
    cmd = [str(ROOT / "docker" / "build-local.sh")] + (["--postgres"] if postgres else [])
    log = ROOT / "test-artifacts" / "docker-build.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with log.open("a") as out:
        proc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, timeout=1800)
    if proc.returncode != 0:
        pytest.fail(f"docker/build-local.sh failed; see {log}:\n" + log.read_text(errors="replace")[-3000:])
    return {"seconds": time.perf_counter() - start}


def image_size_mb(image: str) -> float:
    return int(docker("image", "inspect", "--format", "{{.Size}}", image).stdout.strip()) / 1e6


def wait_healthy_http(base: str, timeout: float = 120, container: str | None = None) -> None:
    """Wait for ``base``/_stcore/health to answer 200 (fail with the container's log otherwise)."""
    deadline = time.time() + timeout
    while True:
        try:
            if urllib.request.urlopen(base + "/_stcore/health", timeout=2).status == 200:
                return
        except OSError:
            pass
        if time.time() > deadline:
            logs = docker("logs", container, check=False).stdout + docker("logs", container, check=False).stderr \
                if container else ""
            pytest.fail(f"{base} did not become healthy in {timeout:.0f} s\n{logs[-3000:]}")
        time.sleep(0.5)


def health_status(container: str) -> str:
    """Docker's own HEALTHCHECK verdict: starting / healthy / unhealthy."""
    return docker("inspect", "--format", "{{.State.Health.Status}}", container).stdout.strip()


def wait_for_docker_health(container: str, timeout: float = 90) -> str:
    deadline = time.time() + timeout
    status = health_status(container)
    while status == "starting" and time.time() < deadline:
        time.sleep(1)
        status = health_status(container)
    return status


def exec_json(container: str, *cmd: str, env: dict[str, str] | None = None):
    """``docker exec CONTAINER CMD`` whose standard output is JSON."""
    flags = [f"--env={k}={v}" for k, v in (env or {}).items()]
    return json.loads(docker("exec", *flags, container, *cmd).stdout)


def browser_page_text(url: str, wait_text: str, timeout_ms: int = 120000) -> str:
    """Open ``url`` in Debian's chromium (Playwright), wait until ``wait_text`` shows, return the page text."""
    if not Path(CHROMIUM).exists():
        pytest.skip("/usr/bin/chromium is not installed")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        try:
            page = browser.new_page()
            page.goto(url)
            sync_api.expect(page.get_by_text(wait_text).first).to_be_visible(timeout=timeout_ms)
            # the leaderboard table has rendered
            sync_api.expect(page.locator("table.mtlb-table").first).to_be_visible(timeout=timeout_ms)
            page.wait_for_selector("[data-testid='stStatusWidget']", state="detached", timeout=timeout_ms)
            return page.inner_text("body")
        finally:
            browser.close()
