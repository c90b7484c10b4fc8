"""Browser forms whose model-choice fields choose among what the user may see."""

from __future__ import annotations

from django import forms

from .pickers import use_search_pickers
from .scoping import VIEW


def scope_form_choices(form: forms.BaseForm, user) -> None:
    """Limit every model-choice field of `form` to the objects `user` may see (models scoped by
    organisation; shared reference data such as manufacturers is left alone)."""
    for field in form.fields.values():
        if not isinstance(field, forms.ModelChoiceField):  # ModelMultipleChoiceField is one too
            continue
        queryset = field.queryset
        if queryset is None or not hasattr(queryset, "visible_to"):
            continue
        field.queryset = queryset.visible_to(user, VIEW) if user is not None else queryset.none()


class ScopedChoicesFormMixin:
    """A form that takes `user=`: each model-choice field offers, and accepts, only objects the
    user may see, in a search-as-you-type picker (apps.core.pickers). A form that chooses
    otherwise (e.g. parties: `nameable_by`) sets that field's queryset, and its picker's kind,
    after this mixin ran."""

    def __init__(self, *args, user=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user
        scope_form_choices(self, user)
        use_search_pickers(self)


class BoundedJSONField(forms.JSONField):
    """A JSON form field refusing documents nested deeper than the API accepts (32 levels), with a
    form error instead of a RecursionError (a 500) for one nested past Python's limit."""

    def to_python(self, value):
        from .parsers import MAX_JSON_DEPTH, json_depth_exceeds

        message = f"Nested deeper than {MAX_JSON_DEPTH} levels."
        try:
            result = super().to_python(value)
        except RecursionError as exc:
            raise forms.ValidationError(message, code="invalid") from exc
        if json_depth_exceeds(result, MAX_JSON_DEPTH):
            raise forms.ValidationError(message, code="invalid")
        return result

    def bound_data(self, data, initial):
        try:
            return super().bound_data(data, initial)
        except RecursionError:
            return forms.fields.InvalidJSONInput(data)
