"""``mtlb serve``: start the web app, warmed up, so the first visitor after a start does not wait."""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve", help="start the web app (Streamlit), after running every page once in-process",
        description="Start the web app on the configured store. Before it listens, every page runs once "
                    "in this process (imports and caches warm, see leaderboard/webapp/warmup.py), so the "
                    "first visit after a start is as fast as later ones. Options after `--` go to "
                    "`streamlit run` unchanged.")
    p.add_argument("--port", type=int, default=int(os.environ.get("MTLB_PORT", "8501")),
                   help="port to listen on (default: MTLB_PORT or 8501)")
    p.add_argument("--address", default=os.environ.get("MTLB_ADDRESS", "127.0.0.1"),
                   help="address to listen on (default: MTLB_ADDRESS or 127.0.0.1)")
    p.add_argument("--no-warm", action="store_true", help="start at once; the first visitor pays the warm-up")
    p.add_argument("--app", help="entry script (default: the packaged one, same as app.py)")
    p.add_argument("streamlit_args", nargs=argparse.REMAINDER,
                   help="after --: further `streamlit run` options (e.g. -- --server.baseUrlPath mtlb)")
    p.set_defaults(func=run)


def freeze_heap() -> None:
    """Exempt what the warm-up built (modules, the default views' caches) from garbage collection.

    Streamlit runs a full collection after every script run (``runner.postScriptGC``). On the warmed
    heap of this app that costs ≈ 0.1 s per page view, during which the server holds the interpreter
    lock and sends nothing. What is alive now (imports, warmed caches) mostly lives as long as the
    process, so it is collected once and moved out of the collector's view (``gc.freeze``); what later
    runs create is still collected, and a frozen object that is dropped (a cache entry evicted) is still
    freed by reference counting (only a reference cycle among frozen objects would stay).
    """
    gc.collect()
    gc.freeze()


def run(args: argparse.Namespace) -> int:
    if args.app and not os.path.isfile(args.app):
        from ..errors import InputError
        raise InputError(f"{args.app}: no such entry script", file=args.app)
    from ..webapp.server_config import options as shipped_options
    from ..webapp.warmup import ENTRY_SCRIPT, warm_up

    script = args.app or str(ENTRY_SCRIPT)
    # the shipped settings, whatever the working directory; a served app is not being edited: no watcher
    # of source files (Streamlit's development reruns)
    options = {**shipped_options(), "server.port": args.port, "server.address": args.address,
               "server.headless": True, "browser.gatherUsageStats": False, "server.fileWatcherType": "none"}
    # the same configuration for the warm-up as for the server (else Streamlit warns of a change)
    from streamlit import config
    config.get_config_options(force_reparse=True, options_from_flags=options)
    if not args.no_warm:
        start = time.perf_counter()
        print("mtlb serve: warming up (every page runs once)…", file=sys.stderr, flush=True)
        report = warm_up(script)
        freeze_heap()
        failed = {path: r["errors"] for path, r in report.items() if r["errors"]}
        print(f"mtlb serve: warmed {len(report)} pages in {time.perf_counter() - start:.1f} s"
              + (f"; with errors: {failed}" if failed else ""), file=sys.stderr, flush=True)
    extra = [a for a in args.streamlit_args if a != "--"]
    from streamlit.web import cli as streamlit_cli
    try:
        flags = [f"--{name}={str(value).lower() if isinstance(value, bool) else value}"
                 for name, value in options.items()]
        streamlit_cli.main(["run", script, *flags, *extra], prog_name="streamlit", standalone_mode=False)
    except KeyboardInterrupt:
        pass
    return 0
