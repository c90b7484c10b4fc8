from django import forms

from apps.core.forms import BoundedJSONField, ScopedChoicesFormMixin
from apps.core.hscodes import normalise_hs_code

from .models import Part


class PartForm(ScopedChoicesFormMixin, forms.ModelForm):
    tariff_codes = forms.CharField(
        label="National tariff codes",
        required=False,
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 3, "placeholder": "US 8471.50.0150\nIN 8471.50.00"}),
        help_text="One per line: country, then the code extending the HS code (US Schedule B / HTS: 10 "
        "digits, India ITC-HS: 8), optionally the unit of quantity (NO, KG or X; NO when left out).",
    )

    class Meta:
        model = Part
        fields = Part.EDITABLE_FIELDS
        widgets = {"description": forms.Textarea(attrs={"rows": 3})}
        field_classes = {"dense_tops": BoundedJSONField, "attributes": BoundedJSONField}

    def __init__(self, *args, owner=None, user=None, **kwargs):
        super().__init__(*args, user=user, **kwargs)
        # The model's full_clean needs an owner before the service sets it on create.
        if owner is not None and not self.instance.owner_id:
            self.instance.owner = owner
        # The accelerators the user sees (the master catalogue and its own): never another's.
        accelerators = self.fields["accelerator"].queryset
        self.fields["accelerator"].queryset = accelerators.select_related("manufacturer")
        if self.instance.pk:
            self.initial["tariff_codes"] = "\n".join(
                f"{t.country} {t.code}" + (f" {t.unit_of_quantity}" if t.unit_of_quantity != "NO" else "")
                for t in self.instance.tariff_codes.all()
            )

    def clean_hs_code(self):
        return normalise_hs_code(self.cleaned_data["hs_code"])

    def clean_tariff_codes(self) -> list[dict[str, str]]:
        """'US 8471.50.0150' lines → [{country, code, unit_of_quantity}]; the service checks each code."""
        entries = []
        for number, line in enumerate(self.cleaned_data["tariff_codes"].splitlines(), start=1):
            words = line.split()
            if not words:
                continue
            if len(words) not in (2, 3) or len(words[0]) != 2:
                raise forms.ValidationError(
                    f"Line {number}: give the country, then the code, e.g. “US 8471.50.0150”."
                )
            entry = {"country": words[0].upper(), "code": normalise_hs_code(words[1])}
            if len(words) == 3:
                entry["unit_of_quantity"] = words[2].upper()
            entries.append(entry)
        return entries
