"""Bills of materials of a cluster design: versions made from one sizing run, and their lines
(a catalogue part, its role, the engine's quantity and the one the planner settled on).

Who sees what (docs/security.md): versions and their lines follow their design (its owner and its
customer read them; only the owner changes them).
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator
from django.db import models
from django.db.models import Q

from apps.core.models import AuditedModel, OrgScopedQuerySet, TimeStampedModel

from .designs import ClusterDesign, SizingRun


class BomRole(models.TextChoices):
    """The engine's bill-of-materials roles (`engines.types.BomRole`), stored with each line."""

    SYSTEM = "system", "System"
    COMPUTE_LEAF = "compute_leaf", "Compute leaf switch"
    COMPUTE_SPINE = "compute_spine", "Compute spine switch"
    COMPUTE_CORE = "compute_core", "Compute core switch"
    COMPUTE_NODE_OPTIC = "compute_node_optic", "Compute transceiver, node side"
    COMPUTE_SWITCH_OPTIC = "compute_switch_optic", "Compute transceiver, switch side"
    COMPUTE_CABLE = "compute_cable", "Compute cable"
    STORAGE_APPLIANCE = "storage_appliance", "Storage appliance"
    STORAGE_LEAF = "storage_leaf", "Storage leaf switch"
    STORAGE_SPINE = "storage_spine", "Storage spine switch"
    STORAGE_CORE = "storage_core", "Storage core switch"
    STORAGE_NODE_OPTIC = "storage_node_optic", "Storage transceiver, node side"
    STORAGE_SWITCH_OPTIC = "storage_switch_optic", "Storage transceiver, switch side"
    STORAGE_CABLE = "storage_cable", "Storage cable"
    INBAND_SWITCH = "inband_switch", "In-band management switch"
    INBAND_CABLE = "inband_cable", "In-band management cable"
    OOB_SWITCH = "oob_switch", "Out-of-band management switch"
    OOB_CABLE = "oob_cable", "Out-of-band management cable"
    RACK = "rack", "Rack"
    PDU = "pdu", "PDU"
    CDU = "cdu", "CDU"


class BomStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    ISSUED = "issued", "Issued"


class BillOfMaterials(AuditedModel, TimeStampedModel):
    """A version of a design's bill of materials, made from one sizing run. A draft's quantities
    may be edited (audited); an issued one is fixed: a change means a new version."""

    design = models.ForeignKey(ClusterDesign, on_delete=models.CASCADE, related_name="boms")
    # RESTRICT: a run a version was made from stays, unless its whole design goes.
    run = models.ForeignKey(SizingRun, on_delete=models.RESTRICT, related_name="boms")
    version = models.PositiveIntegerField(help_text="1, 2, 3 … per design.")
    status = models.CharField(max_length=8, choices=BomStatus.choices, default=BomStatus.DRAFT)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    issued_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    issued_at = models.DateTimeField(null=True, blank=True)

    objects = OrgScopedQuerySet.as_manager()

    class Meta:
        ordering = ["design", "-version"]
        verbose_name_plural = "bills of materials"
        constraints = [
            models.UniqueConstraint(fields=["design", "version"], name="clusters_bom_version_unique"),
            models.CheckConstraint(
                condition=Q(status="draft") | Q(issued_at__isnull=False),
                name="clusters_bom_issued_has_date",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.design} BOM v{self.version}"

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        designs = ClusterDesign.objects.filter(ClusterDesign.org_scope_q(organisation_id, action))
        return Q(design__in=designs.values("pk"))


class BomLine(AuditedModel, TimeStampedModel):
    """A catalogue part and how many, in the role the engine gave it (`engine_quantity`), and the
    quantity the planner settled on (`quantity`, edited with a note)."""

    bom = models.ForeignKey(BillOfMaterials, on_delete=models.CASCADE, related_name="lines")
    part = models.ForeignKey("catalog.Part", on_delete=models.PROTECT, related_name="bom_lines")
    role = models.CharField(max_length=24, choices=BomRole.choices)
    quantity = models.PositiveIntegerField(validators=[MaxValueValidator(100_000_000)])
    engine_quantity = models.PositiveIntegerField(help_text="What the sizing engine worked out.")
    figure = models.CharField(max_length=100, blank=True, help_text="The result figure explaining it.")
    note = models.CharField(
        max_length=500, blank=True, help_text="Why the quantity differs from the engine's."
    )
    # The supplier's lead time for this line: the shipment plan reads the goods as ready at the
    # factory that many days after the plan's date (empty: ready now). Planning data, not what is
    # ordered, so it may change on an issued version too.
    lead_time_days = models.PositiveSmallIntegerField(
        "lead time (days)",
        null=True,
        blank=True,
        validators=[MaxValueValidator(730)],
        help_text="Days from order until the supplier has the goods ready to ship; empty: ready now.",
    )

    objects = OrgScopedQuerySet.as_manager()

    class Meta:
        ordering = ["bom", "id"]
        constraints = [
            models.UniqueConstraint(fields=["bom", "role", "part"], name="clusters_bom_line_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.quantity} × {self.part.part_number} ({self.role})"

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        designs = ClusterDesign.objects.filter(ClusterDesign.org_scope_q(organisation_id, action))
        return Q(bom__design__in=designs.values("pk"))
