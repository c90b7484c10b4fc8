"""Cluster designs: a planner's inputs for one AI cluster at a data-centre site, and the sizing
runs made of it (the engine's result as it was, with the inputs it was given). The versioned bills
of materials made from a run are in `boms.py`.

Who sees what (docs/security.md): a design belongs to its owner (the planner's organisation) and
is shown to its customer as well; runs follow their design. Only the owner changes a design
(operator staff: any).
"""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from apps.catalog.models import PartCategory
from apps.core.fields import CurrencyField
from apps.core.models import AuditedModel, OrgScopedQuerySet, TimeStampedModel
from apps.core.scoping import VIEW

# Bounds well above any real cluster (the engine sizes 131,072 GPUs in closed form).
GPUS_MAX = 1_000_000
PARAMS_BILLION_MAX = Decimal("1000000")


def _between(low: str, high: str) -> list:
    return [MinValueValidator(Decimal(low)), MaxValueValidator(Decimal(high))]


class FabricKind(models.TextChoices):
    INFINIBAND = "infiniband", "InfiniBand"
    ETHERNET = "ethernet", "Ethernet"


class Topology(models.TextChoices):
    AUTO = "auto", "Rail-optimised fat tree, 2 or 3 tiers by size"
    TWO_TIER = "two_tier", "Two tiers (leaf–spine)"
    THREE_TIER = "three_tier", "Three tiers (leaf–spine–core)"


class Cooling(models.TextChoices):
    AIR = "air", "Air"
    LIQUID = "liquid", "Direct-to-chip liquid"
    IMMERSION = "immersion", "Immersion"


class BandwidthPerGpu(models.IntegerChoices):
    G200 = 200, "200 Gb/s"
    G400 = 400, "400 Gb/s"
    G800 = 800, "800 Gb/s"


# The catalogue category each part input must be, for the field it is chosen in.
PART_FIELDS: dict[str, tuple[str, ...]] = {
    "system": (PartCategory.SERVER,),
    "compute_switch": (PartCategory.NETWORK_SWITCH,),
    "compute_node_optic": (PartCategory.OPTICAL_TRANSCEIVER,),
    "compute_switch_optic": (PartCategory.OPTICAL_TRANSCEIVER,),
    "compute_cable": (PartCategory.CABLE,),
    "storage_appliance": (PartCategory.STORAGE_SYSTEM,),
    "storage_switch": (PartCategory.NETWORK_SWITCH,),
    "storage_node_optic": (PartCategory.OPTICAL_TRANSCEIVER,),
    "storage_switch_optic": (PartCategory.OPTICAL_TRANSCEIVER,),
    "storage_cable": (PartCategory.CABLE,),
    "inband_switch": (PartCategory.NETWORK_SWITCH,),
    "inband_cable": (PartCategory.CABLE,),
    "oob_switch": (PartCategory.NETWORK_SWITCH,),
    "oob_cable": (PartCategory.CABLE,),
    "rack": (PartCategory.RACK,),
    "pdu": (PartCategory.PDU,),
    "cdu": (PartCategory.COOLING_CDU,),
}


def _part(name: str, *, required: bool = True, help_text: str = "") -> models.ForeignKey:
    # No `limit_choices_to`: `clean()` checks the category and says which part is of what kind.
    return models.ForeignKey(
        "catalog.Part",
        on_delete=models.PROTECT,
        null=not required,
        blank=not required,
        related_name="+",
        help_text=help_text,
    )


