from django import forms

from apps.core.forms import BoundedJSONField, ScopedChoicesFormMixin
from apps.core.hscodes import normalise_hs_code

from .models import Part


class PartForm(ScopedChoicesFormMixin, forms.ModelForm):
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

    def clean_hs_code(self):
        return normalise_hs_code(self.cleaned_data["hs_code"])
