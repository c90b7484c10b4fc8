"""Browser forms of cluster designs: the design's inputs in the groups a planner thinks in, a bill
of materials line's quantity, and the two runs to compare. The forms read; the services decide
(`services.design_create` / `design_update` / `bom_line_update`), and what they refuse lands on
the field they name."""

from __future__ import annotations

from django import forms
from django.db.models import Q

from apps.accounts.models import Organisation
from apps.catalog.pickers import part_label
from apps.core.forms import ScopedChoicesFormMixin

from .engines import design_templates
from .models import PART_FIELDS, BomLine, ClusterDesign, RunStatus, SizingRun
from .pickers import data_centres, part_kind, parts_for
from .services.designs import design_copy_values, design_template_values

# (key, heading, fields): the form's fieldsets, in the order of the design inputs.
FIELDSETS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("system", "System", ("name", "customer", "site", "system", "gpus", "required_on_site")),
    (
        "compute",
        "Compute fabric",
        (
            "compute_fabric",
            "compute_bandwidth_gbps",
            "compute_switch",
            "compute_topology",
            "compute_oversubscription",
            "su_systems",
            "compute_node_optic",
            "compute_switch_optic",
            "compute_cable",
        ),
    ),  # fmt: skip
    (
        "storage",
        "Storage",
        (
            "storage_appliance",
            "storage_capacity_tb",
            "storage_read_gbs_per_node",
            "storage_write_gbs_per_node",
            "storage_fabric",
            "storage_switch",
            "storage_oversubscription",
            "storage_node_optic",
            "storage_switch_optic",
            "storage_cable",
        ),
    ),  # fmt: skip
    ("management", "Management networks", ("inband_switch", "inband_cable", "oob_switch", "oob_cable")),
    (
        "racks",
        "Racks",
        ("rack", "rack_units", "rack_power_limit_kw", "pdu", "pdus_per_rack", "pdu_redundancy"),
    ),
    (
        "facility",
        "Facility",
        ("cooling", "pue", "cdu", "cdu_redundancy", "electricity_price", "electricity_currency"),
    ),
    (
        "training",
        "Training",
        (
            "params_billion",
            "bytes_per_param",
            "gpu_mtbf_hours",
            "cluster_interruptions_per_day",
            "restart_minutes",
            "checkpoint_interval_minutes",
        ),
    ),  # fmt: skip
)

# Which fieldset a design field is in: the run page links a refused input to it.
FIELDSET_OF = {name: key for key, _, names in FIELDSETS for name in names}


# The trade's abbreviations spelled out where a planner reads them (the model keeps its short
# names, so the API's field names do not change).
LABELS = {
    "su_systems": "Systems per scalable unit (SU)",
    "compute_node_optic": "Compute transceiver, node side",
    "compute_switch_optic": "Compute transceiver, switch side",
    "storage_node_optic": "Storage transceiver, node side",
    "storage_switch_optic": "Storage transceiver, switch side",
    "inband_switch": "In-band management switch",
    "inband_cable": "In-band management cable",
    "oob_switch": "Out-of-band management switch",
    "oob_cable": "Out-of-band management cable",
    "rack_units": "Usable rack units (U)",
    "pdu": "Rack PDU (power distribution unit)",
    "pdus_per_rack": "PDUs per rack",
    "pdu_redundancy": "PDU redundancy (spares in each rack)",
    "pue": "PUE (power usage effectiveness)",
    "cdu": "CDU (coolant distribution unit)",
    "cdu_redundancy": "CDU redundancy (spares)",
}
HELP_TEXTS = {
    "customer": "Whose cluster it is: the end user the equipment is for (it reads the design). Choose it: "
    "it is never assumed.",
    "gpu_mtbf_hours": "Mean time between failures of one GPU, in hours. Or give a measured cluster "
    "interruption rate instead.",
    "inband_switch": "The management network that carries the nodes' own traffic (SSH, monitoring, "
    "provisioning): 100/200 GbE per node.",
    "oob_switch": "The separate 1 GbE network to every BMC, switch and PDU, which works when the "
    "nodes themselves do not.",
    "pdu": "The power strip in each rack; its capacity_kw attribute decides how many a rack needs.",
    "pdu_redundancy": "PDUs beyond what the rack's load needs (N+1: 1).",
    "cdu": "Pumps coolant to the racks' cold plates: needed for liquid or immersion cooling; "
    "its capacity_kw attribute is read.",
    "cdu_redundancy": "CDUs beyond what the heat load needs (N+1: 1).",
}


