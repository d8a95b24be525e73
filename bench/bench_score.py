"""Scoring time: every WMT22 cs-en system with BLEU and chrF against both references (sacrebleu).

Prints one JSON object: reading time, per-metric corpus time, and with ``--segments`` the time of
the per-segment pass. Usage: python bench/bench_score.py [--lp cs-en] [--segments] [--data DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import sacrebleu

from metrics.scoring import score_systems
from metrics.textfiles import expand_paths, read_aligned, system_name

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "wmt22-general"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lp", default="cs-en")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--segments", action="store_true", help="also time per-segment scores")
    args = parser.parse_args()
    if not args.data.is_dir():
        print(json.dumps({"error": f"{args.data} not found"}))
        return 1
    t0 = time.perf_counter()
    hyp_files = expand_paths([args.data / "system-outputs"], args.lp, "hyp")
    ref_files = expand_paths([args.data / "references"], args.lp, "ref")
    texts = read_aligned([*ref_files, *hyp_files])
    refs = texts[:len(ref_files)]
    hyps = {system_name(f): t for f, t in zip(hyp_files, texts[len(ref_files):])}
    read_s = time.perf_counter() - t0
    result = {"bench": "score", "lp": args.lp, "systems": len(hyps), "segments": len(refs[0]),
              "references": len(refs), "sacrebleu": sacrebleu.__version__, "read_s": round(read_s, 3)}
    total = 0.0
    for metric in ("bleu", "chrf"):
        t = time.perf_counter()
        score_systems(hyps, refs, metric, segments=args.segments)
        elapsed = time.perf_counter() - t
        total += elapsed
        result[f"{metric}_s"] = round(elapsed, 3)
        result[f"{metric}_s_per_system"] = round(elapsed / len(hyps), 3)
    result["with_segments"] = args.segments
    result["total_s"] = round(total + read_s, 3)
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
