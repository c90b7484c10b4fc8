from django import forms

from apps.core.hscodes import normalise_hs_code

from .models import Part


class PartForm(forms.ModelForm):
    class Meta:
        model = Part
        fields = [
            "manufacturer",
            "part_number",
            "name",
            "description",
            "category",
            "unit_weight_kg",
            "length_cm",
            "width_cm",
            "height_cm",
            "unit_value",
            "currency",
            "country_of_origin",
            "hs_code",
            "is_serialised",
            "contains_lithium_batteries",
            "power_draw_w",
            "rack_units",
            "port_count",
            "port_speed_gbps",
            "gpus_per_server",
            "accelerator",
            "tpp",
            "die_area_mm2",
            "dense_tops",
            "attributes",
            "is_active",
        ]
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