class ClusterDesign(AuditedModel, TimeStampedModel):
    """One AI cluster as the planner describes it: the system and how many, the compute fabric,
    storage, management networks, racks, facility and the training run it is for. Parts come from
    the catalogue; their figures (power, rack units, ports) are read from the parts when sized."""

    owner = models.ForeignKey(
        "accounts.Organisation",
        on_delete=models.PROTECT,
        related_name="cluster_designs",
        help_text="The planner's organisation: it keeps the design.",
    )
    customer = models.ForeignKey(
        "accounts.Organisation",
        on_delete=models.PROTECT,
        related_name="customer_cluster_designs",
        help_text="Whose cluster it is: the end user the equipment is for. It reads the design.",
    )
    site = models.ForeignKey(
        "shipments.Site",
        on_delete=models.PROTECT,
        related_name="cluster_designs",
        help_text="The data centre the cluster stands in (its country, power and cooling).",
    )
    name = models.CharField(max_length=200)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    # --- compute -------------------------------------------------------------------------------
    system = _part("system", help_text="The server or system (DGX H100, GB200 NVL72, Cerebras CS-3 …).")
    gpus = models.PositiveIntegerField(
        "GPUs (accelerators)",
        default=8,
        validators=[MinValueValidator(1), MaxValueValidator(GPUS_MAX)],
        help_text="Total accelerators: a multiple of the system's GPUs per server (taken from the part).",
    )
    compute_fabric = models.CharField(
        max_length=12, choices=FabricKind.choices, default=FabricKind.INFINIBAND
    )
    compute_bandwidth_gbps = models.PositiveIntegerField(
        "bandwidth per GPU (Gb/s)", choices=BandwidthPerGpu.choices, default=BandwidthPerGpu.G400
    )
    compute_switch = _part("compute_switch", help_text="Its radix and port speed come from the part.")
    compute_topology = models.CharField(max_length=12, choices=Topology.choices, default=Topology.AUTO)
    compute_oversubscription = models.DecimalField(
        "oversubscription (r in r:1)",
        max_digits=5,
        decimal_places=2,
        default=Decimal("1"),
        validators=_between("1", "16"),
        help_text="1 is non-blocking.",
    )
    su_systems = models.PositiveSmallIntegerField(
        "systems per scalable unit",
        default=32,
        validators=[MinValueValidator(1), MaxValueValidator(4096)],
        help_text="NVIDIA's DGX H100/B200 SuperPOD: 32 systems (256 GPUs).",
    )
    compute_node_optic = _part(
        "compute_node_optic", required=False, help_text="Transceiver at the node side; empty: copper."
    )
    compute_switch_optic = _part(
        "compute_switch_optic", required=False, help_text="Transceiver between switches; empty: copper."
    )
    compute_cable = _part("compute_cable", required=False, help_text="The cable of every compute link.")

    # --- storage -------------------------------------------------------------------------------
    storage_appliance = _part(
        "storage_appliance", help_text="Reads attributes capacity_tb, read_gbps and write_gbps (GB/s)."
    )
    storage_capacity_tb = models.DecimalField(
        "usable capacity (TB)", max_digits=12, decimal_places=2, default=Decimal("1000"),
        validators=_between("0.01", "10000000"),
    )  # fmt: skip
    storage_read_gbs_per_node = models.DecimalField(
        "read per node (GB/s)", max_digits=8, decimal_places=2, default=Decimal("8"),
        validators=_between("0.01", "10000"), help_text="NVIDIA's guidance: 4 good, 8 better, 40 best.",
    )  # fmt: skip
    storage_write_gbs_per_node = models.DecimalField(
        "write per node (GB/s)", max_digits=8, decimal_places=2, default=Decimal("4"),
        validators=_between("0.01", "10000"), help_text="NVIDIA's guidance: 2 good, 4 better, 20 best.",
    )  # fmt: skip
    storage_fabric = models.CharField(
        max_length=12, choices=FabricKind.choices, default=FabricKind.INFINIBAND
    )
    storage_switch = _part("storage_switch")
    storage_oversubscription = models.DecimalField(
        "storage oversubscription (r in r:1)",
        max_digits=5,
        decimal_places=2,
        default=Decimal("1.33"),
        validators=_between("1", "16"),
        help_text="NVIDIA's H100 design: about 4:3 on the server side.",
    )
    storage_node_optic = _part(
        "storage_node_optic", required=False, help_text="Transceiver at the node side; empty: copper."
    )
    storage_switch_optic = _part(
        "storage_switch_optic", required=False, help_text="Transceiver between switches; empty: copper."
    )
    storage_cable = _part("storage_cable", required=False, help_text="The cable of every storage link.")

    # --- management ----------------------------------------------------------------------------
    inband_switch = _part("inband_switch", help_text="In-band management Ethernet (100/200 GbE per node).")
    inband_cable = _part(
        "inband_cable",
        required=False,
        help_text="The cable of every in-band link (e.g. a DAC); empty: none listed.",
    )
    oob_switch = _part("oob_switch", help_text="Out-of-band management (1 GbE to every BMC, switch, PDU).")
    oob_cable = _part(
        "oob_cable",
        required=False,
        help_text="The cable of every out-of-band link (Cat6); empty: none listed.",
    )

    # --- racks ---------------------------------------------------------------------------------
    rack = _part("rack")
    rack_units = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(100)],
        help_text="Usable rack units; empty: the rack part's.",
    )
    rack_power_limit_kw = models.DecimalField(
        "power limit per rack (kW)", max_digits=7, decimal_places=2, default=Decimal("40"),
        validators=_between("0.1", "5000"),
    )  # fmt: skip
    pdu = _part("pdu", help_text="Reads attribute capacity_kw.")
    pdus_per_rack = models.PositiveSmallIntegerField(
        default=2, validators=[MinValueValidator(1), MaxValueValidator(32)]
    )
    pdu_redundancy = models.PositiveSmallIntegerField(
        default=1, validators=[MaxValueValidator(8)], help_text="PDUs beyond the load's, per rack (N+1: 1)."
    )

    # --- facility ------------------------------------------------------------------------------
    cooling = models.CharField(max_length=10, choices=Cooling.choices, default=Cooling.AIR)
    pue = models.DecimalField(
        "PUE", max_digits=4, decimal_places=2, default=Decimal("1.40"), validators=_between("1", "3"),
        help_text="Facility power / IT power. About 1.4–1.5 for air, 1.15–1.25 for direct liquid [E].",
    )  # fmt: skip
    cdu = _part("cdu", required=False, help_text="Needed for liquid or immersion cooling; reads capacity_kw.")
    cdu_redundancy = models.PositiveSmallIntegerField(
        "CDU redundancy", default=1, validators=[MaxValueValidator(8)], help_text="N+1: 1."
    )
    electricity_price = models.DecimalField(
        "electricity price per kWh", max_digits=10, decimal_places=4, default=Decimal("0.10"),
        validators=_between("0", "1000"),
    )  # fmt: skip
    electricity_currency = CurrencyField(default="USD")

    # --- training ------------------------------------------------------------------------------
    params_billion = models.DecimalField(
        "model parameters (billions)", max_digits=12, decimal_places=3, default=Decimal("70"),
        validators=[MinValueValidator(Decimal("0.001")), MaxValueValidator(PARAMS_BILLION_MAX)],
    )  # fmt: skip
    bytes_per_param = models.DecimalField(
        "checkpoint bytes per parameter", max_digits=5, decimal_places=2, default=Decimal("14"),
        validators=_between("0.5", "64"),
        help_text="Mixed-precision Adam: 12 (fp32 master, momentum, variance), 14 with bf16 weights.",
    )  # fmt: skip
    gpu_mtbf_hours = models.DecimalField(
        "per-GPU MTBF (hours)", max_digits=12, decimal_places=1, null=True, blank=True,
        validators=_between("1", "100000000"),
        help_text="Or give a measured cluster interruption rate instead.",
    )  # fmt: skip
    cluster_interruptions_per_day = models.DecimalField(
        "cluster interruptions per day", max_digits=8, decimal_places=3, null=True, blank=True,
        validators=_between("0.001", "10000"),
        help_text="Measured: Llama 3 saw 419 in 54 days on 16,384 H100s (≈7.8 a day).",
    )  # fmt: skip
    restart_minutes = models.DecimalField(
        "restart time (minutes)", max_digits=7, decimal_places=2, default=Decimal("10"),
        validators=_between("0", "10000"),
    )  # fmt: skip
    checkpoint_interval_minutes = models.DecimalField(
        "chosen checkpoint interval (minutes)", max_digits=8, decimal_places=2, null=True, blank=True,
        validators=_between("0.1", "100000"), help_text="Compared with the optimum; empty: none chosen.",
    )  # fmt: skip
    required_on_site = models.DateField("required on site", null=True, blank=True)

    objects = OrgScopedQuerySet.as_manager()

    # What a planner edits (service, API); owner, created_by and timestamps are set by the service.
    INPUT_FIELDS = (
        "customer", "site", "name", "system", "gpus", "compute_fabric", "compute_bandwidth_gbps",
        "compute_switch", "compute_topology", "compute_oversubscription", "su_systems",
        "compute_node_optic", "compute_switch_optic", "compute_cable", "storage_appliance",
        "storage_capacity_tb", "storage_read_gbs_per_node", "storage_write_gbs_per_node",
        "storage_fabric", "storage_switch", "storage_oversubscription", "storage_node_optic",
        "storage_switch_optic", "storage_cable", "inband_switch", "inband_cable", "oob_switch", "oob_cable",
        "rack", "rack_units", "rack_power_limit_kw", "pdu", "pdus_per_rack", "pdu_redundancy", "cooling",
        "pue", "cdu", "cdu_redundancy",
        "electricity_price", "electricity_currency", "params_billion", "bytes_per_param",
        "gpu_mtbf_hours", "cluster_interruptions_per_day", "restart_minutes",
        "checkpoint_interval_minutes", "required_on_site",
    )  # fmt: skip

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "name"], name="clusters_design_name_unique_per_owner"),
            models.CheckConstraint(condition=Q(gpus__gte=1), name="clusters_design_gpus_positive"),
        ]

    def __str__(self) -> str:
        return self.name

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        own = Q(owner_id=organisation_id)
        if action != VIEW:
            return own
        return own | Q(customer_id=organisation_id)

    @property
    def gpus_per_server(self) -> int | None:
        """From the system part (a DGX H100: 8; a GB200 NVL72: 72; a CS-3: 1)."""
        return self.system.gpus_per_server if self.system_id else None

    def clean(self) -> None:
        """The checks the engine would make that can be made before sizing, each naming its field."""
        errors: dict[str, str] = {}
        self.name = (self.name or "").strip()
        if not self.name:
            errors["name"] = "This field cannot be blank."
        for name, categories in PART_FIELDS.items():
            part = getattr(self, name) if getattr(self, f"{name}_id") else None
            if part is not None and part.category not in categories:
                wanted = " or ".join(str(PartCategory(c).label) for c in categories)
                errors[name] = f"{part} is a {part.get_category_display()}, not a {wanted}."
        if "system" not in errors and self.system_id:
            per_server = self.system.gpus_per_server
            if not per_server:
                errors["system"] = (
                    f"{self.system} has no GPUs per server in the catalogue: add it to the part."
                )
            elif self.gpus and self.gpus % per_server:
                lower = self.gpus - self.gpus % per_server
                upper = lower + per_server
                # Below one system there is one count to offer, not "8 or 8".
                offer = f"{lower} or {upper}" if lower else f"{upper}"
                errors["gpus"] = (
                    f"{self.gpus} is not a multiple of {per_server}, the GPUs of one {self.system.name}: "
                    f"use {offer}."
                )
        for name in ("compute_switch", "storage_switch", "inband_switch", "oob_switch"):
            if name in errors or not getattr(self, f"{name}_id"):
                continue
            switch = getattr(self, name)
            if not switch.port_count or switch.port_count < 2:
                errors[name] = f"{switch} has no radix (port count) in the catalogue: add it to the part."
            elif not switch.port_speed_gbps:
                errors[name] = f"{switch} has no port speed in the catalogue: add it to the part."
        if self.site_id:
            from apps.shipments.models import SiteKind

            if self.site.kind != SiteKind.DATA_CENTRE:
                errors["site"] = f"{self.site} is not a data centre: a cluster stands in a data centre."
            elif self.site.cooling_offered and self.cooling not in self.site.cooling_offered:
                offered = ", ".join(str(Cooling(c).label).lower() for c in self.site.cooling_offered)
                errors["cooling"] = (
                    f"{self.site.name} offers {offered} cooling, not {self.get_cooling_display().lower()}."
                )
        if self.cooling != Cooling.AIR and not self.cdu_id and "cdu" not in errors:
            errors["cdu"] = f"{self.get_cooling_display()} cooling needs a CDU part."
        if self.gpu_mtbf_hours is None and self.cluster_interruptions_per_day is None:
            errors["gpu_mtbf_hours"] = (
                "Give the per-GPU MTBF or the cluster's measured interruptions per day."
            )
        elif self.gpu_mtbf_hours is not None and self.cluster_interruptions_per_day is not None:
            errors["cluster_interruptions_per_day"] = (
                "Give the per-GPU MTBF or the measured interruptions per day, not both."
            )
        if errors:
            raise ValidationError(errors)


class RunStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"


class SizingRun(AuditedModel, TimeStampedModel):
    """One sizing of a design: the engine version and the inputs it was given as they were, then
    its result, or the inputs it refused (`errors`: design field → message)."""

    design = models.ForeignKey(ClusterDesign, on_delete=models.CASCADE, related_name="runs")
    number = models.PositiveIntegerField(help_text="1, 2, 3 … per design.")
    status = models.CharField(max_length=10, choices=RunStatus.choices, default=RunStatus.QUEUED)
    task_id = models.CharField(max_length=64, blank=True)
    engine_version = models.CharField(max_length=20, blank=True)
    inputs = models.JSONField(
        default=dict, blank=True, help_text="The design's inputs as the engine got them."
    )
    result = models.JSONField(null=True, blank=True)
    errors = models.JSONField(default=dict, blank=True, help_text="Refused inputs: design field → message.")
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = OrgScopedQuerySet.as_manager()

    # The JSON is large and written once; the trail records the status moves.
    audit_exclude = ("created_at", "updated_at", "inputs", "result")

    class Meta:
        ordering = ["design", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["design", "number"], name="clusters_run_number_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.design} run {self.number}"

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        designs = ClusterDesign.objects.filter(ClusterDesign.org_scope_q(organisation_id, action))
        return Q(design__in=designs.values("pk"))
