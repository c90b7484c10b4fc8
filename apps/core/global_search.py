"""One search: the box in the header of every page, `/search/?q=` and `GET /api/v1/search/?q=`.

It finds, among what the user may see, shipments (by reference, buyer's order, AWB / B/L,
container number, party name, Incoterm place), units and shipment lines by serial, parts,
documents, licences and cluster designs. Core sits below every app and imports none of them: each
app registers a *provider* for its kinds in its own `search.py` (found at first use, as Django's
admin finds `admin.py`). A provider takes the user and the parsed query and returns ranked hits
read through the app's `visible_to` (the same door as its lists), in a fixed number of queries
whatever the number of matches.

Ranking (`ranked`): a row matches when every term is in one of the kind's fields (case-insensitive
substring), or, on PostgreSQL, when a name field is trigram-similar to the whole query (a typo
still finds "Quanta"). Its rank is 4 for a field equal to the query, 3 for a field starting with
it, 2 for the terms found inside, and on PostgreSQL plus the best trigram similarity (0–1), so
the closer spelling comes first. An exact identifier (a reference, number or serial equal to
the query) is marked `exact`: when exactly one object is an exact hit the page goes straight to it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import reduce
from operator import and_, or_
from typing import Any

from django.db import connection
from django.db.models import BooleanField, Case, CharField, F, FloatField, Q, QuerySet, Value, When
from django.db.models.functions import Greatest
from django.utils.module_loading import autodiscover_modules

from .validators import search_terms_problem

MIN_QUERY_LENGTH = 2  # one letter would match most of every table
PER_KIND = 8  # hits per kind on the page and in the API: enough to choose from at a glance


@dataclass(frozen=True)
class SearchQuery:
    """The text as typed (stripped) and its terms (at most 10 of at most 100 characters)."""

    text: str
    terms: tuple[str, ...]


@dataclass(frozen=True)
class Hit:
    """One object found: what it is, where it lives, why it matched and how well."""

    kind: str
    title: str
    url: str
    detail: str = ""
    matched: str = ""  # the field that matched, in the trade's words ("AWB", "buyer's order")
    rank: float = 0.0
    exact: bool = False
    # The thing itself, when two kinds show it: a unit and the line serial of that same box share
    # "unit:<id>", so its serial names one object (the first kind's page opens), not two.
    thing: str = ""


@dataclass(frozen=True)
class Group:
    kind: str
    label: str
    hits: list[Hit]
    more: bool  # more matches than shown


@dataclass(frozen=True)
class Answer:
    query: SearchQuery
    groups: list[Group]

    @property
    def jump(self) -> str | None:
        """The page of the one object an exact identifier names, when it names exactly one (of
        the kind listed first when two kinds show the same thing)."""
        exact = [hit for group in self.groups for hit in group.hits if hit.exact]
        return exact[0].url if len({hit.thing or hit.url for hit in exact}) == 1 else None

    @property
    def count(self) -> int:
        return sum(len(group.hits) for group in self.groups)


Provider = Callable[[Any, SearchQuery, int], list[Hit]]


@dataclass(frozen=True)
class Kind:
    key: str
    label: str
    provider: Provider  # (user, query, limit) → at most limit + 1 hits, best first
    order: int = 100


_kinds: dict[str, Kind] = {}
_discovered = False


def register(key: str, label: str, provider: Provider, *, order: int = 100) -> None:
    """Register a kind of result (idempotent: registering a key again replaces it)."""
    _kinds[key] = Kind(key=key, label=label, provider=provider, order=order)


def kinds() -> list[Kind]:
    global _discovered
    if not _discovered:
        autodiscover_modules("search")
        _discovered = True
    return sorted(_kinds.values(), key=lambda kind: (kind.order, kind.key))


def parse(text: str) -> SearchQuery:
    """The query, or a ValueError saying why it is refused (too many or too long terms)."""
    text = " ".join((text or "").split())
    terms = tuple(text.split())
    if problem := search_terms_problem(list(terms)):
        raise ValueError(problem)
    return SearchQuery(text=text, terms=terms)


def search(user, query: SearchQuery, *, per_kind: int = PER_KIND) -> Answer:
    """Every registered kind's hits for `user`, grouped, best first; nothing for a short query."""
    if len(query.text) < MIN_QUERY_LENGTH:
        return Answer(query=query, groups=[])
    groups = []
    for kind in kinds():
        hits = kind.provider(user, query, per_kind)
        if hits:
            hits = sorted(hits, key=lambda hit: -hit.rank)
            groups.append(Group(kind.key, kind.label, hits[:per_kind], more=len(hits) > per_kind))
    # The kind with the best hit first (an exact serial before parts that merely contain it); kinds
    # that tie keep their registered order (the sort is stable).
    groups.sort(key=lambda group: -group.hits[0].rank)
    return Answer(query=query, groups=groups)


# --- what providers use --------------------------------------------------------------------------


def on_postgresql() -> bool:
    return connection.vendor == "postgresql"


