"""A WMT26-style contrastive-ESA campaign end to end in Debian's chromium: created from WMT26 files (a speech
document with a video, a social one with a screenshot, and an English→Egyptian Arabic pair written right to
left), annotated through crowd links by several annotators at once (tutorial, loud attention checks,
dynamic assignment, a reload in the middle, keyboard and mouse), exported as a Pearmut log, imported back
and ranked with the WMT26 rule. Also: hostile campaign HTML stays harmless in the real page.

Every wait waits for a state of the page (an attribute, an element), never for a time.
"""

from __future__ import annotations

import io
import json
import os
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from test_browser_app import ARGS, CHROMIUM, serve_app
from wmt26files import HOSTILE_SOURCE, png, write_wmt26

pytestmark = [pytest.mark.browser, pytest.mark.slow(weight=3)]
LP, RTL = "eng_Latn-ces_Latn", "eng_Latn-arz_Arab"
FRAME = "iframe[title*='mtlb_cesa']"
HOSTILE_INSTRUCTIONS = ("<div class='white-box' style='position:fixed;top:0;left:0;width:100vw;height:100vh;"
                        "z-index:99999;color:#222'>Keep the register."
                        "<script>window.parent.__pwned = 1</script>"
                        "<img src=x onerror='window.parent.__pwned = 2'>"
                        "<img src='http://example.com/track.png'><a href='javascript:alert(1)'>click</a>"
                        "<iframe src='https://example.com'></iframe><style>body{display:none}</style></div>")


def _cli(*argv: str) -> dict:
    from leaderboard.cli import main
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(list(argv)) == 0, out.getvalue()
    text = out.getvalue()
    return json.loads(text) if text.strip().startswith("{") else {"text": text}


def _tutorial(folder: Path) -> Path:
    """A one-document cESA tutorial in a Pearmut campaign file: A is right (score 70+), B has one wrong word that
    must be marked major and scored 40 or less."""
    doc = [{"item_id": "encs_#_tutorial_#_0", "src": "The museum opens on Friday.",
            "tgt": {"tutorial A": "Muzeum se otevře v pátek.", "tutorial B": "Muzeum se zavře v pátek."},
            "validation": {
                "tutorial A": {"score": [70, 100], "warning": "Translation A is right: score it 70 or more."},
                "tutorial B": {"score": [0, 40], "error_spans": [{"start_i": [10, 10], "end_i": [14, 14],
                                                                  "severity": "major"}],
                               "warning": "'zavře' (closes) is wrong: mark it as a major error, score 40 or less."}}}]
    path = folder / "tutorial.json"
    path.write_text(json.dumps({"campaign_id": "eng_Latn---ces_Latn tutorial",
                                "info": {"assignment": "dynamic", "protocol": "cESA"}, "data": [doc],
                                "data_welcome": [doc]}), encoding="utf-8")
    return path


