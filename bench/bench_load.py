"""Load: concurrent real browser sessions on two app replicas sharing one PostgreSQL database.

Starts two ``streamlit run app.py`` processes (replicas A and B, ``MTLB_AUTO_MIGRATE=0``) on a scratch
PostgreSQL database (created on 127.0.0.1:5432 and dropped afterwards; ``--database-url`` for another,
SQLite when no server answers) holding the demo campaigns, then opens ``--sessions`` browser sessions
at once (Debian's chromium through Playwright: a few browser processes with several contexts each,
sessions alternating between the replicas). Each session loads the leaderboard ``--loads`` times (a
first visit, then reloads) and times the load until the rendered table and version caption show;
one visit per replica before (reported as ``warmup_first_visit_s``) pays the replica's import cost.
Reports p50/p95 of those times, errors (a page that did not render, or showed an exception or an
error box), the replicas' resident memory (peak while serving, sampled from /proc) and the load
average. Prints one JSON object; ``--save`` writes it under bench/results/.

    python bench/bench_load.py [--sessions 20] [--browsers 4] [--loads 3] [--save bench/results/load-20.json]
    python bench/bench_load.py --urls http://127.0.0.1:8501 http://127.0.0.1:8502   # e.g. the compose replicas
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-extensions", "--mute-audio"]
DEMO_HEADING = "WMT22 cs-en (demo) · cs-en · adequacy"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pg_up() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 5432), timeout=0.5):
            return True
    except OSError:
        return False


def rss_mb(pid: int) -> float:
    """Resident memory of a process and its children (MB), from /proc."""
    total = 0
    for p in [pid] + _children(pid):
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a running process so far (seconds), from /proc/PID/stat."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _children(pid: int) -> list[int]:
    """Every descendant of ``pid`` (from the parent ids in /proc/*/stat)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            parents.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        kids = parents.get(todo.pop(), [])
        found += kids
        todo += kids
    return found


class Sampler(threading.Thread):
    """Samples the replicas' RSS and the load average every ``every`` seconds."""

    def __init__(self, pids: dict[str, int], every: float = 0.25) -> None:
        super().__init__(daemon=True)
        self.pids, self.every = pids, every
        self.peak = {name: 0.0 for name in pids}
        self.load_peak = 0.0
        # CPU seconds of every other descendant of this process (Playwright's driver, the browsers and
        # their renderers), the largest value seen per pid: renderers are not reaped by us, so the
        # children's times of os.times() miss them
        self.client_cpu: dict[int, float] = {}
        self._servers = set(pids.values())
        self._halt = threading.Event()

    def run(self) -> None:
        while not self._halt.is_set():
            self._servers |= {c for pid in self.pids.values() for c in _children(pid)}
            for name, pid in self.pids.items():
                self.peak[name] = max(self.peak[name], rss_mb(pid))
            for pid in _children(os.getpid()):
                if pid not in self._servers:
                    self.client_cpu[pid] = max(self.client_cpu.get(pid, 0.0), cpu_seconds(pid))
            self.load_peak = max(self.load_peak, os.getloadavg()[0])
            self._halt.wait(self.every)

    def stop(self) -> None:
        self._halt.set()
        self.join()


def start_replica(url: str, port: int, log: Path) -> subprocess.Popen:
    env = {**os.environ, "DATABASE_URL": url, "MTLB_AUTO_MIGRATE": "0", "MTLB_NO_DEMO": "1"}
    out = log.open("w")
    return subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.port", str(port),
                             "--server.address", "127.0.0.1", "--server.headless", "true",
                             "--browser.gatherUsageStats", "false"],
                            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)


def wait_health(base: str, proc: subprocess.Popen | None, timeout: float = 120) -> None:
    deadline = time.time() + timeout
    while True:
        try:
            urllib.request.urlopen(base + "/_stcore/health", timeout=1)
            return
        except OSError:
            if time.time() > deadline or (proc is not None and proc.poll() is not None):
                raise SystemExit(f"{base} did not start")
            time.sleep(0.3)


async def one_session(browser, base: str, loads: int, timeout_ms: int, delay: float = 0.0) -> dict:
    """One browser context (its own Streamlit session): ``loads`` page loads, each timed to the rendered table."""
    await asyncio.sleep(delay)
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    page.set_default_timeout(timeout_ms)
    page.set_default_navigation_timeout(timeout_ms)
    page_errors: list[str] = []
    page.on("pageerror", lambda exc: page_errors.append(str(exc)))
    times, errors = [], []
    try:
        for i in range(loads):
            start = time.perf_counter()
            try:
                if i == 0:
                    await page.goto(base + "/", wait_until="commit")
                else:
                    await page.reload(wait_until="commit")
                await page.locator("table.mtlb-table, [data-testid='stDataFrame']").first.wait_for(
                    state="visible", timeout=timeout_ms)
                await page.get_by_text(DEMO_HEADING).first.wait_for(state="visible", timeout=timeout_ms)
                await page.get_by_text("Version v").first.wait_for(state="visible", timeout=timeout_ms)
                elapsed = time.perf_counter() - start
                broken = await page.locator("[data-testid='stException'], [data-testid='stAlertContentError']").count()
                if broken:
                    errors.append(f"load {i}: an exception or error box on the page")
                else:
                    times.append(elapsed)
            except Exception as exc:  # a timeout or a crashed page counts as an error
                errors.append(f"load {i}: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}")
    finally:
        await context.close()
    return {"base": base, "times": times, "errors": errors, "page_errors": page_errors}


async def drive(bases: list[str], sessions: int, browsers: int, loads: int, timeout_ms: int,
                warmup: list, ramp: float, on_start=lambda: None) -> tuple[list[dict], float]:
    from playwright.async_api import async_playwright
    async with async_playwright() as pw:
        # the browser processes start one after another (2 cores), then every session starts at once
        launched = []
        for _ in range(min(browsers, sessions)):
            launched.append(await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS))
        # one visit per replica first (not counted): a new process imports the app's libraries on its
        # first run, which is start-up cost rather than load
        warm = await asyncio.gather(*(one_session(launched[0], base, 1, timeout_ms) for base in bases))
        warmup.extend(round(w["times"][0], 2) if w["times"] else None for w in warm)
        on_start()
        start = time.perf_counter()
        tasks = [one_session(launched[i % len(launched)], bases[i % len(bases)], loads, timeout_ms,
                             delay=ramp * i / max(1, sessions))
                 for i in range(sessions)]
        results = await asyncio.gather(*tasks)
        wall = time.perf_counter() - start
        for b in launched:
            await b.close()
    return list(results), wall


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20, help="concurrent browser sessions (default 20)")
    parser.add_argument("--browsers", type=int, default=4, help="chromium processes sharing the sessions (default 4)")
    parser.add_argument("--loads", type=int, default=3, help="page loads per session: a visit then reloads (default 3)")
    parser.add_argument("--ramp", type=float, default=10,
                        help="seconds over which the sessions arrive, evenly (default 10; 0: all at once)")
    parser.add_argument("--settle", type=float, default=120,
                        help="wait up to this long for the 1-minute load average to fall below the core count")
    parser.add_argument("--timeout", type=float, default=180, help="seconds one page load may take (default 180)")
    parser.add_argument("--database-url", help="the store of the replicas (default: a scratch PostgreSQL database)")
    parser.add_argument("--urls", nargs="+", help="running replicas to load instead of starting two (no RSS then)")
    parser.add_argument("--save", type=Path, help="also write the JSON here (e.g. bench/results/load-20.json)")
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"{CHROMIUM} is not installed")

    result: dict = {"benchmark": "load: concurrent browser sessions on two app replicas",
                    "sessions": args.sessions, "browsers": args.browsers, "loads_per_session": args.loads,
                    "cpus": os.cpu_count(), "python": platform.python_version()}
    with ExitStack() as stack:
        pids: dict[str, int] = {}
        if args.urls:
            bases = args.urls
            result["store"] = "external replicas"
        else:
            scratch = None
            url = args.database_url
            if url is None and pg_up():
                scratch = f"mtlb_bench_load_{uuid.uuid4().hex[:8]}"
                subprocess.run(["createdb", "-h", "127.0.0.1", "-U", "postgres", scratch], check=True)
                stack.callback(subprocess.run, ["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", "postgres", "-q",
                                                "-c", f'DROP DATABASE IF EXISTS "{scratch}" WITH (FORCE)'])
                url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{scratch}"
            elif url is None:
                folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="mtlb-bench-load-"))
                url = f"sqlite:///{folder}/mtlb.sqlite"
            result["store"] = url.split(":", 1)[0].split("+", 1)[0]
            env = {**os.environ, "DATABASE_URL": url}
            mtlb = [sys.executable, "-m", "leaderboard.cli"]
            subprocess.run(mtlb + ["db", "upgrade"], env=env, check=True, capture_output=True)
            subprocess.run(mtlb + ["demo"], env=env, check=True, capture_output=True)
            logs = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="mtlb-bench-logs-")))
            bases = []
            for name in ("a", "b"):
                port = free_port()
                proc = start_replica(url, port, logs / f"replica-{name}.log")
                stack.callback(_stop, proc)
                pids[name] = proc.pid
                bases.append(f"http://127.0.0.1:{port}")
            for base, name in zip(bases, pids):
                wait_health(base, None)
            result["rss_idle_mb"] = {name: round(rss_mb(pid), 1) for name, pid in pids.items()}
        result["replicas"] = len(bases)
        settle_until = time.time() + args.settle
        while os.getloadavg()[0] >= (os.cpu_count() or 1) and time.time() < settle_until:
            time.sleep(2)
        result["load_average_before"] = round(os.getloadavg()[0], 2)
        sampler = Sampler(pids)
        sampler.start()
        warmup: list = []
        server_cpu: dict[str, float] = {}

        def measured_part_starts() -> None:  # after the warm-up visits
            server_cpu.update({name: cpu_seconds(pid) for name, pid in pids.items()})

        sessions, wall = asyncio.run(drive(bases, args.sessions, args.browsers, args.loads, int(args.timeout * 1000),
                                           warmup, args.ramp, measured_part_starts))
        server_cpu = {name: cpu_seconds(pid) - server_cpu[name] for name, pid in pids.items()}
        sampler.stop()
        client_cpu = sum(sampler.client_cpu.values())  # the warm-up visits included (sampled: a lower bound)

    first = [s["times"][0] for s in sessions if s["times"] and not s["errors"]]
    every = [t for s in sessions for t in s["times"]]
    errors = [e for s in sessions for e in s["errors"]]
    result.update({
        "warmup_first_visit_s": warmup,
        "page_loads": args.sessions * args.loads,
        "rendered": len(every),
        "errors": len(errors),
        "error_examples": errors[:5],
        "browser_page_errors": sum(len(s["page_errors"]) for s in sessions),
        "time_to_leaderboard_s": {"p50": _r(percentile(every, 0.5)), "p95": _r(percentile(every, 0.95)),
                                  "max": _r(max(every) if every else None)},
        "first_visit_s": {"p50": _r(percentile(first, 0.5)), "p95": _r(percentile(first, 0.95))},
        "per_replica_loads": {b: sum(len(s["times"]) for s in sessions if s["base"] == b) for b in bases},
        "ramp_s": args.ramp,
        "wall_s": round(wall, 2),
        "cpu_s": {"replicas": round(sum(server_cpu.values()), 1) if pids else None,
                  "browsers": round(client_cpu, 1)},
        "cpu_s_per_page_load": {
            "replicas": round(sum(server_cpu.values()) / max(1, len(every)), 3) if pids else None,
            "browsers": round(client_cpu / max(1, len(every) + len(bases)), 3)},
        "rss_peak_mb": {name: round(v, 1) for name, v in sampler.peak.items()} if pids else None,
        "load_average_peak_1min": round(sampler.load_peak, 2),
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
    })
    text = json.dumps(result, indent=2)
    print(text)
    if args.save:
        args.save.parent.mkdir(parents=True, exist_ok=True)
        args.save.write_text(text + "\n")
    return 0 if not errors else 1


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


if __name__ == "__main__":
    sys.exit(main())
