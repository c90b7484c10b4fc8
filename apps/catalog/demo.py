"""The demo catalogue: real parts with public figures, from data/demo_parts.json."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from apps.accounts.models import Organisation, OrganisationKind

from .models import Manufacturer, Part, PartTariffCode

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
    "lithium_battery_wh",
    "lithium_battery_net_kg",
    "static_load_kg",
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
    "ports_per_cage",
    "gpus_per_server",
    # Export-control figures: typed fields, not attributes (None = not known).
    "cpu_only",
    "data_centre",
    "encryption",
    "mass_market",
)


# National extensions of the demo parts' HS codes [E]: the US Schedule B / HTS number (10 digits)
# the EEI declares, and India's ITC-HS code (8 digits). Illustrative: check each against the
# current schedules before filing.
DEMO_TARIFF_CODES: dict[str, dict[str, str]] = {
    "847330": {"US": "8473301180", "IN": "84733099"},  # GPU modules and cards: parts of 8471 machines
    "847150": {"US": "8471500150", "IN": "84715000"},  # GPU / AI servers
    "847180": {"US": "8471809000", "IN": "84718000"},  # stand-alone accelerator systems
    "847170": {"US": "8471709000", "IN": "84717090"},  # storage
    "851762": {"US": "8517620090", "IN": "85176290"},  # switches, NICs/DPUs, transceivers, AOCs
    "854442": {"US": "8544429090", "IN": "85444299"},  # copper direct-attach cables
    "854470": {"US": "8544700000", "IN": "85447090"},  # fibre-optic cables
    "853710": {"US": "8537109170", "IN": "85371000"},  # rack PDUs
    "841989": {"US": "8419899585", "IN": "84198990"},  # CDUs, rear-door heat exchangers
    "940320": {"US": "9403200090", "IN": "94032090"},  # racks
    "850440": {"US": "8504409580", "IN": "85044090"},  # UPS
    "850760": {"US": "8507600020", "IN": "85076000"},  # lithium-ion battery cabinets
}


def _tariff_codes(part: Part) -> None:
    """Give a demo part its national codes (kept when already recorded, so edits survive a reload)."""
    for country, code in DEMO_TARIFF_CODES.get(part.hs_code[:6], {}).items():
        if not part.tariff_codes.filter(country=country).exists():
            tariff_code = PartTariffCode(part=part, country=country, code=code)
            tariff_code.full_clean()
            tariff_code.save()


def load(**_options) -> dict[str, int]:
    operator = Organisation.objects.get(kind=OrganisationKind.OPERATOR)
    records = json.loads(DATA_FILE.read_text())
    created = 0
    # Accelerators first, so systems can point at them.
    for record in sorted(records, key=lambda r: r["category"] != "accelerator"):
        manufacturer, _ = Manufacturer.objects.get_or_create(
            name=record["manufacturer"], defaults={"country": record.get("manufacturer_country") or ""}
        )
        fields = {name: record.get(name) for name in _PLAIN}
        fields["lithium_battery_packing"] = record.get("lithium_battery_packing", "")
        fields |= {
            name: Decimal(record[name]) if record.get(name) is not None else None for name in _DECIMALS
        }
        fields["dense_tops"] = record["dense_tops"] or {}
        fields["attributes"] = record["attributes"] or {}
        if record["accelerator"]:
            fields["accelerator"] = Part.objects.get(
                owner=operator, part_number=record["accelerator"], category="accelerator"
            )
        # The master catalogue's own part: a partner may keep one with the same number.
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
        _tariff_codes(part)
    return {"parts": created}
