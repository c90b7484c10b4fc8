from django import forms

from apps.core.hscodes import normalise_hs_code

from .models import Part


class PartForm(forms.ModelForm):
    class Meta:
        model = Part
        fields = Part.EDITABLE_FIELDS
        widgets = {"description": forms.Textarea(attrs={"rows": 3})}

    def __init__(self, *args, owner=None, **kwargs):
        super().__init__(*args, **kwargs)
        # The model's full_clean needs an owner before the service sets it on create.
        if owner is not None and not self.instance.owner_id:
            self.instance.owner = owner
        self.fields["accelerator"].queryset = Part.objects.filter(category="accelerator").select_related(
            "manufacturer"
        )

    def clean_hs_code(self):
        return normalise_hs_code(self.cleaned_data["hs_code"])
