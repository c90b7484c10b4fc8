import re

from django import forms
from django.db.models import Q, Sum

from apps.accounts.models import Organisation
from apps.catalog.models import Part
from apps.catalog.pickers import part_label
from apps.core.fields import CountryField
from apps.core.forms import ScopedChoicesFormMixin
from apps.core.hscodes import normalise_hs_code
from apps.core.pickers import SearchSelect, use_search_pickers
from apps.core.validators import TextValidator

from .models import (
    EndUseFlag,
    EventCode,
    ExchangeRate,
    FreightRate,
    Leg,
    LineSerial,
    Package,
    PackageItem,
    PackageType,
    PartyRole,
    Shipment,
    ShipmentLine,
    Site,
)
from .services.packages import PACKAGE_TARE_KG, package_suggestion


class ShipmentForm(ScopedChoicesFormMixin, forms.ModelForm):
    """The shipment's terms and route, plus one organisation per party role: organisations the
    user may name (`nameable_by`), and the ones already named."""

    class Meta:
        model = Shipment
        fields = Shipment.EDITABLE_FIELDS
        widgets = {
            "ready_date": forms.DateInput(attrs={"type": "date"}),
            "required_by": forms.DateInput(attrs={"type": "date"}),
            "instructions": forms.Textarea(attrs={"rows": 3}),
        }

    end_use_flags = forms.MultipleChoiceField(
        choices=EndUseFlag.choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        label="End-use red flags",
        help_text="Any flag holds the shipment for a compliance officer.",
    )

    def __init__(self, *args, user=None, **kwargs):
        super().__init__(*args, user=user, **kwargs)
        for name in ("origin", "destination"):
            self.fields[name].queryset = self.fields[name].queryset.order_by("country", "name")
        current = {p.role: p.organisation_id for p in self.instance.parties.all()} if self.instance.pk else {}
        nameable = Organisation.objects.nameable_by(user) if user is not None else Organisation.objects.none()
        organisations = Organisation.objects.filter(
            Q(pk__in=nameable.values("pk")) | Q(pk__in=[pk for pk in current.values()])
        ).order_by("legal_name")
        for role in PartyRole:
            self.fields[f"party_{role.value}"] = forms.ModelChoiceField(
                queryset=organisations,
                required=False,
                label=role.label,
                initial=current.get(role.value),
                widget=SearchSelect(kind="organisation-nameable"),
            )

    def party_fields(self):
        return [self[f"party_{role.value}"] for role in PartyRole]

    def main_fields(self):
        return [self[name] for name in self.Meta.fields]

    def parties(self) -> dict:
        return {role.value: self.cleaned_data.get(f"party_{role.value}") for role in PartyRole}


class LineForm(ScopedChoicesFormMixin, forms.Form):
    part = forms.ModelChoiceField(queryset=Part.objects.filter(is_active=True))
    quantity = forms.IntegerField(min_value=1)
    unit_value = forms.DecimalField(
        min_value=0, decimal_places=2, required=False, help_text="Leave empty to use the catalogue value."
    )
    hs_code = forms.CharField(
        label="HS code", required=False, max_length=14, help_text="Leave empty to copy the part's."
    )
    country_of_origin = CountryField(blank=True).formfield(
        required=False, help_text="Where the goods were made; leave empty to copy the part's."
    )
    serials = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="One serial number per line (or separated by commas).",
    )
    shipper = forms.ModelChoiceField(
        queryset=Organisation.objects.none(),
        required=False,
        label="Shipper / exporter",
        help_text="For a consolidation: the supplier exporting this line. Leave empty for the "
        "shipment's shipper.",
    )
    exporter_of_record = forms.ModelChoiceField(
        queryset=Organisation.objects.none(),
        required=False,
        help_text="Only when this line's origin country needs one the shipment's does not cover.",
    )

    def __init__(self, *args, user=None, **kwargs):
        super().__init__(*args, user=user, **kwargs)
        # As the party fields: organisations this user may name (`nameable_by`).
        nameable = Organisation.objects.nameable_by(user) if user is not None else Organisation.objects.none()
        for name in ("shipper", "exporter_of_record"):
            self.fields[name].queryset = nameable.order_by("legal_name")
            self.fields[name].widget.kind = "organisation-nameable"
        self.fields["part"].queryset = (
            self.fields["part"]
            .queryset.select_related("manufacturer")
            .order_by("manufacturer__name", "part_number")
        )
        self.fields["part"].label_from_instance = part_label  # as its picker answers

    def clean_hs_code(self):
        return normalise_hs_code(self.cleaned_data["hs_code"])

    def clean_serials(self):
        return split_list(self.cleaned_data["serials"])


def split_list(text: str) -> list[str]:
    return [s for s in (part.strip() for part in re.split(r"[\n,;]+", text or "")) if s]


