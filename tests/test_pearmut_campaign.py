"""Pearmut campaign files and WMT26 test sets / system outputs: read, validated, refused with line and field."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from leaderboard.errors import InputError
from leaderboard.ingest.pearmut_campaign import read_pearmut_campaign
from leaderboard.ingest.wmt26 import paragraphs, read_wmt26_system, read_wmt26_systems, read_wmt26_testset, wmt26_items

FILES = ("taskbased/campaign.json", "taskbased/campaign.stored.json", "dynamic/campaign.json",
         "dynamic/campaign.stored.json")


@pytest.mark.parametrize("name", FILES)
def test_pearmuts_sample_campaigns_read(shared, name):
    c = read_pearmut_campaign(shared / "pearmut" / name)
    raw = json.loads((shared / "pearmut" / name).read_text(encoding="utf-8"))
    assert c.campaign_id == raw["campaign_id"] and c.lp == "eng_Latn-ces_Latn"
    assert c.info.protocol == "cESA" and c.info.special_tokens == ("[missing]", "[instructions fault]")
    assert sorted(c.models) == ["Aurora-MT", "Borealis 2", "Cirrus (PE)", "Dunlin-7B", "Ember+"]
    welcome = c.items[c.items["part"] == "data_welcome"]
    assert set(welcome["item_id"]) == {"csen_#_tutorial_#_0", "csen_#_tutorial_#_1"}
    assert welcome["validation"].notna().all()
    checks = c.items[c.items["part"] == "data_random"]
    assert checks["item_id"].str.startswith("attention_check_").all() and len(checks) == 9
    data = c.items[c.items["part"] == "data"]
    assert data["doc"].str.fullmatch(r"[a-z]+_###_[^#]+").all()  # <domain>_###_<doc id>
    if raw["info"]["assignment"] == "dynamic":
        assert (c.info.assignment, c.info.dynamic_models, c.info.dynamic_coldstart, c.info.docs_per_user,
                c.info.users) == ("dynamic", 3, 3, 3, 6)
        assert c.info.dynamic_warmup == raw["info"].get("dynamic_warmup", 5)  # Pearmut's default
        assert data.groupby(["doc_index", "segment_index"]).size().eq(5).all()
    else:
        assert c.info.assignment == "task-based" and data["task"].nunique() == 6
    assert c.info.data_random_prob == 0.25


def edit(shared, tmp_path, name, change) -> Path:
    raw = json.loads((shared / "pearmut" / name).read_text(encoding="utf-8"))
    change(raw)
    out = tmp_path / "campaign.json"
    out.write_text(json.dumps(raw, indent=2, ensure_ascii=False), encoding="utf-8")
    return out


def line_of(path: Path, needle: str, nth: int = 1) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    hits = [i for i, line in enumerate(lines, 1) if needle in line]
    return hits[nth - 1]


def test_a_model_missing_from_some_item_is_refused(shared, tmp_path):
    def drop(raw):
        del raw["data"][4][2]["tgt"]["Ember+"]  # segment 2 of document 4 lacks a model the others show
    path = edit(shared, tmp_path, "dynamic/campaign.json", drop)
    with pytest.raises(InputError, match="model 'Ember\\+' is missing") as info:
        read_pearmut_campaign(path)
    assert info.value.column == "data[4][2].tgt" and info.value.file == str(path)
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert info.value.line == line_of(path, '"tgt": {', sum(len(d) for d in raw["data"][:4]) + 3)

    def doc_without(raw):  # a dynamic campaign: every document must show every model
        for seg in raw["data"][7]:
            del seg["tgt"]["Aurora-MT"]
    with pytest.raises(InputError, match="model 'Aurora-MT' is missing.*every document of a dynamic campaign"):
        read_pearmut_campaign(edit(shared, tmp_path, "dynamic/campaign.json", doc_without))


def test_unknown_protocol_and_bad_settings(shared, tmp_path):
    cases = [(lambda r: r["info"].update(protocol="esa2"), "info.protocol", "unknown protocol 'esa2'"),
             (lambda r: r["info"].update(assignment="random"), "info.assignment", "unknown assignment"),
             (lambda r: r["info"].update(dynamic_models=0), "info.dynamic_models", "at least 1"),
             (lambda r: r["info"].update(data_random_prob=1.5), "info.data_random_prob", "probability"),
             (lambda r: r["info"].update(users=[{"token_pass": "x"}]), "info.users[0]", "user_id"),
             (lambda r: r["info"].update(special_tokens="[missing]"), "info.special_tokens", "list"),
             (lambda r: r["data"][0][0]["tgt"].update({"123": "x"}), 'data[0][0].tgt["123"]', "all digits")]
    for change, column, message in cases:
        path = edit(shared, tmp_path, "dynamic/campaign.json", change)
        with pytest.raises(InputError, match=message) as info:
            read_pearmut_campaign(path)
        assert info.value.column == column
        assert info.value.line is not None


def test_spans_outside_the_text_and_tokens_are_refused(shared, tmp_path):
    def prefill(raw):
        seg = raw["data"][0][0]
        model = next(iter(seg["tgt"]))
        n = len(seg["tgt"][model])
        seg["error_spans"] = {model: [{"start_i": n + 1, "end_i": n + 1}, {"start_i": n + 2, "end_i": n + 2}]}
    path = edit(shared, tmp_path, "dynamic/campaign.json", prefill)
    with pytest.raises(InputError, match="outside the translation") as info:
        read_pearmut_campaign(path)
    assert info.value.column.endswith("[1]") and info.value.column.startswith('data[0][0].error_spans')

    def rule(raw):  # a tutorial's expected span past the text and both tokens
        seg = raw["data_welcome"][0][1]
        seg["validation"]["tutorial B"]["error_spans"] = [{"start_i": [200, 210], "end_i": [220, 230]}]
    with pytest.raises(InputError, match="expected span") as info:
        read_pearmut_campaign(edit(shared, tmp_path, "dynamic/campaign.json", rule))
    assert info.value.column == 'data_welcome[0][1].validation["tutorial B"].error_spans[0]'

    def other(raw):
        raw["data_random"][0][0]["validation"]["1st translation"]["score_greaterthan"] = "4th translation"
    with pytest.raises(InputError, match="score_greaterthan"):
        read_pearmut_campaign(edit(shared, tmp_path, "dynamic/campaign.json", other))


def test_media_paths_stay_in_the_asset_folder(shared, tmp_path):
    assets = tmp_path / "assets"
    (assets / "videos").mkdir(parents=True)
    (assets / "videos" / "talk.mp4").write_bytes(b"\x00")
    (tmp_path / "secret.mp4").write_bytes(b"\x00")

    def video(src):
        return lambda raw: raw["data"][1][0].update(src=f'<video controls><source src="{src}"></video>')
    good = read_pearmut_campaign(edit(shared, tmp_path, "dynamic/campaign.json", video("videos/talk.mp4")),
                                 assets=assets)
    assert good.media == ["videos/talk.mp4"]
    for src, message in (("../secret.mp4", "leaves"), ("videos/../../secret.mp4", "leaves"),
                         ("/etc/passwd", "absolute"), ("https://example.org/v.mp4", "URL"),
                         ("file:///etc/passwd", "URL"), ("videos/none.mp4", "not a file")):
        with pytest.raises(InputError, match=message) as info:
            read_pearmut_campaign(edit(shared, tmp_path, "dynamic/campaign.json", video(src)), assets=assets)
        assert info.value.column == "data[1][0].src"
    (assets / "link.mp4").symlink_to(tmp_path / "secret.mp4")
    with pytest.raises(InputError, match="outside"):
        read_pearmut_campaign(edit(shared, tmp_path, "dynamic/campaign.json", video("link.mp4")), assets=assets)


def test_one_item_id_names_one_text(shared, tmp_path):
    def clash(raw):
        raw["data"][3][0]["item_id"] = raw["data"][2][0]["item_id"]
    with pytest.raises(InputError, match="an item id must name one text") as info:
        read_pearmut_campaign(edit(shared, tmp_path, "dynamic/campaign.json", clash))
    assert info.value.column.startswith("data[3][0].tgt")


def test_bad_json_names_the_line(tmp_path):
    path = tmp_path / "c.json"
    path.write_text('{\n "campaign_id": "x",\n "info": {"protocol": "cESA",}\n}\n', encoding="utf-8")
    with pytest.raises(InputError, match="not valid JSON") as info:
        read_pearmut_campaign(path)
    assert info.value.line == 3
    path.write_text('{"campaign_id": "x", "campaign_id": "y", "data": []}', encoding="utf-8")
    with pytest.raises(InputError, match="appears twice"):
        read_pearmut_campaign(path)


# ---- WMT26 test sets and system outputs -----------------------------------------------------------

def wmt26_documents():
    return [
        {"doc_id": "news_###_brisbanetimes.com.au.377358", "domain": "news", "src_lang": "eng_Latn",
         "tgt_lang": "arz_Arab", "src_text": "First paragraph.\n\nSecond one.", "video": None, "screenshot": None,
         "evaluation_instruction": "<div>Keep it formal.</div>", "refs": {}},
        {"doc_id": "talk.12", "domain": "speech", "src_lang": "eng_Latn", "tgt_lang": "arz_Arab", "src_text": "",
         "video": {"id": "v12", "path": "videos/talk12.mp4"}, "screenshot": None, "gold_transcript": "Hi all.",
         "evaluation_instruction": None, "refs": {"A": "<p>مرحبا</p>"}},
    ]


def write_jsonl(path: Path, rows) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def test_wmt26_testset_systems_and_items(tmp_path):
    ts = read_wmt26_testset(write_jsonl(tmp_path / "test.jsonl", wmt26_documents()))
    assert ts.lps == ["eng_Latn-arz_Arab"]
    assert ts.documents["video_path"].fillna("").tolist() == ["", "videos/talk12.mp4"]
    sysdir = tmp_path / "systems"
    sysdir.mkdir()
    write_jsonl(sysdir / "SysA.jsonl", [{"doc_id": "news_###_brisbanetimes.com.au.377358",
                                         "hypothesis": "<p>أولى.</p><p>الثانية.</p>"},
                                        {"doc_id": "talk.12", "hypothesis": "<p>مرحبا</p>"}])
    write_jsonl(sysdir / "SysB.jsonl", [{"doc_id": "news_###_brisbanetimes.com.au.377358",
                                         "hypothesis": "<p>A &amp; B.</p>\n<p>C.</p>"},
                                        {"doc_id": "talk.12", "hypothesis": "<p>x</p><p>y</p>"}])
    outputs = read_wmt26_systems(sysdir, ts)
    assert sorted(outputs["system"].unique()) == ["SysA", "SysB"]
    items, report = wmt26_items(ts, outputs)
    news = items[items["doc_id"] == "news_###_brisbanetimes.com.au.377358"]
    assert news["item_id"].unique().tolist() == ["news_###_brisbanetimes.com.au.377358_###_0",
                                                  "news_###_brisbanetimes.com.au.377358_###_1"]
    assert news["source"].unique().tolist() == ["First paragraph.", "Second one."]
    assert news.loc[news["system"] == "SysB", "target"].tolist() == ["A & B.", "C."]
    assert news["instructions"].fillna("").tolist() == ["<div>Keep it formal.</div>"] * 2 + [""] * 2
    talk = items[items["doc_id"] == "talk.12"]  # the systems split it differently: one item, whole
    assert talk["item_id"].unique().tolist() == ["speech_###_talk.12_###_0"]
    assert talk.loc[talk["system"] == "SysB", "target"].tolist() == ["x\ny"]
    assert talk["video_path"].unique().tolist() == ["videos/talk12.mp4"]
    assert report == {"documents": 2, "systems": 2, "items": 3, "documents_kept_whole": 1}
    # a system that lacks a document is refused, naming it
    write_jsonl(sysdir / "SysC.jsonl", [{"doc_id": "talk.12", "hypothesis": "<p>z</p>"}])
    with pytest.raises(InputError, match="system 'SysC' has no hypothesis for document 'news_###_brisbanetimes"):
        wmt26_items(ts, read_wmt26_systems(sysdir, ts))


def test_wmt26_files_refuse_with_line_and_field(tmp_path):
    assets = tmp_path / "assets"
    (assets / "videos").mkdir(parents=True)
    (assets / "videos" / "talk12.mp4").write_bytes(b"\x00")
    ok = read_wmt26_testset(write_jsonl(tmp_path / "t.jsonl", wmt26_documents()), assets=assets)
    assert len(ok.documents) == 2
    cases = [({"video": {"id": "v", "path": "../../etc/passwd"}}, "video.path", "leaves"),
             ({"video": {"id": "v", "path": "https://x.org/a.mp4"}}, "video.path", "URL"),
             ({"screenshot": {"id": "s"}}, "screenshot", "path"),
             ({"tgt_lang": "isl-Latn"}, "tgt_lang", "not a language code"),
             ({"doc_id": ""}, "doc_id", "non-empty"),
             ({"refs": {"A": 3}}, "refs", "texts"),
             ({"src_text": None, "video": None}, "src_text", "no source")]
    for change, column, message in cases:
        rows = copy.deepcopy(wmt26_documents())
        rows[1].update(change)
        with pytest.raises(InputError, match=message) as info:
            read_wmt26_testset(write_jsonl(tmp_path / "t.jsonl", rows), assets=assets)
        assert (info.value.line, info.value.column) == (2, column)
    rows = wmt26_documents() + [wmt26_documents()[0]]
    with pytest.raises(InputError, match="also on line 1") as info:
        read_wmt26_testset(write_jsonl(tmp_path / "t.jsonl", rows))
    assert info.value.line == 3
    sysfile = write_jsonl(tmp_path / "S.jsonl", [{"doc_id": "talk.12", "hypothesis": "<p>a</p>"},
                                                 {"doc_id": "nope", "hypothesis": "<p>b</p>"}])
    with pytest.raises(InputError, match="not in the test set") as info:
        read_wmt26_system(sysfile, testset=ok)
    assert (info.value.line, info.value.column) == (2, "doc_id")


def test_paragraphs():
    assert paragraphs("<p>One.</p>\n<p class='x'>Two &lt;b&gt;</p>") == ["One.", "Two <b>"]
    assert paragraphs("One.\n\nTwo.\nstill two") == ["One.", "Two.\nstill two"]
    assert paragraphs("a\nb") == ["a", "b"]
