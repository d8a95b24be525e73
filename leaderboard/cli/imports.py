"""``mtlb imports``: list a campaign's imports, and retract an unpublished one (organisers, audited)."""

from __future__ import annotations

import argparse

from ._common import add_store_flags, print_json, print_table


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("imports", help="list a campaign's imports or retract an unpublished one",
                       description="Every stored file is an import. An import no published version depends on "
                                   "can be retracted (its judgments or texts are deleted, in one transaction, "
                                   "and the audit log records who, when, what and why), e.g. a WMT release "
                                   "stored without its worker mean/sd file, so it can be stored again with it.")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    ls = actions.add_parser("list", help="the imports of a campaign and the published versions using them")
    ls.add_argument("--campaign", required=True)
    add_store_flags(ls)
    ls.set_defaults(func=run_list)
    rt = actions.add_parser("retract", help="delete an unpublished import (organiser login needed)",
                            description="Refused when a published version of the campaign was computed while "
                                        "the import was stored (published versions never change). The password "
                                        "comes from --password-stdin, MTLB_PASSWORD or a prompt.")
    rt.add_argument("--campaign", required=True)
    rt.add_argument("--id", required=True, type=int, help="the import's id (see `mtlb imports list`)")
    rt.add_argument("--user", required=True, help="organiser account name")
    rt.add_argument("--password-stdin", action="store_true", help="read the password from standard input")
    rt.add_argument("--reason", default="", help="why (kept in the audit log)")
    add_store_flags(rt)
    rt.set_defaults(func=run_retract)
    log = actions.add_parser("log", help="the audit log (retractions) of a campaign")
    log.add_argument("--campaign")
    add_store_flags(log)
    log.set_defaults(func=run_log)


def run_list(args: argparse.Namespace) -> int:
    from ..storage import Store
    from ..storage.imports import list_imports

    frame = list_imports(Store(args.database_url), args.campaign)
    if args.json:
        print_json([{**r, "created_at": r["created_at"].isoformat() if r["created_at"] is not None else None}
                    for r in frame.to_dict(orient="records")])
    else:
        print_table(frame.assign(created_at=frame["created_at"].astype(str).str[:19]))
    return 0


def run_retract(args: argparse.Namespace) -> int:
    from ..storage import Store
    from ..storage.imports import retract_import
    from .user import login_organiser

    store = Store(args.database_url)
    user = login_organiser(store, args.user, args.password_stdin, "retract imports")
    entry = retract_import(store, args.campaign, args.id, actor=user["name"], reason=args.reason)
    if args.json:
        print_json(entry)
    else:
        d = entry["details"]
        print(f"retracted import #{args.id} ({d['file_name']}: {d['rows_deleted']:,} rows of {d['kind']}) from "
              f"campaign {args.campaign!r}; audit entry #{entry['id']}")
    return 0


def run_log(args: argparse.Namespace) -> int:
    import json

    from ..storage import Store
    from ..storage.imports import audit_log

    frame = audit_log(Store(args.database_url), args.campaign)
    if args.json:
        print_json([{**r, "at": r["at"].isoformat(), "details": json.loads(r["details"])}
                    for r in frame.to_dict(orient="records")])
    else:
        print_table(frame.drop(columns="details").assign(at=frame["at"].astype(str).str[:19]))
    return 0
