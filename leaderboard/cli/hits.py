"""``mtlb hits build``: sample system outputs into 100-item DA HITs for Mechanical Turk (docs/method/hits.md)."""

from __future__ import annotations

import argparse

from ._common import add_json_flag, print_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("hits", help="build crowd DA batches (100-item HITs with quality-control items)",
                       description="Crowd batches for Direct Assessment on Mechanical Turk.")
    hsub = p.add_subparsers(dest="hits_command", metavar="ACTION")
    b = hsub.add_parser(
        "build", help="build HITs from aligned system outputs and a reference",
        description="Each HIT: 10 blocks of 10 items = 70 system outputs (balanced over systems), 10 REF, "
                    "10 BAD_REF and 10 REPEAT items; blocks i and i+5 hold each other's pair members. "
                    "Writes DIR/hits.csv (one row per item), DIR/mturk-upload.csv (one row per HIT, the "
                    "batch to publish), DIR/html/<hit>.html (task pages) and DIR/batch.json. The MTurk "
                    "batch results load back with `mtlb ingest` (format mturk). Deterministic for a seed.")
    b.add_argument("--lp", required=True, help="language pair, e.g. cs-en (must match the file names)")
    b.add_argument("--assessment", required=True, choices=["adequacy", "fluency"])
    b.add_argument("--hyp", nargs="+", metavar="FILE",
                   help="system outputs named <testset>.<lp>.hyp.<system>.<lang>, one segment per line")
    b.add_argument("--ref", metavar="FILE", help="the reference, aligned with the outputs")
    b.add_argument("--from-primaries", action="store_true",
                   help="use the primary submissions of --campaign / --lp and its test set's reference "
                        "instead of --hyp / --ref (submissions stage)")
    b.add_argument("--ref-name", metavar="LABEL", help="with --from-primaries: which reference (default: the first)")
    b.add_argument("--database-url", help="override DATABASE_URL (with --from-primaries)")
    b.add_argument("--hits", type=int, default=None, metavar="N",
                   help="number of HITs (default: enough to show every output about once)")
    b.add_argument("--seed", type=int, default=0, metavar="S")
    b.add_argument("--campaign", default="", help="campaign name written to the upload CSV (Input.campaign)")
    b.add_argument("--hit-prefix", default="H", help="prefix of the HIT ids in hits.csv (default H)")
    b.add_argument("--no-html", action="store_true", help="skip the per-HIT HTML pages")
    b.add_argument("--out", required=True, metavar="DIR")
    add_json_flag(b)
    b.set_defaults(func=run_build)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def run_build(args: argparse.Namespace) -> int:
    from ..errors import InputError
    from ..hits.builder import read_sources
    from ..usecases.hits import build_batch

    if args.hits is not None and args.hits < 1:
        raise InputError(f"--hits must be at least 1, got {args.hits}")
    if args.from_primaries:
        from ..outputs.service import primary_sources
        from ..storage import Store
        if args.hyp or args.ref or not args.campaign:
            raise InputError("--from-primaries takes --campaign and no --hyp / --ref files")
        sources = primary_sources(Store(args.database_url), args.campaign, args.lp, args.ref_name)
    elif not args.hyp or not args.ref:
        raise InputError("give --hyp FILE... and --ref FILE, or --campaign C --from-primaries")
    else:
        sources = read_sources(args.hyp, args.ref, args.lp)
    _, manifest = build_batch(sources, args.out, lp=args.lp, assessment=args.assessment, n_hits=args.hits,
                              seed=args.seed, campaign=args.campaign, hit_prefix=args.hit_prefix,
                              html_pages=not args.no_html)
    if args.json:
        print_json({**manifest, "out": args.out})
        return 0
    print(f"wrote {manifest['hits']} HITs ({manifest['items']} items) to {args.out}: hits.csv, mturk-upload.csv"
          + ("" if args.no_html else ", html/") + ", batch.json")
    per = manifest["systems"]
    print(f"{len(per)} systems, {min(per.values())}-{max(per.values())} genuine outputs each; "
          f"{manifest['segments_shown']} segments shown")
    return 0
