"""The README is a tutorial that works verbatim on a fresh clone: its command blocks run, in order, on
what the repository ships, and never change the store the app serves.

Conventions of README.md (also written in an HTML comment at the top of its *Command line* section):

* every fenced ```` ```bash ```` block is executed, top to bottom, each in a fresh ``bash`` with
  ``set -euo pipefail`` (so a block defines the shell variables it uses); each block starts by
  pointing ``MTLB_DATA_DIR`` at the tutorial's own store under ``out/``, so the store the app serves
  (here a store with one campaign, given as ``MTLB_DATA_DIR`` to the commands) is never changed, which
  the test checks; ``MTLB_PASSWORD`` is set, no ``DATABASE_URL``;
* the blocks read only files of the repository (the package's demo data, ``data/``): no path leaves
  the checkout (``../``), the mirror they run in has nothing beside it, and ``MTLB_SHARED_DATA``
  points nowhere, so an example that needs the development data (``../shared``) fails here as it
  would on an outside user's clone;
* ```` ```sh ```` and ```` ```console ```` blocks are shown, never run (servers, docker, installs);
  other shell-like languages are refused, so a typo cannot silently turn a command block off;
* a ```` ```json output ```` block placed after a ```` ```bash ```` block (prose may come between)
  documents the JSON printed by that block's last command. The printed JSON must have the same
  shape: the same keys (a key written ``"<name>"`` stands for any key), lists whose elements all
  look like a documented element, integers where integers are written, strings where strings are.
  A block marked ```` ```json output values ```` also has its values checked: strings and integers
  exactly, numbers to the digits written (half a unit of the last one), lists element by element in
  order for as many elements as written (``null`` stands for any value).

Commands run from a mirror of the repository root (a temporary folder of symbolic links to every
top-level entry, alone in its parent folder), so relative paths resolve exactly as from the checkout
while the files a block writes (``out/...``) land in the temporary folder. The whole run must leave
``git status`` unchanged.
"""

from __future__ import annotations

import glob
import json
from decimal import Decimal
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import ROOT

README = ROOT / "README.md"
RUN = "bash"
SHOWN = {"sh", "console"}
SHELL_LIKE = {"shell", "zsh", "shell-session", "bash-session", "sh-session", "terminal", "cmd", "powershell"}
MARKER = "@@readme-next-command@@"
PASSWORD = "readme-test-password"


@dataclass
class Block:
    lang: str
    info: str
    code: str
    line: int  # line of the opening fence (1-based)


def parse_blocks(text: str) -> list[Block]:
    """Fenced code blocks (``` or ~~~, up to three spaces of indentation) with their info strings."""
    blocks: list[Block] = []
    # HTML comments are not rendered and hold no blocks (newlines are kept for line numbers)
    text = re.sub(r"<!--.*?-->", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"^ {0,3}(`{3,}|~{3,})\s*(.*)$", lines[i])
        if not m:
            i += 1
            continue
        fence, info = m.group(1), m.group(2).strip()
        start, body = i + 1, []
        i += 1
        while i < len(lines) and not re.match(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}\s*$", lines[i]):
            body.append(lines[i])
            i += 1
        if i == len(lines):
            raise AssertionError(f"README.md line {start}: code fence {fence} is never closed")
        blocks.append(Block(info.split()[0].lower() if info else "", info, "\n".join(body) + "\n", start))
        i += 1
    return blocks


def documented_outputs(blocks: list[Block]) -> dict[int, tuple[Block, object]]:
    """Map the index of a bash block to its ```json output block (and the parsed JSON)."""
    out: dict[int, tuple[Block, object]] = {}
    for k, block in enumerate(blocks):
        if block.info.split()[:2] != ["json", "output"]:
            continue
        if k == 0 or blocks[k - 1].lang != RUN:
            raise AssertionError(f"README.md line {block.line}: a ```json output block must follow a ```bash block")
        try:
            out[k - 1] = (block, json.loads(block.code))
        except json.JSONDecodeError as exc:
            raise AssertionError(f"README.md line {block.line}: the documented output is not JSON: {exc}") from None
    return out


