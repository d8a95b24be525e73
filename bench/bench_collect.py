"""An annotator in a real browser on the demo server: submit → next item, for DA and ESA.

Builds a fresh SQLite store with the demo campaigns (as ``make run`` does) plus two annotation
campaigns of the WMT22 Czech→English general test set (its first 300 lines, three systems; synthetic
text when ../shared/data is absent): DA with 100-item HITs and ESA with documents of about 100
segments. Starts the app as the README does (``mtlb serve``) and opens an invitation link of each in
Debian's chromium (Playwright), then answers items with the keyboard alone (arrows, Enter) at a
reading pace (``--think`` ms between items) and measures inside the browser, from the Enter key:

- ``next_item``: until the next item is on the page (its content in the DOM and the next frame drawn);
- ``stored``: until the server has stored the answer and said so (the page's queue of answers is empty).

Also ``resume``: a reload in the middle, until the first unanswered item is shown again;
``last_answer``: a whole pilot HIT (20 items) answered, from the Enter on its last item until the
completion code is on the page (the server then runs the worker test; issue 42.9 saw 3.5 s), with
``page_drawn`` (the rest of the completion page); ``service_submit``: the server-side store-and-next call
alone (:func:`leaderboard.collect.service.submit_answer`), without a browser, and
``service_last_submit``: the call that completes a HIT, with its worker test (``qc``) timed on its own.
Prints one JSON object (seconds; p50, p95, max per measure); the target is ``next_item`` ≤ 0.3 s.

    python bench/bench_collect.py [--items 40] [--think 600] [--screenshots]
    python bench/bench_collect.py --service-only   # the two service calls alone (no server, no browser)

``--screenshots`` writes docs/screenshots/annotate-da.png and annotate-esa.png (the README's images).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
SHARED = ROOT.parent / "shared" / "data" / "wmt22-general"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
FRAME = "iframe[title*='mtlb_annotate']"
LP = "cs-en"
SYSTEMS = ("CUNI-DocTransformer", "Online-W", "Online-B")
LINES = 300
TARGET = 0.3
PILOT_HITS = 3  # pilot HITs per protocol, each answered to its completion code by an annotator of its own

# the last answer of a HIT: Enter (in the item's frame) until the completion code is on the page, and until
# the rest of the completion page (its success note) is there; both on the page's clock
LAST_PROBE = """() => {
  const top = window;
  top.__last = {enter: null, code: null, page: null};
  new MutationObserver(() => {
    if (top.__last.enter === null) return;
    const now = performance.now();
    if (top.__last.page === null && document.querySelector("[data-testid='stAlert']")) top.__last.page = now;
    if (top.__last.code === null && document.querySelector(".st-key-completion-code code")) top.__last.code = now;
  }).observe(document.body, {subtree: true, childList: true});
}"""
ENTER_PROBE = """() => { if (window.__enterProbe) return; window.__enterProbe = true;
  document.addEventListener('keydown', (e) => { if (e.key === 'Enter') {
    window.parent.__last.enter = window.parent.performance.now(); window.parent.__last.code = null;
    window.parent.__last.page = null; } }, true); }"""

# installed in the component's frame: times from the Enter key to the next item drawn and to the queue empty
PROBE = """() => {
  const root = document.getElementById('root');
  const b = window.__bench = {t0: null, item: null, shown: [], stored: [], waitShown: false, unstored: []};
  const mark = (e) => { if (e.key !== 'Enter') return; b.t0 = performance.now(); b.item = root.getAttribute('data-item');
                        b.waitShown = true; b.unstored.push(b.t0); };
  document.addEventListener('keydown', mark, true);
  window.parent.document.addEventListener('keydown', mark, true);
  new MutationObserver(() => {
    if (b.t0 === null) return;
    const item = root.getAttribute('data-item');
    if (b.waitShown && item && item !== b.item) {
      b.waitShown = false; const t0 = b.t0; requestAnimationFrame(() => b.shown.push(performance.now() - t0));
    }
    // every answer given since the queue was last empty is stored now (a quick annotator's next
    // Enter can come before the server has confirmed the previous answer)
    if (b.unstored.length && root.getAttribute('data-pending') === '0' && item !== b.item) {
      const now = performance.now(); b.unstored.forEach((t) => b.stored.push(now - t)); b.unstored = [];
    }
  }).observe(root, {attributes: true, childList: true});
}"""


def _texts(folder: Path) -> dict:
    """Aligned files: the WMT22 cs-en test set's first lines, else a synthetic test set."""
    if not SHARED.is_dir():
        from collecting import write_testset
        paths = write_testset(folder, n_lines=LINES, seed=1, lp=LP)
        return {"hyps": [str(p) for p in paths["hyps"]], "ref": str(paths["ref"]), "src": str(paths["src"])}
    folder.mkdir(parents=True, exist_ok=True)

    def head(src: Path, name: str) -> str:
        out = folder / name
        out.write_text("\n".join(src.read_text(encoding="utf-8").splitlines()[:LINES]) + "\n", encoding="utf-8")
        return str(out)
    hyps = [head(SHARED / "system-outputs" / f"generaltest2022.cs-en.hyp.{s}.en", f"test.cs-en.hyp.{s}.en")
            for s in SYSTEMS]
    return {"hyps": hyps, "ref": head(SHARED / "references" / "generaltest2022.cs-en.ref.B.en", "test.cs-en.ref.B.en"),
            "src": head(SHARED / "sources" / "generaltest2022.cs-en.src.cs", "test.cs-en.src.cs")}


