"""Many real ``mtlb`` processes without paying the CLI's imports in each: a server process imports them
once, then forks one child per command.

Each child is an operating-system process of its own (its own database connections, its own exit code,
killable by signal, finalised like any Python process when it exits); only the start-up is shared. Tests
that check start-up itself (warnings at import, the installed entry point, the README verbatim) start
plain subprocesses instead. The concurrency tests start twenty processes at a time: with the imports done
once, a test spends its CPU on the stores and the rules it checks, not twenty times on importing pandas.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

# the CLI's entry point, as ``python -c CODE args...`` would run it
MTLB = "import sys\nfrom leaderboard.cli import main\nsys.exit(main(sys.argv[1:]))\n"

PRELOAD = ("leaderboard.cli", "leaderboard.storage", "pandas", "sqlalchemy")

# The server: imports ``sys.argv[1:]``, then reads one JSON request per line on stdin and answers with the
# forked child's pid; reports each child's exit code (as subprocess does: -N for signal N) when it ends.
# One thread only, so that no lock is held by another thread at a fork.
SERVER = r"""
import importlib, json, os, select, sys, time, traceback
for name in sys.argv[1:]:
    importlib.import_module(name)

def say(message):
    os.write(1, (json.dumps(message) + "\n").encode())

def child(request):
    null = os.open(os.devnull, os.O_RDONLY)
    out = os.open(request["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    err = os.open(request["err"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    for fd, target in ((null, 0), (out, 1), (err, 2)):
        os.dup2(fd, target)
        os.close(fd)
    os.environ.update(request["env"])
    if request["cwd"]:
        os.chdir(request["cwd"])
    sys.argv = ["-c", *request["args"]]
    if request["ready"]:
        open(request["ready"], "w").close()
    if request["go"]:
        while not os.path.exists(request["go"]):
            time.sleep(0.005)
    try:
        exec(compile(request["code"], "<string>", "exec"), {"__name__": "__main__"})
    except SystemExit:
        raise
    except BaseException:
        traceback.print_exc()
        sys.exit(1)
    sys.exit(0)

say({"ready": os.getpid()})
pending, children, closed = b"", set(), False
while not closed or children:
    readable = select.select([0], [], [], 0.02)[0] if not closed else []
    if readable:
        chunk = os.read(0, 65536)
        closed = not chunk
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            request = json.loads(line)
            pid = os.fork()
            if pid == 0:
                child(request)
            children.add(pid)
            say({"pid": pid})
    while children:
        pid, status = os.waitpid(-1, os.WNOHANG if not closed else 0)
        if pid == 0:
            break
        children.discard(pid)
        say({"exit": pid, "code": os.waitstatus_to_exitcode(status)})
"""


class Forked:
    """A forked child, read like a :class:`subprocess.Popen` (``poll``, ``wait``, ``communicate``,
    ``send_signal``); its output is text."""

    def __init__(self, server: "ForkServer", pid: int, args: list[str], out: Path, err: Path) -> None:
        self.server, self.pid, self.args, self._out, self._err = server, pid, args, out, err
        self.returncode: int | None = None

    def poll(self) -> int | None:
        self.returncode = self.server._exit_code(self.pid, timeout=0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        code = self.server._exit_code(self.pid, timeout=timeout)
        if code is None:
            raise subprocess.TimeoutExpired(self.args, timeout)
        self.returncode = code
        return code

    def communicate(self, timeout: float | None = None) -> tuple[str, str]:
        self.wait(timeout)
        return (self._out.read_text(encoding="utf-8", errors="replace"),
                self._err.read_text(encoding="utf-8", errors="replace"))

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, sig)

    def result(self, timeout: float | None = None) -> subprocess.CompletedProcess:
        out, err = self.communicate(timeout)
        return subprocess.CompletedProcess(self.args, self.returncode, out, err)


class ForkServer:
    """A process that has imported ``preload`` (run with ``env``), forking a child per :meth:`spawn`."""

    def __init__(self, env: dict[str, str] | None = None, preload: tuple[str, ...] = PRELOAD,
                 start_timeout: float = 300) -> None:
        self._dir = Path(tempfile.mkdtemp(prefix="mtlb-fork-"))
        self._proc = subprocess.Popen([sys.executable, "-c", SERVER, *preload], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, env=env)
        self._pids: queue.Queue = queue.Queue()
        self._exits: dict[int, int] = {}
        self._changed = threading.Condition()
        self._count = 0
        first = self._proc.stdout.readline()
        if not first:
            raise RuntimeError(f"the fork server did not start (exit {self._proc.wait(start_timeout)})")
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self._proc.stdout:
            message = json.loads(line)
            if "pid" in message:
                self._pids.put(message["pid"])
            else:
                with self._changed:
                    self._exits[message["exit"]] = message["code"]
                    self._changed.notify_all()

    def _exit_code(self, pid: int, timeout: float | None) -> int | None:
        with self._changed:
            self._changed.wait_for(lambda: pid in self._exits, timeout=timeout)
            return self._exits.get(pid)

    def spawn(self, args: list[str], *, code: str = MTLB, env: dict[str, str] | None = None,
              cwd: str | Path | None = None, ready: Path | None = None, go: Path | None = None) -> Forked:
        """A child running ``code`` as ``python -c code *args`` would (``sys.argv[1:] == args``), with
        ``env`` added to the server's environment; it touches ``ready`` and waits for ``go`` to exist
        before it runs."""
        self._count += 1
        out, err = self._dir / f"{self._count}.out", self._dir / f"{self._count}.err"
        request = {"args": [str(a) for a in args], "code": code, "env": env or {}, "cwd": str(cwd or ""),
                   "ready": str(ready or ""), "go": str(go or ""), "out": str(out), "err": str(err)}
        self._proc.stdin.write((json.dumps(request) + "\n").encode())
        self._proc.stdin.flush()
        return Forked(self, self._pids.get(timeout=60), [sys.executable, "-c", code, *request["args"]], out, err)

    def close(self) -> None:
        """Wait for the children still running, then stop the server."""
        if self._proc.stdin and not self._proc.stdin.closed:
            self._proc.stdin.close()
        self._proc.wait(600)
        self._reader.join(10)
        shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self) -> "ForkServer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def run_together(commands: list[list[str]], tmp: Path, env: dict[str, str], *, code: str = MTLB,
                 preload: tuple[str, ...] = PRELOAD, start_timeout: float = 120) -> list[subprocess.CompletedProcess]:
    """Run ``mtlb`` commands in processes (forked from one that has imported ``preload``) that all
    reach the start line, then are released together: they meet the store at the same moment."""
    import uuid
    go = tmp / f"go-{uuid.uuid4().hex}"
    with ForkServer(env, preload) as server:
        children = [(tmp / f"ready-{go.name}-{k}", server.spawn(cmd, code=code, ready=tmp / f"ready-{go.name}-{k}",
                                                                go=go))
                    for k, cmd in enumerate(commands)]
        deadline = time.monotonic() + start_timeout
        while not all(ready.exists() or child.poll() is not None for ready, child in children):
            assert time.monotonic() < deadline, "processes did not start"
            time.sleep(0.02)
        go.touch()
        return [child.result(timeout=300) for _, child in children]