def _all_terms_in(query: SearchQuery, fields: Sequence[str]) -> Q:
    return reduce(
        and_, (reduce(or_, (Q(**{f"{name}__icontains": term}) for name in fields)) for term in query.terms)
    )


def matches(query: SearchQuery, fields: Sequence[str], *, fuzzy: Sequence[str] = ()) -> Q:
    """Every term in one of `fields`; on PostgreSQL also a `fuzzy` field trigram-similar to the
    whole text (pg_trgm's `%`; name columns are small enough to go without a trigram index)."""
    condition = _all_terms_in(query, fields)
    if fuzzy and on_postgresql():
        from django.contrib.postgres.lookups import TrigramSimilar

        condition |= reduce(or_, (Q(TrigramSimilar(F(name), query.text)) for name in fuzzy))
    return condition


def _rank(query: SearchQuery, fields: Sequence[str], fuzzy: Sequence[str]):
    text = query.text
    base = Case(
        When(reduce(or_, (Q(**{f"{name}__iexact": text}) for name in fields)), then=Value(4.0)),
        When(reduce(or_, (Q(**{f"{name}__istartswith": text}) for name in fields)), then=Value(3.0)),
        When(_all_terms_in(query, fields), then=Value(2.0)),
        default=Value(0.0),  # found by its spelling alone (PostgreSQL's trigrams)
        output_field=FloatField(),
    )
    if fuzzy and on_postgresql():
        from django.contrib.postgres.search import TrigramSimilarity

        similarity = [TrigramSimilarity(name, text) for name in fuzzy]
        return base + (similarity[0] if len(similarity) == 1 else Greatest(*similarity))
    return base


def ranked(
    queryset: QuerySet,
    query: SearchQuery,
    fields: Sequence[str],
    *,
    identifiers: Sequence[str] = (),
    fuzzy: Sequence[str] = (),
    labels: dict[str, str] | None = None,
    tiebreak: Iterable[str] = ("pk",),
) -> QuerySet:
    """`queryset` filtered to the rows matching `query` in `fields`, annotated with
    `search_rank` (higher is better), `search_exact` (an `identifiers` field equals the query) and
    `search_field` (the label of the first of `labels`' fields holding every term), best first."""
    queryset = queryset.filter(matches(query, fields, fuzzy=fuzzy)).annotate(
        search_rank=_rank(query, fields, fuzzy)
    )
    exact = (
        Case(
            When(
                reduce(or_, (Q(**{f"{name}__iexact": query.text}) for name in identifiers)), then=Value(True)
            ),
            default=Value(False),
            output_field=BooleanField(),
        )
        if identifiers
        else Value(False, output_field=BooleanField())
    )
    labels = labels or {}
    similar = []
    if fuzzy and on_postgresql():
        from django.contrib.postgres.lookups import TrigramSimilar

        similar = [
            When(TrigramSimilar(F(name), query.text), then=Value(labels[name]))
            for name in fuzzy
            if name in labels
        ]
    found_in = (
        Case(
            *(When(_all_terms_in(query, [name]), then=Value(label)) for name, label in labels.items()),
            *similar,
            default=Value(""),
            output_field=CharField(),
        )
        if labels
        else Value("", output_field=CharField())
    )
    queryset = queryset.annotate(search_exact=exact, search_field=found_in)
    return queryset.order_by(F("search_rank").desc(), *tiebreak)


def hit(kind: str, obj, *, title: str, url: str, detail: str = "", matched: str = "", thing: str = "") -> Hit:
    """A hit from a row `ranked` annotated."""
    return Hit(
        kind=kind,
        title=title,
        url=url,
        detail=detail,
        matched=matched or obj.search_field,
        rank=float(obj.search_rank),
        exact=bool(obj.search_exact),
        thing=thing,
    )


def best_per(hits: Iterable[Hit]) -> list[Hit]:
    """One hit per object (by URL), the best-ranked; an exact hit stays exact."""
    best: dict[str, Hit] = {}
    for candidate in hits:
        kept = best.get(candidate.url)
        if kept is None or candidate.rank > kept.rank or (candidate.exact and not kept.exact):
            best[candidate.url] = candidate
    return sorted(best.values(), key=lambda h: -h.rank)


def as_dict(answer: Answer) -> dict[str, Any]:
    """The API's shape of an answer."""
    return {
        "q": answer.query.text,
        "jump": answer.jump,
        "groups": [
            {
                "kind": group.kind,
                "label": group.label,
                "more": group.more,
                "hits": [
                    {
                        "title": h.title,
                        "url": h.url,
                        "detail": h.detail,
                        "matched": h.matched,
                        "rank": round(h.rank, 3),
                        "exact": h.exact,
                    }
                    for h in group.hits
                ],
            }
            for group in answer.groups
        ],
    }


__all__ = [
    "Answer",
    "Group",
    "Hit",
    "SearchQuery",
    "best_per",
    "hit",
    "kinds",
    "matches",
    "parse",
    "ranked",
    "register",
    "search",
]
