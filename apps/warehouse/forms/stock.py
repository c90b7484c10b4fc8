"""Browser forms of the warehouse flows. Each only reads and checks what was typed; the services
decide, and their refusals land on the fields they name (apps.core.views.add_service_errors)."""

from __future__ import annotations

import re

from django import forms
from django.db.models.functions import Lower

from apps.accounts.models import Organisation
from apps.catalog.models import Part, Unit
from apps.catalog.units import part_for_owner_problem
from apps.core.forms import ScopedChoicesFormMixin
from apps.core.scoping import VIEW
from apps.shipments.models import ShipmentLine, Site

from ..engines.unit_flow import LABELS, Status
from ..models import (
    QUANTITY_MAX,
    WAREHOUSE_KINDS,
    AllocationStatus,
    Location,
    Lot,
    LotAllocation,
    UnitPlacement,
)
from ..pickers import line_label, location_label, lot_label, outbound_lines

MAX_SERIALS = 500  # one scan session; a bigger delivery is the CSV import's


def split_serials(text: str) -> list[str]:
    """Serials as scanned: one a line (commas, semicolons and spaces separate them too)."""
    return [s for s in re.split(r"[\s,;]+", text or "") if s]


class SerialsField(forms.CharField):
    widget = forms.Textarea(attrs={"rows": 4, "autocomplete": "off", "spellcheck": "false"})

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        kwargs.setdefault("help_text", "Scan or type the serial numbers, one a line.")
        kwargs.setdefault("max_length", 50_000)
        super().__init__(**kwargs)

    def clean(self, value):
        serials = split_serials(super().clean(value))
        if len(serials) > MAX_SERIALS:
            raise forms.ValidationError(f"At most {MAX_SERIALS} serials at a time; {len(serials)} given.")
        return serials


def quantity_field(**kwargs) -> forms.IntegerField:
    return forms.IntegerField(min_value=1, max_value=QUANTITY_MAX, required=False, **kwargs)


def reason_field(**kwargs) -> forms.CharField:
    return forms.CharField(max_length=500, required=False, **kwargs)


def units_in_stock(user, serials: list[str]) -> tuple[list[Unit], list[str]]:
    """The units in a warehouse with these serials that `user` sees, and what is not found."""
    if not serials:
        return [], []
    wanted = {s.lower(): s for s in serials}
    placements = (
        UnitPlacement.objects.visible_to(user, VIEW)
        .annotate(serial_key=Lower("unit__serial"))
        .filter(serial_key__in=wanted)
        .select_related("unit")
    )
    found = {p.serial_key: p.unit for p in placements}
    missing = [f"Serial {serial} is not in stock." for key, serial in wanted.items() if key not in found]
    return [found[key] for key in wanted if key in found], missing