def prepare(folder: Path) -> dict:
    """The store: the demo, and a DA and an ESA annotation campaign with three invitation links each."""
    os.environ["MTLB_DATA_DIR"] = str(folder)
    from leaderboard.collect import campaigns
    from leaderboard.collect.links import invitation_links
    from leaderboard.publish.demo import ensure_demo
    from leaderboard.storage import Store, default_url
    store = Store(default_url())
    ensure_demo(store)
    files = _texts(folder / "texts")
    sources = campaigns.sources_from_files(files["hyps"], files["ref"], LP, src=files["src"])
    campaigns.create(store, "bench-da", LP, sources, protocol="da", hits=4, seed=2)
    campaigns.create(store, "bench-esa", LP, sources, protocol="esa", hits=4, seed=2)
    for protocol in ("da", "esa"):  # pilot HITs, answered to the end (last_answer)
        campaigns.create(store, f"bench-pilot-{protocol}", LP, sources, protocol=protocol, hits=PILOT_HITS,
                         hit_size=20, seed=3)
    return {p: [link["url"] for link in invitation_links(store, f"bench-{p}", LP, 3, "http://127.0.0.1:1")]
            for p in ("da", "esa", "pilot-da", "pilot-esa")}


def _stats(values: list[float], digits: int = 3) -> dict:
    values = sorted(values)
    if not values:
        return {"n": 0}
    return {"n": len(values), "p50": round(statistics.median(values), digits),
            "p95": round(values[min(len(values) - 1, int(round(0.95 * (len(values) - 1))))], digits),
            "max": round(values[-1], digits)}


def _frame(page):
    page.frame_locator(FRAME).locator("main[data-item]").wait_for()
    return next(f for f in page.frames if "mtlb_annotate" in f.url)


