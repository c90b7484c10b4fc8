"""Restricted-party name matching: score a party's names against list entries (no Django imports).

How a name pair is scored (`score_names`):

1. Both names become tokens (`normalise.tokens`: accents, transliteration, legal forms, stop
   words, "LAST, First").
2. Equal token multisets, or the same letters once the spaces are removed ("HUA WEI" and
   "HUAWEI"), score 1.0.
3. Otherwise every pair of *comparable* tokens gets its Jaro–Winkler similarity (rapidfuzz);
   pairs under `TOKEN_FLOOR` count as no match. Pairs are taken best first (greedy), each token
   used once.
4. score = Σ credit × 2 × min(weight of the query token, weight of the listed token), over the
   pairs taken, ÷ the total weight of both names. A token's weight is its length (at least 3)
   times a factor below 1 for common words, so unmatched tokens on either side pull the score
   down in proportion to how much of the name they are, and common words count for little
   either way.

Two choices there temper Jaro–Winkler, which rates different words that share a long prefix
high ("technology"/"technolyte" 0.92, "sensetime"/"sensenets" 0.88, "huawei"/"hua" 0.88):

- a pair's credit is the *square* of its similarity: one typo stays high ("huawai"/"huawei"
  0.93 → 0.87, "technolgy"/"technology" 0.98 → 0.96) while a shared prefix alone falls under
  0.80 ("sensenets" 0.88 → 0.78);
- a pair counts with the lighter of its two weights on both sides; the rest of the heavier
  token's weight stays in the denominator as unmatched. A generic query word that resembles a
  distinctive listed word ("technology" and "TECHNOLYTE") therefore proves little.

Two tokens are *comparable* when they share a blocking key: the first four letters with one
letter deleted (so any single typo, insertion, deletion or swap in the first four letters, and
any edit after them, keeps a key in common) or the consonant skeleton ("mohammed" and
"muhammad" are both "mhmd"). Jaro–Winkler leans on the start of a word, so tokens that differ
twice in their first letters are different words for screening too. Because this is part of
the similarity and not only of the index, `ScreeningIndex.search` and the full scan
`naive_search` return the same hits by construction (the tests and the benchmark check it).

Common words: a token found in more than 0.5 % of the list's names (and at least 50 of them)
weighs `share / its share` of its length, never less than a tenth; a short built-in list of
generic trade words ("technology", "international", "trading", "group" …) and their near
spellings (Jaro–Winkler 0.95 or more: "technolgy", "internacional") weigh at most a fifth, even
on a small list. East Slavic patronymics ("Yuryevich", "Ivanovna") weigh the same, since a
party's records seldom carry them ("Dmitri Zelenko" is "ZELENKO, Dmitri Pavlovich" on the list).
So "TECHNOLOGY" or "INTERNATIONAL" shared with a listed name never make a hit, and "Global
Technology Corp" does not hit every "… TECHNOLOGY CORP" on the list. (A listed entity whose
whole name is "Technology LLC" is still a hit for a party called "Technology".)

Country is evidence, never a hit by itself: when the entry lists countries, the party's country
adds `COUNTRY_BOOST` if it is among them and takes off `COUNTRY_PENALTY` if not, to a name score
that is already there. About 0.80 is a high-precision threshold and about 0.60 a high-recall one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields
from functools import lru_cache

from rapidfuzz import process
from rapidfuzz.distance import OSA, JaroWinkler

from .normalise import compact, name_variants, romanisations, tokens

OWNERSHIP_NOTE = (
    "Screening compares names only: it does not cover entities owned 50 % or more by listed parties "
    "(the affiliates rule). Check ownership separately."
)

TOKEN_FLOOR = 0.84  # Jaro–Winkler under this: no match ("mohammed"/"muhammad" is 0.85)
COMMON_SHARE = 0.005  # a token in more than this share of the list's names is a common word …
COMMON_MIN_NAMES = 50  # … provided it is in at least this many (small lists have no common words)
MIN_COMMON_FACTOR = 0.1
GENERIC_FACTOR = 0.2
GENERIC_SPELLING = 0.95  # Jaro–Winkler to a generic word from which a token counts as that word
MIN_TOKEN_WEIGHT = 3  # a two-letter token still says something
COUNTRY_BOOST = 0.03
COUNTRY_PENALTY = 0.05
HIGH_PRECISION = 0.80
HIGH_RECALL = 0.60

# Words that describe a business rather than name it; weighed low even when the list is small.
GENERIC_WORDS = frozenset(
    [
        "technology",
        "technologies",
        "tech",
        "international",
        "intl",
        "global",
        "trading",
        "trade",
        "traders",
        "industrial",
        "industries",
        "industry",
        "engineering",
        "services",
        "service",
        "solutions",
        "systems",
        "system",
        "electronics",
        "electronic",
        "enterprise",
        "enterprises",
        "development",
        "investment",
        "investments",
        "import",
        "export",
        "general",
        "logistics",
        "group",
        "holding",
        "holdings",
        "management",
        "resources",
        "manufacturing",
        "research",
        "institute",
        "center",
        "centre",
        "science",
        "scientific",
        "products",
        "equipment",
        "materials",
        "information",
        "network",
        "networks",
        "software",
        "energy",
        "shipping",
        "marine",
        "commercial",
        "partners",
        "ventures",
        "capital",
        "consulting",
        "supply",
        "supplies",
        "advanced",
        "new",
        "world",
        "national",
        "united",
        "bank",
    ]
)
_GENERIC_LIST = sorted(GENERIC_WORDS)
_PATRONYMIC_ENDINGS = ("ovich", "evich", "ovna", "evna", "ichna", "ovych", "evych", "ivna")
_VOWELS = frozenset("aeiouy")
_SLACK = 1e-9  # float slack when comparing an upper bound with the threshold


@dataclass(frozen=True)
class ListEntry:
    """One restricted party on a list: its names, countries and what the list says about it.

    `fingerprint` is a hash of everything but `entry_id` (filled in when left blank), so that an
    import can tell which entries changed since the last version of the list.
    """

    entry_id: str
    name: str
    aliases: tuple[str, ...] = ()
    countries: tuple[str, ...] = ()
    source: str = ""
    entity_type: str = ""
    programs: tuple[str, ...] = ()
    entity_number: str = ""
    license_requirement: str = ""
    remarks: str = ""
    fingerprint: str = ""

    def __post_init__(self) -> None:
        for name in ("aliases", "countries", "programs"):
            value = getattr(self, name)
            if not isinstance(value, tuple):
                object.__setattr__(self, name, tuple(value))
        if not self.fingerprint:
            object.__setattr__(self, "fingerprint", self.content_hash())

    def content_hash(self) -> str:
        content = {
            f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("entry_id", "fingerprint")
        }
        encoded = json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(encoded.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class Hit:
    """A list entry that one of the party's names resembles, with the evidence for it.

    `score` is the name score adjusted for country evidence (0..1); `name_score` is the name
    score alone. `reasons` say which tokens matched, which did not, and what the country did.
    """

    entry_id: str
    matched_name: str
    query_name: str
    score: float
    country_match: bool | None
    reasons: tuple[str, ...]
    name_score: float = 0.0


@lru_cache(maxsize=262_144)
def blocking_keys(token: str) -> frozenset[str]:
    """The first four letters with one deleted (the token itself too when it is that short),
    and the consonant skeleton: first letter, then the consonants, repeats collapsed."""
    head = token[:4]
    keys = {head[:i] + head[i + 1 :] for i in range(len(head))}
    if len(token) <= 3:
        keys.add(token)
    skeleton = token[0]
    for char in token[1:]:
        if char not in _VOWELS and char != skeleton[-1]:
            skeleton += char
    keys.add("~" + skeleton)
    return frozenset(keys)


@lru_cache(maxsize=65_536)
def is_generic(token: str) -> bool:
    """A generic trade word or a near spelling of one ("technolgy", "internacional")."""
    if token in GENERIC_WORDS:
        return True
    # A near spelling is one typo away, not only close by Jaro–Winkler, which rates a shared start
    # high: "electric" is 0.96 to "electronic", but it is its own word (and often a name's second).
    found = process.extractOne(
        token, _GENERIC_LIST, scorer=JaroWinkler.normalized_similarity, score_cutoff=GENERIC_SPELLING
    )
    return found is not None and OSA.distance(token, found[0]) <= 1


def is_patronymic(token: str) -> bool:
    """A Russian, Ukrainian or Belarusian patronymic ("Yuryevich", "Ivanovna", "Mykytovych")."""
    return len(token) >= 7 and token.endswith(_PATRONYMIC_ENDINGS)


def pair_credit(similarity: float, query_weight: float, listed_weight: float) -> float:
    """What a matched pair adds to the score's numerator (see the module docstring)."""
    return similarity * similarity * 2.0 * min(query_weight, listed_weight)


