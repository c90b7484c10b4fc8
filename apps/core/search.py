"""Bounded searches: `q=` of every FilterSet and DRF's `search=` take at most 10 terms of at most
100 characters each (`validators.search_terms_problem`); more is a 400 naming the parameter in
the API and a form error on browser pages, never thousands of OR'd conditions."""

from __future__ import annotations

import django_filters
from django import forms
from rest_framework import exceptions, filters

from .validators import MAX_SEARCH_TERM_LENGTH, MAX_SEARCH_TERMS, search_terms_problem


class SearchTermsField(forms.CharField):
    """Free search text, refused when it has too many or too long terms."""

    def __init__(self, *args, **kwargs):
        # Room for every allowed term and the spaces between them.
        kwargs.setdefault("max_length", MAX_SEARCH_TERMS * (MAX_SEARCH_TERM_LENGTH + 1))
        super().__init__(*args, **kwargs)

    def validate(self, value):
        super().validate(value)
        if value and (problem := search_terms_problem(value.split())):
            raise forms.ValidationError(problem, code="too_many_terms")


class SearchTermsFilter(django_filters.CharFilter):
    """The `q` filter of a FilterSet: its `method` receives at most 10 terms of ≤ 100 characters."""

    field_class = SearchTermsField


class BoundedSearchFilter(filters.SearchFilter):
    """DRF's `?search=` with the same bounds as `q`."""

    def get_search_terms(self, request):
        try:
            terms = super().get_search_terms(request)
        except exceptions.ValidationError as exc:
            # DRF's own check (e.g. a NUL character) names no parameter; name it.
            raise exceptions.ValidationError({self.search_param: exc.detail}) from exc
        if problem := search_terms_problem(terms):
            raise exceptions.ValidationError({self.search_param: [problem]})
        return terms