def annotate(page, url: str, protocol: str, items: int, think: float, shot: Path | None) -> dict:
    """Answer ``items`` items of one HIT with the keyboard, a reload half way; in-browser timings."""
    page.goto(url)
    frame = _frame(page)
    if protocol == "esa":  # the practice items first (not timed)
        for _ in range(3):
            before = frame.locator("main").get_attribute("data-item")
            page.keyboard.press("Tab")
            page.keyboard.press("End")
            page.keyboard.press("Enter")
            page.frame_locator(FRAME).locator(f"main:not([data-item='{before}'])").first.wait_for()
    frame.evaluate(PROBE)
    resume = None
    shown: list[float] = []
    stored: list[float] = []
    for k in range(items):
        page.wait_for_timeout(think)
        if k == items // 2:  # a reload in the middle: resumes at the first unanswered item
            page.frame_locator(FRAME).locator("main[data-pending='0']").wait_for()
            page.wait_for_timeout(100)
            times = frame.evaluate("() => window.__bench")
            shown += times["shown"]
            stored += times["stored"]
            item = frame.locator("main").get_attribute("data-item")
            start = time.perf_counter()
            page.reload()
            page.frame_locator(FRAME).locator(f"main[data-item='{item}']").wait_for()
            resume = time.perf_counter() - start
            frame = _frame(page)
            frame.evaluate(PROBE)
            page.wait_for_timeout(think)
        if protocol == "esa":
            if k % 4 == 2:  # mark a two-word error now and then (and, once, missing content)
                page.keyboard.press("ArrowRight")
                page.keyboard.press("Shift+ArrowRight")
                page.keyboard.press("2" if k % 8 == 2 else "1")
                if k == 2:
                    page.keyboard.press("End")
                    page.keyboard.press("1")
            page.keyboard.press("Tab")
        for _ in range(1 + k % 5):
            page.keyboard.press("ArrowRight" if k % 2 else "ArrowLeft")
        if shot is not None and k == 2:
            page.wait_for_timeout(300)
            page.screenshot(path=str(shot), full_page=True)
        page.keyboard.press("Enter")
    page.frame_locator(FRAME).locator("main[data-pending='0']").wait_for()
    page.wait_for_timeout(200)
    times = frame.evaluate("() => window.__bench")
    shown += times["shown"]
    stored += times["stored"]
    return {"next_item": _stats([t / 1000 for t in shown]), "stored": _stats([t / 1000 for t in stored]),
            "resume": None if resume is None else round(resume, 3)}


def finish_hits(browser, base: str, links: list[str], protocol: str) -> dict:
    """Answer whole pilot HITs with the keyboard; per HIT the seconds from the Enter on its last item until
    the completion code is shown (``code``) and until the rest of the completion page is (``page_drawn``)."""
    code, drawn = [], []
    for url in links:
        page = browser.new_page(viewport={"width": 900, "height": 1400})
        page.set_default_timeout(60000)
        page.goto(url.replace("http://127.0.0.1:1", base))
        frame = _frame(page)
        page.evaluate(LAST_PROBE)
        for _ in range(200):  # a pilot HIT has 20 items (ESA: plus its practice items)
            if page.locator(".st-key-completion-code code").count():
                break
            frame = _frame(page)
            frame.evaluate(ENTER_PROBE)
            item = frame.locator("main").get_attribute("data-item")
            if protocol == "esa":
                page.keyboard.press("Tab")
            page.keyboard.press("ArrowRight")
            page.keyboard.press("ArrowRight")
            page.keyboard.press("Enter")
            page.wait_for_function(
                """(item) => { if (document.querySelector(".st-key-completion-code code")) return true;
                   const f = [...document.querySelectorAll('iframe')].find((x) => x.title.includes('mtlb_annotate'));
                   const m = f && f.contentDocument && f.contentDocument.querySelector('main[data-item]');
                   return !!m && m.getAttribute('data-item') !== item; }""", arg=item, polling=20)
        page.wait_for_timeout(200)
        last = page.evaluate("() => window.__last")
        if last["enter"] is not None and last["code"] is not None:
            code.append((last["code"] - last["enter"]) / 1000)
            drawn.append((last["page"] - last["enter"]) / 1000 if last["page"] is not None else float("nan"))
        page.close()
    return {"code": _stats(code), "page_drawn": _stats([d for d in drawn if d == d])}


