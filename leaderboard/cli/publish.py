"""``mtlb publish``: rank a stored campaign and publish it as a new immutable version (organisers only)."""

from __future__ import annotations

import argparse

from ._common import add_json_flag, print_json
from .user import PASSWORD_HELP, add_password_option


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("publish", help="publish the ranking of a stored campaign (organiser login needed)",
                       description="Ranks the stored judgments and stores each (lp, assessment) ranking as the "
                                   "next version: earlier versions are never changed. Needs an organiser account "
                                   "(see `mtlb user add`); " + PASSWORD_HELP + ".")
    p.add_argument("--campaign", required=True)
    p.add_argument("--lp")
    p.add_argument("--assessment")
    p.add_argument("--user", required=True, help="organiser account name")
    add_password_option(p)
    p.add_argument("--note", default="", help="a note stored with the version (e.g. what was corrected)")
    p.add_argument("--protocol", default="wmt-da", help="ranking protocol (see `mtlb rank --help`)")
    p.add_argument("--alpha", type=float, help="significance level (default 0.05, or the protocol's own)")
    p.add_argument("--cluster-rule", choices=["organisers", "strict", "wmt24", "wmt25"],
                   help="cluster rule (default organisers, or the protocol's own; see `mtlb rank --help`)")
    p.add_argument("--documents", nargs="+", action="extend", metavar="FILE",
                   help="the test set's documents list per language pair (domain<TAB>doc_id, as `mtlb rank "
                        "--documents`): the published ranking then carries per-domain scores, and wmt24-esa ranks "
                        "by their mean; the list's digest is in the signature (not stored: give it again to "
                        "publish a correction)")
    p.add_argument("--published-table", metavar="FILE",
                   help="publish the organisers' own published tables instead of ranking stored judgments "
                        "(WMT23.results.txt of the WMT23 DA+SQM release), one version per language pair, into "
                        "--campaign (created when missing), e.g. to compare years on the Across years page")
    p.add_argument("--qc", default="auto", metavar="none|auto|METHOD",
                   help="worker QC before ranking, as in `mtlb rank`: none; auto (default: release when every "
                        "stored file of the campaign is a WMT release, whose files hold only workers who "
                        "passed, else the QC module's default method); or a method name of `mtlb qc`")
    p.add_argument("--exclude-system", nargs="+", action="extend", default=[], metavar="PATTERN",
                   help="leave systems matching these shell patterns out (e.g. 'ende-tutorial*'); in the signature")
    p.add_argument("--release-qc", metavar="FILE",
                   help="a WMT release's own per-worker QC statistics (ad-trk-stats.csv: worker p t pairs), "
                        "published with each version for the Quality control page (the workers of that version)")
    p.add_argument("--release-qc-verdicts", metavar="FILE",
                   help="the release's verdicts (ad-trk-stats.class: worker good|bad); without it a worker's "
                        "verdict is p < 0.05")
    p.add_argument("--resamples", type=int, default=1000,
                   help="bootstrap resamples of the segments for the 95%% intervals and rank stability "
                        "(default 1000, as `mtlb rank`; 0 = none; in the signature)")
    p.add_argument("--seed", type=int, default=12345, help="seed of those resamples (default 12345; in the signature)")
    p.add_argument("--database-url", help="override DATABASE_URL")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..publish.snapshots import publish_rankings
    from ..storage import Store
    from .user import login_organiser

    if args.resamples < 0:
        from ..errors import InputError
        raise InputError("--resamples must be 0 or more", column="resamples")
    if args.release_qc_verdicts and not args.release_qc:
        from ..errors import InputError
        raise InputError("--release-qc-verdicts needs --release-qc (the statistics file)", column="release-qc")
    extra = None
    if args.release_qc:  # read before anything is stored: a malformed file publishes nothing
        from ..ingest.release_qc import read_trk_class, read_trk_stats
        stats = read_trk_stats(args.release_qc)
        verdicts = read_trk_class(args.release_qc_verdicts) if args.release_qc_verdicts else None
    store = Store(args.database_url)
    if args.release_qc:
        from ..publish.snapshots import release_qc_of
        from pathlib import Path
        source = "release files " + ", ".join(Path(f).name for f in (args.release_qc, args.release_qc_verdicts) if f)
        extra = {"release_qc": release_qc_of(store, args.campaign, stats, verdicts, source)}
    if args.published_table:
        from ..ingest.wmt23_results import read_wmt23_results, results_rankings
        from ..publish.snapshots import publish_published_tables
        rankings = results_rankings(read_wmt23_results(args.published_table), args.published_table,
                                    assessment=args.assessment or "adequacy")
        user = login_organiser(store, args.user, args.password_stdin, "publish")
        published = publish_published_tables(store, args.campaign, rankings, user["name"], lp=args.lp, note=args.note)
    else:
        user = login_organiser(store, args.user, args.password_stdin, "publish")
        published = publish_rankings(store, args.campaign, user["name"], lp=args.lp, assessment=args.assessment,
                                     note=args.note, protocol=args.protocol, alpha=args.alpha,
                                     cluster_rule=args.cluster_rule, qc=args.qc, n_resamples=args.resamples,
                                     seed=args.seed, documents_files=args.documents, extra_artifacts=extra,
                                     **({"exclude_systems": args.exclude_system} if args.exclude_system else {}))
    if args.json:
        print_json({"campaign": args.campaign, "published": published})
    else:
        for row in published:
            print(f"published {args.campaign} {row['lp']} {row['assessment']} as version {row['version']} "
                  f"({row['signature']})")
    return 0
