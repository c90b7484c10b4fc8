from django import forms
from django.utils.html import format_html, format_html_join

from apps.core.countries import COUNTRY_CHOICES
from apps.core.forms import ScopedChoicesFormMixin

from .engines.eccn import KNOWN_ECCNS, eccn_problem, normalise_eccn
from .models import Licence


class DatalistInput(forms.TextInput):
    """A text input with suggestions (an HTML datalist): pick a known entry or type another."""

    def __init__(self, options: tuple[tuple[str, str], ...], attrs=None):
        super().__init__(attrs)
        self.options = options

    def render(self, name, value, attrs=None, renderer=None):
        list_id = f"{(attrs or {}).get('id') or name}-options"
        html = super().render(name, value, {**(attrs or {}), "list": list_id}, renderer)
        options = format_html_join("", '<option value="{}">{}</option>', self.options)
        return format_html('{}<datalist id="{}">{}</datalist>', html, list_id, options)


class OverrideForm(forms.Form):
    eccn = forms.CharField(
        label="ECCN",
        max_length=20,
        widget=DatalistInput(KNOWN_ECCNS, attrs={"autocomplete": "off"}),
        help_text="Pick one of the entries Rackpass knows or type another, e.g. 4A090.a, 5A992.c, EAR99.",
    )
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}), help_text="Required: kept with the history."
    )

    def clean_eccn(self) -> str:
        eccn = normalise_eccn(self.cleaned_data["eccn"])
        if problem := eccn_problem(eccn):
            raise forms.ValidationError(problem)
        return eccn


class DecisionForm(forms.Form):
    decision = forms.ChoiceField(
        choices=[("clear", "Clear (false positive)"), ("confirm", "Confirm (block party)")]
    )
    reason = forms.CharField(max_length=1000)


class ResolveForm(forms.Form):
    resolution = forms.CharField(
        max_length=1000, required=False, help_text="How this reason was resolved, and on what evidence."
    )
    licence_number = forms.CharField(
        max_length=60, required=False, help_text="For a licence-required reason: the licence that covers it."
    )


class LicenceForm(ScopedChoicesFormMixin, forms.ModelForm):
    class Meta:
        model = Licence
        fields = [
            "number",
            "issuing_authority",
            "eccns",
            "destination_countries",
            "licensee",
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