# ---- output shapes ---------------------------------------------------------------------------
def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


def _placeholder(key: str) -> bool:
    return key.startswith("<") and key.endswith(">")


def shape_errors(doc: object, actual: object, where: str = "$") -> list[str]:
    """How ``actual`` (printed JSON) differs in shape from ``doc`` (the README's example).

    Objects need exactly the documented keys (``"<name>"`` keys stand for any key, whose values
    look like the placeholder's); every element of a list must look like one documented element;
    an integer must stay an integer, a string a string (strings and floats may be null, as NaN is
    printed as null). A documented null accepts anything.
    """
    if doc is None:
        return []
    if isinstance(doc, dict):
        if not isinstance(actual, dict):
            return [f"{where}: expected an object, got {_kind(actual)}"]
        wild = [k for k in doc if _placeholder(k)]
        fixed = [k for k in doc if not _placeholder(k)]
        errors = [f"{where}: key {k!r} is documented but missing" for k in fixed if k not in actual]
        if not wild:
            errors += [f"{where}: key {k!r} is printed but not documented" for k in actual if k not in doc]
        for key, value in actual.items():
            if key in doc and not _placeholder(key):
                errors += shape_errors(doc[key], value, f"{where}.{key}")
            elif wild:
                errors += shape_errors(doc[wild[0]], value, f"{where}[{key!r}]")
        return errors
    if isinstance(doc, list):
        if not isinstance(actual, list):
            return [f"{where}: expected a list, got {_kind(actual)}"]
        errors = []
        for i, item in enumerate(actual if doc else []):
            tries = [shape_errors(d, item, f"{where}[{i}]") for d in doc]
            if all(tries):
                errors += tries[0]
            if len(errors) > 20:
                break
        return errors
    if isinstance(doc, bool):
        return [] if isinstance(actual, bool) else [f"{where}: expected true/false, got {_kind(actual)}"]
    if isinstance(doc, int):
        ok = isinstance(actual, int) and not isinstance(actual, bool)
        return [] if ok else [f"{where}: expected an integer, got {_kind(actual)} {actual!r}"]
    if isinstance(doc, float):
        ok = actual is None or (isinstance(actual, (int, float)) and not isinstance(actual, bool))
        return [] if ok else [f"{where}: expected a number, got {_kind(actual)}"]
    if isinstance(doc, str):
        return [] if actual is None or isinstance(actual, str) else [f"{where}: expected a string, got {_kind(actual)}"]
    return []


def value_errors(doc: object, actual: object, where: str = "$") -> list[str]:
    """Where the printed values differ from a ```json output values block (parsed with Decimal floats)."""
    if doc is None:
        return []
    if isinstance(doc, dict):
        if not isinstance(actual, dict):
            return [f"{where}: expected an object"]
        return [e for k, v in doc.items() if not _placeholder(k) and k in actual
                for e in value_errors(v, actual[k], f"{where}.{k}")]
    if isinstance(doc, list):
        if not isinstance(actual, list) or len(actual) < len(doc):
            return [f"{where}: expected a list of at least {len(doc)} elements"]
        return [e for i, d in enumerate(doc) for e in value_errors(d, actual[i], f"{where}[{i}]")]
    if isinstance(doc, Decimal):
        if not isinstance(actual, (int, float)) or isinstance(actual, bool):
            return [f"{where}: expected a number, got {actual!r}"]
        half_unit = Decimal(5).scaleb(doc.as_tuple().exponent - 1)
        return [] if abs(Decimal(repr(float(actual))) - doc) <= half_unit else \
            [f"{where}: printed {actual!r}, the README says {doc}"]
    return [] if actual == doc and type(actual) is type(doc) else [f"{where}: printed {actual!r}, the README says {doc!r}"]


