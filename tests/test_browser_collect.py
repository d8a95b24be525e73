"""Annotators in Debian's chromium, keyboard only: a DA HIT and an ESA HIT from an invitation link to the
completion code, with a reload in the middle that resumes at the same item; what the page shows and
what the store holds afterwards. Pilot-sized HITs keep it fast (20 DA items; ESA 3 practice items and
about 10 segments).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from collecting import write_testset
from test_browser_app import ARGS, CHROMIUM, _shot, serve_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]
LP = "de-en"
FRAME = "iframe[title*='mtlb_annotate']"


def _prepare(folder: Path) -> dict:
    os.environ["MTLB_DATA_DIR"] = str(folder)
    from leaderboard.collect import campaigns
    from leaderboard.storage import Store, default_url
    store = Store(default_url())
    paths = write_testset(folder / "testset", n_lines=60, seed=2)
    sources = campaigns.sources_from_files([str(p) for p in paths["hyps"]], str(paths["ref"]), LP,
                                           src=str(paths["src"]), docs=str(paths["docs"]))
    campaigns.create(store, "pilot-da", LP, sources, protocol="da", hits=2, hit_size=20, seed=1)
    campaigns.create(store, "pilot-esa", LP, sources, protocol="esa", hits=2, hit_size=10, seed=1)
    hostile = _hostile_files(folder / "hostile")
    sources = campaigns.sources_from_files(hostile["hyps"], hostile["ref"], "en-he", src=hostile["src"])
    campaigns.create(store, "hostile", "en-he", sources, protocol="da", source_based=True, hits=1, hit_size=20,
                     seed=1)
    return {"url": default_url()}


HOSTILE = "<img src=x onerror=alert(1)> **bold** [link](http://example.com) <b>b</b>"


def _hostile_files(folder: Path) -> dict:
    """A Hebrew test set (right to left) whose texts carry HTML and Markdown that must stay text."""
    folder.mkdir(parents=True)
    ref = [f"שלום עולם מספר {k} {HOSTILE} סוף המשפט" for k in range(40)]
    src = [f"Hello world number {k} {HOSTILE} end of the sentence" for k in range(40)]
    paths = {"ref": folder / "t.en-he.ref.A.he", "src": folder / "t.en-he.src.en", "hyps": []}
    paths["ref"].write_text("\n".join(ref) + "\n", encoding="utf-8")
    paths["src"].write_text("\n".join(src) + "\n", encoding="utf-8")
    for name, cut in (("s1", 1), ("s2", 2), ("s3", 3)):
        hyp = folder / f"t.en-he.hyp.{name}.he"
        hyp.write_text("\n".join(" ".join(r.split()[cut:]) for r in ref) + "\n", encoding="utf-8")
        paths["hyps"].append(str(hyp))
    return {"hyps": paths["hyps"], "ref": str(paths["ref"]), "src": str(paths["src"])}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("collect-store")
    with serve_app(folder, _prepare) as (base, prepared):
        yield {"base": base, **prepared}


def _link(server, campaign: str) -> tuple[str, str]:
    from leaderboard.collect.links import invitation_links
    from leaderboard.storage import Store
    link = invitation_links(Store(server["url"]), campaign, LP, 1, server["base"])[0]
    return link["annotator"], link["url"]


@pytest.fixture()
def page():
    from playwright.sync_api import expect, sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        tab = browser.new_page(viewport={"width": 360, "height": 800})
        tab.set_default_timeout(60000)
        expect.set_options(timeout=30000)
        yield tab
        browser.close()


def _item(page) -> str:
    main = page.frame_locator(FRAME).locator("main[data-item]")
    main.wait_for()
    return main.get_attribute("data-item")


def _next(page, before: str) -> None:
    page.frame_locator(FRAME).locator(f"main:not([data-item='{before}'])").first.wait_for()


def _saved(page) -> None:
    """Wait until the page has stored every answer given (the component's queue is empty)."""
    page.frame_locator(FRAME).locator("main[data-pending='0']").wait_for()


def _progress(page) -> str:
    return page.frame_locator(FRAME).get_by_test_id("progress-text").inner_text()


def _code(server, campaign: str) -> tuple[str, str]:
    from leaderboard.storage import Store
    from leaderboard.storage.collect import collection
    info = collection(Store(server["url"]), campaign, LP)
    return info["code_pass"], info["code_fail"]


def _judgments(server, campaign: str, worker: str):
    from leaderboard.storage import Store
    frame = Store(server["url"]).judgments(campaign)
    return frame[frame["worker"] == worker].sort_values("position")


def test_da_hit_with_the_keyboard_alone(server, page):
    from playwright.sync_api import expect
    worker, url = _link(server, "pilot-da")
    page.goto(url)
    first = _item(page)
    assert _progress(page) == "Item 1 of 20"
    # not answered yet: Enter does not go on, the slider is pointed at
    page.keyboard.press("Enter")
    expect(page.frame_locator(FRAME).get_by_test_id("pointer")).to_be_visible()
    assert _item(page) == first
    scores = []
    for k in range(8):
        before = _item(page)
        for _ in range(k + 1):
            page.keyboard.press("ArrowRight")  # 50 + k + 1
        page.keyboard.press("Shift+ArrowLeft")  # -10
        page.keyboard.press("Enter")
        scores.append(50 + k + 1 - 10)
        _next(page, before)
    assert _progress(page) == "Item 9 of 20"
    _saved(page)
    item = _item(page)
    page.reload()  # a reload in the middle: the same item again
    assert _item(page) == item and _progress(page) == "Item 9 of 20"
    _shot(page, "collect-da-360")
    while True:
        before = _item(page)
        page.keyboard.press("ArrowLeft")
        page.keyboard.press("Enter")
        scores.append(49)
        if len(scores) == 20:
            break
        _next(page, before)
    expect(page.get_by_text("Your completion code")).to_be_visible()
    shown = page.locator(".st-key-completion-code code").inner_text().strip()
    assert shown in _code(server, "pilot-da")
    stored = _judgments(server, "pilot-da", worker)
    assert list(stored["raw"]) == scores and list(stored["position"]) == list(range(1, 21))
    assert stored["seconds"].notna().all()
    page.reload()  # the code again, no new HIT started by a reload
    expect(page.get_by_text("Your completion code")).to_be_visible()
    assert len(_judgments(server, "pilot-da", worker)) == 20


def test_esa_hit_with_the_keyboard_alone(server, page):
    from playwright.sync_api import expect
    worker, url = _link(server, "pilot-esa")
    page.goto(url)
    _item(page)
    frame = page.frame_locator(FRAME)
    assert _progress(page).startswith("Practice item 1 of 3")
    for _ in range(3):  # the practice items: they do not count
        before = _item(page)
        page.keyboard.press("Tab")
        page.keyboard.press("End")  # the score: 100
        page.keyboard.press("Enter")
        _next(page, before)
    assert _progress(page).startswith("Item 1 of ")
    total = int(_progress(page).split(" of ")[1])
    marked = None
    for k in range(total):
        before = _item(page)
        if k == 0:
            # mark words 2-3 as a major error and the missing-content marker as minor
            page.keyboard.press("ArrowRight")
            page.keyboard.press("Shift+ArrowRight")
            page.keyboard.press("2")
            page.keyboard.press("End")
            page.keyboard.press("1")
            expect(frame.locator(".tok.major")).to_have_count(2)
            expect(frame.locator(".tok.missing.minor")).to_have_count(1)
            marked = before
        # the score: unset until moved; Enter without it is pointed at, and the slider gets the keys
        if k == 1:
            page.keyboard.press("Enter")
            expect(frame.get_by_test_id("pointer")).to_be_visible()
        else:
            page.keyboard.press("Tab")  # from the words to the slider
        for _ in range(3):
            page.keyboard.press("ArrowLeft")
        page.keyboard.press("Enter")  # 47
        if k == 3:
            _saved(page)
            page.reload()
            _item(page)
            assert _progress(page) == f"Item 5 of {total}"
            _shot(page, "collect-esa-360")
            continue
        if k < total - 1:
            _next(page, before)
    expect(page.get_by_text("Your completion code")).to_be_visible()
    assert page.locator(".st-key-completion-code code").inner_text().strip() in _code(server, "pilot-esa")
    stored = _judgments(server, "pilot-esa", worker)
    assert len(stored) == total and (stored["raw"] == 47).all() and (stored["assessment"] == "esa").all()
    from leaderboard.storage import Store
    from leaderboard.storage.expert import annotation_rows
    spans = annotation_rows(Store(server["url"]), "pilot-esa", LP, "esa")
    assert sorted(spans["severity"]) == ["major", "minor"] and set(spans["rater"]) == {worker}
    from leaderboard.storage.collect import item
    text = item(Store(server["url"]), int(marked))["text"]
    major = spans[spans["severity"] == "major"].iloc[0]
    assert text[int(major["span_start"]): int(major["span_end"])] == " ".join(text.split()[1:3])


def test_links_that_do_not_work(server, page):
    from playwright.sync_api import expect
    page.goto(server["base"] + "/?t=" + "A" * 32)
    expect(page.get_by_text("this invitation link is not valid")).to_be_visible()
    page.goto(server["base"] + "/?c=nope&worker=w1")
    expect(page.get_by_text("does not belong to any annotation campaign")).to_be_visible()
    # an annotator's page has no menu to the rest of the app
    assert page.locator("[data-testid='stSidebarNav']").count() == 0


def test_text_stays_text_in_its_direction_at_360_px(server, page):
    """HTML and Markdown in the texts are shown literally; Hebrew right to left, the English source left to
    right; nothing is wider than a 360 px screen."""
    from leaderboard.collect.links import invitation_links
    from leaderboard.storage import Store
    from leaderboard.storage.collect import item
    url = invitation_links(Store(server["url"]), "hostile", "en-he", 1, server["base"])[0]["url"]
    page.goto(url)
    shown = int(_item(page))
    frame = page.frame_locator(FRAME)
    truth = item(Store(server["url"]), shown)["text"]
    translation = frame.locator(".translation")
    assert translation.get_attribute("dir") == "rtl" and translation.get_attribute("lang") == "he"
    assert translation.evaluate("e => e.textContent") == truth and HOSTILE in truth
    context = frame.locator(".context")
    assert context.get_attribute("dir") == "ltr" and HOSTILE in context.evaluate("e => e.textContent")
    assert frame.locator("img, b, a, strong").count() == 0
    assert page.locator("[data-testid='stMain'] img, [data-testid='stMain'] strong a").count() == 0
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    component = next(f for f in page.frames if "mtlb_annotate" in f.url)
    assert component.evaluate("document.documentElement.scrollWidth") <= component.evaluate("innerWidth")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    _next(page, str(shown))
