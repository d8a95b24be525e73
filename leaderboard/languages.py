"""Language codes and what follows from them: BLEU tokeniser, character-level text, script direction.

Two code systems arrive: the short codes of WMT up to 2025 (``cs``, ``zh``, ``en-zh_TW``) and WMT26's
ISO 639-3 code with an ISO 15924 script and sometimes a region (``eng_Latn``, ``zho_Hant_TW``,
``arz_Arab``; a pair is ``eng_Latn-isl_Latn``). :func:`parse_language` reads both; every rule below
looks at the language (639-1 or 639-3) and, when the code names one, at the script, which wins.

BLEU: sacrebleu's command line picks the tokeniser from the target language of ``-l SRC-TGT``:
``zh`` for Chinese, ``ja-mecab`` for Japanese, ``ko-mecab`` for Korean, ``13a`` for everything else;
the WMT22 organisers scored every language pair that way. For scripts written without spaces between
words, for which sacrebleu has no word tokeniser, BLEU on ``13a`` tokens would count whole
sentences as words, so those targets are split into characters (``char``). chrF works on
characters and takes no tokeniser.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import InputError

#: One language code: two or three letters, then ``_``-joined script / region / variant tags.
LANGUAGE_CODE = r"[A-Za-z]{2,3}(?:_[A-Za-z0-9]+)*"
#: A language pair ``SRC-TGT`` (source first), each side a :data:`LANGUAGE_CODE`.
LANGUAGE_PAIR = re.compile(rf"^({LANGUAGE_CODE})-({LANGUAGE_CODE})$")

#: sacrebleu's own language → tokeniser map (``BLEU._TOKENIZER_MAP`` in sacrebleu 2.x).
WORD_TOKENISERS: dict[str, str] = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}
#: Languages without spaces between words and without a sacrebleu tokeniser: Thai, Lao, Khmer,
#: Burmese, Tibetan, Dzongkha.
CHARACTER_LANGUAGES: frozenset[str] = frozenset({"th", "lo", "km", "my", "bo", "dz"})
#: ISO 639-3 codes (and Chinese varieties) that the rules above know by their 639-1 code.
ISO3_TO_ISO1: dict[str, str] = {
    "zho": "zh", "cmn": "zh", "yue": "zh", "wuu": "zh", "jpn": "ja", "kor": "ko", "tha": "th", "lao": "lo",
    "khm": "km", "mya": "my", "bod": "bo", "dzo": "dz",
}
#: ISO 15924 scripts written without spaces between words (Han, Japanese, Thai, Lao, Khmer, Burmese,
#: Tibetan): text in them is compared, marked and cut character by character.
CHARACTER_SCRIPTS: frozenset[str] = frozenset({"Hans", "Hant", "Hani", "Jpan", "Hira", "Kana", "Thai", "Laoo",
                                               "Khmr", "Mymr", "Tibt"})
#: ISO 15924 scripts written right to left.
RTL_SCRIPTS: frozenset[str] = frozenset({"Arab", "Hebr", "Syrc", "Thaa", "Nkoo", "Adlm", "Rohg", "Samr", "Mand"})
DEFAULT_TOKENISER = "13a"


@dataclass(frozen=True)
class Language:
    """A parsed language code: ``language`` lower-cased (``zho``), ``script`` title-cased (``Hant``)
    or None, ``region`` upper-cased (``TW``) or None; ``code`` as given."""
    code: str
    language: str
    script: str | None = None
    region: str | None = None

    @property
    def iso1(self) -> str:
        """The two-letter code where the rules know one (``zho`` → ``zh``), else the language as given."""
        return ISO3_TO_ISO1.get(self.language, self.language)


def parse_language(code: str) -> Language:
    """``"zho_Hant_TW"`` → Language(language="zho", script="Hant", region="TW"); ``"en"`` → Language("en", "en").

    A four-letter tag is the script, a two-letter or three-digit tag the region; other tags
    (variants) are kept in ``code`` only. Refuses what is not a language code.
    """
    text = str(code).strip()
    if not re.fullmatch(LANGUAGE_CODE, text):
        raise InputError(f"{text!r} is not a language code (two or three letters, optionally followed by a "
                         "script and a region: en, zh_TW, eng_Latn, zho_Hant_TW)", column="lp")
    head, *tags = text.split("_")
    script = next((t.title() for t in tags if len(t) == 4 and t.isalpha()), None)
    region = next((t.upper() for t in tags if (len(t) == 2 and t.isalpha()) or (len(t) == 3 and t.isdigit())),
                  None)
    return Language(text, head.lower(), script, region)


def split_lp(lp: str) -> tuple[str, str]:
    """``"cs-en"`` → ``("cs", "en")``; the language parts are lower-cased without their tags
    (``en-zh_TW`` → ``zh``, ``eng_Latn-zho_Hant_TW`` → ``("eng", "zho")``)."""
    src, tgt = split_lp_codes(lp)
    return src.split("_", 1)[0].lower(), tgt.split("_", 1)[0].lower()


def split_lp_codes(lp: str) -> tuple[str, str]:
    """``"eng_Latn-zho_Hant_TW"`` → ``("eng_Latn", "zho_Hant_TW")``: both full codes, as written."""
    m = LANGUAGE_PAIR.match(str(lp).strip())
    if not m:
        raise InputError(f"language pair {str(lp)!r} is not valid: expected two language codes joined by a hyphen "
                         "(SRC-TGT, source first), such as cs-en or eng_Latn-isl_Latn (two or three letters, "
                         "optionally with script and region: zho_Hant_TW)", column="lp")
    return m.group(1), m.group(2)


def target_language(lp: str) -> str:
    """The target language code of a language pair (its language part: ``eng_Latn-isl_Latn`` → ``isl``)."""
    return split_lp(lp)[1]


def _language(code: str) -> Language | None:
    try:
        return parse_language(code)
    except InputError:
        return None


def bleu_tokeniser(target: str) -> str:
    """The sacrebleu tokeniser name for BLEU into ``target`` (a language code, with or without script)."""
    lang = _language(target)
    if lang is None:
        return DEFAULT_TOKENISER
    if lang.iso1 in WORD_TOKENISERS:
        return WORD_TOKENISERS[lang.iso1]
    if lang.iso1 in CHARACTER_LANGUAGES or lang.script in CHARACTER_SCRIPTS:
        return "char"
    return DEFAULT_TOKENISER


def word_split_by_character(target: str) -> bool:
    """True when words of ``target`` are not separated by spaces (compare, mark and cut by character):
    Chinese, Japanese, Thai and the other :data:`CHARACTER_LANGUAGES`, or a code naming such a script.
    Korean separates words with spaces (its BLEU tokeniser is for morphemes), so it is not one of them."""
    lang = _language(target)
    if lang is None:
        return False
    if lang.script is not None:
        return lang.script in CHARACTER_SCRIPTS
    return lang.iso1 in ("zh", "ja") or lang.iso1 in CHARACTER_LANGUAGES


#: Languages written right to left (Arabic and its varieties, Hebrew, Persian, Urdu, Pashto, Yiddish,
#: Dhivehi, Sorani, Sindhi, Uyghur, Syriac), by ISO 639-1 or -3 code.
RIGHT_TO_LEFT: frozenset[str] = frozenset({
    "ar", "ara", "arb", "arz", "ary", "arq", "aeb", "apc", "ajp", "acm", "ars", "he", "heb", "iw", "fa", "fas",
    "per", "pes", "prs", "ur", "urd", "ps", "pus", "pbt", "pbu", "yi", "yid", "ydd", "dv", "div", "ckb", "sd",
    "snd", "ug", "uig", "syr"})


def script_direction(lang: str) -> str:
    """``"rtl"`` for a language written right to left, else ``"ltr"`` (HTML's ``dir`` attribute).

    A code naming its script decides by the script (``arz_Arab`` and ``pes_Arab`` right to left,
    ``uzb_Latn`` left to right, even ``ara_Latn``); otherwise by the language."""
    parsed = _language(str(lang).replace("-", "_"))
    if parsed is None:
        return "ltr"
    if parsed.script is not None:
        return "rtl" if parsed.script in RTL_SCRIPTS else "ltr"
    return "rtl" if parsed.language in RIGHT_TO_LEFT else "ltr"
