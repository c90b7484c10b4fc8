"""Screening names: the index beside a full scan (real CSL, 100,000 entries), the API beside the engine.

Parts (a) to (c) are pure Python (no database); part (d) goes through the whole Django stack.

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
    parties and extrapolated to 10,000 (said so in the table);
(d) the ad hoc screening API, `POST /api/v1/screenings/` with a partner's API token through DRF's
    APIClient (token auth, throttle, the screening and its hits stored, the JSON answer), beside
    the engine alone (`ScreeningIndex.search()` on the same index), name by name and alternately,
    with the real list (else 25,000 generated entries) stored in the database: 200 names (100
    listed names perturbed once, 100 made-up). Then where one request's time goes.

Correctness (fails the run): for every name or party given to both, the index and the full scan
return the same hits (entry, score, matched name, query name, country evidence), in the same
order; the real list parses without errors; every API answer is a 201 holding the engine's hits
(same entries, same order); the SQL queries per API request are the same for every name.

Timing (printed only): milliseconds per searched name or request (p50, p95, max), index build
seconds.
"""

from __future__ import annotations

import gc
import os
import random
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from apps.compliance.screening.matcher import FullScan, Hit, ListEntry, ScreeningIndex
from apps.compliance.screening.parsers import parse_csl_json
from apps.core.shared_data import shared_path
from bench.harness import Report, api_client_for, interleaved, round_robin

REAL_LIST = shared_path("data/csl/consolidated-2026-07-31.json")
SEED = 20261202
QUERIES = 500
NAIVE_QUERIES_REAL = 30
NAIVE_QUERIES_GENERATED = 6
GENERATED_ENTRIES = 100_000
PARTIES = 10_000
NAIVE_PARTIES = 12
API_NAMES = 200
API_FALLBACK_ENTRIES = 25_000  # stored for part (d) when the real list is absent
BREAKDOWN_TURNS = 40
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
    parts = os.environ.get("RACKPASS_BENCH_SCREENING_PARTS", "abcd")
    rng = random.Random(SEED)
    words = _Words(rng)
    if parts == "d":  # only the API beside the engine (the real list is still parsed)
        entries = parse_csl_json(REAL_LIST.read_bytes()).entries if REAL_LIST.exists() else None
        _api(report, entries or _generated_list(words, rng, API_FALLBACK_ENTRIES), words, rng)
        return
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
    api_entries = real_entries or generated[:API_FALLBACK_ENTRIES]
    del generated  # part (d) runs with what a web process holds: one list's index, not 100,000 more
    _api(report, api_entries, words, rng)
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