class DesignForm(ScopedChoicesFormMixin, forms.ModelForm):
    """Every input of a design. Parts are chosen among the catalogue parts of the field's category
    the user sees; the customer among the organisations it may name (and the one already named),
    never assumed; the site among the data centres it sees. Required fields say so to assistive
    technology (`aria-required`) as the page's asterisk says so to the eye."""

    class Meta:
        model = ClusterDesign
        fields = ClusterDesign.INPUT_FIELDS
        widgets = {"required_on_site": forms.DateInput(attrs={"type": "date"})}
        labels = LABELS

    def __init__(self, *args, user=None, **kwargs):
        super().__init__(*args, user=user, **kwargs)
        for name in PART_FIELDS:
            field = self.fields[name]
            # A part retired from the catalogue since stays choosable where it is already chosen.
            chosen = getattr(self.instance, f"{name}_id", None)
            offered = parts_for(name, user) if user is not None else field.queryset.none()
            if chosen and user is not None:
                offered = offered | field.queryset.filter(pk=chosen).select_related("manufacturer")
            field.queryset = offered
            field.label_from_instance = part_label  # as its picker answers
            field.widget.kind = part_kind(name)
        site = self.fields["site"]
        site.queryset = data_centres(user) if user is not None else site.queryset.none()
        site.widget.kind = "cluster-site"
        current = self.instance.customer_id if self.instance.pk else None
        nameable = Organisation.objects.nameable_by(user) if user is not None else Organisation.objects.none()
        customer = self.fields["customer"]
        customer.queryset = Organisation.objects.filter(
            Q(pk__in=nameable.values("pk")) | Q(pk=current)
        ).order_by("legal_name")
        customer.widget.kind = "organisation-nameable"
        for name, field in self.fields.items():
            if name in HELP_TEXTS:
                field.help_text = HELP_TEXTS[name]
            if field.required:
                field.widget.attrs["aria-required"] = "true"

    def fieldsets(self) -> list[dict]:
        return [
            {"key": key, "legend": legend, "fields": [self[name] for name in names]}
            for key, legend, names in FIELDSETS
        ]

    def inputs(self) -> dict:
        return {name: self.cleaned_data[name] for name in ClusterDesign.INPUT_FIELDS}


def template_initial(key: str, user) -> dict:
    """The form's first values from a design template (`services.design_template_values`): its
    figures and the parts the user sees; no customer and no site, those are always chosen."""
    values, _missing = design_template_values(key, user)
    return values


def copy_initial(design: ClusterDesign) -> dict:
    """The form's first values from an existing design: every input, its name marked as a copy."""
    return design_copy_values(design)


class TemplateChoiceForm(forms.Form):
    """ "Start from" on the new design page: a template or nothing."""

    template = forms.ChoiceField(
        label="Start from",
        required=False,
        choices=[("", "An empty form")] + [(t.key, t.name) for t in design_templates.TEMPLATES],
    )


class BomLineForm(forms.Form):
    """A draft line's quantity and why it differs from the engine's (the service asks for the note)."""

    quantity = forms.IntegerField(min_value=0, max_value=100_000_000)  # the model's bound
    note = forms.CharField(
        required=False,
        max_length=500,
        widget=forms.TextInput(attrs={"placeholder": "Why it differs"}),
        help_text="Why the quantity differs from the sizing's (spares, a second site …).",
    )

    def __init__(self, *args, line: BomLine | None = None, **kwargs):
        if line is not None:
            kwargs.setdefault("initial", {"quantity": line.quantity, "note": line.note})
            kwargs.setdefault("prefix", f"line-{line.pk}")
        super().__init__(*args, **kwargs)


class LeadTimeForm(forms.Form):
    """A line's lead time: days from order until the supplier has the goods ready to ship."""

    lead_time_days = forms.IntegerField(
        label="Lead time (days)",
        required=False,
        min_value=0,
        max_value=730,
        help_text="Empty: ready now. The shipment plan reads the goods as ready this many days after "
        "its date.",
    )

    def __init__(self, *args, line: BomLine | None = None, **kwargs):
        if line is not None:
            kwargs.setdefault("initial", {"lead_time_days": line.lead_time_days})
            kwargs.setdefault("prefix", f"lead-{line.pk}")
        super().__init__(*args, **kwargs)


class CompareForm(forms.Form):
    """Two finished runs of one design, by number."""

    a = forms.TypedChoiceField(label="Run", coerce=int)
    b = forms.TypedChoiceField(label="against run", coerce=int)

    def __init__(self, *args, design: ClusterDesign | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        numbers = (
            list(
                SizingRun.objects.filter(design=design, status=RunStatus.SUCCEEDED)
                .order_by("-number")
                .values_list("number", flat=True)
            )
            if design is not None
            else []
        )
        choices = [(n, f"Run {n}") for n in numbers]
        self.fields["a"].choices = self.fields["b"].choices = choices

    def clean(self):
        data = super().clean()
        if data.get("a") is not None and data.get("a") == data.get("b"):
            self.add_error("b", "Choose another run to compare it with.")
        return data