# ---- running the blocks ----------------------------------------------------------------------
def mirror_checkout(tmp: Path) -> Path:
    """A folder that resolves every README path like the repository root, but is written to in tmp.

    Nothing lies beside it: a path to the development data (``../shared/data``) finds nothing."""
    root = tmp / "clone" / "checkout"
    root.mkdir(parents=True)
    for entry in ROOT.iterdir():
        if entry.name != "out":
            (root / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    return root


def command_env(served: Path, tmp: Path) -> dict[str, str]:
    """The environment of the README's commands: ``served`` is the store the app would serve. No project
    setting carries over but the run's statistics folder, a saving only (sacrebleu's segment statistics
    are the same numbers whoever computed them; migrations still replay)."""
    env = {k: v for k, v in os.environ.items()
           if not (k.startswith("MTLB_") or k == "DATABASE_URL") or k == "MTLB_STATS_CACHE"}
    env.update(MTLB_DATA_DIR=str(served), MTLB_PASSWORD=PASSWORD, PYTHONUNBUFFERED="1",
               MTLB_SHARED_DATA=str(tmp / "no-shared-data"),
               PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]))
    env.pop("PYTHONPATH", None)
    return env


def served_store(folder: Path) -> tuple[str, list]:
    """The store the app serves in the test (``folder``/mtlb.sqlite, one campaign): its bytes' digest
    and what it holds (campaigns, published versions, accounts)."""
    import hashlib

    from leaderboard.storage import Store
    path = folder / "mtlb.sqlite"
    store = Store(f"sqlite:///{path}")
    held = [sorted(store.campaigns()["campaign"]), len(store.snapshots()),
            sorted(r[0] for r in store.engine.connect().exec_driver_sql("SELECT name FROM users"))]
    store.engine.dispose()
    return hashlib.sha256(path.read_bytes()).hexdigest(), held


def run_block(block: Block, cwd: Path, env: dict[str, str]) -> tuple[str, str]:
    """Run one block; return (stdout of its last command, stderr). Fails the test when a command fails."""
    script = (f"set -euo pipefail\ntrap 'printf \"\\n%s\\n\" \"{MARKER}\"' DEBUG\n" + block.code)
    proc = subprocess.run([shutil.which("bash") or "bash", "-c", script], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=900)
    if proc.returncode != 0:
        done = proc.stdout.split(MARKER)
        pytest.fail(f"README.md ```bash block at line {block.line} failed (exit {proc.returncode}) after "
                    f"{len(done) - 1} command(s):\n{block.code}\n--- stdout (tail) ---\n{proc.stdout[-2000:]}"
                    f"\n--- stderr (tail) ---\n{proc.stderr[-3000:]}", pytrace=False)
    return proc.stdout.rsplit(MARKER, 1)[-1].strip(), proc.stderr


def git_status() -> str | None:
    if shutil.which("git") is None:
        return None
    proc = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True)
    return proc.stdout if proc.returncode == 0 else None


# ---- tests -------------------------------------------------------------------------------------
def test_readme_blocks_are_well_formed():
    blocks = parse_blocks(README.read_text(encoding="utf-8"))
    bash = [b for b in blocks if b.lang == RUN]
    assert len(bash) >= 5, "the README documents its commands in ```bash blocks"
    for block in blocks:
        assert block.lang not in SHELL_LIKE, (
            f"README.md line {block.line}: ```{block.lang}: write ```bash (run by the README test) or "
            "```sh / ```console (shown only)")
    outputs = documented_outputs(blocks)
    assert outputs, "the README documents the JSON shape of some commands in ```json output blocks"
    for k in outputs:
        commands = [c for c in blocks[k].code.replace("\\\n", " ").splitlines()
                    if c.strip() and not c.lstrip().startswith("#")]
        assert "--json" in commands[-1], \
            f"README.md line {blocks[k].line}: a ```json output block documents a command without --json"