def _api(report: Report, entries: list[ListEntry], words: _Words, rng: random.Random) -> None:
    """(d) POST /api/v1/screenings/ beside the engine, name by name, in the same run."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from apps.compliance.api.serializers import ScreeningSerializer
    from apps.compliance.services import screening as screening_services

    client, user = _api_client()
    list_label = _store_list(entries)
    gc.collect()
    index, build_s = _timed(lambda: screening_services.active_index()[0])
    names = [_perturbed(rng, words, entries)[0] for _ in range(API_NAMES // 2)]
    names += [words.party_name() for _ in range(API_NAMES - len(names))]
    rng.shuffle(names)

    def post(name: str) -> Any:
        return client.post("/api/v1/screenings/", {"name": name}, format="json")

    post("warm up: the token's last use and the first request's imports")
    engine_hits: dict[str, list[Hit]] = {}
    answers: dict[str, Any] = {}

    def engine(name: str) -> Callable[[], None]:
        return lambda: engine_hits.__setitem__(name, index.search([name], threshold=THRESHOLD))

    def api(name: str) -> Callable[[], None]:
        return lambda: answers.__setitem__(name, post(name))

    engine_t, api_t = interleaved([engine(n) for n in names], [api(n) for n in names])

    def same_hits(name: str) -> bool:
        answer = answers[name]
        if answer.status_code != 201:
            return False
        stored = sorted((h["entry_name"], h["matched_name"], h["score"]) for h in answer.json()["hits"])
        found = sorted(
            (index.get(h.entry_id).name, h.matched_name, f"{h.score:.4f}") for h in engine_hits[name]
        )
        return stored == found

    wrong = [n for n in names if not same_hits(n)]
    report.check(not wrong, f"API: answers differ from the engine's hits (or failed) for {wrong[:5]}")

    # Queries per request: one number for the names with hits, one for those without (no insert
    # of hits), whatever the number of hits.
    counts: dict[bool, set[int]] = {False: set(), True: set()}
    for name in names[:40]:
        with CaptureQueriesContext(connection) as queries:
            post(name)
        counts[bool(engine_hits[name])].add(len(queries.captured_queries))
    report.check(
        all(len(c) <= 1 for c in counts.values()),
        f"API: the SQL queries per request vary with the name: {counts}",
    )

    title = f"the screening API beside the engine ({list_label}; {connection.vendor})"
    hits = [len(engine_hits[n]) for n in names]
    api_ms, engine_ms = sorted(t * 1000 for t in api_t.samples), sorted(t * 1000 for t in engine_t.samples)
    over = [(a - e) * 1000 for a, e in zip(api_t.samples, engine_t.samples, strict=True)]
    report.row(title, what="engine: ScreeningIndex.search()", names=len(names), **_ms(engine_t.samples))
    report.row(
        title,
        what="API: POST /api/v1/screenings/",
        names=len(names),
        **_ms(api_t.samples),
        queries=" / ".join(
            f"{', '.join(map(str, sorted(c)))} ({'hits' if with_hits else 'no hit'})"
            for with_hits, c in sorted(counts.items())
            if c
        ),
    )
    report.row(
        title, what="API minus engine, name by name", names=len(names), **_ms([o / 1000 for o in over])
    )
    for with_hits in (True, False):
        subset = [o / 1000 for n, o in zip(names, over, strict=True) if bool(engine_hits[n]) == with_hits]
        if subset:
            what = "  of which names with hits" if with_hits else "  of which names without a hit"
            report.row(title, what=what, names=len(subset), **_ms(subset))
    report.row(
        title,
        what="ratio API / engine (p50, p95)",
        names=len(names),
        p50_ms=f"{statistics.median(api_ms) / statistics.median(engine_ms):.1f}x",
        p95_ms=f"{_p95(api_ms) / _p95(engine_ms):.1f}x",
    )
    report.note(
        f"(d) index built in {build_s:.1f} s from the database; names hit 0 to {max(hits)} entries "
        f"(median {statistics.median(hits):.0f}); the API's engine time is inside its request time."
    )

    # Where one request's time goes: each step alone, taking turns, for a name with several hits.
    name = max(names[:40], key=lambda n: (len(engine_hits[n]), n))
    threshold = screening_services.default_threshold()
    recorded = screening_services.adhoc_screen(names=[name], actor=user)
    steps = round_robin(
        {
            "whole request": lambda: post(name),
            "active_index(): which lists are active (cached index)": screening_services.active_index,
            "engine search": lambda: index.search([name], threshold=float(threshold)),
            "adhoc_screen(): search + store (transaction, inserts)": lambda: screening_services.adhoc_screen(
                names=[name], actor=user
            ),
            "ScreeningSerializer(...).data": lambda: ScreeningSerializer(recorded).data,
            "for comparison: GET /api/v1/me/ (token auth, throttle, no work)": lambda: client.get(
                "/api/v1/me/"
            ),
        },
        repeat=BREAKDOWN_TURNS,
    )
    whole = steps["whole request"].median_ms
    title = (
        f"where a POST's time goes ({len(engine_hits[name])} hits; "
        f"median ms of {BREAKDOWN_TURNS}, each step alone)"
    )
    for step, timing in steps.items():
        report.row(
            title, step=step, median_ms=f"{timing.median_ms:.2f}", share=f"{timing.median_ms / whole:.0%}"
        )


def _api_client() -> tuple[Any, Any]:
    """A partner's API client with a token (partners screen names ad hoc), and the user."""
    from apps.accounts.models import Organisation, OrganisationKind, User
    from apps.accounts.roles import Role

    Organisation.objects.create(
        kind=OrganisationKind.OPERATOR,
        legal_name="Bench Operator",
        address_line1="1 Main St",
        city="Palo Alto",
        country="US",
    )
    partner = Organisation.objects.create(
        kind=OrganisationKind.FREIGHT_FORWARDER,
        legal_name="Bench Forwarder Pte. Ltd.",
        address_line1="1 Harbour Rd",
        city="Singapore",
        country="SG",
    )
    user = User.objects.create(username="bench-partner", organisation=partner, role=Role.PARTNER)
    return api_client_for(user), user


def _store_list(entries: list[ListEntry]) -> str:
    """Store the entries as the one active list edition, as an import would."""
    from apps.compliance.models import ScreeningList, ScreeningListEntry
    from apps.compliance.services import screening as screening_services

    stored = ScreeningList.objects.create(
        name="Bench list", source_format="csl_json", version="bench", entry_count=len(entries)
    )
    ScreeningListEntry.objects.bulk_create(
        [screening_services._entry_row(stored, entry) for entry in entries], batch_size=2000
    )
    screening_services.invalidate_index()
    return f"{len(entries):,} entries"


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
    return {"p50_ms": f"{statistics.median(ms):.2f}", "p95_ms": f"{_p95(ms):.2f}", "max_ms": f"{ms[-1]:.2f}"}


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1] if len(values) > 1 else values[0]


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