def comparable(a: str, b: str) -> bool:
    """Whether two tokens are compared at all (they share a blocking key)."""
    return a == b or not blocking_keys(a).isdisjoint(blocking_keys(b))


@dataclass(frozen=True)
class Alignment:
    """How two token tuples matched: the score, the pairs taken and what was left over."""

    score: float
    pairs: tuple[tuple[int, int, float], ...] = ()
    unmatched_query: tuple[int, ...] = ()
    unmatched_listed: tuple[int, ...] = ()
    exact: bool = False


def align(
    query: Sequence[str], listed: Sequence[str], weight: Callable[[str], float] | None = None
) -> Alignment:
    """Score two token sequences (see the module docstring) and keep the evidence."""
    if not query or not listed:
        return Alignment(
            0.0, unmatched_query=tuple(range(len(query))), unmatched_listed=tuple(range(len(listed)))
        )
    if sorted(query) == sorted(listed) or compact(tuple(query)) == compact(tuple(listed)):
        return Alignment(1.0, exact=True)
    weight = weight or _length_weight
    query_weights = [weight(t) for t in query]
    listed_weights = [weight(t) for t in listed]
    candidates: list[tuple[float, float, int, int]] = []
    for i, a in enumerate(query):
        for j, b in enumerate(listed):
            if a == b:
                similarity = 1.0
            elif comparable(a, b):
                similarity = JaroWinkler.normalized_similarity(a, b, score_cutoff=TOKEN_FLOOR)
                if similarity < TOKEN_FLOOR:
                    continue
            else:
                continue
            candidates.append(
                (similarity, pair_credit(similarity, query_weights[i], listed_weights[j]), i, j)
            )
    candidates.sort(key=lambda c: (-c[0], -c[1], c[2], c[3]))
    used_query: set[int] = set()
    used_listed: set[int] = set()
    pairs: list[tuple[int, int, float]] = []
    matched = 0.0
    for similarity, credit, i, j in candidates:
        if i in used_query or j in used_listed:
            continue
        used_query.add(i)
        used_listed.add(j)
        pairs.append((i, j, similarity))
        matched += credit
    total = sum(query_weights) + sum(listed_weights)
    return Alignment(
        min(1.0, matched / total) if total else 0.0,
        tuple(pairs),
        tuple(i for i in range(len(query)) if i not in used_query),
        tuple(j for j in range(len(listed)) if j not in used_listed),
    )