def _prepare(folder: Path) -> dict:
    os.environ["MTLB_DATA_DIR"] = str(folder)
    from leaderboard.storage import default_url
    url = default_url()
    files = write_wmt26(folder / "files", n_news=8, seed=4)
    db = ["--database-url", url]
    made = _cli("collect", "create", "--campaign", "wmt26", "--lp", LP, "--protocol", "cesa", "--assignment",
                "dynamic", "--wmt26", str(files["testset"]), "--systems", str(files["systems"]), "--models-per-item",
                "3", "--coldstart", "1", "--check-prob", "0.34", "--check-mode", "loud", "--docs-per-user", "3",
                "--tutorial", str(_tutorial(folder)), *db, "--json")
    rtl = _cli("collect", "create", "--campaign", "wmt26", "--lp", RTL, "--protocol", "cesa", "--wmt26",
               str(files["testset"]), "--systems", str(files["systems"]), "--check-prob", "0", *db, "--json")
    hostile_files = write_wmt26(folder / "hostile", n_news=1, seed=5, instructions=HOSTILE_INSTRUCTIONS)
    (hostile_files["assets"] / "screenshots" / "post1.png").write_bytes(png(6, 5))
    _cli("collect", "create", "--campaign", "hostile", "--lp", LP, "--protocol", "cesa", "--wmt26",
         str(hostile_files["testset"]), "--systems", str(hostile_files["systems"]), "--check-prob", "0", *db, "--json")
    def crowd(campaign: str, lp: str) -> str:
        link = _cli("collect", "links", "--campaign", campaign, "--lp", lp, "--crowd", "--base-url",
                    "http://placeholder", *db, "--json")["links"][0]["url"]
        return link.split("?", 1)[1]
    crowd = {"wmt26": crowd("wmt26", LP), "rtl": crowd("wmt26", RTL), "hostile": crowd("hostile", LP)}
    from collecting import write_testset
    from leaderboard.collect import campaigns
    from leaderboard.storage import Store
    paths = write_testset(folder / "esa", n_lines=60, seed=2)
    sources = campaigns.sources_from_files([str(p) for p in paths["hyps"]], str(paths["ref"]), "de-en",
                                           src=str(paths["src"]), docs=str(paths["docs"]))
    campaigns.create(Store(url), "esa", "de-en", sources, protocol="esa", hits=2, hit_size=10, seed=1)
    return {"url": url, "made": made, "rtl": rtl, "crowd": crowd, "files": files}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cesa-store")
    with serve_app(folder, _prepare, MTLB_NO_DEMO="1") as (base, prepared):
        yield {"base": base, "folder": folder, **prepared}


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import expect, sync_playwright
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        expect.set_options(timeout=90000)
        yield chromium
        chromium.close()


