"""Allocation rules for dynamic assignment: decision time, one simulated run, and the comparison.

Three parts, each printed as one JSON object (docs/method/allocation.md holds the table):

* ``decision``: milliseconds per decision of each rule (``choose``) on a campaign of 40 models with
  50,000 stored answers (scores), and the time to build the rule's state from those answers with
  numpy (what the service does from its store), median of 200 decisions.
* ``one_run``: seconds (wall and CPU) for one simulated 20-system campaign under each rule, until
  its reported test recovers the true top cluster (or its judgment cap).
* ``compare``: ``mtlb allocation-sim`` for each seed and size given (judgments_95 and false-claim
  rates per rule and test); with ``--out DIR`` each result is also written to
  ``DIR/allocation-<systems>-seed<seed>.json``.

* ``table``: the markdown table of docs/method/allocation.md from the comparison files.

Usage: python bench/bench_allocation.py [decision] [one_run] [compare --systems 20 40 --seeds 1 2
--runs 200 --out bench/results [--rules race]] [table]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from leaderboard.human.allocation import AllocationState, get_rule
from leaderboard.human.allocation_sim import compare_rules, simulate_rule
from leaderboard.human.cesa_sim import make_scenario

RULES = ("uniform", "running-rank", "race")


def state_from_answers(n_items: int, models: int, answers: int, rng: np.random.Generator) -> tuple[AllocationState, float]:
    """A campaign state built from ``answers`` stored scores the way the service would (one array per
    column of its answers table: item, model, page, score), and the seconds the build took."""
    k, seg_per_item = 3, 4
    pages = answers // (k * seg_per_item)
    item = rng.integers(0, n_items, pages)
    shown = np.argsort(rng.random((pages, models)), axis=1)[:, :k]
    score = np.clip(np.round(rng.normal(88, 14, (pages, k, seg_per_item))), 0, 100)
    t = time.perf_counter()
    cell = (item[:, None] * models + shown).ravel()
    counts = np.bincount(cell, minlength=n_items * models).reshape(n_items, models)
    per_model = score.reshape(pages * k, seg_per_item)
    flat = shown.ravel()
    n = np.bincount(flat, minlength=models) * seg_per_item
    sums = np.bincount(flat, per_model.sum(axis=1), minlength=models)
    sumsq = np.bincount(flat, (per_model ** 2).sum(axis=1), minlength=models)
    page_mean = score.mean(axis=2)
    size = models * models
    pair_n = np.zeros(size)
    pair_sum = np.zeros(size)
    pair_sumsq = np.zeros(size)
    for i, j in ((0, 1), (0, 2), (1, 2)):
        a, b, d = shown[:, i], shown[:, j], page_mean[:, i] - page_mean[:, j]
        for cell, sign in ((a * models + b, 1.0), (b * models + a, -1.0)):
            pair_n += np.bincount(cell, minlength=size)
            pair_sum += np.bincount(cell, sign * d, minlength=size)
            pair_sumsq += np.bincount(cell, d * d, minlength=size)
    pair_n, pair_sum, pair_sumsq = (x.reshape(models, models) for x in (pair_n, pair_sum, pair_sumsq))
    state = AllocationState(
        models=tuple(f"m{i}" for i in range(models)), item_model_counts=counts, model_counts=n.astype(float),
        model_sums=sums, model_sumsq=sumsq, coldstart_items=np.arange(n_items) < 40,
        eligible_items=np.ones(n_items, bool), slot_cap=2, pair_counts=pair_n, pair_sums=pair_sum,
        pair_sumsq=pair_sumsq, pair_decided=np.zeros((models, models), bool),
        item_sizes=np.full(n_items, seg_per_item))
    return state, time.perf_counter() - t


def bench_decision(models: int = 40, answers: int = 50_000, items: int = 600, repeats: int = 200) -> dict:
    rng = np.random.default_rng(1)
    state, build = state_from_answers(items, models, answers, rng)
    out = {"bench": "allocation-decision", "models": models, "answers": answers, "items": items,
           "build_state_ms": round(build * 1000, 2), "rules": {}}
    for name in RULES:
        rule = get_rule(name, coldstart=1) if name != "uniform" else get_rule(name)
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            rule.choose(state, 3, rng)
            times.append(time.perf_counter() - t)
        out["rules"][name] = {"median_ms": round(1000 * float(np.median(times)), 3),
                              "p95_ms": round(1000 * float(np.quantile(times, 0.95)), 3),
                              "max_ms": round(1000 * float(np.max(times)), 3)}
    out["load_average"] = [round(x, 2) for x in os.getloadavg()]
    return out


def bench_one_run(systems: int = 20, seed: int = 1) -> dict:
    sc = make_scenario(systems, seed)
    out = {"bench": "allocation-one-run", "systems": systems, "seed": seed, "rules": {}}
    for name in RULES:
        rule = get_rule(name)
        t, cpu = time.perf_counter(), time.process_time()
        res = simulate_rule(sc, rule, 1, seed, confirm=0.0, patience=1.0)
        seconds, cpu = time.perf_counter() - t, time.process_time() - cpu
        out["rules"][name] = {"seconds": round(seconds, 2), "cpu_seconds": round(cpu, 2),
                              "pages": int(res.pages[-1]), "judgments": int(res.judgments[-1, 0]),
                              "stopped": res.stopped}
    out["load_average"] = [round(x, 2) for x in os.getloadavg()]
    return out


def _merge(previous: dict, res: dict, rules: tuple[str, ...]) -> dict:
    """``res`` (some rules) completed with the other rules of ``previous`` (same scenario and runs),
    the ratios to running-rank recomputed; ``rerun`` / ``kept`` say which rule came from where."""
    if previous.get("scenario") != res["scenario"] or previous.get("runs") != res["runs"]:
        raise SystemExit("--rules with --out: the previous file has another scenario or number of runs")
    kept = [name for name in previous["rules"] if name not in rules]
    merged = dict(res, rules={name: previous["rules"][name] if name in kept else res["rules"][name]
                              for name in list(RULES) + [r for r in res["rules"] if r not in RULES]
                              if name in kept or name in res["rules"]})
    reference = merged["rules"].get("running-rank", {}).get("by_test", {})
    for rule in merged["rules"].values():
        mine = rule["judgments_95"]
        rule["vs_running_rank"] = {
            test: (round(mine / reference[test]["judgments_95"], 3)
                   if mine and reference.get(test, {}).get("judgments_95") else None)
            for test in ("wmt26", "wmt26-calibrated")}
    merged["rerun"], merged["kept"] = list(rules), kept
    merged["command"] = previous.get("command", res["command"])
    return merged


def bench_compare(systems: list[int], seeds: list[int], runs: int, out_dir: str | None,
                  rules: tuple[str, ...] = RULES) -> list[dict]:
    """``mtlb allocation-sim`` per size and seed. With ``rules`` a subset and ``out_dir`` holding the
    previous comparison of the same scenario and runs, the other rules' entries are kept from it
    (a rule's simulation does not depend on the others: the same seed gives the same numbers)."""
    results = []
    for n in systems:
        for seed in seeds:
            t = time.perf_counter()
            res = compare_rules(rules, n, runs, seed)
            res["bench"] = "allocation-compare"
            res["seconds"] = round(time.perf_counter() - t, 1)
            res["command"] = (f"mtlb allocation-sim --rules {' '.join(RULES)} --systems {n} --runs {runs} "
                              f"--seed {seed} --json")
            res["load_average"] = [round(x, 2) for x in os.getloadavg()]
            path = Path(out_dir) / f"allocation-{n}-seed{seed}.json" if out_dir else None
            if set(rules) != set(RULES) and path is not None and path.exists():
                res = _merge(json.loads(path.read_text(encoding="utf-8")), res, rules)
            results.append(res)
            print(json.dumps(res), flush=True)
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    return results


def table(results_dir: str) -> str:
    """The method docs' table (markdown) from the comparison files in ``results_dir``."""
    rows = ["| systems | seed | runs | rule | test | judgments_95 | false-claim rate | "
            "× running-rank (WMT26) | × running-rank (calibrated) |",
            "|---|---|---|---|---|---|---|---|---|"]
    files = sorted(Path(results_dir).glob("allocation-*-seed*.json"),
                   key=lambda p: tuple(int(x) for x in p.stem.replace("allocation-", "").split("-seed")))
    for path in files:
        res = json.loads(path.read_text(encoding="utf-8"))
        rr = res["rules"].get("running-rank", {}).get("by_test", {})
        ref_raw = rr.get("wmt26", {}).get("judgments_95")
        ref_cal = rr.get("wmt26-calibrated", {}).get("judgments_95")
        for name, rule in res["rules"].items():
            for test, s in rule["by_test"].items():
                if test == "wmt26-calibrated":
                    label = f"WMT26 at α = {s['alpha']:g} (calibrated)"
                elif test == "wmt26":
                    label = "WMT26"
                else:
                    label = "anytime paired"
                if test == rule["test"]:
                    label = f"**{label}**"
                j = s["judgments_95"]
                ratio = (lambda ref: f"{j / ref:.2f}" if j and ref else "–")
                rows.append(f"| {res['scenario']['systems']} | {res['seed']} | {res['runs']} | {name} | {label} | "
                            f"{j if j is not None else 'not reached'} | {s['false_claim_rate']:.3f} | "
                            f"{ratio(ref_raw)} | {ratio(ref_cal)} |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("parts", nargs="*", default=["decision", "one_run"],
                        choices=["decision", "one_run", "compare", "table"])
    parser.add_argument("--systems", type=int, nargs="+", default=[20, 40])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--rules", nargs="+", default=list(RULES), choices=list(RULES),
                        help="compare: rules to simulate (the others are kept from the files in --out)")
    parser.add_argument("--out", metavar="DIR", help="also write each comparison to DIR")
    args = parser.parse_args()
    if "decision" in args.parts:
        print(json.dumps(bench_decision()), flush=True)
    if "one_run" in args.parts:
        print(json.dumps(bench_one_run()), flush=True)
    if "compare" in args.parts:
        bench_compare(args.systems, args.seeds, args.runs, args.out, tuple(args.rules))
    if "table" in args.parts:
        print(table(args.out or str(Path(__file__).parent / "results")))


if __name__ == "__main__":
    main()