def score_names(
    a_tokens: Sequence[str], b_tokens: Sequence[str], weight: Callable[[str], float] | None = None
) -> float:
    """Token-set similarity of two names, 0..1 (`weight` defaults to the token's length, at least 3)."""
    return align(a_tokens, b_tokens, weight).score


def _length_weight(token: str) -> float:
    return float(max(len(token), MIN_TOKEN_WEIGHT))


@dataclass(frozen=True)
class _Record:
    entry: int  # index into the entries
    name: str  # the name or alias as the list writes it
    tokens: tuple[str, ...]


@dataclass
class _Corpus:
    """The names of a list, tokenised, with each token's weight: what the index and the full scan share."""

    entries: list[ListEntry]
    records: list[_Record] = field(default_factory=list)
    document_frequency: dict[str, int] = field(default_factory=dict)
    factors: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        seen_ids: set[str] = set()
        for position, entry in enumerate(self.entries):
            if entry.entry_id in seen_ids:
                raise ValueError(f"duplicate entry_id {entry.entry_id!r}")
            seen_ids.add(entry.entry_id)
            seen_tokens: set[tuple[str, ...]] = set()
            for name in (entry.name, *entry.aliases):
                for variant in name_variants(name):
                    words = tokens(variant)
                    if words and words not in seen_tokens:
                        seen_tokens.add(words)
                        self.records.append(_Record(position, name, words))
        frequency: dict[str, int] = {}
        for record in self.records:
            for token in set(record.tokens):
                frequency[token] = frequency.get(token, 0) + 1
        self.document_frequency = frequency
        common_at = max(COMMON_SHARE * len(self.records), COMMON_MIN_NAMES)
        self.factors = {
            token: max(MIN_COMMON_FACTOR, common_at / count)
            for token, count in frequency.items()
            if count > common_at
        }
        self.entry_countries = [frozenset(entry.countries) for entry in self.entries]
        self._weights = {token: self._weigh(token) for token in frequency}

    def weight(self, token: str) -> float:
        known = self._weights.get(token)
        return known if known is not None else self._weigh(token)

    def _weigh(self, token: str) -> float:
        factor = self.factors.get(token, 1.0)
        if is_generic(token) or is_patronymic(token):
            factor = min(factor, GENERIC_FACTOR)
        return _length_weight(token) * factor

    def hits(
        self,
        found: Iterable[tuple[int, int, float]],
        queries: Sequence[tuple[str, tuple[str, ...]]],
        country: str | None,
        threshold: float,
        limit: int,
    ) -> list[Hit]:
        """From (record, query index, name score) to the best hit per entry, sorted, with reasons."""
        best: dict[int, tuple[tuple[float, float, int, int], int, int, float, float, bool | None]] = {}
        for record_id, query_index, name_score in found:
            record = self.records[record_id]
            final, country_match = _with_country(name_score, self.entry_countries[record.entry], country)
            if final < threshold:
                continue
            rank = (final, name_score, -query_index, -record_id)
            current = best.get(record.entry)
            if current is None or rank > current[0]:
                best[record.entry] = (rank, record_id, query_index, name_score, final, country_match)
        ordered = sorted(
            best.values(), key=lambda b: (-b[4], self.entries[self.records[b[1]].entry].entry_id)
        )
        hits = []
        for _, record_id, query_index, name_score, final, country_match in ordered[:limit]:
            record = self.records[record_id]
            query_name, query_tokens = queries[query_index]
            entry = self.entries[record.entry]
            reasons = _reasons(query_tokens, record, name_score, entry, country, country_match, self)
            hits.append(
                Hit(
                    entry_id=entry.entry_id,
                    matched_name=record.name,
                    query_name=query_name,
                    score=round(final, 4),
                    country_match=country_match,
                    reasons=reasons,
                    name_score=round(name_score, 4),
                )
            )
        return hits