class _StockForm(ScopedChoicesFormMixin, forms.Form):
    """Sets the pickers' labels (the site with a location's code, a lot's free quantity). With
    `shipment=` (the flow opened from a shipment's page) its line and allocation pickers offer, and
    accept, only that shipment's."""

    def __init__(self, *args, shipment=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.shipment = shipment
        labels = {"location": location_label, "to_location": location_label, "lot": lot_label}
        for name, label in labels.items():
            if name in self.fields:
                self.fields[name].label_from_instance = label
        if "line" in self.fields:
            self.fields["line"].queryset = (
                outbound_lines(self.user) if self.user else ShipmentLine.objects.none()
            )
            self.fields["line"].label_from_instance = line_label
            self.fields["line"].widget.kind = "outbound-line"
        if shipment is not None:
            for name, lookup in (("line", "shipment"), ("allocation", "line__shipment")):
                if name in self.fields:
                    self.fields[name].queryset = self.fields[name].queryset.filter(**{lookup: shipment})

    def units(self, field: str = "serials") -> list[Unit]:
        units, missing = units_in_stock(self.user, self.cleaned_data.get(field) or [])
        if missing:
            self.add_error(field, missing[:10])
        return units


def _locations():
    return Location.objects.filter(is_active=True).select_related("site")


class ReceiveForm(_StockForm):
    location = forms.ModelChoiceField(_locations(), help_text="Usually the receiving dock (zone RCV).")
    part = forms.ModelChoiceField(Part.objects.filter(is_active=True).select_related("manufacturer"))
    owner = forms.ModelChoiceField(
        Organisation.objects.filter(is_active=True), help_text="Whose goods they are."
    )
    serials = SerialsField(
        label="Serial numbers", help_text="Serialised parts: one serial a line, as scanned."
    )
    quantity = quantity_field(help_text="Non-serialised parts (cables, optics in bulk): how many.")
    customs_reference = forms.CharField(
        max_length=50,
        required=False,
        help_text="At a bonded warehouse: the customs entry or warehouse receipt number.",
    )
    reason = reason_field(label="Note", help_text="e.g. the delivery note or air waybill.")

    def clean(self):
        data = super().clean()
        part = data.get("part")
        if part is None:
            return data
        # Every catalogue is offered to the operator's staff: the goods' owner decides the part.
        if data.get("owner") is not None and (problem := part_for_owner_problem(part, data["owner"])):
            self.add_error("part", problem)
        if part.is_serialised:
            if not data.get("serials") and "serials" not in self.errors:
                self.add_error("serials", f"{part.part_number} is serialised: give each unit's serial.")
            if data.get("quantity"):
                self.add_error("quantity", "Leave it blank for a serialised part: each serial is one unit.")
        else:
            if not data.get("quantity") and "quantity" not in self.errors:
                self.add_error("quantity", f"{part.part_number} is not serialised: say how many.")
            if data.get("serials"):
                self.add_error("serials", f"{part.part_number} is not serialised: give a quantity instead.")
        return data


class _UnitsOrLotForm(_StockForm):
    """Serials, or a lot and a quantity: one or the other."""

    serials = SerialsField(label="Serial numbers")
    lot = forms.ModelChoiceField(
        Lot.objects.filter(quantity__gt=0).select_related("part", "location__site", "owner"),
        required=False,
        help_text="Non-serialised goods: the lot (part, location, owner) they come from.",
    )
    quantity = quantity_field(help_text="How many of the lot.")

    def clean(self):
        data = super().clean()
        serials, lot, quantity = data.get("serials"), data.get("lot"), data.get("quantity")
        if not serials and lot is None and not self.errors:
            self.add_error("serials", "Give the serials of the units, or choose a lot and a quantity.")
        elif serials and lot is not None:
            self.add_error("lot", "Units or a lot, not both at once.")
        elif lot is not None and not quantity and "quantity" not in self.errors:
            self.add_error("quantity", "Say how many of the lot.")
        if serials and "serials" not in self.errors:
            data["units"] = self.units()
        return data


class MoveForm(_UnitsOrLotForm):
    to_location = forms.ModelChoiceField(_locations(), label="To location")
    reason = reason_field(help_text="A received unit's first move is its put-away.")
    field_order = ["serials", "lot", "quantity", "to_location", "reason"]


class AllocateForm(_UnitsOrLotForm):
    line = forms.ModelChoiceField(
        ShipmentLine.objects.none(), label="Shipment line", help_text="The outbound line the stock is for."
    )
    reason = reason_field()
    field_order = ["line", "serials", "lot", "quantity", "reason"]


class PickForm(_StockForm):
    serials = SerialsField(label="Serial numbers", help_text="Allocated units taken off the shelf.")
    allocation = forms.ModelChoiceField(
        LotAllocation.objects.filter(status=AllocationStatus.ALLOCATED).select_related(
            "lot__part", "lot__location__site", "line__shipment"
        ),
        required=False,
        label="Lot allocation",
        help_text="An allocated lot quantity.",
    )
    reason = reason_field()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["allocation"].label_from_instance = lambda a: (
            f"{a.line.shipment.reference} line {a.line.line_number}: {a.quantity} × "
            f"{a.lot.part.part_number} at {location_label(a.lot.location)}"
        )

    def clean(self):
        data = super().clean()
        if not data.get("serials") and data.get("allocation") is None and not self.errors:
            self.add_error("serials", "Give the serials picked, or choose a lot allocation.")
        if data.get("serials") and "serials" not in self.errors:
            data["units"] = self.units()
        return data


class ShipForm(_StockForm):
    line = forms.ModelChoiceField(
        ShipmentLine.objects.none(),
        label="Shipment line",
        help_text="Everything picked for the line leaves the warehouse.",
    )
    reason = reason_field()


class LocationForm(ScopedChoicesFormMixin, forms.Form):
    site = forms.ModelChoiceField(
        Site.objects.filter(kind__in=WAREHOUSE_KINDS).order_by("name"), label="Warehouse"
    )
    zone = forms.CharField(max_length=20, help_text="e.g. A, RCV (receiving), QC (quarantine).")
    aisle = forms.CharField(max_length=20, required=False)
    rack = forms.CharField(max_length=20, required=False)
    bin = forms.CharField(max_length=20, required=False)


class CountForm(forms.Form):
    """A count sheet of one location: the serials seen there and a counted quantity per lot."""

    serials = SerialsField(label="Serials counted", help_text="Every serial seen at the location.")
    reason = reason_field(help_text="Recorded with every difference; blank: “Cycle count of …”.")

    def __init__(self, *args, lots=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.lots = list(lots)
        for lot in self.lots:
            self.fields[f"lot_{lot.pk}"] = forms.IntegerField(
                min_value=0,
                max_value=QUANTITY_MAX,
                label=f"{lot.part.part_number} ({lot.owner}, {lot.get_customs_status_display()})",
                help_text=f"Lot {lot.pk}: count every piece here.",
            )

    def quantities(self) -> dict[int, int]:
        return {lot.pk: self.cleaned_data[f"lot_{lot.pk}"] for lot in self.lots}


class LotAdjustForm(forms.Form):
    """A correction of one lot's on-hand outside a count (found, damaged or written-off pieces).
    Whether the result may stand (never below zero, never below what is allocated) is the
    service's to say, on `delta`."""

    delta = forms.IntegerField(
        label="Change",
        min_value=-QUANTITY_MAX,
        max_value=QUANTITY_MAX,
        help_text="Pieces added (e.g. 5: found) or removed (e.g. -3: damaged, written off).",
        widget=forms.NumberInput(attrs={"autocomplete": "off"}),
    )
    reason = forms.CharField(
        max_length=500, help_text="Recorded in the ledger with the adjustment, e.g. “3 cables crushed”."
    )


class UnitStatusForm(forms.Form):
    """Put a unit in stock into quarantine, or release it from quarantine: the status engine
    (`engines.unit_flow`, through `services.unit_transition`) decides whether the move is allowed."""

    TARGETS = (
        (Status.QUARANTINED.value, "Quarantine (take out of use)"),
        (Status.AVAILABLE.value, f"Release from quarantine ({LABELS[Status.AVAILABLE]})"),
    )

    target = forms.ChoiceField(label="Move to", choices=TARGETS, widget=forms.RadioSelect)
    reason = forms.CharField(
        max_length=500,
        help_text="Both need a reason, recorded in the ledger: e.g. “bent heatsink fin, inspection” "
        "or “inspected, no fault found”.",
    )
