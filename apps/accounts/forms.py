from django import forms

from apps.core.forms import ScopedChoicesFormMixin

from .models import ApiToken, Connection, Contact, Organisation, OrganisationKind, Registration


class OrganisationForm(forms.ModelForm):
    """An organisation's details. Its four-eyes policy is not here: two compliance officers change
    it on the compliance pages."""

    def __init__(self, *args, user=None, **kwargs):
        # `user` is taken (and not needed) so the organisation views build every form alike.
        super().__init__(*args, **kwargs)

    class Meta:
        model = Organisation
        fields = [
            "kind",
            "legal_name",
            "trading_name",
            "address_line1",
            "address_line2",
            "city",
            "region",
            "postal_code",
            "country",
            "website",
            "notes",
            "is_active",
        ]
        widgets = {"notes": forms.Textarea(attrs={"rows": 3})}


class RegistrationForm(forms.ModelForm):
    class Meta:
        model = Registration
        fields = ["scheme", "number", "country", "valid_until"]
        widgets = {"valid_until": forms.DateInput(attrs={"type": "date"})}


class ContactForm(forms.ModelForm):
    class Meta:
        model = Contact
        fields = ["name", "job_title", "email", "phone", "is_primary", "is_signatory"]


class ApiTokenForm(forms.ModelForm):
    class Meta:
        model = ApiToken
        fields = ["name", "expires_at"]
        widgets = {"expires_at": forms.DateTimeInput(attrs={"type": "datetime-local"})}
        help_texts = {"expires_at": "Optional. Leave empty for a token that lasts until you revoke it."}


class ConnectionForm(ScopedChoicesFormMixin, forms.Form):
    """Connect the organisation of the page with another one (operator staff)."""

    other = forms.ModelChoiceField(
        queryset=Organisation.objects.filter(is_active=True).exclude(kind=OrganisationKind.OPERATOR),
        label="Connect with",
    )
    note = forms.CharField(max_length=300, required=False, help_text="Why they work together.")

    def __init__(self, *args, organisation: Organisation | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        if organisation is not None:
            connected = Connection.objects.partners_of(organisation)
            self.fields["other"].queryset = (
                self.fields["other"].queryset.exclude(pk=organisation.pk).exclude(pk__in=connected)
            )
