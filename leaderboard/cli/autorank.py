"""``mtlb autorank``: WMT's automatic ranking (AutoRank) and its selection of systems for human evaluation."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..errors import InputError
from ._common import add_json_flag, print_json, print_table

if TYPE_CHECKING:  # annotations only: pandas loads inside the functions
    import pandas as pd


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "autorank", help="AutoRank (WMT24/WMT25) from metric scores, and the selection for human evaluation",
        description="Rank systems the way the WMT General MT task does before human evaluation. wmt24: "
                    "MetricX-23-XL and CometKiwi-DA-XL rescaled to 1 + N(x - best)/(worst - best) and averaged. "
                    "wmt25: per metric the mean over the pair's paragraphs, robust-scaled (x - median)/(max - P25), "
                    "averaged over GEMBA-ESA-CMDA, GEMBA-ESA-GPT4.1, MetricX-24-Hybrid-XL, XCOMET-XL and "
                    "CometKiwi-XL (without a reference: not CometKiwi-XL; Bhojpuri and Maasai targets: chrF++ "
                    "alone) and mapped to 1..N. Inputs: system-level CSV files (lp, system, <metric>..., optional "
                    "type) or WMT25 per-document JSONL files (data/automatic_scores/<System>.jsonl), or the "
                    "metric scores stored for a campaign's test set (--campaign).")
    p.add_argument("--protocol", required=True, choices=["wmt24", "wmt25"])
    p.add_argument("--input", nargs="+", action="extend", default=[], metavar="FILE",
                   help="system-level CSV (lp,system,<metric>...[,type]) or WMT25 <System>.jsonl files")
    p.add_argument("--campaign", help="use the metric scores stored for this campaign's test set instead of files")
    p.add_argument("--lp", help="the language pair (default: every pair of the input)")
    p.add_argument("--no-reference", action="store_true",
                   help="the pair has no human reference (wmt25: CometKiwi-XL is left out)")
    p.add_argument("--system-types", metavar="FILE",
                   help="CSV [lp,] system, type (constrained / open-source / closed-system) for --select")
    p.add_argument("--select", action="store_true",
                   help="also choose the systems for human evaluation by the protocol's rule (needs every "
                        "system's type)")
    p.add_argument("--export", metavar="FILE", help="write the table (and the selection) to FILE (.csv or .json)")
    p.add_argument("--human", action="store_true",
                   help="with --campaign: the published human ranking of the pair beside AutoRank")
    p.add_argument("--database-url", help="override DATABASE_URL (with --campaign)")
    add_json_flag(p)
    p.set_defaults(func=run)


def _note(text: str) -> None:
    print(f"mtlb autorank: {text}", file=sys.stderr)


def _read_files(args: argparse.Namespace) -> tuple[pd.DataFrame, pd.DataFrame, list[str], dict[str, list[dict]]]:
    """(values, types, pairs, null scores per pair) from --input."""
    import pandas as pd
    from metrics.autorank import metrics_for
    from metrics.autorank_inputs import combine, read_paragraph_scores, read_system_metrics

    values, types, skipped, documents, nulls = [], [], [], {}, {}
    def wanted(pair: str) -> tuple[str, ...]:
        return metrics_for(args.protocol, pair, not args.no_reference)
    for path in args.input:
        lower = path.lower()
        if lower.endswith((".jsonl", ".jsonl.gz", ".json")):
            frame = read_paragraph_scores(path, args.lp, wanted)
            if frame.empty:
                skipped.append(path)
                continue
            for pair, docs in frame.attrs["documents"].items():
                documents.setdefault(pair, {})[path] = docs
            holes = frame[(frame["null_paragraphs"] > 0) | (frame["null_documents"] > 0)]
            for row in holes.itertuples():
                nulls.setdefault(row.lp, []).append({"system": row.system, "metric": row.metric,
                                                     "null_paragraphs": int(row.null_paragraphs),
                                                     "null_documents": int(row.null_documents),
                                                     "paragraphs_used": int(row.paragraphs)})
            values.append(frame)
        else:
            frame, kinds = read_system_metrics(path)
            if args.lp is not None:
                frame, kinds = frame[frame["lp"] == args.lp], kinds[kinds["lp"] == args.lp]
                if frame.empty:
                    skipped.append(path)
                    continue
            values.append(frame)
            types.append(kinds)
    if skipped and len(skipped) == len(args.input):
        raise InputError(f"no line of the language pair {args.lp!r} in "
                         + ("the file" if len(skipped) == 1 else f"any of the {len(skipped)} files"),
                         file=skipped[0], column="lp")
    if skipped:
        _note(f"{len(skipped)} file(s) have no {args.lp} scores and were left out: {', '.join(skipped)}")
    for pair, per_file in documents.items():
        shapes = {docs for docs in per_file.values()}
        if len(shapes) > 1:
            first = next(iter(per_file))
            odd = [f for f, docs in per_file.items() if docs != per_file[first]]
            _note(f"{pair}: the files do not hold the same documents and paragraph counts (e.g. {odd[0]} differs "
                  f"from {first}); each system's mean is over its own paragraphs")
    combined = combine(values)
    kinds = pd.concat(types, ignore_index=True) if types else pd.DataFrame(columns=["lp", "system", "category"])
    pairs = list(dict.fromkeys(combined["lp"])) if args.lp is None else [args.lp]
    for pair, holes in nulls.items():
        listed = "; ".join(f"{h['system']} {h['metric']}: {h['null_paragraphs']} paragraph(s)"
                           + (f", {h['null_documents']} whole document(s)" if h["null_documents"] else "")
                           for h in holes)
        _note(f"{pair}: null scores left out, each mean is over the paragraphs present ({listed})")
    return combined, kinds, pairs, nulls


def _categories(args: argparse.Namespace, kinds: pd.DataFrame, lp: str, systems: list[str]) -> dict[str, str | None]:
    from metrics.autorank_inputs import read_system_types
    cats = {str(s): c for s, c in zip(kinds.loc[kinds["lp"] == lp, "system"], kinds.loc[kinds["lp"] == lp, "category"])}
    if args.system_types:
        extra = read_system_types(args.system_types)
        for pair, system, cat in zip(extra["lp"], extra["system"], extra["category"]):
            if pair is None or pair == lp:
                cats[str(system)] = cat
    missing = [s for s in systems if cats.get(s) is None]
    if missing:
        raise InputError(f"the selection for human evaluation needs the type of every system; {lp} has none for "
                         f"{', '.join(missing)} (give a type column or --system-types FILE)",
                         file=args.system_types, column="type")
    return cats


def run(args: argparse.Namespace) -> int:
    if bool(args.input) == bool(args.campaign):
        raise InputError("give either --input FILE... or --campaign NAME")
    if args.human and not args.campaign:
        raise InputError("--human needs --campaign (the published human ranking of the stored pair)")
    if args.campaign:
        results = _from_store(args)
    else:
        results = _from_files(args)
    from ..outputs.autorank import contract
    rows = [contract(r, args.select, args.human) for r in results]
    if args.export:
        _export(args.export, rows, results)
    if args.json:
        print_json(rows[0] if len(rows) == 1 else rows)
        return 0
    for result in results:
        _print(result, args.select, args.human)
    return 0


def _from_files(args: argparse.Namespace) -> list[dict]:
    from metrics.autorank import metrics_for, rank_pair
    from metrics.autorank_inputs import metric_table

    values, kinds, pairs, nulls = _read_files(args)
    results = []
    for lp in pairs:
        metrics = metrics_for(args.protocol, lp, not args.no_reference)
        table = metric_table(values, lp, metrics)
        cats = _categories(args, kinds, lp, list(map(str, table.index))) if args.select else None
        try:
            results.append({**rank_pair(args.protocol, lp, table, cats), "null_scores": nulls.get(lp, [])})
        except InputError as exc:
            first = values[values["lp"] == lp].iloc[0]
            raise exc.with_file(str(first["file"])) from None
    return results


def _from_store(args: argparse.Namespace) -> list[dict]:
    from ..outputs.autorank import testset_autorank
    from ..storage import Store

    if args.lp is None:
        raise InputError("--campaign needs --lp (the test set's language pair)")
    result = testset_autorank(Store(args.database_url), args.campaign, args.lp, protocol=args.protocol,
                              include_private=True, reference=False if args.no_reference else None,
                              categories=args.select, human=args.human)
    if result["systems"] is None:
        raise InputError(result["missing"])
    if args.select and any(row["category"] is None for row in result["selection"] or []):
        unknown = [row["system"] for row in result["selection"] if row["category"] is None]
        _note(f"no constrained/open-source flag for {', '.join(unknown)}: treated as closed")
    return [result]


def _export(path: str, rows: list[dict], results: list[dict]) -> None:
    from pathlib import Path

    from ..jsonable import json_text
    from ..tables import write_table
    if Path(path).suffix.lower() == ".json":
        Path(path).write_text(json_text(rows[0] if len(rows) == 1 else rows) + "\n", encoding="utf-8")
    else:
        from ..outputs.autorank import flat_table
        write_table(flat_table(rows), path)


def _print(result: dict, select: bool, human: bool) -> None:
    from ..outputs.autorank import contract, flat_table
    frame = flat_table([contract(result, select, human)]).drop(columns=["lp"])
    metrics = list(result["systems"][0]["metrics"]) if result["systems"] else []
    print(f"{result['lp']}: AutoRank ({result['protocol']}) over {', '.join(metrics)}")
    print_table(frame, floatfmt="{:.4f}")
    for hole in result.get("null_scores") or []:
        print(f"null scores left out: {hole['system']} {hole['metric']}: {hole['null_paragraphs']} paragraph(s)"
              + (f" ({hole['null_documents']} whole document(s))" if hole["null_documents"] else ""))
    if select and result.get("selection"):
        chosen = sum(bool(r["human_eval"]) for r in result["selection"])
        print(f"selected for human evaluation: {chosen} of {len(result['selection'])}")
    print()