# The package form lists this many lines still to pack, each with a quantity and its serials to tick;
# further lines are packed by typing "line:quantity".
PICKED_LINES = 100


class PackageForm(forms.ModelForm):
    """What goes in a package, picked (no typing "1:8, 2:4" and the serials again):
    a quantity per line still to pack, its unpacked serials to tick, "everything left" in one
    tick, and a box that takes scanned serials."""

    pack_remaining = forms.BooleanField(
        required=False,
        label="Everything still unpacked",
        help_text="Every unit not yet in a package, with its serial numbers.",
    )
    contents = forms.CharField(
        required=False,
        label="Other lines",
        help_text="Lines not listed above, as line:quantity, e.g. '101:8, 102:4'.",
    )
    serials = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        label="Scanned serials",
        help_text="Serial numbers scanned into this package, one per line (as well as those ticked).",
    )

    def __init__(self, *args, shipment=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.remaining: dict[int, int] = {}
        self.unpacked: dict[int, list[str]] = {}
        if shipment is None:
            return
        packed = dict(
            PackageItem.objects.filter(line__shipment=shipment)
            .values_list("line_id")
            .annotate(n=Sum("quantity"))
        )
        # Plain values, not line and part instances: a consolidation has thousands of lines.
        lines = shipment.lines.order_by("line_number").values_list(
            "pk", "line_number", "quantity", "part__part_number"
        )
        serials: dict[int, list[str]] = {}
        for line_id, serial in (
            LineSerial.objects.filter(line__shipment=shipment, package__isnull=True)
            .order_by("unit__serial")
            .values_list("line_id", "unit__serial")
        ):
            serials.setdefault(line_id, []).append(serial)
        listed = 0
        line_left: list[tuple[int, int]] = []
        for pk, number, quantity, part_number in lines:
            left = quantity - packed.get(pk, 0)
            if left <= 0:
                continue
            line_left.append((pk, left))
            self.remaining[number] = left
            self.unpacked[number] = serials.get(pk, [])
            if listed >= PICKED_LINES:
                continue
            listed += 1
            self.fields[f"qty_{number}"] = forms.IntegerField(
                required=False,
                min_value=0,
                max_value=left,
                label=f"Line {number}: {part_number}",
                help_text=f"{left} of {quantity} left to pack.",
                widget=forms.NumberInput(attrs={"min": 0, "max": left}),
            )
            if serials.get(pk):
                self.fields[f"serials_{number}"] = forms.MultipleChoiceField(
                    required=False,
                    choices=[(s, s) for s in serials[pk]],
                    widget=forms.CheckboxSelectMultiple,
                    label=f"Serials of line {number}",
                )
        self.order_fields(["pack_remaining", *[n for n in self.fields if n.startswith(("qty_", "serials_"))]])
        if not self.is_bound and line_left:
            self._suggest(line_left)

    def _suggest(self, line_left: list[tuple[int, int]]) -> None:
        """Pre-fill weight and size from the catalogue for everything still unpacked (a crate): the
        packer weighs, measures and corrects; the service refuses a gross below the contents."""
        suggested = package_suggestion(line_left, PackageType.CRATE)
        self.initial = {"package_type": PackageType.CRATE, **suggested, **self.initial}
        self.fields["gross_kg"].help_text = (
            f"Suggested: the catalogue weight of everything unpacked, {suggested['net_kg']} kg, plus "
            f"{PACKAGE_TARE_KG[PackageType.CRATE]} kg for a crate. At least the contents' weight."
        )

    class Meta:
        model = Package
        fields = [
            "package_type",
            "length_cm",
            "width_cm",
            "height_cm",
            "gross_kg",
            "net_kg",
            "tilt_indicator",
            "shock_indicator",
            "keep_dry",
            "marks",
        ]

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("pack_remaining"):
            cleaned["contents"] = sorted(self.remaining.items())
            cleaned["serials"] = [s for number in sorted(self.unpacked) for s in self.unpacked[number]]
            return cleaned
        items = dict(cleaned.get("contents") or [])
        picked = list(cleaned.get("serials") or [])
        for name, value in list(cleaned.items()):
            if name.startswith("qty_") and value:
                items[int(name[4:])] = items.get(int(name[4:]), 0) + value
            elif name.startswith("serials_") and value:
                picked += [s for s in value if s not in picked]
                # Ticking serials counts them: no quantity to type as well.
                if not cleaned.get(f"qty_{name[8:]}"):
                    items[int(name[8:])] = items.get(int(name[8:]), 0) + len(value)
        if not items and not self.errors:
            raise forms.ValidationError(
                "Pick what goes in the package: a quantity of a line, or everything left."
            )
        cleaned["contents"], cleaned["serials"] = sorted(items.items()), picked
        return cleaned

    def clean_contents(self):
        items = []
        for chunk in split_list(self.cleaned_data["contents"]):
            match = re.fullmatch(r"(\d+)\s*[:x×]\s*(\d+)", chunk)
            if not match:
                raise forms.ValidationError(f"{chunk!r} is not 'line:quantity', e.g. '1:8'.")
            items.append((int(match[1]), int(match[2])))
        return items

    def clean_serials(self):
        return split_list(self.cleaned_data["serials"])


class LegForm(ScopedChoicesFormMixin, forms.ModelForm):
    class Meta:
        model = Leg
        fields = [
            "role",
            "origin",
            "destination",
            "mode",
            "carrier",
            "transport_document",
            "container_numbers",
            "lines",
            "planned_departure",
            "planned_arrival",
        ]
        widgets = {
            "planned_departure": forms.DateInput(attrs={"type": "date"}),
            "planned_arrival": forms.DateInput(attrs={"type": "date"}),
        }
        labels = {"lines": "Lines carried"}
        help_texts = {"lines": "For an inbound leg: the lines this supplier sends to the hub."}

    def __init__(self, *args, user=None, shipment: Shipment | None = None, **kwargs):
        super().__init__(*args, user=user, **kwargs)
        for name in ("origin", "destination"):
            self.fields[name].queryset = self.fields[name].queryset.order_by("country", "name")
        # The lines of this shipment only (the shipment itself was found through visible_to).
        lines = (
            shipment.lines.order_by("line_number") if shipment is not None else ShipmentLine.objects.none()
        )
        self.fields["lines"].queryset = lines.select_related("part")
        self.fields["lines"].label_from_instance = lambda line: (
            f"Line {line.line_number}: {line.quantity} × {line.part.part_number} ({line.country_of_origin})"
        )


class EventForm(forms.Form):
    code = forms.ChoiceField(choices=EventCode.choices)
    occurred_at = forms.DateTimeField(widget=forms.DateTimeInput(attrs={"type": "datetime-local"}))
    leg = forms.ModelChoiceField(
        queryset=Leg.objects.none(), required=False, help_text="The leg the milestone belongs to, if one."
    )
    location = forms.CharField(required=False, max_length=200)
    remarks = forms.CharField(required=False, max_length=1000)
    eta = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}), label="New ETA")

    def __init__(self, *args, shipment: Shipment | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        # The legs of this shipment only (a few: searched in the page).
        if shipment is not None:
            self.fields["leg"].queryset = shipment.legs.select_related("origin", "destination").order_by(
                "sequence"
            )
        use_search_pickers(self)


class TransitionForm(forms.Form):
    to = forms.CharField(max_length=20)
    # Stored as the hold reason without a model clean: checked here, as in the API.
    reason = forms.CharField(required=False, max_length=500, validators=[TextValidator("line")])
    hold_kind = forms.ChoiceField(
        choices=[("", "—"), ("compliance", "Compliance hold"), ("customs", "Customs hold")], required=False
    )


class AmendForm(forms.Form):
    """Why an approved shipment goes back to draft: recorded, and given on every document voided."""

    reason = forms.CharField(
        max_length=500,
        validators=[TextValidator("line")],
        help_text="Recorded in the shipment's history and on every document voided.",
        error_messages={"required": "Say why the shipment is amended."},
    )


class SiteForm(ScopedChoicesFormMixin, forms.ModelForm):
    """A site; operator staff also say whose it is (`customer`): a customer's data centre kept by
    the operator is seen only by that customer, those connected with it and its shipments' parties."""

    class Meta:
        model = Site
        fields = [
            "name",
            "kind",
            "is_bonded",
            "address_line1",
            "city",
            "postal_code",
            "country",
            "unlocode",
            "iata_code",
            "customer",
            "power_mw",
            "cooling_air",
            "cooling_liquid",
            "cooling_immersion",
        ]

    def __init__(self, *args, user=None, **kwargs):
        super().__init__(*args, user=user, **kwargs)
        if user is None or not user.is_operator_staff:
            del self.fields["customer"]  # a partner's own sites are its own


class FreightRateForm(forms.ModelForm):
    """A lane's rate, kept in the browser by those who may edit the rate table (`freight.edit`)."""

    class Meta:
        model = FreightRate
        fields = FreightRate.EDITABLE_FIELDS
        widgets = {
            "valid_from": forms.DateInput(attrs={"type": "date"}),
            "valid_to": forms.DateInput(attrs={"type": "date"}),
        }


class ExchangeRateForm(forms.ModelForm):
    """A dated exchange rate for landed costs, kept in the browser like the freight rates."""

    class Meta:
        model = ExchangeRate
        fields = ["base", "quote", "rate", "valid_on", "source"]
        widgets = {"valid_on": forms.DateInput(attrs={"type": "date"})}
