"""``mtlb submit``: validate (and store) a metric developer's system- or segment-level scores."""

from __future__ import annotations

import argparse

from ..errors import InputError
from ._common import add_json_flag, print_json, print_table


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "submit", help="validate and store metric scores (WMT Metrics TSV or canonical CSV)",
        description="Read metric scores (WMT TSV: metric lp testset [refset|doc] system [seg-id] score, no header; "
                    "or CSV with header metric, lp, system, [segment], score), check them against the campaign "
                    "(systems, segments, completeness, NaN, duplicates, direction flag) and store them when "
                    "--campaign names a stored campaign. Nothing is stored when any check fails.")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--lp", help="keep only this language pair's rows (others are ignored)")
    p.add_argument("--metric", help="keep only this metric's rows (a file may hold several metrics)")
    p.add_argument("--level", choices=["system", "segment"], help="default: detected from the file")
    p.add_argument("--lower-is-better", action="store_true", help="lower scores mean better translations")
    p.add_argument("--campaign", help="the stored campaign to check against and store into")
    p.add_argument("--database-url", help="override DATABASE_URL")
    p.add_argument("--systems-from", metavar="FILE",
                   help="the campaign's systems (and human scores) from a `mtlb rank --json` output, a WMT "
                        "ad-sys-scores file (needs --lp) or a judgments file, instead of the store")
    p.add_argument("--segments-from", metavar="FILE",
                   help="an aligned text file of the test set (source or reference): segment ids are 1..lines "
                        "(with --campaign, default: the lines of the campaign's stored test set, as the Metrics "
                        "page checks them)")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import pandas as pd
    from metrics.submissions import listed, read_submission, validate_submission
    from metrics.textfiles import read_segments

    # bad rows (empty fields, scores that are not numbers) are reported with every other problem of the
    # file, not before the campaign check: `problems` collects them and the validation lists them all
    problems: list[InputError] = []
    frame = read_submission(args.file, level=args.level, problems=problems)
    label = args.file
    for col, value in (("lp", args.lp), ("metric", args.metric)):
        if value is not None:
            keep = frame[col] == value
            if not keep.any():
                found = ", ".join(sorted(frame[col].dropna().unique())[:10])
                raise InputError(f"no rows with {col} {value!r}; the file holds {found}", file=label, column=col)
            ignored = set(frame.loc[~keep, "line"])  # rows of other pairs (metrics) are ignored, problems too
            problems = [p for p in problems if p.line not in ignored]
            frame = frame[keep]
    level = "segment" if frame["segment"].notna().any() else "system"
    higher = not args.lower_is_better

    store = None
    try:
        if args.systems_from:
            from metrics.submissions import read_human_systems
            systems, human = read_human_systems(args.systems_from, args.lp)
        elif args.campaign:
            from ..storage import Store
            from ..usecases.metric_scores import campaign_systems
            store = Store(args.database_url)
            systems, human = campaign_systems(store, args.campaign, args.lp)
        else:
            raise InputError("give --campaign (a stored campaign) or --systems-from FILE to check the systems "
                             "against")
    except InputError:
        if problems:  # no campaign to check against: the file's own problems come first, as they always did
            raise listed(problems, label, "problems in the file (nothing was stored)") from None
        raise
    if args.lp is not None:
        systems = {k: v for k, v in systems.items() if k == args.lp}
    segments = None
    if args.segments_from:
        n = len(read_segments(args.segments_from))
        segments = {lp: {str(i) for i in range(1, n + 1)} for lp in frame["lp"].unique()}

    stored: list[int] = []
    if args.campaign:
        from ..usecases.metric_scores import store_metric_scores, stored_segment_ids
        if segments is None:
            segments = stored_segment_ids(store, args.campaign, frame)
        summary, stored = store_metric_scores(store, args.campaign, frame, systems,
                                              level=level, higher_is_better=higher, human=human,
                                              segments=segments, file=label, earlier=problems)
    else:
        summary = validate_submission(frame, systems, segments, higher, human, file=label, earlier=problems)
    result = {"file": label, "level": level, "higher_is_better": higher, "rows": summary["rows"],
              "groups": summary["groups"], "names": summary["names"],
              "humans_not_scored": summary["humans_not_scored"], "stored": stored if args.campaign else None}
    if args.json:
        print_json(result)
        return 0
    table = pd.DataFrame(summary["groups"])[["metric", "lp", "systems", "segments", "rows", "pearson_human", "n_human"]]
    print(f"{label}: {summary['rows']} {level}-level scores, "
          f"{'higher' if higher else 'lower'} is better — valid")
    print_table(table, floatfmt="{:.3f}")
    for lp, renamed in summary["names"].items():
        if renamed:
            print(f"{lp}: names matched without their .N index: "
                  + ", ".join(f"{a} -> {b}" for a, b in sorted(renamed.items())))
    for lp, humans in summary["humans_not_scored"].items():
        print(f"{lp}: human translation(s) not scored (not required): {', '.join(humans)}")
    if args.campaign:
        print(f"stored as submission(s) {', '.join(map(str, stored))} in campaign {args.campaign!r}")
    else:
        print("(not stored: give --campaign to store)")
    return 0
