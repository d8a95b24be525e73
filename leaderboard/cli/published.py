"""``mtlb published``: list published ranking versions or export one as JSON, LaTeX or CSV."""

from __future__ import annotations

import argparse
import sys

from ._common import add_store_flags, print_json, print_table


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("published", help="list or export published rankings (read-only)",
                       description="Without --lp, list every published version of the campaign(s). With "
                                   "--lp, print that ranking (latest version unless --version) as JSON, "
                                   "a LaTeX table or CSV. The stored hash is verified on every read. The list is "
                                   "fitted to the terminal's width (long cells cut with '…', no data hash); "
                                   "--json gives every field whole.")
    p.add_argument("--campaign")
    p.add_argument("--lp")
    p.add_argument("--assessment", default="adequacy")
    p.add_argument("--version", type=int)
    p.add_argument("--format", choices=["json", "latex", "csv", "segments"], default="json",
                   help="segments: the ranking's per-(system, segment) human scores as CSV (system,segment,raw,z,n: "
                        "after its worker QC and standardisation, as the System and Metrics pages use them; "
                        "mtlb correlate --human-segments reads it)")
    add_store_flags(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import pandas as pd

    from ..publish.render import ranking_table, ranking_to_latex
    from ..storage import Store
    from ..tables import write_table

    store = Store(args.database_url)
    if not args.lp:
        listing = store.snapshots(args.campaign)
        if args.json:
            print_json(listing.assign(published_at=listing["published_at"].astype(str)))
        else:  # fitted to the terminal: long signatures and notes are cut, no data hash (--json has all)
            when = pd.to_datetime(listing["published_at"], utc=True, errors="coerce")
            shown = listing.assign(published_at=when.dt.strftime("%Y-%m-%d %H:%M"))
            print_table(shown[["campaign", "lp", "assessment", "version", "published_at", "published_by",
                               "signature", "note"]], fit=True)
        return 0
    if not args.campaign:
        raise SystemExit("mtlb published: --lp needs --campaign")
    snap = store.snapshot(args.campaign, args.lp, args.assessment, args.version)
    if args.format == "latex" and not args.json:
        sys.stdout.write(ranking_to_latex(snap["ranking"]))
    elif args.format == "csv" and not args.json:
        write_table(ranking_table(snap["ranking"]), sys.stdout)
    elif args.format == "segments" and not args.json:
        write_table(_segments(store, snap, args), sys.stdout)
    else:
        print_json(snap)
    return 0


def _segments(store, snap: dict, args: argparse.Namespace):
    """The snapshot's per-segment scores: stored with it at publish time, else computed from the stored
    judgments exactly as the ranking did (its QC and standardisation)."""
    from ..publish.artifacts import payload_frame, segment_scores_artifact, spec_of
    version = int(snap["version"])
    payload = store.snapshot_artifact(args.campaign, args.lp, args.assessment, version, "segment_scores")
    if payload is None:
        stored = store.snapshot_artifact(args.campaign, args.lp, args.assessment, version, "spec")
        spec = spec_of(snap["ranking"], stored)
        payload = segment_scores_artifact(store.judgments(args.campaign, None, args.assessment), snap["ranking"], spec)
    return payload_frame(payload)
