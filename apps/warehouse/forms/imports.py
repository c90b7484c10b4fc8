"""The upload form of the bulk serial import: the warehouse, the default owner and customs
reference, and the CSV file (the service checks its rows)."""

from __future__ import annotations

from django import forms

from apps.accounts.models import Organisation
from apps.core.forms import ScopedChoicesFormMixin
from apps.core.validators import TextValidator
from apps.shipments.models import Site

from ..models import WAREHOUSE_KINDS
from ..services import imports


class SerialImportForm(ScopedChoicesFormMixin, forms.Form):
    site = forms.ModelChoiceField(
        Site.objects.filter(kind__in=WAREHOUSE_KINDS).order_by("name"),
        label="Warehouse",
        help_text="The locations in the file are this warehouse's.",
    )
    owner = forms.ModelChoiceField(
        Organisation.objects.order_by("legal_name"),
        help_text="Whose units, for the rows that name no owner.",
    )
    customs_reference = forms.CharField(
        max_length=50,
        required=False,
        validators=[TextValidator("identifier")],
        help_text="Customs entry or bonded-warehouse receipt number for the rows that give none "
        "(a bonded warehouse needs one for every row).",
    )
    file = forms.FileField(
        label="CSV file",
        help_text="UTF-8; header manufacturer,part_number,serial,location[,owner][,customs_reference].",
        widget=forms.ClearableFileInput(attrs={"accept": ".csv,text/csv"}),
    )

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > imports.MAX_BYTES:
            raise forms.ValidationError(f"At most {imports.MAX_BYTES:,} bytes ({upload.size:,} given).")
        return upload