def service_last_timing(folder: Path) -> dict:
    """The submit that completes a HIT (store, worker test, code) on a pilot HIT of its own, and the worker
    test alone (:func:`leaderboard.collect.quality.check_annotator`, timed as the call makes it)."""
    os.environ["MTLB_DATA_DIR"] = str(folder)
    from urllib.parse import parse_qs, urlsplit

    from leaderboard.collect import service
    from leaderboard.collect.links import invitation_links
    from leaderboard.storage import Store, default_url
    store = Store(default_url())
    qc: list[float] = []
    real = service.check_annotator

    def timed(*args, **kwargs):
        t = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            qc.append(time.perf_counter() - t)
    total = []
    service.check_annotator = timed
    try:
        for protocol in ("da", "esa"):
            url = invitation_links(store, f"bench-pilot-{protocol}", LP, 1, "http://127.0.0.1:1")[0]["url"]
            person = service.open_invitation(store, parse_qs(urlsplit(url).query)["t"][0])
            task = service.start(store, person)
            if task.state != "item":
                continue
            while task.state == "item" and task.done < task.total - 1:
                task = service.submit_answer(store, person, int(task.current["id"]), 60)
            t = time.perf_counter()
            task = service.submit_answer(store, person, int(task.current["id"]), 60)
            total.append(time.perf_counter() - t)
    finally:
        service.check_annotator = real
    return {"submit": _stats(total), "qc": _stats(qc)}


def service_timing(folder: Path, n: int = 60) -> dict:
    """The store-and-next call alone on the same store (SQLite), for an annotator of its own."""
    os.environ["MTLB_DATA_DIR"] = str(folder)
    from urllib.parse import parse_qs, urlsplit

    from leaderboard.collect.links import invitation_links
    from leaderboard.collect.service import open_invitation, start, submit_answer
    from leaderboard.storage import Store, default_url
    store = Store(default_url())
    url = invitation_links(store, "bench-da", LP, 1, "http://127.0.0.1:1")[0]["url"]
    person = open_invitation(store, parse_qs(urlsplit(url).query)["t"][0])
    task = start(store, person)
    times, cpu = [], []
    for _ in range(min(n, task.total - 1)):
        t, c = time.perf_counter(), time.process_time()
        task = submit_answer(store, person, int(task.current["id"]), 60)
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return {**_stats(times), "cpu_s": _stats(cpu, 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=40, help="items answered per protocol (fewer than a HIT)")
    parser.add_argument("--think", type=float, default=600, help="ms between items (reading time)")
    parser.add_argument("--screenshots", action="store_true", help="write docs/screenshots/annotate-*.png")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--service-only", action="store_true",
                        help="no server or browser: only the store-and-next call and the HIT-completing submit "
                             "(wall and CPU seconds of this process, SQLite)")
    args = parser.parse_args()
    if args.service_only:
        folder = Path(tempfile.mkdtemp(prefix="mtlb-bench-collect-"))
        prepare(folder)
        result = {"service_submit": service_timing(folder), "service_last_submit": service_last_timing(folder),
                  "load_average": os.getloadavg()[0]}
        shutil.rmtree(folder, ignore_errors=True)
        print(json.dumps(result))
        return
    from appserver import running_app
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp(prefix="mtlb-bench-collect-"))
    clock = time.perf_counter()
    links = prepare(folder)
    setup = time.perf_counter() - clock
    env = {**os.environ, "MTLB_DATA_DIR": str(folder)}
    env.pop("DATABASE_URL", None)
    env.pop("MTLB_NO_DEMO", None)
    result: dict = {"target_next_item_s": TARGET, "items": args.items, "think_ms": args.think,
                    "setup_s": round(setup, 1), "load_before": os.getloadavg()[0]}
    with running_app(sys.executable, None, env=env, cwd=ROOT, log=folder / "serve.log") as base:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=ARGS)
            for protocol in ("da", "esa"):
                page = browser.new_page(viewport={"width": 900, "height": 1000 if protocol == "da" else 1900})
                page.set_default_timeout(60000)
                url = links[protocol][0].replace("http://127.0.0.1:1", base)
                shot = ROOT / "docs" / "screenshots" / f"annotate-{protocol}.png" if args.screenshots else None
                result[protocol] = annotate(page, url, protocol, args.items, args.think, shot)
                page.close()
            result["last_answer"] = {p: finish_hits(browser, base, links[f"pilot-{p}"][:2], p) for p in ("da", "esa")}
            browser.close()
    result["service_submit"] = service_timing(folder)
    result["service_last_submit"] = service_last_timing(folder)
    result["load_after"] = os.getloadavg()[0]
    result["met"] = all(result[p]["next_item"].get("p95", 99) <= TARGET for p in ("da", "esa"))
    shutil.rmtree(folder, ignore_errors=True)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
