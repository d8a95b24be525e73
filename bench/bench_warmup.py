"""What `mtlb serve`'s warm-up buys: every page run twice in one process on the demo store.

The first round pays for the imports and fills the page caches; the second finds them, as the first
visitor of a warmed server does. Prints one JSON object with the seconds per page of both rounds and
their totals. Usage: python bench/bench_warmup.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TWICE = """
import json
from leaderboard.webapp.warmup import warm_up
print(json.dumps([warm_up(), warm_up()]))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--keep", type=Path, help="build the demo store here (default: a temporary folder)")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench-warmup-"))
    env = {**os.environ, "MTLB_DATA_DIR": str(folder), "MTLB_NO_DEMO": "1"}
    env.pop("DATABASE_URL", None)
    subprocess.run([sys.executable, "-m", "leaderboard.cli", "demo", "--no-accounts"], env=env, cwd=ROOT,
                   check=True, capture_output=True)
    done = subprocess.run([sys.executable, "-c", TWICE], env=env, cwd=ROOT, check=True, capture_output=True, text=True)
    first, second = json.loads(done.stdout.strip().splitlines()[-1])
    pages = {p: {"first": round(first[p]["seconds"], 3), "second": round(second[p]["seconds"], 3),
                 "errors": first[p]["errors"] + second[p]["errors"]} for p in first}
    total = [round(sum(r["seconds"] for r in rnd.values()), 3) for rnd in (first, second)]
    print(json.dumps({"bench": "warmup", "pages": pages, "first_seconds": total[0], "second_seconds": total[1],
                      "second_over_first": round(total[1] / total[0], 3) if total[0] else None}))


if __name__ == "__main__":
    main()
