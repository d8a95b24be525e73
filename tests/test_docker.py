"""The container, built and run for real (skips when no Docker daemon answers).

Checks what the Dockerfile promises: the health endpoint (and Docker's own HEALTHCHECK), the demo
leaderboard served to a real browser, a non-root user, the store kept in a named volume when the
container is replaced, and DATABASE_URL honoured (a scratch database on the host's PostgreSQL).
"""

from __future__ import annotations

import subprocess
import uuid
from contextlib import contextmanager
from typing import Iterator

import pytest

from appserver import free_port
from conftest import pg_available
from dockerhelp import (browser_page_text, docker, exec_json, image_size_mb, wait_for_docker_health,
                        wait_healthy_http)

pytestmark = [pytest.mark.slow]

DEMO = "WMT22 cs-en (demo)"


@contextmanager
def container(image: str, *, port: int, volume: str | None = None, env: dict[str, str] | None = None,
              name: str | None = None) -> Iterator[str]:
    """``docker run -d`` the image on the host network, bound to 127.0.0.1:``port``; removed afterwards."""
    name = name or f"mtlb-test-{uuid.uuid4().hex[:8]}"
    args = ["run", "-d", "--name", name, "--network", "host",
            "--env", "MTLB_ADDRESS=127.0.0.1", "--env", f"MTLB_PORT={port}"]
    for key, value in (env or {}).items():
        args += ["--env", f"{key}={value}"]
    if volume:
        args += ["--volume", f"{volume}:/data"]
    docker(*args, image)
    try:
        yield name
    finally:
        docker("rm", "-f", "-v", name, check=False)  # -v: its anonymous volume too


def listening_addresses(port: int) -> set[str]:
    """IPv4/IPv6 addresses with a listening TCP socket on ``port`` (the host's /proc/net: host networking)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.split(":")
            if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                if len(address) == 8:
                    found.add(".".join(str(int(address[i:i + 2], 16)) for i in (6, 4, 2, 0)))
                else:
                    found.add("::" if set(address) == {"0"} else address)
    return found


def _published(name: str) -> dict[tuple[str, str], dict]:
    rows = exec_json(name, "mtlb", "published", "--json")
    return {(r["campaign"], r["lp"]): r for r in rows}


def test_container_serves_demo_and_keeps_its_volume(docker_images, demo_contents):
    image = docker_images["app"]
    assert image_size_mb(image) < 2500
    volume = f"mtlb-test-{uuid.uuid4().hex[:8]}"
    docker("volume", "create", volume)
    try:
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        with container(image, port=port, volume=volume) as name:
            wait_healthy_http(base, container=name)
            # Docker's HEALTHCHECK runs inside the container against the same endpoint
            assert wait_for_docker_health(name) == "healthy"
            # not root, and the store is owner-only in the volume
            assert docker("exec", name, "id", "-u").stdout.strip() == "10001"
            listing = docker("exec", name, "stat", "-c", "%a %u %n", "/data", "/data/mtlb.sqlite").stdout.split("\n")
            assert listing[0] == "700 10001 /data" and listing[1] == "600 10001 /data/mtlb.sqlite"
            # the demo was loaded and published by `mtlb demo` before streamlit started
            first = _published(name)
            assert {c for c, _ in first} == demo_contents["campaigns"]
            # ...and a real browser gets the leaderboard of the newest publication (the WMT22 excerpt)
            text = browser_page_text(base + "/", "Version v1")
            assert "Leaderboard" in text and f"{DEMO} · cs-en · adequacy" in text
            assert "Online-B" in text  # a system of the WMT22 cs-en table
            # host networking, but listening on the loopback address only
            assert listening_addresses(port) == {"127.0.0.1"}
        # a new container on the same named volume finds the store as it was: nothing reloaded
        port = free_port()
        with container(image, port=port, volume=volume) as name:
            wait_healthy_http(f"http://127.0.0.1:{port}", container=name)
            again = _published(name)
            assert again == first  # same versions, published_at and hashes
            logs = docker("logs", name).stdout
            assert "already loaded" in logs and "loaded 51,470 judgments" not in logs
    finally:
        docker("volume", "rm", "-f", volume, check=False)


def test_container_honours_database_url(docker_images, demo_contents):
    """DATABASE_URL points the container at a scratch database of the host's PostgreSQL."""
    if not pg_available():
        pytest.skip("PostgreSQL is not reachable on 127.0.0.1:5432")
    db = f"mtlb_docker_test_{uuid.uuid4().hex[:6]}"
    subprocess.run(["createdb", "-h", "127.0.0.1", "-U", "postgres", db], check=True)
    try:
        port = free_port()
        url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{db}"
        with container(docker_images["app"], port=port, env={"DATABASE_URL": url}) as name:
            wait_healthy_http(f"http://127.0.0.1:{port}", container=name)
            # the host sees what the container stored: the demo campaigns and their versions
            out = subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", db, "-At", "-c",
                                  "SELECT count(*) FROM snapshots; SELECT version_num FROM alembic_version"],
                                 check=True, capture_output=True, text=True).stdout.split()
            head = exec_json(name, "mtlb", "db", "current", "--json")["head"]
            assert int(out[0]) == demo_contents["rankings"] and out[1] == head
            # nothing went to the SQLite default in the container
            assert docker("exec", name, "ls", "-A", "/data").stdout.strip() == ""
            text = browser_page_text(f"http://127.0.0.1:{port}/", "Version v1")
            assert f"{DEMO} · cs-en · adequacy" in text
    finally:
        subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", "postgres", "-q", "-c",
                        f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)'], check=False)
