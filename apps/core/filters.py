"""Filters that take an id choose among what the user may see, in the API and on browser pages.

A foreign id then gets the same answer as an id that does not exist (400, "Select a valid
choice"), never "0 rows", which would confirm the object exists."""

from __future__ import annotations

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