def _with_country(
    name_score: float, listed: frozenset[str], country: str | None
) -> tuple[float, bool | None]:
    if not country or not listed:
        return name_score, None
    if country in listed:
        return min(1.0, name_score + COUNTRY_BOOST), True
    return name_score - COUNTRY_PENALTY, False


def _reasons(
    query_tokens: tuple[str, ...],
    record: _Record,
    name_score: float,
    entry: ListEntry,
    country: str | None,
    country_match: bool | None,
    corpus: _Corpus,
) -> tuple[str, ...]:
    alignment = align(query_tokens, record.tokens, corpus.weight)
    reasons = []
    if alignment.exact:
        reasons.append(
            f"name {' '.join(query_tokens)!r} equals listed {' '.join(record.tokens)!r} once normalised"
        )
    for i, j, similarity in sorted(alignment.pairs):
        a, b = query_tokens[i], record.tokens[j]
        how = "exactly" if a == b else f"({similarity:.2f})"
        reasons.append(f"token {a!r} matched {b!r} {how}")
    for i in alignment.unmatched_query:
        reasons.append(
            f"token {query_tokens[i]!r} has no match in the listed name{_light(query_tokens[i], corpus)}"
        )
    for j in alignment.unmatched_listed:
        token = record.tokens[j]
        reasons.append(f"listed token {token!r} has no match in the party's name{_light(token, corpus)}")
    reasons.append(f"name score {name_score:.2f}")
    listed = ", ".join(entry.countries)
    if country_match is True:
        reasons.append(f"country {country} matches (+{COUNTRY_BOOST:.2f})")
    elif country_match is False:
        reasons.append(f"country {country} differs from listed {listed} (-{COUNTRY_PENALTY:.2f})")
    elif country and not entry.countries:
        reasons.append("the entry lists no country")
    return tuple(reasons)


def _light(token: str, corpus: _Corpus) -> str:
    return " (common word, low weight)" if corpus.weight(token) < _length_weight(token) else ""


def _country(country: str | None) -> str | None:
    country = (country or "").strip().upper()
    return country or None


def _queries(names: Sequence[str] | str) -> list[tuple[str, tuple[str, ...]]]:
    if isinstance(names, str):
        names = [names]
    queries = []
    for name in names:
        # A Cyrillic name is screened by its strict and its loose reading, reported under the name.
        for reading in romanisations(name):
            words = tokens(reading)
            if words and (name, words) not in queries:
                queries.append((name, words))
    return queries


