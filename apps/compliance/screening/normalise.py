"""Name normalisation for restricted-party screening (no Django imports).

`normalise()` turns a name into lower-case ASCII-ish words: Cyrillic and Greek letters are
transliterated with a small built-in table (close to BGN/PCGN, which OFAC's romanisations
follow), accents are stripped (NFKD), "&" becomes "and", apostrophes vanish ("Xi'an" → "xian")
and any other punctuation becomes a space.

`tokens()` turns a name into the words that are compared: runs of single letters are joined
("S.R.L." → "srl", "A R Sales" → "ar sales"), legal forms and a few stop words are dropped, and
"LAST, First" is put in "First LAST" order. Matching is on the set of tokens anyway, so the
order only matters for the joined-up comparison ("HUA WEI" against "HUAWEI").

What is dropped, and why:

- legal forms that are never part of a trading name (ltd, limited, llc, inc, corp, company, gmbh,
  plc, jsc, ooo, oao, zao, pjsc, srl, sarl, pte, pvt, ltda, bhd, fze …) wherever they stand, and
  so are the words found only in spelled-out legal forms (liability, obshchestvo, aktsionernoe,
  otvetstvennostyu …);
- short legal forms that are also ordinary words or name syllables (co, sa, ag, as, ab, ao, oy,
  nv, bv, kk, lp, sl, kg, sas, sdn, tov, private, cv, rl …) only at the start or the end of the
  name, where legal forms stand ("OOO Romashka", "Acme Co., Ltd."), so that the Chinese surname
  "Ao" inside "Zhang Ao Wei" or the "as" of a phrase survive;
- spelled-out legal forms: "limited liability company", "joint stock company", "aktsionernoe
  obshchestvo", "obshchestvo s ogranichennoi otvetstvennostyu", "s de rl de cv", "sdn bhd" …;
- a legal word of seven letters or more mistyped once ("COMPAxY", "LIIMTED", "OBSHCHESTVO"
  with a letter swapped) is read as that word first;
- stop words: the, of, and, for, de, la, el, del, des, du, le, les, der, und. "al" (the Arabic
  article) is kept on purpose: it is also written joined ("ALHAJJ" for "AL-HAJJ"), and the
  matcher's weights make it light, being short and very common on the lists.

"group", "holding" and "holdings" are kept: they can be the distinctive part of a name
("Wagner Group"), and the matcher gives common words a low weight, so "SenseTime Group Limited"
still matches "SenseTime" while "Global Group" matches nothing for sharing "group".

If dropping leaves nothing (a name that is only "Company Limited"), every word is kept.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from rapidfuzz import process
from rapidfuzz.distance import OSA

# Cyrillic (Russian, Ukrainian, Belarusian) and Greek, lower case: normalise() casefolds first.
_TRANSLITERATION = {
    "а": "a",
    "б": "b",
    "в": "v",
    "г": "g",
    "д": "d",
    "е": "e",
    "ё": "e",
    "ж": "zh",
    "з": "z",
    "и": "i",
    "й": "y",
    "к": "k",
    "л": "l",
    "м": "m",
    "н": "n",
    "о": "o",
    "п": "p",
    "р": "r",
    "с": "s",
    "т": "t",
    "у": "u",
    "ф": "f",
    "х": "kh",
    "ц": "ts",
    "ч": "ch",
    "ш": "sh",
    "щ": "shch",
    "ъ": "",
    "ы": "y",
    "ь": "",
    "э": "e",
    "ю": "yu",
    "я": "ya",
    "є": "ye",
    "і": "i",
    "ї": "yi",
    "ґ": "g",
    "ў": "u",
    "α": "a",
    "β": "v",
    "γ": "g",
    "δ": "d",
    "ε": "e",
    "ζ": "z",
    "η": "i",
    "θ": "th",
    "ι": "i",
    "κ": "k",
    "λ": "l",
    "μ": "m",
    "ν": "n",
    "ξ": "x",
    "ο": "o",
    "π": "p",
    "ρ": "r",
    "σ": "s",
    "ς": "s",
    "τ": "t",
    "υ": "y",
    "φ": "f",
    "χ": "ch",
    "ψ": "ps",
    "ω": "o",
    # Latin letters that NFKD does not decompose.
    "æ": "ae",
    "œ": "oe",
    "ø": "o",
    "đ": "d",
    "ð": "d",
    "ł": "l",
    "þ": "th",
    "ı": "i",
    "ħ": "h",
    "ŀ": "l",
    # Apostrophes join ("Xi'an" → "xian", "O'Brien" → "obrien"); "&" is a word.
    "'": "",
    "’": "",
    "‘": "",
    "`": "",
    "´": "",
    "ʼ": "",
    "&": " and ",
}
_TABLE = str.maketrans(_TRANSLITERATION)
_NON_WORD = re.compile(r"[\W_]+")

# Dropped wherever they stand.
LEGAL_FORMS = frozenset(
    [
        "ltd",
        "limited",
        "llc",
        "inc",
        "incorporated",
        "corp",
        "corporation",
        "company",
        "gmbh",
        "plc",
        "llp",
        "pte",
        "pvt",
        "jsc",
        "ojsc",
        "pjsc",
        "cjsc",
        "ooo",
        "zao",
        "oao",
        "pao",
        "limitada",
        "ltda",
        "srl",
        "sarl",
        "spa",
        "bhd",
        "fze",
        "fzco",
        "fzc",
        "fzllc",
        "mbh",
        "ug",
        # Words that only ever stand in spelled-out legal forms, dropped even when the phrase
        # around them is broken ("Obshchestvo S Organichennio Otvetstvennostyu" on the SDN list).
        "liability",
        "obshchestvo",
        "ogranichennoi",
        "ogranichennoy",
        "otvetstvennostyu",
        "aktsionernoe",
        "otkrytoe",
        "zakrytoe",
        "publichnoe",
    ]
)
# Dropped only as the first or last word(s): elsewhere they are ordinary words or name syllables.
EDGE_LEGAL_FORMS = frozenset(
    [
        "co",
        "sa",
        "ag",
        "as",
        "ab",
        "ao",
        "oy",
        "nv",
        "bv",
        "kk",
        "lp",
        "sl",
        "kg",
        "sas",
        "sdn",
        "tov",
        "private",
        "cv",
        "rl",
        "sapi",
        "sab",
        "gie",
        "ek",
        "oyj",
        "asa",
        # Societas Europaea ("Schneider Electric SE"), and German partnership forms.
        "se",
        "kgaa",
        "ohg",
    ]
)
LEGAL_PHRASES = tuple(
    tuple(p.split())
    for p in (
        "limited liability company",
        "limited liability partnership",
        "public joint stock company",
        "closed joint stock company",
        "open joint stock company",
        "joint stock company",
        "joint stock",
        "obshchestvo s ogranichennoi otvetstvennostyu",
        "obshchestvo s ogranichennoy otvetstvennostyu",
        "otkrytoe aktsionernoe obshchestvo",
        "zakrytoe aktsionernoe obshchestvo",
        "publichnoe aktsionernoe obshchestvo",
        "aktsionernoe obshchestvo",
        "s de rl de cv",
        "sa de cv",
        "sapi de cv",
        "s de rl",
        "sociedad anonima",
        "societe anonyme",
        "sdn bhd",
        "fz llc",
        "public company limited",
    )
)
STOP_WORDS = frozenset(
    ["the", "of", "and", "for", "de", "la", "el", "del", "des", "du", "le", "les", "der", "und"]
)
# Long legal words are read as themselves when mistyped once ("COMPAxY", "LIIMTED"): a typo in
# a legal form must not leave a heavy unmatched word behind. Short ones are too easily another word.
_LONG_LEGAL_WORDS = sorted(
    {w for w in LEGAL_FORMS if len(w) >= 7} | {w for p in LEGAL_PHRASES for w in p if len(w) >= 7}
)

_PHRASES_BY_FIRST: dict[str, list[tuple[str, ...]]] = {}
for _phrase in sorted(LEGAL_PHRASES, key=len, reverse=True):
    _PHRASES_BY_FIRST.setdefault(_phrase[0], []).append(_phrase)


def normalise(text: str) -> str:
    """Lower-case, transliterated, accent-free words separated by single spaces."""
    text = text.casefold().translate(_TABLE)
    if not text.isascii():
        decomposed = unicodedata.normalize("NFKD", text)
        # The second translate catches letters that only appear once decomposed (Greek with tonos).
        text = "".join(c for c in decomposed if not unicodedata.combining(c)).translate(_TABLE)
    return " ".join(_NON_WORD.sub(" ", text).split())


@lru_cache(maxsize=65_536)
def tokens(text: str) -> tuple[str, ...]:
    """The words of a name that screening compares (see the module docstring for what is dropped).

    "SMITH, John" gives ("john", "smith"): one comma between two parts that both keep words
    after dropping legal forms is read as "LAST, First". "Huawei Technologies Co., Ltd." is not
    reordered, since nothing is left of " Ltd." once legal forms are dropped.
    """
    if text.count(",") == 1:
        last, first = text.split(",")
        last_words, first_words = _words(last), _words(first)
        if last_words and _strip(first_words) and _strip(last_words):
            return _clean(first_words + last_words)
    return _clean(_words(text))


# A Western or Chinese trading name written in Cyrillic ("Хуавэй Текнолоджиз") is spelled by how
# it sounds, and its strict romanisation ("khuavey teknolodzhiz") is far from the Latin name on a
# list. `romanisations` adds a second, loose reading: trade words that Russian borrows from
# English are read back as the English word, and the letters Russian uses for English and Chinese
# sounds take those sounds (х for h, в for w, й for i, дж for j). Screening compares both readings
# and keeps the better, so "Химпром" still finds "KHIMPROM" by the strict one.
_LOANWORDS = tuple(
    (re.compile(pattern), english)
    for pattern, english in (
        (r"^т[еэ](?:х|к|хк|кх)нолод?жи[зс]$", "technologies"),
        (r"^т[еэ](?:х|к|хк|кх)нолод?жи$", "technology"),
        (r"^т[еэ]к$", "tech"),
        (r"^интерн[еэ]шн(а|э)?л$", "international"),
        (r"^тр[еэ]йдинг$", "trading"),
        (r"^холдинг[сз]$", "holdings"),
        (r"^холдинг$", "holding"),
        (r"^групп?$", "group"),
        (r"^лимит[еи]д$", "limited"),
        (r"^корпор[еэ]йшн$", "corporation"),
        (r"^компани$", "company"),
        (r"^инк$", "inc"),
        (r"^[еэ]л[еэ]ктрон[иі]кс$", "electronics"),
        (r"^[еэ]л[еэ]ктрик$", "electric"),
        (r"^сист[еэ]мс$", "systems"),
        (r"^солюшн[сз]$", "solutions"),
        (r"^индастри[зс]$", "industries"),
        (r"^[еэ]нт[еэ]рпрайз$", "enterprise"),
        (r"^глобал$", "global"),
        (r"^с[еэ]рвис[еи][зс]$", "services"),
        (r"^логистикс$", "logistics"),
        (r"^[еэ]н[еэ]рджи$", "energy"),
        (r"^н[еэ]тв[оё]ркс$", "networks"),
        (r"^с[еэ]микондактор$", "semiconductor"),
        (r"^с[еэ]микондактор[сз]$", "semiconductors"),
        (r"^д[еи]вайс[еи][зс]$", "devices"),
        (r"^микросист[еэ]мс$", "microsystems"),
        (r"^инжиниринг$", "engineering"),
    )
)
_LOOSE_TABLE = str.maketrans(
    {**_TRANSLITERATION, "х": "h", "в": "w", "й": "i", "э": "e", "ы": "i", "ц": "tz", "щ": "sch"}
)
_CYRILLIC_WORD = re.compile(r"[\u0400-\u04ff]+")


def has_cyrillic(text: str) -> bool:
    return _CYRILLIC_WORD.search(text) is not None


def romanisations(name: str) -> tuple[str, ...]:
    """The name, and for a name with Cyrillic letters its loose Latin reading too (see above)."""
    if not has_cyrillic(name):
        return (name,)

    def loose(match: re.Match[str]) -> str:
        word = match.group(0).casefold()
        for pattern, english in _LOANWORDS:
            if pattern.match(word):
                return english
        return word.replace("дж", "j").translate(_LOOSE_TABLE)

    reading = _CYRILLIC_WORD.sub(loose, name)
    return (name, reading) if reading != name else (name,)


def compact(words: tuple[str, ...]) -> str:
    """The tokens run together: "hua wei" and "huawei" compare equal this way."""
    return "".join(words)


def name_variants(name: str) -> tuple[str, ...]:
    """The name plus the other names a list packs into one name field, each screened on its own.

    Lists write "X; a.k.a. Y", "LTS Holding Limited (f.k.a. IPP-International Petroleum Products
    Ltd.)", "FUYI SUN A/K/A FRANK SUN", "X [aka Y, aka Z]", "China Unicom (Hong Kong) Limited" and
    "X and any successor, sub-unit, or subsidiary thereof". The variants are: the name as written;
    without the successor clause; the names inside brackets that start with a.k.a./f.k.a.; the
    name without its bracketed parts; that split at ";" and at "a.k.a."; and each of those with
    its hyphens dropped ("AL-AZZAWI" → "ALAZZAWI").
    """
    variants: list[str] = []

    def add(value: str) -> None:
        value = " ".join(_LEADING_AND.sub("", value).split()).strip(" ;,")
        if value and value not in variants:
            variants.append(value)

    add(name)
    base = _SUCCESSOR.sub("", name)
    add(base)
    for inner in _BRACKETED.findall(base):
        marker = _AKA_PREFIX.match(inner)
        if marker:
            for part in _ALIAS_SPLIT.split(inner[marker.end() :]):
                add(part)
    unbracketed = _BRACKETS.sub(" ", base)
    add(unbracketed)
    parts = _ALIAS_SPLIT.split(unbracketed)
    if len(parts) > 1:
        for part in parts:
            add(part)
    # "AL-AZZAWI" is also written "ALAZZAWI": a variant with the hyphens dropped.
    for variant in list(variants):
        if "-" in variant:
            add(variant.replace("-", ""))
    # A name written in Cyrillic is read loosely too ("Хуавэй" → "huawei"): see `romanisations`.
    for variant in list(variants):
        for reading in romanisations(variant)[1:]:
            add(reading)
    return tuple(variants)


_SUCCESSOR = re.compile(r"[;,]?\s+and\s+(any|its)\s+(successor|sub-unit|subsidiar).*$", re.IGNORECASE)
# "a.k.a."/"f.k.a."/"a/k/a" anywhere; a bare "aka" only opening brackets or after a comma, since
# "AKA" can be a word of a name.
_AKA = r"(?:\b[afn]\.\s?k\.\s?a\b\.?|\b[afn]/k/a\b)"
_AKA_PREFIX = re.compile(rf"\s*(?:{_AKA}|aka\b|formerly\b),?\s*", re.IGNORECASE)
_ALIAS_SPLIT = re.compile(rf";|,?\s*{_AKA},?|,\s*aka\b", re.IGNORECASE)
_LEADING_AND = re.compile(r"^\s*and\s+", re.IGNORECASE)
_BRACKETED = re.compile(r"[(\[]([^)\]]*)[)\]]")
_BRACKETS = re.compile(r"[(\[][^)\]]*(?:[)\]]|$)")


def _words(text: str) -> list[str]:
    words = normalise(text).split()
    # Join runs of single letters: "s a" (from "S.A.") → "sa", "a r sales" → "ar sales".
    joined: list[str] = []
    run = ""
    for word in words:
        if len(word) == 1 and word.isalpha():
            run += word
            continue
        if run:
            joined.append(run)
            run = ""
        joined.append(word)
    if run:
        joined.append(run)
    return [_legal_spelling(w) if len(w) >= 6 else w for w in joined]


@lru_cache(maxsize=65_536)
def _legal_spelling(word: str) -> str:
    """The legal word `word` is one typo away from (optimal string alignment), else `word`."""
    found = process.extractOne(word, _LONG_LEGAL_WORDS, scorer=OSA.distance, score_cutoff=1)
    return found[0] if found else word


def _strip(words: list[str]) -> list[str]:
    """Drop legal forms (phrases, anywhere-forms, edge-forms) and stop words."""
    kept: list[str] = []
    i = 0
    while i < len(words):
        for phrase in _PHRASES_BY_FIRST.get(words[i], ()):
            if tuple(words[i : i + len(phrase)]) == phrase:
                i += len(phrase)
                break
        else:
            if words[i] not in LEGAL_FORMS:
                kept.append(words[i])
            i += 1
    start, end = 0, len(kept)
    while start < end and (kept[start] in EDGE_LEGAL_FORMS or kept[start] in STOP_WORDS):
        start += 1
    while end > start and (kept[end - 1] in EDGE_LEGAL_FORMS or kept[end - 1] in STOP_WORDS):
        end -= 1
    return [w for w in kept[start:end] if w not in STOP_WORDS]


def _clean(words: list[str]) -> tuple[str, ...]:
    kept = _strip(words)
    if kept:
        return tuple(kept)
    # Nothing but legal forms and stop words: keep the words rather than match on nothing.
    return tuple(w for w in words if w not in STOP_WORDS) or tuple(words)
