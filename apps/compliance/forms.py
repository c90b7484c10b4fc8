from django import forms

from apps.core.countries import COUNTRY_CHOICES

from .models import Licence


class OverrideForm(forms.Form):
    eccn = forms.CharField(label="ECCN", max_length=20, help_text="e.g. 4A090.a, 5A992.c, EAR99")
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}), help_text="Required: kept with the history."
    )


class DecisionForm(forms.Form):
    decision = forms.ChoiceField(
        choices=[("clear", "Clear (false positive)"), ("confirm", "Confirm (block party)")]
    )
    reason = forms.CharField(max_length=1000)


class ResolveForm(forms.Form):
    resolution = forms.CharField(max_length=1000, help_text="How this reason was resolved.")


class LicenceForm(forms.ModelForm):
    class Meta:
        model = Licence
        fields = [
            "number",
            "issuing_authority",
            "eccns",
            "destination_countries",
            "consignee",
            "end_user",
            "permitted_quantity",
            "permitted_value",
            "currency",
            "valid_from",
            "expires_on",
            "conditions",
        ]
        widgets = {
            "valid_from": forms.DateInput(attrs={"type": "date"}),
            "expires_on": forms.DateInput(attrs={"type": "date"}),
            "conditions": forms.Textarea(attrs={"rows": 2}),
        }


class ListImportForm(forms.Form):
    name = forms.CharField(initial="US Consolidated Screening List", max_length=120)
    source_format = forms.ChoiceField(
        choices=[
            ("csl_json", "CSL JSON (bulk download)"),
            ("csl_csv", "CSL CSV"),
            ("opensanctions", "OpenSanctions JSON lines"),
        ]
    )
    version = forms.CharField(required=False, max_length=60, help_text="Leave empty to use the file's own.")
    file = forms.FileField()


class AdHocScreenForm(forms.Form):
    name = forms.CharField(max_length=300)
    country = forms.ChoiceField(choices=[("", "—"), *COUNTRY_CHOICES()], required=False)
    threshold = forms.DecimalField(
        min_value=0.5,
        max_value=1,
        decimal_places=3,
        required=False,
        help_text="0.80 is precise, 0.60 catches more. Default from settings.",
    )
