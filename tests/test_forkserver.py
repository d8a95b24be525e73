"""The fork server the concurrency tests start their processes from (tests/forkserver.py) behaves like
``subprocess``: its own process per command, argv and environment as given, output captured, the exit
code of ``sys.exit`` or an uncaught exception, -N for a signal; a CLI error exits 2 as ``mtlb`` does."""

from __future__ import annotations

import os
import signal

from forkserver import ForkServer, run_together

PROBE = ("import os, sys\nprint(os.getpid(), os.getppid(), *sys.argv[1:])\nprint(os.environ['PROBE'], file=sys.stderr)\n"
         "sys.exit(int(sys.argv[1]))\n")


def test_children_are_processes_of_their_own_with_argv_env_output_and_exit_codes(tmp_path):
    with ForkServer({**os.environ, "PROBE": "server"}, preload=("json",)) as server:
        kids = [server.spawn([str(code), "x y"], code=PROBE, env={"PROBE": f"child{code}"}) for code in (0, 3)]
        results = [kid.result(timeout=60) for kid in kids]
        assert [r.returncode for r in results] == [0, 3]
        pids = {int(r.stdout.split()[0]) for r in results}
        assert len(pids) == 2 and os.getpid() not in pids
        assert [r.stdout.split()[2:] for r in results] == [["0", "x", "y"], ["3", "x", "y"]]
        assert [r.stderr.strip() for r in results] == ["child0", "child3"]
        crash = server.spawn([], code="raise KeyError('boom')").result(timeout=60)
        assert crash.returncode == 1 and "KeyError: 'boom'" in crash.stderr
        sleeper = server.spawn([], code="import time\ntime.sleep(60)")
        assert sleeper.poll() is None
        sleeper.send_signal(signal.SIGKILL)
        assert sleeper.wait(timeout=30) == -signal.SIGKILL


def test_run_together_runs_mtlb_commands(tmp_path):
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 's.sqlite'}"}
    ok, refused = run_together([["campaigns", "--json"], ["rank", "--input", str(tmp_path / "missing.csv")]],
                               tmp_path, env)
    assert ok.returncode == 0 and ok.stdout.strip() == "[]"
    assert refused.returncode == 2 and "missing.csv" in refused.stderr and "Traceback" not in refused.stderr
