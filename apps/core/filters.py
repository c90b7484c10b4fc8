"""Filters that take an id choose among what the user may see, in the API and on browser pages.

A foreign id then gets the same answer as an id that does not exist (400, "Select a valid
choice"), never "0 rows", which would confirm the object exists.

Also the plumbing the apps' FilterSets share: the browser's date picker (`DATE`) and a search
over a list of fields (`SearchFilterSet`)."""

from __future__ import annotations

import django_filters
from django import forms
from django.db.models import Q
from django_filters import ModelChoiceFilter, ModelMultipleChoiceFilter
from django_filters.rest_framework import DjangoFilterBackend

from .scoping import VIEW


def scope_filter_choices(filterset, user) -> None:
    """Limit every model-choice filter of `filterset` (explicit or generated from
    `filterset_fields`) to the objects `user` may see, for models scoped by organisation."""
    request = getattr(filterset, "request", None)
    for filter_ in filterset.filters.values():
        if not isinstance(filter_, ModelChoiceFilter | ModelMultipleChoiceFilter):
            continue
        queryset = filter_.get_queryset(request)
        if queryset is None or not hasattr(queryset, "visible_to"):
            continue  # shared reference data (manufacturers, countries …)
        filter_.queryset = queryset.visible_to(user, VIEW) if user is not None else queryset.none()
        # The form field is built once and cached: build it again from the scoped queryset.
        filter_.__dict__.pop("_field", None)


class ScopedFilterBackend(DjangoFilterBackend):
    """DjangoFilterBackend whose model-choice filters choose from `visible_to(request.user)`."""

    def get_filterset(self, request, queryset, view):
        filterset = super().get_filterset(request, queryset, view)
        if filterset is not None:
            scope_filter_choices(filterset, getattr(request, "user", None))
        return filterset


# --- what every app's FilterSets share ----------------------------------------------------------

# A date picker in the browser, not a text box; the API reads ISO dates as ever.
DATE = forms.DateInput(attrs={"type": "date"})


class SearchFilterSet(django_filters.FilterSet):
    """A FilterSet whose `q` filter (`SearchTermsFilter(method="search")`, declared with its own
    label) finds the rows where any of `search_fields` contains the text typed, whole and in any
    case; a blank search keeps every row."""

    search_fields: tuple[str, ...] = ()

    def search(self, queryset, name, value):
        value = value.strip()
        if not value:
            return queryset
        matches = Q()
        for field in self.search_fields:
            matches |= Q(**{f"{field}__icontains": value})
        return queryset.filter(matches)