class ScreeningIndex:
    """An inverted index over a list's names for fast screening.

    Tokens → the names holding them; blocking keys → the tokens holding them. A search compares
    each query token with the list's tokens that share a blocking key (one rapidfuzz call per
    key block), then adds up, per listed name, an upper bound of its score from the similar
    tokens it holds; only names whose bound reaches the threshold are scored in full.
    """

    def __init__(self, entries: Iterable[ListEntry]) -> None:
        self._corpus = _Corpus(list(entries))
        self._by_id = {entry.entry_id: entry for entry in self._corpus.entries}
        vocabulary: dict[str, int] = {}
        postings: list[list[int]] = []
        record_tokens: list[tuple[int, ...]] = []
        for record_id, record in enumerate(self._corpus.records):
            ids = []
            for token in record.tokens:  # once per occurrence, so that the bound counts repeats
                token_id = vocabulary.get(token)
                if token_id is None:
                    token_id = vocabulary[token] = len(postings)
                    postings.append([])
                postings[token_id].append(record_id)
                ids.append(token_id)
            record_tokens.append(tuple(ids))
        self._record_tokens = record_tokens
        self._vocabulary = list(vocabulary)
        self._postings = postings
        self._token_weights = [self._corpus.weight(token) for token in self._vocabulary]
        self._record_weights = [sum(self._corpus.weight(t) for t in r.tokens) for r in self._corpus.records]
        blocks: dict[str, list[int]] = {}
        for token_id, token in enumerate(self._vocabulary):
            for key in blocking_keys(token):
                blocks.setdefault(key, []).append(token_id)
        # Each block as (its tokens, their ids): rapidfuzz gets a plain list of strings.
        self._blocks = {key: ([self._vocabulary[i] for i in ids], ids) for key, ids in blocks.items()}
        self._compact: dict[str, list[int]] = {}
        for record_id, record in enumerate(self._corpus.records):
            self._compact.setdefault(compact(record.tokens), []).append(record_id)

    def __len__(self) -> int:
        return len(self._corpus.entries)

    @property
    def name_count(self) -> int:
        """How many distinct names (names, aliases and their variants) are indexed."""
        return len(self._corpus.records)

    def get(self, entry_id: str) -> ListEntry | None:
        return self._by_id.get(entry_id)

    def weight(self, token: str) -> float:
        """A token's weight in this list's scores (its length, less for common words)."""
        return self._corpus.weight(token)

    def search(
        self,
        names: Sequence[str] | str,
        country: str | None = None,
        threshold: float = HIGH_PRECISION,
        limit: int = 20,
    ) -> list[Hit]:
        """The entries any of the party's names resembles at `threshold` or above, best first,
        one hit per entry (its best name pair)."""
        country = _country(country)
        floor = threshold - (COUNTRY_BOOST if country else 0.0) - _SLACK
        queries = _queries(names)
        found: list[tuple[int, int, float]] = []
        records = self._corpus.records
        for query_index, (_, query_tokens) in enumerate(queries):
            for record_id in self._candidates(query_tokens, floor):
                score = score_names(query_tokens, records[record_id].tokens, self._corpus.weight)
                if score > 0 and score >= floor:
                    found.append((record_id, query_index, score))
        return self._corpus.hits(found, queries, country, threshold, limit)

    def _candidates(self, query_tokens: tuple[str, ...], floor: float) -> list[int]:
        """Names whose score can reach `floor`: an upper bound per name, from similar tokens.

        Every (query token, similar listed token) pair can add at most its credit to a name's
        score numerator. Pairs are split into light and heavy: light pairs are the least
        creditable ones, as many as can be taken while a name holding only light pairs provably
        stays under `floor` (with M the sum over query tokens of their largest light credit, such
        a name scores at most M / (query weight + M / 2), since a listed token weighs at least
        half the credit it earns). Only heavy pairs' postings are walked to find candidates (the
        light ones are typically common words with long postings); light pairs then only add to
        the bounds of the candidates that hold them.
        """
        weight = self._corpus.weight
        query_weights = [weight(t) for t in query_tokens]
        query_total = sum(query_weights)
        token_weights = self._token_weights
        similar_by_token: dict[str, list[tuple[int, float]]] = {}
        pairs: list[tuple[float, int, int]] = []  # (credit, query position, listed token id)
        for position, (token, token_weight) in enumerate(zip(query_tokens, query_weights, strict=True)):
            similar = similar_by_token.get(token)
            if similar is None:
                similar = similar_by_token[token] = self._similar(token)
            for token_id, similarity in similar:
                pairs.append(
                    (pair_credit(similarity, token_weight, token_weights[token_id]), position, token_id)
                )

        postings = self._postings
        pairs.sort(key=lambda p: (p[0], -len(postings[p[2]])))
        largest_light = [0.0] * len(query_tokens)
        light_sum = 0.0
        light: dict[int, float] = {}
        heavy: list[tuple[float, int]] = []
        for credit, position, token_id in pairs:
            grown = light_sum + max(0.0, credit - largest_light[position])
            if grown < floor * (query_total + grown / 2) - _SLACK:
                light_sum = grown
                largest_light[position] = max(largest_light[position], credit)
                light[token_id] = light.get(token_id, 0.0) + credit
            else:
                heavy.append((credit, token_id))

        bound: dict[int, float] = {}
        for credit, token_id in heavy:
            for record_id in postings[token_id]:
                bound[record_id] = bound.get(record_id, 0.0) + credit
        record_weights, record_tokens = self._record_weights, self._record_tokens
        candidates = []
        for record_id, upper in bound.items():
            needed = floor * (query_total + record_weights[record_id]) - _SLACK
            # Light pairs add at most `light_sum` to what a name's alignment takes (one pair per
            # query token), and at most their own credits: try the cheaper bound first.
            if upper >= needed or (
                upper + light_sum >= needed
                and upper + sum(light.get(t, 0.0) for t in record_tokens[record_id]) >= needed
            ):
                candidates.append(record_id)
        # Same letters without the spaces ("hua wei" / "huawei") score 1.0 whatever the tokens.
        taken = set(candidates)
        candidates.extend(r for r in self._compact.get(compact(query_tokens), ()) if r not in taken)
        return candidates

    def _similar(self, token: str) -> list[tuple[int, float]]:
        """The list's tokens comparable with `token` at TOKEN_FLOOR or above, with their similarity."""
        found: dict[int, float] = {}
        for key in blocking_keys(token):
            block = self._blocks.get(key)
            if block is None:
                continue
            strings, ids = block
            for _, similarity, position in process.extract(
                token,
                strings,
                scorer=JaroWinkler.normalized_similarity,
                score_cutoff=TOKEN_FLOOR,
                limit=None,
                processor=None,
            ):
                found[ids[position]] = similarity
        return list(found.items())