def test_shape_checker_catches_drift():
    doc = {"lp": "cs-en", "n": 3, "ave": 0.5, "systems": [{"system": "A", "wins": 1}],
           "pvalues": {"<a>": {"<b>": 0.01}}}
    good = {"lp": "de-en", "n": 10, "ave": None, "systems": [{"system": "B", "wins": 0}, {"system": "C", "wins": 2}],
            "pvalues": {"B": {"C": 0.2}, "C": {"B": 0.8}}}
    assert shape_errors(doc, good) == []
    assert shape_errors(doc, {**good, "n": 10.0}) == ["$.n: expected an integer, got float 10.0"]
    assert shape_errors(doc, {k: v for k, v in good.items() if k != "lp"}) == ["$: key 'lp' is documented but missing"]
    assert shape_errors(doc, {**good, "extra": 1}) == ["$: key 'extra' is printed but not documented"]
    assert shape_errors(doc, {**good, "systems": [{"system": "B", "wins": 0, "losses": 2}]}) == \
        ["$.systems[0]: key 'losses' is printed but not documented"]
    assert shape_errors(doc, {**good, "pvalues": {"B": {"C": "x"}}}) == ["$.pvalues['B']['C']: expected a number, got str"]
    assert shape_errors([doc], good) == ["$: expected a list, got dict"]


def test_value_checker_reads_the_digits_written():
    doc = json.loads('{"n": 9, "acc": 0.5513, "eps": 0.00096, "m": [{"name": "A", "x": 1.0}], "<o>": null}',
                     parse_float=Decimal)
    good = {"n": 9, "acc": 0.55125, "eps": 0.0009645, "m": [{"name": "A", "x": 1.04}, {"name": "B"}], "z": 3}
    assert value_errors(doc, good) == []
    assert value_errors(doc, {**good, "acc": 0.55136}) == ["$.acc: printed 0.55136, the README says 0.5513"]
    assert value_errors(doc, {**good, "n": 10}) == ["$.n: printed 10, the README says 9"]
    assert value_errors(doc, {**good, "m": [{"name": "B", "x": 1.0}]}) == ["$.m[0].name: printed 'B', the README says 'A'"]
    assert value_errors(doc, {**good, "m": []}) == ["$.m: expected a list of at least 1 elements"]


def test_environment_variables_are_documented():
    """Every environment variable the package reads is in the README's Configuration table and in `mtlb --help`."""
    read = set()
    for path in list((ROOT / "leaderboard").rglob("*.py")) + list((ROOT / "metrics").rglob("*.py")):
        read |= set(re.findall(r"(?:environ(?:\.get|\.setdefault|\.pop)?|getenv)[\[(]\s*[\"']([A-Z][A-Z0-9_]+)[\"']",
                               path.read_text(encoding="utf-8")))
        read |= set(re.findall(r"^[A-Z_]+_ENV\s*=\s*[\"']([A-Z][A-Z0-9_]+)[\"']", path.read_text(encoding="utf-8"), re.M))
    assert {"DATABASE_URL", "MTLB_DATA_DIR", "MTLB_PASSWORD"} <= read
    text = README.read_text(encoding="utf-8")
    config = text[text.index("## Configuration"):]
    config = config[:config.index("\n## ", 1)] if "\n## " in config[1:] else config
    table = set(re.findall(r"^\| `([A-Z][A-Z0-9_]+)` \|", config, re.M))
    assert read <= table, f"undocumented in README.md's Configuration table: {sorted(read - table)}"
    from leaderboard.cli import build_parser
    epilog = build_parser().epilog or ""
    assert all(name in epilog for name in read), \
        f"missing from `mtlb --help`: {sorted(n for n in read if n not in epilog)}"


