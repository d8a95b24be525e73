"""``mtlb publish``: rank a stored campaign and publish it as a new immutable version (organisers only)."""

from __future__ import annotations

import argparse

from ._common import add_store_flags, print_json
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
    p.add_argument("--qc-alpha", type=float, default=0.05, metavar="P",
                   help="threshold of the worker QC test: a worker is kept when p < P (default 0.05; in the "
                        "signature)")
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
    add_store_flags(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..storage import Store
    from ..usecases import publish as uc
    from ..usecases.store_files import InputFile
    from .user import login_organiser

    options = uc.PublishOptions(
        lp=args.lp, assessment=args.assessment, protocol=args.protocol, alpha=args.alpha,
        cluster_rule=args.cluster_rule, qc=args.qc, qc_alpha=args.qc_alpha,
        exclude_systems=tuple(args.exclude_system), n_resamples=args.resamples, seed=args.seed,
        documents=tuple(InputFile.of(f) for f in args.documents or ()))
    options.check()
    # read before anything is stored: a malformed file publishes nothing
    release_qc = uc.read_release_qc(InputFile.of(args.release_qc) if args.release_qc else None,
                                    InputFile.of(args.release_qc_verdicts) if args.release_qc_verdicts else None)
    store = Store(args.database_url)
    user = login_organiser(store, args.user, args.password_stdin, "publish")
    if args.published_table:
        published = uc.publish_tables(store, args.campaign, InputFile.of(args.published_table), user["name"],
                                      lp=args.lp, assessment=args.assessment, note=args.note)
    else:
        published = uc.publish(store, args.campaign, user["name"], options, note=args.note, release_qc=release_qc)
    if args.json:
        print_json({"campaign": args.campaign, "published": published})
    else:
        for row in published:
            print(f"published {args.campaign} {row['lp']} {row['assessment']} as version {row['version']} "
                  f"({row['signature']})")
    return 0
