"""``mtlb submit``: validate (and store) a metric developer's system- or segment-level scores."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING
import json

from ..errors import InputError
from ._common import add_json_flag, print_json, print_table

if TYPE_CHECKING:  # annotations only: pandas loads inside the functions
    import pandas as pd

_Z_KEYS = ("z", "ave_z", "Ave z", "z_mean", "Z.SCR")


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
                   help="an aligned text file of the test set (source or reference): segment ids are 1..lines")
    add_json_flag(p)
    p.set_defaults(func=run)


def _walk_json(obj, lp: str | None, out: list[tuple[str | None, str, float]]) -> None:
    """Collect (lp, system, Ave z or NaN) from a ranking JSON of any reasonable shape."""
    if isinstance(obj, list):
        for item in obj:
            _walk_json(item, lp, out)
        return
    if not isinstance(obj, dict):
        return
    lp = obj.get("lp", lp) if isinstance(obj.get("lp", lp), (str, type(None))) else lp
    if "system" in obj and isinstance(obj["system"], str):
        z = next((obj[k] for k in _Z_KEYS if isinstance(obj.get(k), (int, float))), float("nan"))
        out.append((lp, obj["system"], float(z)))
        return
    for key, value in obj.items():
        if key == "systems" and isinstance(value, dict):
            for name, inner in value.items():
                if isinstance(inner, dict):
                    z = next((inner[k] for k in _Z_KEYS if isinstance(inner.get(k), (int, float))), float("nan"))
                    out.append((lp, name, float(z)))
                else:
                    out.append((lp, name, float("nan")))
        elif isinstance(value, (list, dict)):
            _walk_json(value, lp, out)


def _campaign_from_file(path: str, lp: str | None) -> tuple[dict[str, set[str]], pd.DataFrame | None]:
    """Systems per lp and human Ave z (lp, system, z) from --systems-from."""
    import pandas as pd
    from metrics.submissions import human_system_scores
    from ..ingest import read_judgments
    from ..ingest.textio import read_text

    text = read_text(path)
    first = text.lstrip().split("\n", 1)[0]
    if text.lstrip().startswith(("{", "[")):
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON: {exc.msg}", file=path, line=exc.lineno) from None
        found: list[tuple[str | None, str, float]] = []
        _walk_json(obj, None, found)
        frame = pd.DataFrame(found, columns=["lp", "system", "z"])
        if lp is not None:
            frame["lp"] = frame["lp"].fillna(lp)
        if frame.empty or frame["lp"].isna().any():
            raise InputError("found no systems with a language pair in this JSON (give --lp when it has none)",
                             file=path)
        frame = frame.drop_duplicates(["lp", "system"])
    elif {"SYS", "Z.SCR"} <= set(first.split()):
        if lp is None:
            raise InputError("a WMT system-score file names no language pair; give --lp", file=path)
        raw = pd.read_csv(path, sep=r"\s+")
        frame = pd.DataFrame({"lp": lp, "system": raw["SYS"].astype(str), "z": raw["Z.SCR"].astype(float)})
    else:
        judgments = read_judgments(path, lp=lp)
        frame = human_system_scores(judgments)
        systems = judgments.loc[judgments["item_type"] == "SYSTEM"].groupby("lp", observed=True)["system"]
        return {str(k): set(map(str, v)) for k, v in systems.unique().items()}, (frame if len(frame) else None)
    systems = {str(k): set(v) for k, v in frame.groupby("lp")["system"]}
    human = frame.dropna(subset=["z"])
    return systems, (human if len(human) else None)


def _campaign_from_store(store, campaign: str, lp: str | None):
    """Systems per lp from the stored judgments; pairs without judgments take the systems of the
    test set's automatic leaderboard (so scores for AutoRank can be stored before any human judgment)."""
    from metrics.submissions import human_system_scores
    from ..outputs.autorank import board_systems
    judgments = store.judgments(campaign, lp)
    boards = board_systems(store, campaign, lp)
    if judgments.empty:
        if not boards:
            raise InputError(f"campaign {campaign!r} has no stored judgments and no test set submissions"
                             + (f" for {lp}" if lp else "") + "; give --systems-from")
        return boards, None
    systems = judgments.loc[judgments["item_type"] == "SYSTEM"].groupby("lp", observed=True)["system"].unique()
    human = human_system_scores(judgments)
    found = {str(k): set(map(str, v)) for k, v in systems.items()}
    return {**boards, **found}, (human if len(human) else None)


def run(args: argparse.Namespace) -> int:
    import pandas as pd
    from metrics.submissions import listed, read_submission, validate_submission, with_campaign_names
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
            systems, human = _campaign_from_file(args.systems_from, args.lp)
        elif args.campaign:
            from ..storage import Store
            store = Store(args.database_url)
            systems, human = _campaign_from_store(store, args.campaign, args.lp)
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

    marks = None
    if args.campaign:
        from ..storage.marks import human_marks
        marks = human_marks(store, args.campaign)
    summary = validate_submission(frame, systems, segments, higher, human, file=label, human_systems=marks,
                                  earlier=problems)
    frame = with_campaign_names(frame, summary["names"])  # stored as the campaign names its systems

    stored: list[int] = []
    if args.campaign:
        from ..storage import Store
        store = store or Store(args.database_url)
        # every metric of the file in one transaction: all stored or none
        stored = store.save_metric_submissions(args.campaign, frame, level=level, higher_is_better=higher)
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
