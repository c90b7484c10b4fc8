"""Search-as-you-type pickers for every form field that takes an object: pick, don't type.

A model-choice field is drawn as a `<select>` that the browser script turns into a search box (Tom
Select, vendored in static/vendor/tom-select/). Short lists keep every option in the page and are
searched there; a list longer than `PICKER_INLINE_LIMIT` (a catalogue of thousands of parts) sends
only the chosen option and asks `GET /pick/<kind>/?q=…` as the user types.

The endpoint answers from a queryset each app registers for a kind in its own `pickers.py`
(discovered at start-up, as Django's admin finds `admin.py`): always through `visible_to`, so a
picker never offers what the user may not see. The form field keeps its own queryset, and it alone
decides what is accepted: the picker is a convenience, never the check.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import reduce
from operator import and_, or_

from django import forms
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.db.models import Model, Q, QuerySet
from django.http import JsonResponse
from django.urls import reverse
from django.utils.module_loading import autodiscover_modules
from django.views.decorators.http import require_GET

from .validators import search_terms_problem

DEFAULT_INLINE_LIMIT = 100
RESULTS = 20  # answers per keystroke: enough to pick from, small enough to read


@dataclass(frozen=True)
class Picker:
    kind: str
    queryset: Callable[[object], QuerySet]  # user → what the picker offers (scoped)
    search_fields: tuple[str, ...]
    label: Callable[[Model], str] = str
    # (matches, typed text) → the matches reordered, e.g. an exact code first; None: as queried.
    rank: Callable[[QuerySet, str], QuerySet] | None = None


_pickers: dict[str, Picker] = {}
_default_kind: dict[type[Model], str] = {}
_discovered = False


def register(picker: Picker, *, default_for: type[Model] | None = None) -> None:
    """Register a kind; `default_for` makes it the picker of every field choosing that model."""
    _pickers[picker.kind] = picker
    if default_for is not None:
        _default_kind[default_for] = picker.kind


def _discover() -> None:
    """Import every app's `pickers.py` once (on first use: no app's `ready()` has to know)."""
    global _discovered
    if not _discovered:
        autodiscover_modules("pickers")
        _discovered = True


def picker(kind: str) -> Picker | None:
    _discover()
    return _pickers.get(kind)


def kind_for(model: type[Model]) -> str | None:
    _discover()
    return _default_kind.get(model)


def search(queryset: QuerySet, fields: tuple[str, ...], text: str) -> QuerySet:
    """Every term must match one of the fields (case-insensitive substring)."""
    terms = text.split()
    if not terms:
        return queryset
    conditions = [reduce(or_, (Q(**{f"{field}__icontains": term}) for field in fields)) for term in terms]
    return queryset.filter(reduce(and_, conditions))


@require_GET
@login_required
def pick(request, kind: str):
    """`{"results": [{"value", "text"}], "more": bool}`: the first 20 matches the user may see."""
    entry = picker(kind)
    if entry is None:
        return JsonResponse({"detail": f"No picker {kind!r}."}, status=404)
    text = request.GET.get("q", "")[:1100]
    if problem := search_terms_problem(text.split()):
        return JsonResponse({"q": [problem]}, status=400)
    found = search(entry.queryset(request.user), entry.search_fields, text)
    if entry.rank is not None and text.strip():
        found = entry.rank(found, text)
    rows = list(found[: RESULTS + 1])
    return JsonResponse(
        {
            "results": [{"value": str(obj.pk), "text": entry.label(obj)} for obj in rows[:RESULTS]],
            "more": len(rows) > RESULTS,
        }
    )


class SearchSelect(forms.Select):
    """A `<select>` the page script makes searchable; past the inline limit it carries only the
    chosen option and searches the server (`kind`). One query either way, as a plain select."""

    def __init__(self, attrs=None, choices=(), *, kind: str | None = None):
        super().__init__(attrs, choices)
        self.kind = kind

    def get_context(self, name, value, attrs):
        queryset = getattr(self.choices, "queryset", None)
        if queryset is None:
            return self._context(name, value, attrs, remote=False)
        iterator = self.choices
        limit = getattr(settings, "PICKER_INLINE_LIMIT", DEFAULT_INLINE_LIMIT)
        rows = list(queryset[: limit + 1]) if self.kind else list(queryset)
        remote = self.kind is not None and len(rows) > limit
        if remote:
            chosen = [
                v for v in (value if isinstance(value, list | tuple) else [value]) if v not in (None, "")
            ]
            rows = list(queryset.filter(pk__in=chosen)) if chosen else []
        blank = [("", iterator.field.empty_label)] if iterator.field.empty_label is not None else []
        original = self.choices
        self.choices = blank + [iterator.choice(obj) for obj in rows]
        try:
            return self._context(name, value, attrs, remote=remote)
        finally:
            self.choices = original

    def _context(self, name, value, attrs, *, remote: bool):
        attrs = dict(attrs or {})
        attrs["data-picker"] = "remote" if remote else "inline"
        if remote:
            attrs["data-picker-url"] = reverse("pick", args=[self.kind])
        return super().get_context(name, value, attrs)


def use_search_pickers(form: forms.BaseForm) -> None:
    """Draw every single-object field of `form` that is still a plain select as a picker."""
    for field in form.fields.values():
        if not isinstance(field, forms.ModelChoiceField) or isinstance(field, forms.ModelMultipleChoiceField):
            continue
        widget = field.widget
        if type(widget) is not forms.Select:  # a form that chose its own widget keeps it
            continue
        replacement = SearchSelect(attrs=widget.attrs, kind=kind_for(field.queryset.model))
        replacement.choices = widget.choices
        replacement.is_required = widget.is_required
        field.widget = replacement
