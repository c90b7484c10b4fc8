"""What higher apps add to catalogue pages without the catalogue importing them.

The parts list shows each part's export classification, which the compliance app keeps: it
registers a list column here in its `ready()` (an annotation of the parts queryset and how to show
it), as `apps.shipments.hooks` lets compliance and documents answer for shipments. Every import
points down.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.db.models import QuerySet


@dataclass(frozen=True)
class PartColumn:
    """A column of the parts list (and its CSV export): `annotate` adds `attribute` to the queryset
    in the same query (a subquery, never a query per row)."""

    header: str
    attribute: str
    annotate: Callable[[QuerySet], QuerySet]
    empty: str = "—"


_columns: list[PartColumn] = []


def part_column(column: PartColumn) -> None:
    if all(existing.attribute != column.attribute for existing in _columns):
        _columns.append(column)


def part_columns() -> list[PartColumn]:
    return list(_columns)


def with_part_columns(queryset: QuerySet) -> QuerySet:
    for column in _columns:
        queryset = column.annotate(queryset)
    return queryset


# --- a part's facts changed ------------------------------------------------------------------
# Compliance answers rest on a part's figures, category and origin: it listens here (`ready()`)
# and marks the answers of shipments carrying the part stale, as `apps.accounts.hooks` does for
# an organisation's facts.

PartListener = Callable[[object, set, object], None]
_part_listeners: list[PartListener] = []


def on_part_change(listener: PartListener) -> None:
    """Register `listener(part, changed field names, actor)` (idempotent)."""
    if listener not in _part_listeners:
        _part_listeners.append(listener)


def part_changed(part, fields: set[str], actor=None) -> None:
    if not fields:
        return
    for listener in list(_part_listeners):
        listener(part, fields, actor)
