"""The demo catalogue: real parts with public figures, from data/demo_parts.json."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from apps.accounts.models import Organisation, OrganisationKind

from .models import Manufacturer, Part

DATA_FILE = Path(__file__).parent / "data" / "demo_parts.json"

_DECIMALS = (
    "unit_weight_kg",
    "length_cm",
    "width_cm",
    "height_cm",
    "unit_value",
    "tpp",
    "die_area_mm2",
    "memory_bandwidth_density",
)
_PLAIN = (
    "name",
    "description",
    "category",
    "currency",
    "country_of_origin",
    "hs_code",
    "is_serialised",
    "contains_lithium_batteries",
    "power_draw_w",
    "rack_units",
    "port_count",
    "port_speed_gbps",
    "gpus_per_server",
    # Export-control figures: typed fields, not attributes (None = not known).
    "cpu_only",
    "data_centre",
    "encryption",
    "mass_market",
)


def load() -> dict[str, int]:
    operator = Organisation.objects.get(kind=OrganisationKind.OPERATOR)
    records = json.loads(DATA_FILE.read_text())
    created = 0
    # Accelerators first, so systems can point at them.
    for record in sorted(records, key=lambda r: r["category"] != "accelerator"):
        manufacturer, _ = Manufacturer.objects.get_or_create(
            name=record["manufacturer"], defaults={"country": record.get("manufacturer_country") or ""}
        )
        fields = {name: record.get(name) for name in _PLAIN}
        fields |= {
            name: Decimal(record[name]) if record.get(name) is not None else None for name in _DECIMALS
        }
        fields["dense_tops"] = record["dense_tops"] or {}
        fields["attributes"] = record["attributes"] or {}
        if record["accelerator"]:
            fields["accelerator"] = Part.objects.get(
                owner=operator, part_number=record["accelerator"], category="accelerator"
            )
        # The master catalogue's own part: a partner may keep one with the same number (issue 9).
        part = Part.objects.filter(
            owner=operator, manufacturer=manufacturer, part_number__iexact=record["part_number"]
        ).first()
        if part is None:
            part = Part(
                owner=operator, manufacturer=manufacturer, part_number=record["part_number"], **fields
            )
            part.full_clean()
            part.save()
            created += 1
    return {"parts": created}