class FullScan:
    """The same scoring applied to every name on the list, one by one: the baseline the index
    must agree with, and what `naive_search` runs."""

    def __init__(self, entries: Iterable[ListEntry]) -> None:
        self._corpus = _Corpus(list(entries))

    def search(
        self,
        names: Sequence[str] | str,
        country: str | None = None,
        threshold: float = HIGH_PRECISION,
        limit: int = 20,
    ) -> list[Hit]:
        country = _country(country)
        floor = threshold - (COUNTRY_BOOST if country else 0.0) - _SLACK
        queries = _queries(names)
        found = []
        weight = self._corpus.weight
        for query_index, (_, query_tokens) in enumerate(queries):
            for record_id, record in enumerate(self._corpus.records):
                score = score_names(query_tokens, record.tokens, weight)
                if score > 0 and score >= floor:
                    found.append((record_id, query_index, score))
        return self._corpus.hits(found, queries, country, threshold, limit)


def naive_search(
    entries: Iterable[ListEntry],
    names: Sequence[str] | str,
    country: str | None = None,
    threshold: float = HIGH_PRECISION,
    limit: int = 20,
) -> list[Hit]:
    """Score every name and alias of every entry (a full scan, no index): slow, for checking."""
    return FullScan(entries).search(names, country=country, threshold=threshold, limit=limit)


__all__ = [
    "COUNTRY_BOOST",
    "COUNTRY_PENALTY",
    "HIGH_PRECISION",
    "HIGH_RECALL",
    "OWNERSHIP_NOTE",
    "TOKEN_FLOOR",
    "Alignment",
    "FullScan",
    "Hit",
    "ListEntry",
    "ScreeningIndex",
    "align",
    "blocking_keys",
    "comparable",
    "naive_search",
    "score_names",
]