def _tab(browser, url: str, width: int = 1280):
    context = browser.new_context(viewport={"width": width, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(120000)
    page.goto(url)
    return page


def _frame(page):
    return page.frame_locator(FRAME)


def _page_key(page) -> str:
    main = _frame(page).locator("main[data-page]")
    main.wait_for()
    return main.get_attribute("data-page")


def _labels(page) -> list[tuple[int, str]]:
    cands = _frame(page).locator("[data-testid^='cand-']")
    return [tuple(c.split("-")[1:]) for c in (cands.nth(i).get_attribute("data-testid") for i in range(cands.count()))]


def _score(page, seg: int, label: str, value: int) -> None:
    """Set a score with the keyboard: focus the slider, End (100), then ← down to the value."""
    slider = _frame(page).get_by_test_id(f"score-{seg}-{label}")
    slider.focus()
    page.keyboard.press("End")
    for _ in range((100 - value) // 10):
        page.keyboard.press("Shift+ArrowLeft")
    for _ in range((100 - value) % 10):
        page.keyboard.press("ArrowLeft")


def _submit(page, before: str) -> bool:
    """Submit the page; wait until the server has answered: a new page (or the completion code), or the same
    page sent back by a loud check. True when the page was sent back."""
    response = _frame(page).locator("main[data-page]").get_attribute("data-response")
    page.keyboard.press("Enter")
    if _frame(page).get_by_test_id("reminder").is_visible():
        page.keyboard.press("Enter")  # the reminder asks once; submitting again goes through
    page.wait_for_function(
        """([sel, before, response]) => {
             if (document.querySelector(".st-key-completion-code code")) return true;
             const f = document.querySelector(sel); const d = f && f.contentDocument;
             const m = d && d.querySelector('main[data-page]');
             return m && m.getAttribute('data-pending') === '0' &&
                    (m.getAttribute('data-page') !== before || m.getAttribute('data-response') !== response); }""",
        arg=[FRAME, before, response])
    if page.locator(".st-key-completion-code code").count():
        return False
    if _page_key(page) == before:
        return True
    # a new page starts at its top, wherever the annotator had scrolled to on the last one
    page.wait_for_function("(sel) => Math.abs(document.querySelector(sel).getBoundingClientRect().top) < 50", arg=FRAME)
    return False


def _answer_page(page, scores: dict[str, int]) -> None:
    for seg, label in _labels(page):
        _score(page, int(seg), label, scores.get(label, 70))


def _mark_major(page, seg: int, label: str, word: int) -> None:
    """Mark one word as a major error with the mouse."""
    frame = _frame(page)
    frame.get_by_test_id(f"tokens-{seg}-{label}").locator(".tok").nth(word).click()
    frame.get_by_test_id(f"mark-major-{seg}-{label}").click()


def _work(page, state: dict) -> bool:
    """One step of an annotator: answer the page on screen; False when their work is complete."""
    frame = _frame(page)
    if page.locator(".st-key-completion-code code").count():
        return False
    key = _page_key(page)
    progress = frame.get_by_test_id("progress-text").inner_text()
    if progress.startswith("Practice"):
        # first try: both right-looking → refused, the notes say what to change
        _answer_page(page, {"A": 80, "B": 80})
        assert _submit(page, key)
        warned = frame.locator(".warn").all_inner_texts()
        assert any("zavře" in w for w in warned), warned
        labels = {t["label"]: t for t in [{"label": lab} for _, lab in _labels(page)]}
        words = {lab: frame.get_by_test_id(f"tokens-1-{lab}").inner_text() for lab in labels}
        wrong = next(lab for lab, text in words.items() if "zavře" in text)
        right = next(lab for lab in labels if lab != wrong)
        _mark_major(page, 1, wrong, 2)
        _score(page, 1, wrong, 20)
        _score(page, 1, right, 90)
        assert not _submit(page, key)
        state["tutorial"] += 1
        return True
    state["pages"] += 1
    scores = {"A": 75, "B": 55, "C": 35}
    _answer_page(page, scores)
    if state["pages"] == 2 and not state["reloaded"]:
        # a reload in the middle of a page: the same page again, answers given so far kept
        _score(page, 1, "A", 64)
        _wait_draft(page, state)
        page.reload()
        assert _page_key(page) == key
        value = _frame(page).get_by_test_id("score-1-A").input_value()
        assert value == "64", value
        state["reloaded"] = True
        _answer_page(page, scores)
    _mark_major(page, 1, "C", 0)
    if _submit(page, key):
        # a loud attention check: the notes say which translation must score lower than the others
        import re
        notes = " ".join(frame.locator(".warn").all_inner_texts())
        spoiled = set(re.findall(r"higher than translation ([A-D])", notes))
        assert len(spoiled) == 1, notes
        for _, label in _labels(page):
            _score(page, 1, label, 10 if label in spoiled else 90)
        state["checks_redone"] += 1
        assert not _submit(page, key)
    return True


def _wait_draft(page, state: dict) -> None:
    """Wait until the draft of the last score change is stored (the server's drafts hold it)."""
    from leaderboard.storage import Store
    from leaderboard.storage import collect_cesa as cdb
    store = Store(state["url"])
    key = _page_key(page)
    assignment = int(key.split(":")[0])
    for _ in range(600):
        if any(raw == 64 for _, raw, _, _ in cdb.answer_rows(store, assignment)):
            return
        page.wait_for_timeout(100)
    raise AssertionError("the draft was not stored")


def test_wmt26_campaign_end_to_end(server, browser, tmp_path):
    base, url = server["base"], server["url"]
    assert server["made"]["assignment"] == "dynamic" and server["made"]["tutorial"] == 1
    tabs = {name: _tab(browser, f"{base}/?{server['crowd']['wmt26']}&worker={name}") for name in ("ann1", "ann2", "ann3")}
    states = {name: {"pages": 0, "tutorial": 0, "reloaded": name != "ann1", "checks_redone": 0, "url": url}
              for name in tabs}
    for tab in tabs.values():
        _page_key(tab)  # all three hold their first page at once
    active = dict(tabs)
    for _ in range(40):
        if not active:
            break
        for name in list(active):
            if not _work(active[name], states[name]):
                del active[name]
    assert not active, "annotators did not finish"
    from leaderboard.storage import Store
    from leaderboard.storage.collect import collection
    info = collection(Store(url), "wmt26", LP)
    for name, tab in tabs.items():
        code = tab.locator(".st-key-completion-code code").inner_text().strip()
        assert code in (info["code_pass"], info["code_fail"])
        assert states[name]["tutorial"] == 1 and states[name]["pages"] >= 3  # docs-per-user 3, checks too
    assert states["ann1"]["reloaded"]
    status = _cli("collect", "status", "--campaign", "wmt26", "--lp", LP, "--database-url", url, "--json")
    cells = status["cells"]
    assert cells["done"] == cells["given"] and 0 < cells["given"] <= cells["cells"]
    judged = Store(url).judgments("wmt26")
    assert judged["worker"].nunique() == 3 and (judged.groupby(["hit", "segment"]).size() >= 2).all()
    # export as a Pearmut log, import it back, rank it with the WMT26 rule
    out = tmp_path / "export"
    written = _cli("collect", "export", "--campaign", "wmt26", "--lp", LP, "--format", "pearmut", "--out", str(out),
                   "--database-url", url, "--json")
    log = out / "wmt26.jsonl"
    assert written["files"] == [str(log)] and written["workers"] == 3
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert sum(str(x["item_i"]).startswith("welcome_") for x in lines) == 3
    counted = [x for x in lines if isinstance(x["item_i"], int)]
    assert sum(len(seg) for x in counted for seg in x["annotation"]) == len(judged)
    back = f"sqlite:///{tmp_path / 'back.sqlite'}"
    _cli("ingest", str(log), "--input-format", "pearmut", "--campaign", "back", "--lp", LP, "--database-url", back)
    again = Store(back).judgments("back")
    assert len(again) == len(judged) and abs(again["raw"].sum() - judged["raw"].sum()) < 1e-9
    ranked = _cli("rank", str(log), "--input-format", "pearmut", "--lp", LP, "--protocol", "wmt26", "--json")
    means = judged.groupby(["system", "segment"])["raw"].mean().groupby("system").mean()
    shown = {s["system"]: s for s in ranked["systems"]}
    assert set(shown) == set(means.index)
    for system, mean in means.items():
        assert abs(shown[system]["mean"] - mean) < 1e-9
    assert [s["system"] for s in ranked["systems"]] == list(means.sort_values(ascending=False).index)


def test_media_come_from_the_asset_folder_and_rtl_targets(server, browser):
    base = server["base"]
    files = server["files"]
    tab = _tab(browser, f"{base}/?{server['crowd']['rtl']}&worker=rtl1")
    frame = _frame(tab)
    seen_video = seen_image = False
    state_src = ""
    for _ in range(12):  # the pair has 10 documents; the speech and social ones come in some order
        key = _page_key(tab)
        line = frame.get_by_test_id("tokens-1-A")
        assert line.get_attribute("dir") == "rtl" and line.get_attribute("lang") == "arz"
        assert frame.get_by_test_id("source-1").get_attribute("dir") == "ltr"
        if frame.locator("video").count():
            src = frame.locator("video").first.get_attribute("src")
            assert src.startswith("../") and "talk1.mp4" in src
            body = frame.locator("main").evaluate("async (m, s) => { const r = await fetch(s); "
                                                   "return [r.status, Array.from(new Uint8Array(await r.arrayBuffer()))] }",
                                                   src)
            assert body[0] == 200 and bytes(body[1]) == (files["assets"] / "videos" / "talk1.mp4").read_bytes()
            seen_video, state_src = True, src
        if frame.locator("img").count():
            img = frame.locator("img").first
            tab.wait_for_function("(sel) => { const f = document.querySelector(sel); const i = f.contentDocument"
                                  ".querySelector('img'); return i && i.complete && i.naturalWidth > 0; }", arg=FRAME)
            assert img.evaluate("i => [i.naturalWidth, i.naturalHeight]") == [4, 3]
            seen_image = True
        if seen_video and seen_image:
            break
        _answer_page(tab, {})
        _submit(tab, key)
        if tab.locator(".st-key-completion-code code").count():
            break
    assert seen_video and seen_image
    # a path leaving the folder is refused by the server itself (encoded, so the browser does not resolve it)
    escape = state_src.replace("videos/talk1.mp4", "..%2F..%2F..%2F..%2F..%2Fetc%2Fpasswd")
    status, text = frame.locator("main").evaluate("async (m, s) => { const r = await fetch(s); "
                                                  "return [r.status, await r.text()] }", escape)
    assert status in (400, 403, 404) and "root:" not in text


def test_hostile_campaign_html_stays_harmless(server, browser):
    tab = _tab(browser, f"{server['base']}/?{server['crowd']['hostile']}&worker=h1")
    frame = _frame(tab)
    seen_source = False
    for _ in range(4):
        key = _page_key(tab)
        note = frame.locator(".note").first
        assert "Keep the register." in note.inner_text()
        assert frame.locator("main script, main iframe, main style, main a[href], main [onerror], main [onclick]").count() == 0
        assert note.evaluate("n => getComputedStyle(n.querySelector('.white-box')).position") != "fixed"
        assert frame.locator("img[src*='example.com'], img:not([src])").count() == frame.locator("img:not([src])").count()
        assert frame.locator("img[src*='example.com']").count() == 0
        box = note.bounding_box()
        assert box["width"] < 1280 and box["height"] < 600  # it did not cover the page
        assert tab.evaluate("window.__pwned") is None
        source = frame.get_by_test_id("source-1").inner_text()
        if "Watch" in source:  # HTML-looking text of a source is shown as text
            assert source.strip() == HOSTILE_SOURCE
            seen_source = True
            break
        _answer_page(tab, {})
        _submit(tab, key)
    assert seen_source


def test_a_preview_holds_nothing(server, browser):
    from leaderboard.storage import Store
    from leaderboard.storage.collect import annotator_count, collection
    info = collection(Store(server["url"]), "hostile", LP)
    before = annotator_count(Store(server["url"]), info["id"])
    tab = _tab(browser, f"{server['base']}/?{server['crowd']['hostile']}&assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE"
                        "&hitId=H1&workerId=W9")
    from playwright.sync_api import expect
    expect(tab.get_by_text("This is a preview of the task")).to_be_visible()
    assert tab.locator(FRAME).count() == 0
    assert annotator_count(Store(server["url"]), info["id"]) == before


def test_an_esa_annotator_goes_back_within_the_document(server, browser):
    """Issue 42.6 in the page: answer a segment, go on, change the earlier one (Change), go on; the stored
    judgment of the earlier segment is the changed one."""
    from leaderboard.collect.links import invitation_links
    from leaderboard.storage import Store
    link = invitation_links(Store(server["url"]), "esa", "de-en", 1, server["base"])[0]
    tab = _tab(browser, link["url"], width=900)
    frame = tab.frame_locator("iframe[title*='mtlb_annotate']")

    def item() -> str:
        main = frame.locator("main[data-item]")
        main.wait_for()
        return main.get_attribute("data-item")

    def answer(score: int) -> None:
        before = item()
        tab.keyboard.press("Tab")
        tab.keyboard.press("End")
        for _ in range(100 - score):
            tab.keyboard.press("ArrowLeft")
        tab.keyboard.press("Enter")
        frame.locator(f"main:not([data-item='{before}'])").first.wait_for()

    for _ in range(3):  # the practice items
        answer(100)
    first = item()
    answer(47)
    second = item()
    assert second != first
    frame.get_by_test_id(f"change-{first}").click()
    assert item() == first
    frame.locator("main[data-pending='0']").wait_for()
    tab.keyboard.press("Tab")  # from the words to the score, which holds the answer given
    tab.keyboard.press("End")
    for _ in range(20):
        tab.keyboard.press("ArrowLeft")
    tab.keyboard.press("Enter")
    assert item() == second  # back to the first open segment
    frame.locator("main[data-pending='0']").wait_for()
    for _ in range(300):  # the page says it is stored; the store's state is polled until it shows it
        person = Store(server["url"]).judgments("esa")
        if (person["raw"] == 80).any():
            break
        tab.wait_for_timeout(100)
    assert sorted(person["raw"]) == [80.0]
