"""``mtlb collect``: run a human evaluation in the service (DA or ESA): create, links, simulate, status, export.

Organiser actions that change who may work (stop / reopen a campaign, approve / reject an annotator,
reset an annotator's HIT) need an organiser login, as on the Organiser page.
"""

from __future__ import annotations

import argparse

from ._common import add_json_flag, print_json, print_table


def _target(p: argparse.ArgumentParser) -> None:
    p.add_argument("--campaign", required=True, help="campaign name")
    p.add_argument("--lp", required=True, help="language pair, e.g. cs-en")
    p.add_argument("--database-url", help="override DATABASE_URL")


def _login(p: argparse.ArgumentParser) -> None:
    p.add_argument("--user", required=True, help="organiser account name")
    p.add_argument("--password-stdin", action="store_true", help="read the password from standard input")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("collect", help="run a DA or ESA human evaluation in the service (annotators, QC, exports)",
                       description="Annotation campaigns run in the service: HITs from the primary submissions or "
                                   "files, invitation and crowd links, quality control as HITs complete, progress, "
                                   "exports that `mtlb ingest` reads back. Annotators work in the web app.")
    act = p.add_subparsers(dest="collect_command", metavar="ACTION")

    c = act.add_parser("create", help="create an annotation campaign for one language pair",
                       description="DA: HITs exactly as `mtlb hits build` makes them (--hit-size 100: 70 outputs, "
                                   "10 bad references, 10 references, 10 repeats; smaller multiples of 20 for pilots), "
                                   "shown against the reference, or the source with --source-based. ESA: documents of "
                                   "about --hit-size segments with about one in ten degraded copies as attention checks, shown "
                                   "against the source when it is known, after 3 tutorial items that do not count.")
    _target(c)
    c.add_argument("--protocol", required=True, choices=["da", "esa", "cesa"],
                   help="cesa: contrastive ESA, K translations of a segment side by side in its document")
    c.add_argument("--assignment", choices=["fixed", "dynamic"], default=None,
                   help="cesa: fixed HITs, or pages chosen per annotator by an allocation rule (default: dynamic; "
                        "a Pearmut file's own)")
    c.add_argument("--models-per-item", type=int, metavar="K", help="cesa: translations side by side, 2-4 (default 3)")
    c.add_argument("--rule", metavar="NAME", help="cesa dynamic: the allocation rule (default running-rank)")
    c.add_argument("--pearmut", metavar="FILE", help="cesa: a Pearmut campaign file, run as it is")
    c.add_argument("--wmt26", metavar="TESTSET.jsonl", help="cesa: a WMT26 test set (one JSON object per document)")
    c.add_argument("--systems", metavar="DIR", help="with --wmt26: one <system>.jsonl per system")
    c.add_argument("--tutorial", metavar="FILE", help="cesa: tutorial documents, the data_welcome of a Pearmut "
                                                     "campaign file (a per-language tutorial), done first by everyone")
    c.add_argument("--assets", metavar="DIR", help="cesa: the folder videos and screenshots are served from "
                                                   "(default: the test set's or campaign file's folder)")
    c.add_argument("--docs-per-user", type=int, metavar="N", help="cesa dynamic: documents per annotator at most")
    c.add_argument("--max-annotators", type=int, metavar="N", help="cesa: annotators in the campaign at most")
    c.add_argument("--check-prob", type=float, metavar="P", help="cesa: chance of an attention check before a page "
                                                                 "(default 0.2)")
    c.add_argument("--check-mode", choices=["loud", "silent"], help="cesa: loud checks are shown and redone, silent "
                                                                    "ones only logged (default loud)")
    c.add_argument("--check-threshold", type=float, metavar="T",
                   help="cesa: failed attention checks allowed for the pass code (a count, or a share below 1; "
                        "default 0)")
    c.add_argument("--coldstart", type=int, metavar="N", help="cesa dynamic: annotations per model before the rule "
                                                              "ranks models (default 20)")
    c.add_argument("--coldstart-pool", type=int, metavar="N", help="cesa dynamic: during the cold start only the "
                                                                   "first N documents are handed out")
    c.add_argument("--source-based", action="store_true", help="DA: show the source instead of the reference")
    c.add_argument("--hits", type=int, metavar="N", help="number of HITs (default: every output shown about once)")
    c.add_argument("--hit-size", type=int, default=None, metavar="N",
                   help="items per HIT (default 100; cesa fixed: segments per HIT, default 30)")
    c.add_argument("--redundancy", type=int, default=1, metavar="R", help="different annotators per HIT (default 1)")
    c.add_argument("--seed", type=int, default=0, metavar="S")
    c.add_argument("--timeout", type=int, default=None, metavar="SECONDS",
                   help="a held HIT returns to the pool after this long without an answer (default 1800)")
    c.add_argument("--from-primaries", action="store_true",
                   help="the primary submissions of --campaign / --lp and their test set (source, reference, documents)")
    c.add_argument("--ref-name", metavar="LABEL", help="with --from-primaries: which reference (default: the first)")
    c.add_argument("--hyp", nargs="+", metavar="FILE", help="system outputs named <testset>.<lp>.hyp.<system>.<lang>")
    c.add_argument("--ref", metavar="FILE", help="the reference, aligned with the outputs")
    c.add_argument("--src", metavar="FILE", help="with --hyp: the source (for --source-based DA and ESA)")
    c.add_argument("--docs", metavar="FILE", help="with --hyp: a document id per line (ESA; default: 10-line runs)")
    add_json_flag(c)
    c.set_defaults(func=run_create)

    ln = act.add_parser("links", help="invitation links (one per annotator) or the campaign's crowd link",
                        description="--annotators N makes N annotators with a secret link each (shown once: only "
                                    "a hash of the token is stored). --crowd prints the link to publish on a crowd "
                                    "platform, which appends workerId/assignmentId/hitId (MTurk), PROLIFIC_PID/"
                                    "STUDY_ID/SESSION_ID (Prolific) or worker=ID.")
    _target(ln)
    who = ln.add_mutually_exclusive_group(required=True)
    who.add_argument("--annotators", type=int, metavar="N", help="number of invitation links to make")
    who.add_argument("--crowd", action="store_true", help="the crowd link")
    ln.add_argument("--base-url", required=True, metavar="URL", help="where the app is served, e.g. https://mt.example.org")
    ln.add_argument("--hits-per-annotator", type=int, metavar="N",
                    help="with --annotators: each link is used up after N HITs (default: as many as are free)")
    add_json_flag(ln)
    ln.set_defaults(func=run_links)

    sm = act.add_parser("simulate", help="answer the campaign's HITs with simulated annotators (demo, load test)",
                        description="N simulated annotators (good, lenient and harsh workers; --random-share of them "
                                    "random clickers) work at once through the same functions as the web page, HIT "
                                    "after HIT until none is left.")
    _target(sm)
    sm.add_argument("--annotators", type=int, required=True, metavar="N")
    sm.add_argument("--random-share", type=float, default=0.0, metavar="P", help="share of random clickers (0-1)")
    sm.add_argument("--seed", type=int, default=0, metavar="S")
    add_json_flag(sm)
    sm.set_defaults(func=run_simulate)

    st = act.add_parser("status", help="progress: HITs done and needed, per annotator with the QC verdict")
    _target(st)
    add_json_flag(st)
    st.set_defaults(func=run_status)

    ex = act.add_parser("export", help="write the collected judgments as an Appraise CSV or a WMT release",
                        description="appraise: the headerless 12-column CSV (every annotator); wmt: "
                                    "<item>-<lp>-good-stnd.csv + <item>-<lp>-trk-mean-sd.txt (annotators who passed "
                                    "QC and were not rejected). Both load back with `mtlb ingest`.")
    _target(ex)
    ex.add_argument("--format", required=True, choices=["appraise", "wmt", "pearmut"],
                    help="pearmut (cesa): Pearmut's annotation log, DIR/<campaign>.jsonl")
    ex.add_argument("--out", required=True, metavar="DIR")
    add_json_flag(ex)
    ex.set_defaults(func=run_export)

    for name, help_text in (("stop", "hand out no new HITs (HITs in progress can be finished)"),
                            ("reopen", "hand out HITs again")):
        s = act.add_parser(name, help=help_text + " (organiser login)")
        _target(s)
        _login(s)
        s.set_defaults(func=run_status_change, status=name)
    for name in ("approve", "reject"):
        d = act.add_parser(name, help=f"{name} an annotator (for payment; a rejected one gets no further HIT)")
        _target(d)
        d.add_argument("--annotator", required=True)
        _login(d)
        d.set_defaults(func=run_decide, decision=name + "d" if name.endswith("e") else name + "ed")
    r = act.add_parser("reset", help="undo an annotator's HIT: delete its answers and free its slot (organiser login)")
    _target(r)
    r.add_argument("--annotator", required=True)
    r.add_argument("--hit", required=True)
    _login(r)
    r.set_defaults(func=run_reset)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _create_cesa(args: argparse.Namespace, store) -> dict:
    from ..collect import campaigns, plan
    from ..errors import InputError

    threshold = args.check_threshold
    if threshold is not None and float(threshold).is_integer():
        threshold = int(threshold)
    given = dict(models_per_item=args.models_per_item, rule=args.rule, docs_per_user=args.docs_per_user,
                 max_annotators=args.max_annotators, check_prob=args.check_prob, check_mode=args.check_mode,
                 threshold=threshold, coldstart=args.coldstart, coldstart_pool=args.coldstart_pool,
                 rule_params={"coldstart": args.coldstart} if args.coldstart is not None else None)
    sources = [name for name, on in (("--pearmut", args.pearmut), ("--wmt26", args.wmt26),
                                     ("--from-primaries", args.from_primaries), ("--hyp", args.hyp)) if on]
    if len(sources) != 1:
        raise InputError("cesa needs one source of documents: --pearmut FILE, --wmt26 FILE --systems DIR, "
                         "--from-primaries, or --hyp FILE... --ref FILE")
    if args.pearmut:
        _, made = plan.from_pearmut(args.pearmut, assets=args.assets)
        for key, value in given.items():
            if value is not None and key != "rule_params":
                made.settings[key] = value
        made.settings = plan.settings_with(**made.settings)
    elif args.wmt26:
        if not args.systems:
            raise InputError("--wmt26 needs --systems DIR (one <system>.jsonl per system)")
        made = plan.from_wmt26(args.wmt26, args.systems, args.lp, assets=args.assets, **given)
    elif args.from_primaries:
        made = plan.from_sources(campaigns.sources_from_primaries(store, args.campaign, args.lp, args.ref_name),
                                 **given)
    else:
        if not args.ref:
            raise InputError("--hyp needs --ref FILE (the reference the outputs are aligned with)")
        made = plan.from_sources(campaigns.sources_from_files(args.hyp, args.ref, args.lp, args.src, args.docs),
                                 **given)
    if args.tutorial:
        made.welcome = plan.tutorial_documents(args.tutorial)
    timeout = campaigns.DEFAULT_TIMEOUT if args.timeout is None else args.timeout
    return campaigns.create_cesa(store, args.campaign, args.lp, made, assignment=args.assignment,
                                 hit_size=args.hit_size or 30, redundancy=args.redundancy, seed=args.seed,
                                 timeout_seconds=timeout)


