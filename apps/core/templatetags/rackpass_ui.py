"""Template helpers for the pages: capability checks and human labels where a code would show.

{% load rackpass_ui %}
{% if user|can:"shipments.edit" %}…{% endif %}
{{ party.role|choice_label:"shipments.ShipmentParty.role" }}  customs_broker → Customs broker
{{ "memory_bandwidth_tbps"|key_label }}                        → Memory bandwidth (TB/s)
{{ event|audit_field:"incoterm_place" }}                       → the model field's verbose name
{% audit_choice event "status" "in_transit" %}                 → In transit (choice label, Yes/No, list)
"""

from __future__ import annotations

import re

from django import template
from django.apps import apps
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import FieldDoesNotExist
from django.utils.html import format_html
from django.utils.text import capfirst

from apps.core.disclosure import related_label

register = template.Library()


@register.filter
def can(user, capability: str) -> bool:
    """The user holds the capability (apps.accounts.roles); False for anonymous users."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    return bool(user.can(capability))


def _choices(field) -> dict:
    return {str(value): label for value, label in (field.flatchoices or ())}


def _field(model_label: str, name: str):
    try:
        model = apps.get_model(model_label)
        return model._meta.get_field(name)
    except (LookupError, ValueError, FieldDoesNotExist):
        return None


# Codes without a choices field behind them, shown in several pages.
_LABELS = {
    "nlr": "NLR (no licence required)",
    "licence_required": "Licence required",
    "licence_exception": "Licence exception",
    "not_subject": "Not subject to the EAR",
    "engine": "Classification engine",
    "officer": "Compliance officer",
    "csl_json": "CSL (JSON)",
    "csl_csv": "CSL (CSV)",
}


def humanize_code(value) -> str:
    """`licence_required` → "Licence required"; a value with no underscore is left alone."""
    text = "" if value is None else str(value)
    if text.lower() in _LABELS:
        return _LABELS[text.lower()]
    if re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)+", text):
        return capfirst(text.replace("_", " "))
    return text


@register.filter
def choice_label(value, spec: str) -> str:
    """The label of `value` among the choices of the field `app.Model.field`, else a humanised code."""
    model_label, _, name = spec.rpartition(".")
    field = _field(model_label, name)
    if field is not None:
        label = _choices(field).get(str(value))
        if label is not None:
            return str(label)
    return humanize_code(value)


@register.filter
def code_label(value) -> str:
    return humanize_code(value)


_UNITS = {
    "gb": "GB",
    "tb": "TB",
    "tbps": "TB/s",
    "gbps": "Gb/s",
    "w": "W",
    "kw": "kW",
    "kva": "kVA",
    "kg": "kg",
    "mm": "mm",
    "cm": "cm",
    "m": "m",
    "nm": "nm",
    "v": "V",
    "a": "A",
    "u": "U",
}
_KEYS = {
    "estimated_fields": "Estimated figures",
    "dims_basis": "Dimensions basis",
    "awg": "AWG",
    "psu": "PSU",
    "cpu": "CPU",
    "os": "OS",
    "io": "I/O",
    "un_number": "UN number",
    "hs_note": "HS note",
    "eccn_hint": "ECCN hint",
    "dg_class": "Dangerous goods class",
    "sram_gb": "SRAM (GB)",
}


@register.filter
def key_label(key) -> str:
    """A snake_case attribute key as a label: `memory_bandwidth_tbps` → "Memory bandwidth (TB/s)"."""
    text = str(key)
    if text in _KEYS:
        return _KEYS[text]
    words = text.split("_")
    unit = ""
    if len(words) > 1 and words[-1].lower() in _UNITS:
        unit = f" ({_UNITS[words.pop().lower()]})"
    words = [w.upper() if w in {"gpu", "gpus", "cpu", "cpus", "nic", "nics", "psu"} else w for w in words]
    return capfirst(" ".join(words)) + unit


@register.filter
def value_label(value) -> str:
    """A JSON-ish value for people: lists joined, booleans as Yes/No, codes humanised."""
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return "Yes" if value else "No"
    if isinstance(value, (list, tuple)):
        return ", ".join(humanize_code(v) for v in value) if value else "—"
    if isinstance(value, dict):
        return "; ".join(f"{key_label(k)}: {value_label(v)}" for k, v in value.items()) or "—"
    return str(value)


def _audit_model_field(event, name: str):
    # The content types' cache, not event.content_type: no query for each row of the trail.
    content_type_id = getattr(event, "content_type_id", None)
    model = ContentType.objects.get_for_id(content_type_id).model_class() if content_type_id else None
    if model is None:
        return None
    try:
        return model._meta.get_field(name)
    except FieldDoesNotExist:
        return None


@register.filter
def audit_field(event, name: str) -> str:
    """The changed field's verbose name on the audited model, else the humanised name."""
    field = _audit_model_field(event, name)
    verbose = getattr(field, "verbose_name", None)
    return capfirst(str(verbose or name.replace("_", " ")))


@register.simple_tag
def audit_choice(event, name: str, value) -> str:
    """A changed value shown with its choice label when the field has choices."""
    if value is None:
        return "—"
    # A foreign key: the object's name, linked to its page (ids looked up once per page of events
    # by disclosure.name_related), not its id.
    named = related_label(event, name, value)
    if named is not None:
        label, url = named
        return format_html('<a href="{}">{}</a>', url, label) if url else label
    field = _audit_model_field(event, name)
    if field is not None and getattr(field, "flatchoices", None):
        labels = _choices(field)
        if isinstance(value, (list, tuple)):
            return ", ".join(str(labels.get(str(v), humanize_code(v))) for v in value) or "—"
        label = labels.get(str(value))
        if label is not None:
            return str(label)
    if field is not None and getattr(field, "base_field", None) is not None and isinstance(value, list):
        labels = _choices(field.base_field)
        return ", ".join(str(labels.get(str(v), humanize_code(v))) for v in value) or "—"
    return value_label(value)


@register.filter
def path_label(path) -> str:
    """A dotted field path as words: `ultimate_consignee.signatory` → "Ultimate consignee / end user ·
    signatory" (a party role by its label, other parts humanised)."""
    role_field = _field("shipments.ShipmentParty", "role")
    roles = _choices(role_field) if role_field is not None else {}
    parts = []
    for i, part in enumerate(str(path or "").split(".")):
        label = str(roles.get(part) or key_label(part))
        parts.append(label if i == 0 else label[:1].lower() + label[1:])
    return " · ".join(parts)


@register.simple_tag(takes_context=True)
def sort_link(context, label: str, key: str):
    """A column header that sorts the list by `key` (django-filter's OrderingFilter, `sort=`): first
    ascending, then descending; the current order is marked. Filters are kept, the page is not."""
    from django.utils.html import format_html

    request = context["request"]
    current = request.GET.get("sort", "")
    query = request.GET.copy()
    for name in ("page", "export"):
        query.pop(name, None)
    if current == key:
        query["sort"], mark, state = f"-{key}", " ▲", "ascending"
    elif current == f"-{key}":
        query["sort"], mark, state = key, " ▼", "descending"
    else:
        query["sort"], mark, state = key, "", ""
    href = f"?{query.urlencode()}"
    title = f"Sorted {state}; sort the other way" if state else f"Sort by {label.lower()}"
    return format_html(
        '<a href="{}" hx-get="{}" hx-target="#results" hx-push-url="true" title="{}">{}{}</a>',
        href,
        href,
        title,
        label,
        mark,
    )
