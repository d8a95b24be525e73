"""The package as users install it: a wheel (non-editable) in a fresh virtual environment.

The wheel is built from a copy of the sources (so the checkout gets no ``build/`` folder) and
installed without dependencies into a new venv; a ``.pth`` file then lends that venv the test
environment's third-party packages (streamlit, pandas, ...), which saves reinstalling them. The
project itself comes only from the wheel: the tests check where ``leaderboard`` is imported from and
run everything from folders outside the source tree, with ``app.py`` copied elsewhere.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from appserver import running_app
from conftest import ROOT

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
USERS = {"organiser": ("olga", "organiser-password"), "metric-developer": ("mdev", "developer-password")}
# every page of the app: (url path, title in the menu, heading on the page)
PAGES = [("", "Leaderboard", "Leaderboard"), ("significance", "Significance", "Pairwise significance"),
         ("system", "System", "System"), ("longitudinal", "Across years", "Across years"),
         ("qc", "Quality control", "Quality control"), ("method", "Method", "Method"),
         ("metrics", "Metrics", "Metrics"),
         ("organiser", "Organiser", "Organiser"), ("login", "Log in", "Log in")]

pytestmark = pytest.mark.slow


def _run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if proc.returncode != 0:
        pytest.fail(f"{' '.join(map(str, cmd))} failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}",
                    pytrace=False)
    return proc


def _clean_env(**extra: str) -> dict[str, str]:
    """A user's environment: no project settings, but the run's statistics folder (a saving only: the
    demo's metric baselines are the same numbers whoever computed them; migrations still replay)."""
    env = {k: v for k, v in os.environ.items()
           if not (k.startswith("MTLB_") or k in ("DATABASE_URL", "PYTHONPATH", "VIRTUAL_ENV"))
           or k == "MTLB_STATS_CACHE"}
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict:
    """A fresh venv holding the project from its wheel; returns its paths and an outside working folder."""
    tmp = tmp_path_factory.mktemp("installed")
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for package in ("leaderboard", "metrics"):
        shutil.copytree(ROOT / package, src / package, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    # links stay links, as in a git checkout or the Docker build: leaderboard/webapp/method points to
    # docs/method, and the wheel must hold the files themselves
    shutil.copytree(ROOT / "docs" / "method", src / "docs" / "method")
    build = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(tmp / "dist"), str(src)])
    wheel = next((tmp / "dist").glob("mtlb-*.whl"))
    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "--quiet",
          str(wheel)])
    purelib = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    # dependencies from the test environment, searched after the venv's own packages (the wheel)
    (purelib / "zz_test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    outside = tmp / "elsewhere"
    outside.mkdir()
    return {"python": python, "mtlb": venv / "bin" / "mtlb", "purelib": purelib, "outside": outside,
            "wheel": wheel, "build_output": build.stdout + build.stderr}


def _mtlb(installed: dict, store: Path, *args: str, stdin: str | None = None, **env: str):
    return _run([str(installed["mtlb"]), *args], cwd=installed["outside"], input=stdin,
                env=_clean_env(MTLB_DATA_DIR=str(store), **env))


@pytest.fixture(scope="module")
def demo_store(installed, tmp_path_factory) -> Path:
    """A store holding the packaged demo (loaded by the installed `mtlb demo`) and one account per role."""
    store = tmp_path_factory.mktemp("installed-store")
    loaded = json.loads(_mtlb(installed, store, "demo", "--json").stdout)
    # WMT22 cs-en 25,070 + WMT21 cs-en 13,069 (the releases) + the simulated crowd's 26,400
    assert loaded["judgments"] == 25070 + 13069 + 26400 and len(loaded["published"]) == 4
    # the password from the environment, and piped in with no terminal: both without --password-stdin
    name, password = USERS["organiser"]
    _mtlb(installed, store, "user", "add", name, "--role", "organiser", MTLB_PASSWORD=password)
    name, password = USERS["metric-developer"]
    _mtlb(installed, store, "user", "add", name, "--role", "metric-developer", stdin=password + "\n")
    return store


def test_the_build_warns_of_nothing(installed):
    """No deprecation notice (e.g. setuptools' on the licence table) greets a newcomer's install."""
    assert "deprecat" not in installed["build_output"].lower(), installed["build_output"][-3000:]


def test_project_comes_from_the_wheel(installed):
    code = ("import leaderboard, metrics, leaderboard.publish.demo as d; "
            "print(leaderboard.__file__); print(metrics.__file__); print(d.demo_dir())")
    lines = _run([str(installed["python"]), "-c", code], cwd=installed["outside"], env=_clean_env()).stdout.split()
    for path in lines:
        assert Path(path).is_relative_to(installed["purelib"]), path
        assert not Path(path).is_relative_to(ROOT)
    assert (Path(lines[2]) / "wmt22-cs-en" / "ad-csen-good-stnd.csv.gz").is_file()
    for name in ("ad-csen-good-stnd.csv.gz", "ad-csen-trk-mean-sd.txt", "ad-trk-stats.csv.gz"):
        assert (Path(lines[2]) / "wmt21-cs-en" / name).is_file(), name
    # the snapshot_artifacts migration ships with the wheel
    assert (Path(lines[0]).parent / "storage" / "migrations" / "versions" / "0010_snapshot_artifacts.py").is_file()


def test_method_documents_ship_in_the_wheel(installed):
    """The wheel holds the method documents themselves (not a link), and the installed app reads them."""
    expected = {p.name: p.read_bytes() for p in (ROOT / "docs" / "method").glob("*.md")}
    assert len(expected) > 5
    with zipfile.ZipFile(installed["wheel"]) as wheel:
        folder = "leaderboard/webapp/method/"
        shipped = {name[len(folder):]: wheel.read(name) for name in wheel.namelist() if name.startswith(folder)}
    assert shipped == expected
    code = ("from leaderboard.webapp import method_docs as m; print(m.DOCS_DIR); "
            "print(' '.join(d.name for d in m.documents())); print(m.markdown('hits').splitlines()[0])")
    folder, names, first = _run([str(installed["python"]), "-c", code], cwd=installed["outside"],
                                env=_clean_env()).stdout.splitlines()
    assert Path(folder).is_relative_to(installed["purelib"]) and not Path(folder).is_symlink()
    assert names.split()[0] == "README" and sorted(names.split()) == sorted(n[:-3] for n in expected)
    assert first == "# The 100-item HIT"


def test_installed_cli_finds_the_packaged_demo_and_reads_passwords(installed, demo_store):
    listing = json.loads(_mtlb(installed, demo_store, "campaigns", "--json").stdout)
    counts = {(r["campaign"], r["lp"]): r["judgments"] for r in listing}
    assert counts[("WMT22 cs-en (demo)", "cs-en")] == 25070
    users = json.loads(_mtlb(installed, demo_store, "user", "list", "--json").stdout)
    from leaderboard.publish.demo import DEMO_TEAMS  # the demo's shared task signs its teams up
    # the installed `mtlb demo` gave its store the demo accounts (made before olga and mdev were added)
    assert sorted((u["name"], u["role"], u["demo"]) for u in users) == sorted(
        [("mdev", "metric-developer", False), ("olga", "organiser", False), ("demo-metrics", "metric-developer", True),
         ("demo-organiser", "organiser", True)] + [(team, "team", False) for team in DEMO_TEAMS])
    # the password given through the environment works for publishing (and it checks the role)
    published = json.loads(_mtlb(installed, demo_store, "publish", "--campaign", "WMT22 cs-en (demo)", "--user",
                                 "olga", "--json", MTLB_PASSWORD=USERS["organiser"][1]).stdout)["published"]
    assert [(p["lp"], p["version"]) for p in published] == [("cs-en", 2)]
    assert "qc:release" in published[0]["signature"]


@pytest.fixture(scope="module")
def app_server(installed, demo_store, tmp_path_factory):
    """`streamlit run` of a copy of app.py outside the source tree, with the installed package."""
    if not Path(CHROMIUM).exists():
        pytest.skip("/usr/bin/chromium is not installed")
    pytest.importorskip("playwright.sync_api")
    site = tmp_path_factory.mktemp("site")
    shutil.copy(ROOT / "app.py", site / "app.py")
    env = _clean_env(MTLB_DATA_DIR=str(demo_store), MTLB_NO_DEMO="1", BROWSER_PATH=CHROMIUM)
    with running_app(installed["python"], site / "app.py", env=env, cwd=site, log=site / "streamlit.log") as base:
        yield base


def _wait_idle(page) -> None:
    page.wait_for_timeout(300)
    page.wait_for_selector("[data-testid='stStatusWidget']", state="detached", timeout=120000)


def _check_page(page, heading: str, who: str, url: str) -> None:
    from playwright.sync_api import expect
    expect(page.get_by_role("heading", name=heading).first).to_be_visible(timeout=120000)
    _wait_idle(page)
    errors = page.locator("[data-testid='stException']")
    assert errors.count() == 0, f"{who} on {url}: " + " | ".join(errors.all_inner_texts())[:1500]


@pytest.mark.browser
def test_every_page_renders_from_the_installed_package(app_server):
    from playwright.sync_api import expect, sync_playwright

    shots = ROOT / "test-artifacts" / "installed-package"
    shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            # a logged-out visitor opens every page by its link
            page = browser.new_page(viewport={"width": 1300, "height": 1100})
            page.set_default_timeout(120000)
            for url, _, heading in PAGES:
                page.goto(f"{app_server}/{url}")
                _check_page(page, heading, "visitor", url)
            # the member pages offer the login page (a link to a registered page, wherever app.py lives)
            page.goto(f"{app_server}/organiser")
            _wait_idle(page)
            page.get_by_role("link", name="Log in").last.click()
            expect(page.get_by_role("heading", name="Log in")).to_be_visible()
            page.close()
            # each role logs in (switch_page to its own page), then visits every page through the menu
            for role, (name, password) in USERS.items():
                page = browser.new_page(viewport={"width": 1300, "height": 1100})
                page.set_default_timeout(120000)
                page.goto(f"{app_server}/login")
                page.get_by_label("User name").fill(name)
                page.get_by_role("textbox", name="Password").fill(password)
                page.get_by_role("button", name="Log in").click()
                landing = "Organiser" if role == "organiser" else "Metrics"
                _check_page(page, landing, role, "login")
                expect(page.get_by_text(f"Logged in as {name}").first).to_be_visible()
                nav = page.locator("[data-testid='stSidebarNav']")
                # logged in, the menu's login entry is the account page (issue 42.9: "Log in" stayed)
                expect(nav.get_by_role("link", name="Log in", exact=True)).to_have_count(0)
                logged_in = [("login", "Account", "Account") if url == "login" else (url, title, heading)
                             for url, title, heading in PAGES]
                for url, title, heading in logged_in:
                    nav.get_by_role("link", name=title, exact=True).click()
                    _check_page(page, heading, role, url)
                    expect(page.get_by_text(f"Logged in as {name}").first).to_be_visible()
                page.screenshot(path=str(shots / f"{role}-last-page.png"), full_page=True)
                page.close()
        finally:
            browser.close()


def test_wheel_ships_the_annotation_component(installed):
    """The annotator page's component is package data: one HTML file, nothing to build at install."""
    import zipfile
    names = zipfile.ZipFile(installed["wheel"]).namelist()
    assert "leaderboard/webapp/components/annotate/index.html" in names
    assert "leaderboard/storage/migrations/versions/0013_collect.py" in names
