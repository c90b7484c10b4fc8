"""Screening names against the real CSL and 100,000 generated entries: the index beside a full scan.

Pure Python; the database is not used. Three parts:

(a) the real Consolidated Screening List (`../shared/data/csl/consolidated-2026-07-31.json`,
    skipped with a note when absent): parse, build the index, screen 500 names one by one (250
    listed names with one perturbation each, 250 made-up names) and time each search; beside it
    the full scan (`FullScan`, what `naive_search` runs) on 30 of those names. How often a
    perturbed listed name still finds its entry, at 0.80 and 0.60, is reported too;
(b) 100,000 generated entries (seeded: made-up company and person names built from syllables,
    with generic trade words, legal forms, aliases and countries), 500 names through the index
    and 6 through the full scan;
(c) re-screening 10,000 parties (one or two names and a country each) against the real list,
    as after a list update: the total through the index, and the full scan timed on a sample of
    parties and extrapolated to 10,000 (said so in the table).

Correctness (fails the run): for every name or party given to both, the index and the full scan
return the same hits (entry, score, matched name, query name, country evidence), in the same
order; the real list parses without errors.

Timing (printed only): milliseconds per searched name (p50, p95, max), index build seconds.
"""

from __future__ import annotations

import gc
import random
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from apps.compliance.screening.matcher import FullScan, Hit, ListEntry, ScreeningIndex
from apps.compliance.screening.parsers import parse_csl_json
from bench.harness import Report

REAL_LIST = Path(__file__).resolve().parents[2] / "shared" / "data" / "csl" / "consolidated-2026-07-31.json"
SEED = 20261202
QUERIES = 500
NAIVE_QUERIES_REAL = 30
NAIVE_QUERIES_GENERATED = 6
GENERATED_ENTRIES = 100_000
PARTIES = 10_000
NAIVE_PARTIES = 12
THRESHOLD = 0.80
HIGH_RECALL = 0.60

# Word lists for made-up names; the syllables make a large vocabulary of plausible words.
ONSETS = [
    "b",
    "c",
    "d",
    "f",
    "g",
    "h",
    "j",
    "k",
    "l",
    "m",
    "n",
    "p",
    "r",
    "s",
    "t",
    "v",
    "w",
    "z",
    "br",
    "ch",
    "cl",
    "dr",
    "gr",
    "kh",
    "pl",
    "sh",
    "st",
    "tr",
    "zh",
]
NUCLEI = ["a", "e", "i", "o", "u", "ai", "ao", "ei", "ia", "ou"]
CODAS = ["", "", "", "n", "ng", "r", "s", "l", "k", "m"]
GENERIC = [
    "Technology",
    "Technologies",
    "International",
    "Trading",
    "Industrial",
    "Engineering",
    "Services",
    "Solutions",
    "Systems",
    "Electronics",
    "Development",
    "Investment",
    "Logistics",
    "Group",
    "Holding",
    "Manufacturing",
    "Research",
    "Science",
    "Energy",
    "Shipping",
    "Marine",
    "Commercial",
    "Supply",
    "Advanced",
    "Global",
    "General",
    "Import",
    "Export",
    "Precision",
    "Optics",
    "Digital",
]
CITIES = [
    "Beijing",
    "Shanghai",
    "Shenzhen",
    "Moscow",
    "Tehran",
    "Dubai",
    "Mumbai",
    "Singapore",
    "Taipei",
    "Istanbul",
    "Almaty",
    "Minsk",
    "Chennai",
    "Bangalore",
    "Karachi",
    "Caracas",
    "Havana",
    "Pyongyang",
    "Tashkent",
    "Yerevan",
]
LEGAL = [
    "Co., Ltd.",
    "Ltd",
    "LLC",
    "Inc.",
    "GmbH",
    "Pte. Ltd.",
    "Private Limited",
    "JSC",
    "OOO",
    "S.A.",
    "FZE",
    "",
]
COUNTRIES = [
    "CN",
    "RU",
    "IR",
    "AE",
    "IN",
    "SG",
    "TW",
    "HK",
    "TR",
    "BY",
    "KP",
    "SY",
    "PK",
    "MY",
    "TH",
    "DE",
    "GB",
    "US",
    "FR",
    "IT",
    "KZ",
    "UZ",
    "AM",
    "GE",
    "VE",
    "CU",
]