def run_create(args: argparse.Namespace) -> int:
    from ..collect import campaigns
    from ..errors import InputError
    from ..storage import Store
    from ..storage.collect import collection

    store = Store(args.database_url)
    if args.protocol == "cesa":
        result = _create_cesa(args, store)
        info = collection(store, args.campaign, args.lp)
        result.update(code_pass=info["code_pass"], code_fail=info["code_fail"], redundancy=info["redundancy"])
        if args.json:
            print_json(result)
            return 0
        print(f"created a contrastive ESA ({result['assignment']}) annotation campaign for {args.campaign} {args.lp}: "
              f"{result['documents']} documents, {result['models']} models, {result['models_per_item']} side by "
              f"side; {result['tutorial']} tutorial documents, {result['checks']} attention checks"
              + (f"; {result['hits']} HITs" if result["assignment"] == "fixed" else ""))
        print(f"completion codes: {info['code_pass']} (attention checks passed), {info['code_fail']} (failed)")
        print("next: mtlb collect links --campaign ... --lp ... (--annotators N | --crowd) --base-url URL")
        return 0
    if args.pearmut or args.wmt26:
        raise InputError("--pearmut and --wmt26 create contrastive ESA campaigns: add --protocol cesa")
    if args.from_primaries:
        if args.hyp or args.ref or args.src or args.docs:
            raise InputError("--from-primaries takes no --hyp / --ref / --src / --docs files")
        sources = campaigns.sources_from_primaries(store, args.campaign, args.lp, args.ref_name)
    elif not args.hyp or not args.ref:
        raise InputError("give --hyp FILE... and --ref FILE, or --from-primaries")
    else:
        sources = campaigns.sources_from_files(args.hyp, args.ref, args.lp, args.src, args.docs)
    timeout = campaigns.DEFAULT_TIMEOUT if args.timeout is None else args.timeout
    result = campaigns.create(store, args.campaign, args.lp, sources, protocol=args.protocol,
                              source_based=args.source_based, hits=args.hits, hit_size=args.hit_size or 100,
                              redundancy=args.redundancy, seed=args.seed, timeout_seconds=timeout)
    info = collection(store, args.campaign, args.lp)
    if args.json:
        print_json({**result, "code_pass": info["code_pass"], "code_fail": info["code_fail"]})
        return 0
    name = result["protocol"].upper()
    article = "an" if name[:1] in "AEFHILMNORSX" else "a"  # as the letters are spoken: a DA, an ESA
    print(f"created {article} {name} annotation campaign for {args.campaign} {args.lp}: {result['hits']} HITs, "
          f"{result['items']} items shown; redundancy {info['redundancy']}")
    print(f"completion codes: {info['code_pass']} (attention checks passed), {info['code_fail']} (failed)")
    print("next: mtlb collect links --campaign ... --lp ... (--annotators N | --crowd) --base-url URL")
    return 0


