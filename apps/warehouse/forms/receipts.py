"""Browser forms of receiving against an advance notice (`services.receipts`), resolving a
discrepancy, and packing picked units (`services.packing`)."""

from __future__ import annotations

from django import forms

from apps.core.forms import ScopedChoicesFormMixin
from apps.shipments.forms import split_list
from apps.shipments.models import Leg, Package, PackageType, Shipment
from apps.shipments.services.packages import PACKAGE_TARE_KG, package_suggestion

from ..models import Discrepancy, DiscrepancyKind, Location
from ..pickers import location_label


class ReceiptForm(ScopedChoicesFormMixin, forms.Form):
    """What arrived of one inbound shipment: the dock it came to, the serials scanned (a scanner
    types one per line), the damaged ones, and the pieces counted of each non-serialised line."""

    location = forms.ModelChoiceField(queryset=Location.objects.none(), label="Received at")
    leg = forms.ModelChoiceField(
        queryset=Leg.objects.none(),
        required=False,
        help_text="For a consolidation: the inbound leg that arrived. Leave empty for the whole shipment.",
    )
    customs_reference = forms.CharField(
        max_length=50,
        required=False,
        help_text="The bonded-warehouse receipt or entry number (bonded sites).",
    )
    scanned = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 6, "autocomplete": "off", "spellcheck": "false"}),
        label="Serials scanned",
        help_text="One per line (or separated by commas), as the scanner types them.",
    )
    damaged = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2, "autocomplete": "off", "spellcheck": "false"}),
        label="Damaged serials",
        help_text="Received into quarantine, each an open discrepancy.",
    )

    def __init__(self, *args, shipment: Shipment | None = None, user=None, **kwargs):
        super().__init__(*args, user=user, **kwargs)
        self.shipment = shipment
        self.count_fields = []
        if shipment is None:  # no shipment, nothing to receive: every choice empty
            self.fields["location"].queryset = Location.objects.none()
            return
        # Where this shipment (or one of its legs) ends: the locations of those warehouses.
        ends = {shipment.destination_id, *shipment.legs.values_list("destination_id", flat=True)}
        self.fields["location"].queryset = (
            Location.objects.filter(site_id__in=ends, is_active=True)
            .select_related("site")
            .order_by("site__name", "zone", "aisle", "rack", "bin")
        )
        self.fields["location"].label_from_instance = location_label
        self.fields["leg"].queryset = shipment.legs.select_related("origin", "destination").order_by(
            "sequence"
        )
        self.count_fields = []
        for line in shipment.lines.select_related("part").order_by("line_number"):
            if line.part.is_serialised:
                continue
            name = f"count_{line.pk}"
            self.fields[name] = forms.IntegerField(
                min_value=0,
                max_value=10_000_000,
                required=False,
                label=f"Line {line.line_number}: {line.part.part_number} pieces counted",
                help_text=f"{line.quantity} expected.",
            )
            self.count_fields.append((line, name))

    def clean_scanned(self):
        return split_list(self.cleaned_data["scanned"])

    def clean_damaged(self):
        return split_list(self.cleaned_data["damaged"])

    def counted(self) -> dict[int, int]:
        return {line.pk: self.cleaned_data.get(name) or 0 for line, name in self.count_fields}


class ResolveForm(forms.Form):
    resolution = forms.CharField(
        max_length=2000, widget=forms.Textarea(attrs={"rows": 2}), help_text="Kept with the receipt."
    )
    found = forms.BooleanField(required=False, label="The unit turned up: receive it now")
    release = forms.BooleanField(required=False, label="Passed inspection: out of quarantine")

    def __init__(self, *args, discrepancy: Discrepancy | None = None, **kwargs):
        kind = discrepancy.kind if discrepancy is not None else None
        super().__init__(*args, prefix=f"d{discrepancy.pk}" if discrepancy is not None else None, **kwargs)
        if kind != DiscrepancyKind.MISSING:
            del self.fields["found"]
        if kind != DiscrepancyKind.DAMAGED:
            del self.fields["release"]


class PickedUnits(forms.CheckboxSelectMultiple):
    """The picked units' boxes, each saying its serial and line (the scan box ticks them)."""

    placements: dict = {}

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        if placement := self.placements.get(str(value)):
            option["attrs"] |= {"data-serial": placement.unit.serial, "data-line": placement.line.line_number}
        return option


class PackForm(forms.ModelForm):
    """A package of picked units: tick (or scan) them, give the box's sizes and weights, which
    start from the catalogue (the picked units' weight plus a crate's tare, a box around them)."""

    units = forms.MultipleChoiceField(widget=PickedUnits, label="Picked units")

    class Meta:
        model = Package
        fields = ["package_type", "length_cm", "width_cm", "height_cm", "gross_kg", "net_kg", "marks"]

    def __init__(self, *args, placements=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.placements = {str(p.unit_id): p for p in placements}
        self.fields["units"].choices = [(key, self._label(p)) for key, p in self.placements.items()]
        self.fields["units"].widget.placements = self.placements
        if not self.is_bound and self.placements:
            per_line: dict[int, int] = {}
            for p in self.placements.values():
                per_line[p.line_id] = per_line.get(p.line_id, 0) + 1
            suggested = package_suggestion(list(per_line.items()), PackageType.CRATE)
            self.initial = {"package_type": PackageType.CRATE, **suggested, **self.initial}
            self.fields["gross_kg"].help_text = (
                f"Suggested for all the picked units: {suggested['net_kg']} kg from the catalogue plus "
                f"{PACKAGE_TARE_KG[PackageType.CRATE]} kg for a crate. At least the contents' weight."
            )

    def lines_picked(self) -> list[tuple[int, int]]:
        """(line number, units picked) of the lines offered, for the page's running counts."""
        per_line: dict[int, int] = {}
        for p in self.placements.values():
            per_line[p.line.line_number] = per_line.get(p.line.line_number, 0) + 1
        return sorted(per_line.items())

    @staticmethod
    def _label(p) -> str:
        return f"{p.unit.serial}: line {p.line.line_number}, {p.line.part.part_number}, at {p.location.code}"

    def chosen_units(self):
        return [self.placements[key].unit for key in self.cleaned_data["units"]]
