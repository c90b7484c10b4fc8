"""Sortable list columns: django-filter's OrderingFilter with two additions the pages need."""

from __future__ import annotations

import django_filters
from django_filters.constants import EMPTY_VALUES


class SortFilter(django_filters.OrderingFilter):
    """`sort=key` or `sort=-key`, as OrderingFilter reads it (any other value is a form error the
    page names), with two additions:

    - a key may stand for several fields, comma-separated in `fields`
      (`("origin_country,destination_country", "lane")`): one column header sorts by both;
    - every order ends with the primary key. Rows that tie on the sorted column otherwise come
      back in whatever order the database likes, and a row can show on two pages or on none.
    """

    def filter(self, qs, value):
        if value in EMPTY_VALUES:
            return qs
        ordering: list[str] = []
        for param in value:
            if param in EMPTY_VALUES:
                continue
            descending = param.startswith("-")
            key = param[1:] if descending else param
            for name in self.param_map.get(key, key).split(","):
                ordering.append(f"-{name}" if descending else name)
        return qs.order_by(*ordering, "pk")
