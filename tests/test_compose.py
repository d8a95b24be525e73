"""docker-compose.yml brought up for real: PostgreSQL, the migration step, two app replicas.

A new version published through replica A (the CLI inside it) shows on replica B's next page load in
a real browser, without restarting B. Skips when no Docker daemon or no compose answers; tears
everything down, volumes included.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import time
import uuid

import pytest

from appserver import free_port
from dockerhelp import CHROMIUM, BROWSER_ARGS, ROOT, docker, wait_healthy_http

pytestmark = [pytest.mark.slow]

DEMO = "WMT22 cs-en (demo)"


def compose_command() -> list[str] | None:
    """``docker-compose`` (1.29) or ``docker compose`` (v2), whichever answers."""
    if shutil.which("docker-compose") and subprocess.run(["docker-compose", "version"], capture_output=True).returncode == 0:
        return ["docker-compose"]
    if subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0:
        return ["docker", "compose"]
    return None


def test_compose_publish_on_a_shows_on_b(docker_images, demo_contents, tmp_path):
    compose = compose_command()
    if compose is None:
        pytest.skip("neither docker-compose nor `docker compose` is installed")
    pytest.importorskip("playwright.sync_api")
    if not os.path.exists(CHROMIUM):
        pytest.skip("/usr/bin/chromium is not installed")
    from playwright.sync_api import expect, sync_playwright

    project = f"mtlbtest{uuid.uuid4().hex[:6]}"
    port_a, port_b, port_pg = free_port(), free_port(), free_port()
    env = {**os.environ, "MTLB_PG_PASSWORD": secrets.token_urlsafe(16), "MTLB_PG_PORT": str(port_pg),
           "MTLB_PORT_A": str(port_a), "MTLB_PORT_B": str(port_b),
           "MTLB_IMAGE": docker_images["app"], "MTLB_POSTGRES_IMAGE": docker_images["postgres"]}
    env.pop("MTLB_NO_DEMO", None)
    env.pop("DATABASE_URL", None)

    base_cmd = [*compose, "-p", project, "-f", str(ROOT / "docker-compose.yml")]

    def run(*args: str, check: bool = True, timeout: float = 300) -> subprocess.CompletedProcess:
        proc = subprocess.run([*base_cmd, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
        if check and proc.returncode != 0:
            raise AssertionError(f"{' '.join(compose)} {' '.join(args)}: {proc.returncode}\n"
                                 f"{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
        return proc

    try:
        started = time.perf_counter()
        run("up", "-d", "--no-build")
        base_a, base_b = f"http://127.0.0.1:{port_a}", f"http://127.0.0.1:{port_b}"
        wait_healthy_http(base_a)
        wait_healthy_http(base_b)
        up_seconds = time.perf_counter() - started
        # the migration step ran once and loaded the demo; the replicas do not migrate
        logs = run("logs", "--no-color", "migrate").stdout
        assert "schema upgraded from revision none" in logs and f"published {demo_contents['rankings']} ranking(s)" in logs
        for service in ("app-a", "app-b"):
            assert "schema upgraded" not in run("logs", "--no-color", service).stdout

        password = "organiser-" + secrets.token_urlsafe(12)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
            try:
                page = browser.new_page()
                page.goto(base_b + "/")
                expect(page.get_by_text(f"{DEMO} · cs-en · adequacy")).to_be_visible(timeout=120000)
                expect(page.get_by_text("Version v1 ·")).to_be_visible()
                # publish a second version through replica A: an organiser created inside A
                run("exec", "-T", "-e", f"MTLB_PASSWORD={password}", "app-a",
                    "mtlb", "user", "add", "olga", "--role", "organiser")
                run("exec", "-T", "-e", f"MTLB_PASSWORD={password}", "app-a", "mtlb", "publish",
                    "--campaign", DEMO, "--user", "olga", "--note", "corrected through replica A")
                # replica B, not restarted, knows it on the next load: the reloaded page keeps the
                # version its URL names (?version=1) and says that v2 is the latest...
                assert "version=1" in page.url
                page.reload()
                expect(page.get_by_text("an older version; the latest is v2")).to_be_visible(timeout=60000)
                # ...and a new visit opens on v2 with its note
                page.goto(base_b + "/")
                expect(page.get_by_text("Version v2 ·")).to_be_visible(timeout=60000)
                expect(page.get_by_text("Note: corrected through replica A")).to_be_visible()
            finally:
                browser.close()
        # B's process is the one that served the first page: same container start time as before
        ps = run("ps", "-q", "app-b").stdout.split()
        assert docker("inspect", "--format", "{{.RestartCount}}", ps[0]).stdout.strip() == "0"
        print(f"compose up to two healthy replicas: {up_seconds:.1f} s")

        # backup and restore as the README shows them: pg_dump inside the db container, restore into
        # an emptied database while the replicas are stopped, then up again
        in_db = 'export PGPASSWORD="$POSTGRES_PASSWORD"; '
        dump = tmp_path / "mtlb.dump"
        with dump.open("wb") as out:
            subprocess.run([*base_cmd, "exec", "-T", "db", "sh", "-c",
                            in_db + 'pg_dump -h 127.0.0.1 -p "$PGPORT" -U mtlb -Fc mtlb'],
                           cwd=ROOT, env=env, stdout=out, check=True, timeout=120)
        assert dump.read_bytes()[:5] == b"PGDMP" and dump.stat().st_size > 100_000
        run("stop", "app-a", "app-b")
        run("exec", "-T", "db", "sh", "-c", in_db + 'dropdb -h 127.0.0.1 -p "$PGPORT" -U mtlb mtlb && '
            'createdb -h 127.0.0.1 -p "$PGPORT" -U mtlb mtlb')
        with dump.open("rb") as data:
            subprocess.run([*base_cmd, "exec", "-T", "db", "sh", "-c",
                            in_db + 'pg_restore -h 127.0.0.1 -p "$PGPORT" -U mtlb -d mtlb'],
                           cwd=ROOT, env=env, stdin=data, check=True, timeout=120, capture_output=True)
        run("up", "-d", "--no-build")
        wait_healthy_http(base_b)
        restored = json.loads(run("exec", "-T", "app-b", "mtlb", "published", "--campaign", DEMO, "--json").stdout)
        assert [(r["version"], r["note"]) for r in sorted(restored, key=lambda r: r["version"])][-1] == \
            (2, "corrected through replica A")
        assert "already loaded" in run("logs", "--no-color", "migrate").stdout  # nothing loaded twice
    finally:
        run("down", "-v", "--remove-orphans", check=False, timeout=180)
    # everything is gone, volumes included
    assert docker("volume", "ls", "-q", "--filter", f"name={project}").stdout.strip() == ""