def run_links(args: argparse.Namespace) -> int:
    from ..collect.links import crowd_link, invitation_links
    from ..storage import Store

    store = Store(args.database_url)
    links = [crowd_link(store, args.campaign, args.lp, args.base_url)] if args.crowd else \
        invitation_links(store, args.campaign, args.lp, args.annotators, args.base_url, args.hits_per_annotator)
    if args.json:
        print_json({"links": links})
        return 0
    for link in links:
        print(f"{link['annotator']}\t{link['url']}")
    return 0


def run_simulate(args: argparse.Namespace) -> int:
    from ..collect.simulate import simulate
    from ..storage import Store
    from ..storage.collect import collection

    store = Store(args.database_url)
    if collection(store, args.campaign, args.lp)["protocol"] == "cesa":
        from ..collect.simulate_cesa import simulate as simulate_cesa
        result = simulate_cesa(store, args.campaign, args.lp, args.annotators, random_share=args.random_share,
                               seed=args.seed)
        if args.json:
            print_json({k: result[k] for k in ("pages", "judgments", "refused")})
            return 0
        print(f"{args.annotators} simulated annotators submitted {result['pages']} pages and gave "
              f"{result['judgments']} judgments ({result['refused']} pages sent back by a loud check)")
        return 0
    result = simulate(store, args.campaign, args.lp, args.annotators,
                      random_share=args.random_share, seed=args.seed)
    if args.json:
        print_json({"hits_done": result["hits_done"], "judgments": result["judgments"]})
        return 0
    print(f"{args.annotators} simulated annotators completed {result['hits_done']} HITs and gave "
          f"{result['judgments']} judgments")
    return 0