def run(report: Report) -> None:
    rng = random.Random(SEED)
    words = _Words(rng)
    if REAL_LIST.exists():
        real_entries = _real_list(report)
        _screen(report, "real CSL", real_entries, words, rng, NAIVE_QUERIES_REAL, quality=True)
    else:
        real_entries = None
        report.note(f"{REAL_LIST} is absent: the real-list parts (a) and (c) were skipped.")
    generated = _generated_list(words, rng, GENERATED_ENTRIES)
    _screen(report, "generated", generated, words, rng, NAIVE_QUERIES_GENERATED, quality=False)
    if real_entries is not None:
        _rescreen(report, real_entries, words, rng)
    report.note(
        "ms per name: one ScreeningIndex.search() (or FullScan.search()) call with a single name, "
        "no country, threshold 0.80, limit 20; p50/p95/max over the names searched."
    )


# --- the parts -----------------------------------------------------------------------------------


def _real_list(report: Report) -> list[ListEntry]:
    began = time.perf_counter()
    parsed = parse_csl_json(REAL_LIST.read_bytes())
    report.check(
        not parsed.errors, f"the real list has {len(parsed.errors)} bad records: {parsed.errors[:3]}"
    )
    report.note(
        f"real list: {len(parsed.entries):,} entries parsed in {time.perf_counter() - began:.1f} s "
        f"(version {parsed.version})"
    )
    return parsed.entries


