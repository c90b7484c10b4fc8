"""Paging the stock lists at 100,000 units: sort the keys, then read the page's rows.

A stock list's page reads its rows with their part, location, site and shipment joined in
(select_related), ordered by columns of those joins. Asked for page N as one query, the database
joins and sorts every matching row *with all those columns* before it skips to the page: at
100,000 units the sort no longer fits in memory and a middle page of /stock/ took 2.3 s
(bench/bench_stock_list.py). Here the page's primary keys are found first, sorting only the keys
and the ordering columns, and then its 50 rows are read by primary key: one query more per page,
whatever the number of units.
"""

from __future__ import annotations

from django.core.paginator import Paginator

from apps.core.rest import Pagination


class KeysFirstPaginator(Paginator):
    """A Django paginator over a queryset that reads a page in two queries: the page's keys in
    the list's order, then those rows (with the queryset's joins) by key."""

    def page(self, number):
        number = self.validate_number(number)
        bottom = (number - 1) * self.per_page
        top = bottom + self.per_page
        if top + self.orphans >= self.count:
            top = self.count
        queryset = self.object_list
        keys = list(queryset.values_list("pk", flat=True)[bottom:top])
        # The scoping and filters stay on the second query too: it can only narrow, never widen.
        rows = {row.pk: row for row in queryset.order_by().filter(pk__in=keys)} if keys else {}
        return self._get_page([rows[key] for key in keys if key in rows], number, self)


class KeysFirstPagination(Pagination):
    """The API's pagination (its checks of `page` and `page_size`) with `KeysFirstPaginator`."""

    django_paginator_class = KeysFirstPaginator