def run_status(args: argparse.Namespace) -> int:
    import pandas as pd

    from ..collect.status import overview, status
    from ..storage import Store

    store = Store(args.database_url)
    result = status(store, args.campaign, args.lp)
    if args.json:
        print_json(result)
        return 0
    view = overview(store, args.campaign, args.lp)
    info = view["settings"]
    print(f"{args.campaign} {args.lp}: {info['protocol']} ({info['assessment']}), {info['status']}; HITs done "
          f"{result['hits_done']} of {result['hits_total']} (HITs x redundancy {info['redundancy']})")
    print(f"completion codes: {info['code_pass']} (passed), {info['code_fail']} (failed)")
    if "cells" in result:
        cells = result["cells"]
        print(f"dynamic assignment: {cells['done']} of {cells['cells']} document x model cells done "
              f"({cells['given']} given; each up to {info['redundancy']} annotators)")
    people = pd.DataFrame(result["annotators"])
    if "checks" in people:
        people["checks"] = people["checks"].map(lambda c: f"{c['passed']} passed, {c['failed']} failed")
    held = people.pop("holding") if "holding" in people else pd.Series(dtype=object)
    print_table(people, empty="annotators: none yet")
    if held.notna().any():
        print(f"\nheld HITs (a HIT is held from the moment its link shows the first item; it returns to the pool "
              f"after {info['timeout_seconds'] // 60} minutes without an answer):")
        for name, why in zip(people["annotator"], held):
            if isinstance(why, str):
                print(f"  {name}: {why}")
    if not view["systems"].empty:
        print()
        print_table(view["systems"])
    return 0