def test_help_examples_use_the_readme_campaign_names():
    """Examples in `mtlb --help` epilogs name the README's campaigns, and their files exist in the shared layout."""
    from leaderboard.cli import build_parser
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    texts = [parser.epilog or ""] + [p.epilog or "" for p in sub.choices.values()]
    assert sum("--campaign" in t for t in texts) >= 2, "the help epilogs show the README's workflow"
    text = README.read_text(encoding="utf-8")
    readme_campaigns = set(re.findall(r"--campaign ([\w.-]+)", text))
    assert {"wmt22", "wmt21", "wmt24-esa"} <= readme_campaigns
    for help_text in texts:
        flat = " ".join(help_text.split())
        for name in re.findall(r"--campaign ([a-z][\w.-]+)", flat):
            assert name in readme_campaigns | {"ted-mqm"}, f"`mtlb --help` example uses campaign {name!r}"
        for path in re.findall(r"\.\./shared/data/[\w./*-]+", flat):
            if (ROOT.parent / "shared" / "data").is_dir():
                assert glob.glob(str(ROOT / path)), f"`mtlb --help` example names a missing file: {path}"


def test_readme_blocks_stay_in_the_repository():
    """No command block reads a file outside the checkout (an outside user's clone has nothing beside it)."""
    blocks = [b for b in parse_blocks(README.read_text(encoding="utf-8")) if b.lang == RUN]
    outside = [f"README.md line {b.line}: {line.strip()}" for b in blocks for line in b.code.splitlines()
               if re.search(r"(^|[\s=:'\"])\.\./", line) or "shared/data" in line]
    assert not outside, "README commands that need files outside the repository:\n" + "\n".join(outside)
    own_store = "export MTLB_DATA_DIR=$PWD/out/store"
    assert all(b.code.lstrip().startswith(own_store) for b in blocks), \
        [b.line for b in blocks if not b.code.lstrip().startswith(own_store)]


@pytest.mark.slow(weight=10)  # the longest test: started first
def test_readme_commands_run_in_order(tmp_path):
    """Every block, in order, from a clone with nothing beside it; the app's store stays as it was."""
    blocks = parse_blocks(README.read_text(encoding="utf-8"))
    outputs = documented_outputs(blocks)
    cwd = mirror_checkout(tmp_path)
    served = tmp_path / "served"
    served.mkdir(mode=0o700)
    from leaderboard.storage import Store
    Store(f"sqlite:///{served / 'mtlb.sqlite'}").create_campaign("served-demo")
    served_before = served_store(served), sorted(p.name for p in served.iterdir())
    env = command_env(served, tmp_path)
    before = git_status()
    ran = 0
    for k, block in enumerate(blocks):
        if block.lang != RUN:
            continue
        last, _ = run_block(block, cwd, env)
        ran += 1
        if k in outputs:
            doc_block, doc = outputs[k]
            try:
                printed = json.loads(last)
            except json.JSONDecodeError:
                pytest.fail(f"README.md line {block.line}: the last command did not print JSON:\n{last[:1000]}",
                            pytrace=False)
            errors = shape_errors(doc, printed)
            if "values" in doc_block.info.split()[2:]:
                errors += value_errors(json.loads(doc_block.code, parse_float=Decimal), printed)
            assert not errors, (f"README.md line {doc_block.line}: the documented output no longer matches "
                                "what the command prints:\n" + "\n".join(errors[:20]))
    assert ran == sum(b.lang == RUN for b in blocks)
    assert (cwd / "out").is_dir() or not any("out/" in b.code for b in blocks if b.lang == RUN)
    # everything the commands write lands in out/: the mirror holds only links to the checkout besides it
    written = sorted(e.name for e in cwd.iterdir() if not e.is_symlink() and e.name != "out")
    assert not written, f"README commands wrote outside out/: {written}"
    assert git_status() == before, "running the README's commands changed files of the repository"
    assert (served_store(served), sorted(p.name for p in served.iterdir())) == served_before, \
        "the README's commands changed the store the app serves"