def _screen(
    report: Report,
    label: str,
    entries: list[ListEntry],
    words: _Words,
    rng: random.Random,
    naive_count: int,
    *,
    quality: bool,
) -> None:
    index, build_s = _timed(lambda: ScreeningIndex(entries))
    scan, scan_build_s = _timed(lambda: FullScan(entries))
    listed = [_perturbed(rng, words, entries) for _ in range(QUERIES // 2)]
    made_up = [(words.party_name(), None, "made-up") for _ in range(QUERIES - len(listed))]
    queries = [q for pair in zip(listed, made_up, strict=True) for q in pair]

    times, hits = _search_each(index, [q[0] for q in queries])
    sample = list(range(0, len(queries), max(1, len(queries) // naive_count)))[:naive_count]
    naive_times, naive_hits = _search_each(scan, [queries[i][0] for i in sample])
    differing = [queries[i][0] for i, b in zip(sample, naive_hits, strict=True) if _key(hits[i]) != _key(b)]
    report.check(not differing, f"{label}: the index and the full scan differ for {differing[:5]}")

    size = f"{len(entries):,} entries, {index.name_count:,} names"
    report.row(
        list=label, size=size, engine="index", build_s=f"{build_s:.1f}", names=len(times), **_ms(times)
    )
    report.row(
        list=label,
        size=size,
        engine="full scan",
        build_s=f"{scan_build_s:.1f}",
        names=len(naive_times),
        **_ms(naive_times),
        same_hits="yes" if not differing else f"NO ({len(differing)})",
    )
    if quality:
        _quality(report, label, entries, queries, hits, index)


def _quality(
    report: Report,
    label: str,
    entries: list[ListEntry],
    queries: list[tuple[str, str | None, str]],
    hits: list[list[Hit]],
    index: ScreeningIndex,
) -> None:
    """Share of perturbed listed names that still find their entry; made-up names that hit anything."""
    kinds: dict[str, list[tuple[bool, bool]]] = {}
    for (name, entry_id, kind), found in zip(queries, hits, strict=True):
        if entry_id is None:
            continue
        recall_hits = index.search([name], threshold=HIGH_RECALL, limit=1000)
        kinds.setdefault(kind, []).append(
            (any(h.entry_id == entry_id for h in found), any(h.entry_id == entry_id for h in recall_hits))
        )
    title = f"{label}: does a perturbed listed name still find its entry?"
    for kind, results in sorted(kinds.items()):
        report.row(
            title,
            perturbation=kind,
            names=len(results),
            found_at_080=f"{sum(a for a, _ in results) / len(results):.0%}",
            found_at_060=f"{sum(b for _, b in results) / len(results):.0%}",
        )
    made_up = [
        (name, found) for (name, entry_id, _), found in zip(queries, hits, strict=True) if entry_id is None
    ]
    at_060 = sum(1 for name, _ in made_up if index.search([name], threshold=HIGH_RECALL, limit=1))
    report.row(
        title,
        perturbation="made-up names (any hit)",
        names=len(made_up),
        found_at_080=f"{sum(1 for _, f in made_up if f) / len(made_up):.0%}",
        found_at_060=f"{at_060 / len(made_up):.0%}",
    )
    examples = [
        f"{name!r} → {found[0].matched_name!r} {found[0].score:.2f}" for name, found in made_up if found
    ]
    if examples:
        report.note(f"{label}: made-up names with a hit at 0.80: " + "; ".join(examples[:4]))


def _rescreen(report: Report, entries: list[ListEntry], words: _Words, rng: random.Random) -> None:
    index = ScreeningIndex(entries)
    scan = FullScan(entries)
    parties = []
    for i in range(PARTIES):
        # One party in ten resembles a listed one.
        names = [_perturbed(rng, words, entries)[0] if i % 10 == 0 else words.party_name()]
        if rng.random() < 0.5:
            names.append(words.party_name())  # a trading name
        parties.append((names, rng.choice(COUNTRIES)))

    gc.collect()
    began = time.perf_counter()
    results = [index.search(names, country=country) for names, country in parties]
    total_s = time.perf_counter() - began
    flagged = sum(1 for r in results if r)

    sample = list(range(0, PARTIES, PARTIES // NAIVE_PARTIES))[:NAIVE_PARTIES]
    gc.collect()
    began = time.perf_counter()
    naive = [scan.search(parties[i][0], country=parties[i][1]) for i in sample]
    naive_per_party = (time.perf_counter() - began) / len(sample)
    differing = [parties[i][0] for i, b in zip(sample, naive, strict=True) if _key(results[i]) != _key(b)]
    report.check(not differing, f"re-screening: the index and the full scan differ for {differing[:3]}")

    title = f"re-screening {PARTIES:,} parties against the real list ({len(entries):,} entries)"
    names = sum(len(n) for n, _ in parties)
    report.row(
        title,
        engine="index",
        parties=PARTIES,
        names=names,
        total_s=f"{total_s:.1f}",
        ms_per_party=f"{total_s / PARTIES * 1000:.2f}",
        parties_flagged=flagged,
        how="measured, all parties",
    )
    report.row(
        title,
        engine="full scan",
        parties=PARTIES,
        names=names,
        total_s=f"{naive_per_party * PARTIES:.0f}",
        ms_per_party=f"{naive_per_party * 1000:.0f}",
        parties_flagged="",
        how=f"EXTRAPOLATED from {len(sample)} parties; same hits on them: {'yes' if not differing else 'NO'}",
    )


# --- queries and generated lists ---------------------------------------------------------------


class _Words:
    """Made-up words (seeded), some far more frequent than others, as in real names."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        vocabulary: dict[str, None] = {}
        while len(vocabulary) < 40_000:
            syllables = rng.choice((1, 2, 2, 2, 3, 3))
            word = "".join(
                rng.choice(ONSETS) + rng.choice(NUCLEI) + rng.choice(CODAS) for _ in range(syllables)
            )
            vocabulary[word.capitalize()] = None
        self.words = list(vocabulary)
        # Zipf-like: a few words are common, most are rare.
        self.cumulative = list(_accumulate(1 / (rank + 10) ** 0.9 for rank in range(len(self.words))))

    def word(self) -> str:
        return self.rng.choices(self.words, cum_weights=self.cumulative)[0]

    def company(self) -> str:
        rng = self.rng
        parts = [rng.choice(CITIES)] if rng.random() < 0.3 else []
        parts += [self.word() for _ in range(rng.choice((1, 1, 2, 2, 3)))]
        parts += rng.sample(GENERIC, rng.choice((0, 1, 1, 2)))
        legal = rng.choice(LEGAL)
        return " ".join(parts + ([legal] if legal else []))

    def person(self) -> str:
        last, first = self.word().upper(), self.word()
        middle = f" {self.word()}" if self.rng.random() < 0.4 else ""
        return f"{last}, {first}{middle}"

    def party_name(self) -> str:
        return self.company() if self.rng.random() < 0.7 else self.person().replace(",", "").title()


def _generated_list(words: _Words, rng: random.Random, size: int) -> list[ListEntry]:
    entries = []
    for i in range(size):
        person = rng.random() < 0.3
        name = words.person() if person else words.company()
        aliases: list[str] = []
        for _ in range(rng.choice((0, 0, 1, 1, 2))):
            aliases.append(words.person() if person else words.company())
        countries = tuple(rng.sample(COUNTRIES, rng.choice((0, 1, 1, 1, 2))))
        entries.append(
            ListEntry(
                entry_id=f"gen-{i:06d}",
                name=name,
                aliases=tuple(aliases),
                countries=countries,
                source="generated",
                entity_type="Individual" if person else "Entity",
            )
        )
    return entries


def _perturbed(rng: random.Random, words: _Words, entries: Sequence[ListEntry]) -> tuple[str, str, str]:
    """A listed name (or alias) changed once, with the entry it came from and what was done."""
    entry = rng.choice(entries)
    name = rng.choice((entry.name, *entry.aliases))
    kind = rng.choice(("as listed", "case and punctuation", "legal form", "typo", "word order"))
    if kind == "case and punctuation":
        name = "".join(c for c in name if c.isalnum() or c == " ")
        name = name.lower() if rng.random() < 0.5 else name.upper()
    elif kind == "legal form":
        name = f"{name} {rng.choice([legal for legal in LEGAL if legal])}"
    elif kind == "typo":
        name = _typo(rng, name)
    elif kind == "word order":
        parts = name.replace(",", " ").split()
        if len(parts) > 1:
            rng.shuffle(parts)
        name = " ".join(parts)
    return name, entry.entry_id, kind


def _typo(rng: random.Random, name: str) -> str:
    """One typo (substitution, deletion, insertion or swap) in a word of five letters or more."""
    parts = name.split()
    long = [i for i, p in enumerate(parts) if len(p) >= 5 and p.isalpha()]
    if not long:
        return name
    i = rng.choice(long)
    word = parts[i]
    at = rng.randrange(1, len(word) - 1)
    letter = rng.choice("abcdefghijklmnopqrstuvwxyz")
    edit = rng.choice(("substitute", "delete", "insert", "swap"))
    if edit == "substitute":
        word = word[:at] + letter + word[at + 1 :]
    elif edit == "delete":
        word = word[:at] + word[at + 1 :]
    elif edit == "insert":
        word = word[:at] + letter + word[at:]
    else:
        word = word[: at - 1] + word[at] + word[at - 1] + word[at + 1 :]
    parts[i] = word
    return " ".join(parts)


# --- helpers -------------------------------------------------------------------------------------


def _search_each(engine: ScreeningIndex | FullScan, names: list[str]) -> tuple[list[float], list[list[Hit]]]:
    gc.collect()
    times, hits = [], []
    for name in names:
        began = time.perf_counter()
        hits.append(engine.search([name], threshold=THRESHOLD))
        times.append(time.perf_counter() - began)
    return times, hits


def _key(hits: list[Hit]) -> list[tuple[Any, ...]]:
    return [(h.entry_id, h.score, h.name_score, h.matched_name, h.query_name, h.country_match) for h in hits]


def _ms(samples: list[float]) -> dict[str, str]:
    ms = sorted(s * 1000 for s in samples)
    p95 = statistics.quantiles(ms, n=20, method="inclusive")[-1] if len(ms) > 1 else ms[0]
    return {"p50_ms": f"{statistics.median(ms):.2f}", "p95_ms": f"{p95:.2f}", "max_ms": f"{ms[-1]:.2f}"}


def _timed(build: Callable[[], Any]) -> tuple[Any, float]:
    gc.collect()
    began = time.perf_counter()
    value = build()
    return value, time.perf_counter() - began


def _accumulate(values: Any) -> Any:
    total = 0.0
    for value in values:
        total += value
        yield total
