"""Move the classification figures out of `attributes` into their typed fields.

Booleans stored as strings or numbers ("true", "No", 1, "0") are read as such; anything else
(e.g. "probably") is dropped rather than guessed, so the classification reports the figure as
missing. A die area of zero or less is cleared before 0004 forbids it.
"""

from decimal import Decimal, InvalidOperation

from django.db import migrations

BOOLEANS = ("data_centre", "encryption", "mass_market", "cpu_only")
DECIMALS = ("memory_bandwidth_density",)
MOVED = BOOLEANS + DECIMALS
_TRUE = {"true", "yes", "y", "1"}
_FALSE = {"false", "no", "n", "0"}
_MAX_DENSITY = Decimal("1000000")  # max_digits=10, decimal_places=4


def _boolean(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
    return None


def _density(value):
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        return None
    if not number.is_finite() or number < 0 or number >= _MAX_DENSITY:
        return None
    return number.quantize(Decimal("0.0001"))


def split_attributes(attributes):
    """(typed figures read from `attributes`, the attributes left); garbage is dropped."""
    if not isinstance(attributes, dict):
        return {}, attributes
    typed, left = {}, {}
    for key, value in attributes.items():
        if key not in MOVED:
            left[key] = value
            continue
        parsed = _boolean(value) if key in BOOLEANS else _density(value)
        if parsed is not None:
            typed[key] = parsed
    return typed, left


def move_figures(apps, schema_editor):
    Part = apps.get_model("catalog", "Part")
    Part.objects.filter(die_area_mm2__lte=0).update(die_area_mm2=None)
    for part in Part.objects.filter(attributes__has_any_keys=list(MOVED)).iterator():
        typed, left = split_attributes(part.attributes)
        # A typed value already set wins over the attribute.
        updates = {name: value for name, value in typed.items() if getattr(part, name) is None}
        Part.objects.filter(pk=part.pk).update(attributes=left, **updates)


def restore_attributes(apps, schema_editor):
    Part = apps.get_model("catalog", "Part")
    for part in Part.objects.all().iterator():
        values = {name: getattr(part, name) for name in MOVED if getattr(part, name) is not None}
        if values:
            if "memory_bandwidth_density" in values:
                values["memory_bandwidth_density"] = str(values["memory_bandwidth_density"])
            attributes = part.attributes if isinstance(part.attributes, dict) else {}
            Part.objects.filter(pk=part.pk).update(attributes=attributes | values)


class Migration(migrations.Migration):
    dependencies = [("catalog", "0002_classification_figures")]

    operations = [migrations.RunPython(move_figures, restore_attributes)]