def run_export(args: argparse.Namespace) -> int:
    from ..collect.export import export
    from ..storage import Store

    if args.format == "pearmut":
        from ..collect.export_pearmut import export as export_pearmut
        result = export_pearmut(Store(args.database_url), args.campaign, args.lp, args.out)
        if args.json:
            print_json(result)
            return 0
        print(f"wrote {result['rows']} pages of {result['workers']} annotators: " + ", ".join(result["files"]))
        return 0
    result = export(Store(args.database_url), args.campaign, args.lp, args.format, args.out)
    if args.json:
        print_json(result)
        return 0
    print(f"wrote {result['rows']} judgments of {result['workers']} annotators: " + ", ".join(result["files"]))
    return 0


def _organiser(args: argparse.Namespace, what: str):
    from ..storage import Store
    from ..storage.collect import collection
    from .user import login_organiser

    store = Store(args.database_url)
    info = collection(store, args.campaign, args.lp)
    user = login_organiser(store, args.user, args.password_stdin, what)
    return store, info, user


def run_status_change(args: argparse.Namespace) -> int:
    from ..storage.collect import OPEN, STOPPED, set_status

    store, info, user = _organiser(args, f"{args.status} annotation campaigns")
    set_status(store, info["id"], STOPPED if args.status == "stop" else OPEN, user["name"])
    print(f"{args.campaign} {args.lp}: " + ("stopped" if args.status == "stop" else "open again"))
    return 0


def run_decide(args: argparse.Namespace) -> int:
    from ..storage.collect import decide

    store, info, user = _organiser(args, "approve or reject annotators")
    decide(store, info["id"], args.annotator, args.decision, user["name"])
    print(f"{args.annotator}: {args.decision}")
    return 0


def run_reset(args: argparse.Namespace) -> int:
    from ..usecases.collect import reset_hit

    store, info, user = _organiser(args, "reset annotators' HITs")
    counts = reset_hit(store, info["id"], args.annotator, args.hit, user["name"])
    print(f"{args.annotator} {args.hit}: deleted {counts['answers']} answers ({counts['judgments']} judgments); "
          "the HIT is free again")
    return 0
