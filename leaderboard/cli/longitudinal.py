"""``mtlb longitudinal``: compare language pairs across years / campaigns (Graham et al. 2014;
docs/method/longitudinal.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..errors import InputError
from ._common import add_json_flag, print_json, print_table


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "longitudinal", help="compare a language pair across years with test-set calibration (Graham et al. 2014)",
        description="Compare each language pair from one year (campaign) to the next: each year's best "
                    "system, the systems present in both years (matched by name without the trailing "
                    "'.N' index), raw differences with Mann-Whitney U significance stars, and the "
                    "calibrated gain (docs/method/longitudinal.md#the-gain) when --calibration names a "
                    "fixed benchmark system judged in both years: gain = (BEST_to - BEST_from) + (CURR_from - CURR_to). Whatever "
                    "--calibration says, every comparison also gives the gain with each system judged in "
                    "both years as the anchor (JSON: comparisons[].anchors, with signs_disagree true when "
                    "the anchor decides whether the best system improved).",
        epilog="Example (wmt21 -> wmt22, as in the README): mtlb longitudinal "
               "--year 2021=wmt21-toen-da/ad-csen-good-stnd.csv:"
               "wmt21-toen-da/ad-csen-trk-mean-sd.txt "
               "--year 2022=wmt22-toen-da/ad-csen-good-stnd.csv:"
               "wmt22-toen-da/ad-csen-trk-mean-sd.txt --lp cs-en --calibration Online-B --json")
    p.add_argument("--year", action="append", required=True, metavar="LABEL=FILE[:WORKER_STATS]",
                   help="judgments of one year (any format of mtlb ingest; for the WMT release append "
                        "':' and the worker mean/sd file), the JSON of 'mtlb rank --json', or the organisers' "
                        "published tables (WMT23.results.txt; these two without significance tests). Repeat the option for more files or years; years are "
                        "compared in the order first given.")
    p.add_argument("--metrics", action="append", default=[], metavar="LABEL=FILE",
                   help="automatic metric scores of a year: the WMT metrics TSV (metric lp testset refset "
                        "system score), a table with system / metric / score columns, or 'mtlb score --json'")
    p.add_argument("--lp", action="append", metavar="LP", help="only these language pairs (repeatable)")
    p.add_argument("--calibration", metavar="SYSTEM|FROM=TO",
                   help="fixed benchmark system judged in both years (name without '.N' or FROM=TO)")
    p.add_argument("--match", action="append", default=[], metavar="FROM=TO",
                   help="pair two differently named systems (overrides name matching); FROM= unpairs FROM")
    p.add_argument("--best-by", choices=["z", "raw"], default="z",
                   help="order that names each year's best system (default: Ave z, the WMT19-22 order)")
    p.add_argument("--alternative", choices=["one-sided", "two-sided"], default="one-sided",
                   help="Mann-Whitney U alternative (default one-sided, towards the higher mean)")
    p.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                   help="never name these systems best (e.g. 'HUMAN*' for human translations)")
    p.add_argument("--input-format", help="skip format detection for judgment files")
    add_json_flag(p)
    p.set_defaults(func=run)


def split_label(text: str, option: str) -> tuple[str, str]:
    label, sep, rest = text.partition("=")
    if not sep or not label.strip() or not rest.strip():
        raise InputError(f"{option} expects LABEL=FILE, got {text!r}")
    return label.strip(), rest.strip()


def split_stats(spec: str) -> tuple[str, str | None]:
    """``FILE[:WORKER_STATS]``; a path that exists as given is never split."""
    if Path(spec).exists() or ":" not in spec:
        return spec, None
    path, _, stats = spec.rpartition(":")
    return path, stats or None


def parse_matches(items: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        left, sep, right = item.partition("=")
        if not sep or not left.strip():
            raise InputError(f"--match expects FROM=TO (or FROM= to unpair), got {item!r}")
        if left.strip() in out:
            raise InputError(f"--match gives {left.strip()!r} twice")
        out[left.strip()] = right.strip()
    return out


def run(args: argparse.Namespace) -> int:
    import pandas as pd
    from ..ingest import read_judgments
    from ..ingest.rankings import is_json, is_published_results, read_metric_scores, read_rankings
    from ..human.longitudinal import longitudinal, years_from_frame, years_from_rankings
    from ..schema import concat_judgments

    order: list[str] = []
    frames: dict[str, list[pd.DataFrame]] = {}
    rankings: dict[str, list[dict]] = {}
    for item in args.year:
        label, spec = split_label(item, "--year")
        if label not in order:
            order.append(label)
        path, stats = split_stats(spec)
        if stats is None and is_published_results(path):  # the organisers' own tables (WMT23.results.txt)
            from ..ingest.wmt23_results import read_wmt23_results
            from ..publish.published_tables import results_rankings
            rankings.setdefault(label, []).extend(results_rankings(read_wmt23_results(path), path))
        elif is_json(path) and stats is None:
            found = read_rankings(path)
            try:
                years_from_rankings(label, found)  # checked file by file, so an error names its file
            except InputError as exc:
                raise exc.with_file(path) from None
            rankings.setdefault(label, []).extend(found)
        else:
            frames.setdefault(label, []).append(read_judgments(path, args.input_format, worker_stats=stats))
    metrics: dict[str, list[pd.DataFrame]] = {}
    for item in args.metrics:
        label, path = split_label(item, "--metrics")
        if label not in order:
            raise InputError(f"--metrics names year {label!r}, which no --year gives")
        metrics.setdefault(label, []).append(read_metric_scores(path))

    years = []
    for label in order:
        data = {}
        if label in rankings:
            data.update(years_from_rankings(label, rankings[label]))
        if label in frames:
            frame = concat_judgments(frames[label]) if len(frames[label]) > 1 else frames[label][0]
            data.update(years_from_frame(label, frame))
        if label in metrics:
            table = pd.concat(metrics[label], ignore_index=True)
            for year in data.values():
                year.metrics = table
        years.append((label, data))

    result = longitudinal(years, lps=args.lp, calibration=args.calibration,
                          overrides=parse_matches(args.match), best_by=args.best_by,
                          alternative=args.alternative, exclude=args.exclude)
    if args.json:
        print_json(result)
    else:
        print_report(result)
    return 0


def _fmt(v: Any, digits: int = 2) -> str:
    return "" if v is None else f"{v:+.{digits}f}" if isinstance(v, float) else str(v)


def print_report(result: dict) -> None:
    """Human-readable summary of :func:`leaderboard.human.longitudinal.longitudinal`."""
    import pandas as pd
    for track in result["tracks"]:
        print(f"== {track['lp']} ({track['assessment']}): best system per year (by {result['best_by']})")
        print_table(pd.DataFrame([{"year": y["label"], "campaign": y["campaign"], **(y["best"] or {})}
                                  for y in track["years"]]), floatfmt="{:.3f}")
        print()
    for comp in result["comparisons"]:
        print(f"== {comp['lp']} ({comp['assessment']}): {comp['from']} -> {comp['to']}")
        best = comp["best"]
        if best.get("raw"):
            print(f"best: {best['from']['system']} -> {best['to']['system']}, raw difference "
                  f"{_fmt(best['raw']['difference'])} {best['raw']['stars']}")
        rows = []
        for s in comp["shared_systems"]:
            rows.append({"system": s["name"], f"rank {comp['from']}": s["from"]["rank"],
                         f"Ave {comp['from']}": s["from"]["ave"], f"rank {comp['to']}": s["to"]["rank"],
                         f"Ave {comp['to']}": s["to"]["ave"], "raw diff": s["raw"]["difference"],
                         "sig": s["raw"]["stars"], "gain if benchmark": s.get("gain_if_benchmark")})
        print("systems in both years:")
        print_table(pd.DataFrame(rows), floatfmt="{:.2f}")
        print(comp["statement"] + (" Name one with --calibration." if comp.get("calibration") is None else ""))
        cal = comp.get("calibration")
        if cal and cal.get("raw"):
            r = cal["raw"]
            print(f"calibrated gain (raw): delta {_fmt(r['delta'])} {r['delta_stars']}, best difference "
                  f"{_fmt(r['best_difference'])} {r['best_difference_stars']}, gain {_fmt(r['gain'])}")
        anchors = comp.get("anchors") or {}
        if anchors.get("anchors"):
            print("calibrated gain (raw) with each possible anchor (the system assumed unchanged): "
                  + ", ".join(f"{r['anchor']} {_fmt(r['gain'])}" for r in anchors["anchors"]))
        if anchors.get("statement"):
            print("warning: " + anchors["statement"])
        for metric, m in (comp.get("metrics") or {}).items():
            line = f"{metric}: best {_fmt(m['best_from'])} -> {_fmt(m['best_to'])}"
            if m.get("calibration"):
                line += f", calibrated gain {_fmt(m['calibration']['gain'])}"
            print(line)
        print()
    for note in result["notes"]:
        print(f"note: {note}", file=sys.stdout)
    print("note: map two differently named systems with --match FROM=TO.", file=sys.stdout)
