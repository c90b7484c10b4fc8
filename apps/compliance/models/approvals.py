"""Four-eyes approvals: a compliance decision that loosens control, asked for by one compliance
officer and approved (or rejected) by another of the same organisation.

The decisions are an override that lowers an export classification's control, confirming a
default classification, releasing a compliance hold, lifting a block (reversing a confirmed
match) and switching the four-eyes policy itself off or on. Until approved a decision has no
effect. While the organisation's policy is off, a decision is taken alone and its row says under
which policy change (`four_eyes_note`). Rows are written only by `services.approvals`.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from apps.core.models import AuditedModel, OrgScopedQuerySet


class ApprovalKind(models.TextChoices):
    CLASSIFICATION_OVERRIDE = "classification_override", "Classification override"
    DEFAULT_CONFIRMATION = "default_confirmation", "Confirming a default classification"
    HOLD_RELEASE = "hold_release", "Releasing a compliance hold"
    BLOCK_LIFT = "block_lift", "Lifting a block"
    POLICY_CHANGE = "policy_change", "Switching four eyes off or on"
    HIT_CLEARANCE = "hit_clearance", "Clearing a possible match"


class ApprovalStatus(models.TextChoices):
    PENDING = "pending", "Awaiting second officer"
    APPROVED = "approved", "Approved by a second officer"
    REJECTED = "rejected", "Rejected by a second officer"
    WITHDRAWN = "withdrawn", "Withdrawn"
    DECIDED_ALONE = "decided_alone", "Decided alone (four eyes off)"
    # A classification change that raises control: taken at once, recorded for the history.
    NOT_NEEDED = "not_needed", "Taken at once (raises control)"


# The only moves of a row once written: a pending request is approved, rejected or withdrawn.
# The other statuses are written once, when the decision is taken without waiting.
APPROVAL_TRANSITIONS: dict[str, frozenset[str]] = {
    ApprovalStatus.PENDING: frozenset(
        {ApprovalStatus.APPROVED, ApprovalStatus.REJECTED, ApprovalStatus.WITHDRAWN}
    ),
}

_PENDING = Q(status=ApprovalStatus.PENDING)


class ComplianceApproval(AuditedModel):
    """One compliance decision and who asked for and approved it (see the module docstring)."""

    organisation = models.ForeignKey(
        "accounts.Organisation",
        on_delete=models.PROTECT,
        related_name="+",
        help_text="The organisation whose compliance officers decide (the requester's).",
    )
    kind = models.CharField(max_length=30, choices=ApprovalKind.choices)
    status = models.CharField(max_length=20, choices=ApprovalStatus.choices, default=ApprovalStatus.PENDING)
    reason = models.TextField(help_text="Why the requesting officer asks for the decision.")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    requested_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_note = models.TextField(blank=True, help_text="Why a second officer rejected the request.")
    four_eyes_note = models.CharField(
        max_length=300,
        blank=True,
        help_text="Set when the decision was taken alone: the policy change that switched four eyes off.",
    )
    # What is decided on (by kind): the part and the ECCN proposed; the hold reason a default
    # confirmation answers; the held shipment; the block; the policy asked for; the hit to clear.
    part = models.ForeignKey(
        "catalog.Part", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    eccn_before = models.CharField("ECCN before", max_length=20, blank=True)
    eccn = models.CharField("ECCN proposed", max_length=20, blank=True)
    control_change = models.CharField(
        max_length=300, blank=True, help_text="What the change does to control."
    )
    hold_reason = models.ForeignKey(
        "compliance.HoldReason", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    shipment = models.ForeignKey(
        "shipments.Shipment", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    block = models.ForeignKey(
        "compliance.PartyBlock", null=True, blank=True, on_delete=models.CASCADE, related_name="approvals"
    )
    four_eyes = models.BooleanField(null=True, blank=True, help_text="The policy asked for (policy changes).")
    hit = models.ForeignKey(
        "compliance.ScreeningHit",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="clearance_requests",
        help_text="The possible match asked to be cleared as a false positive.",
    )
    classification = models.ForeignKey(
        "compliance.PartClassification",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The classification the decision made current.",
    )

    objects = OrgScopedQuerySet.as_manager()

    class Meta:
        ordering = ["-requested_at", "-id"]
        indexes = [models.Index(fields=["status", "kind"])]
        constraints = [
            models.CheckConstraint(condition=~Q(reason=""), name="compliance_approval_needs_reason"),
            # Four eyes in the database too: an approval is never the requester's own.
            models.CheckConstraint(
                condition=~Q(status=ApprovalStatus.APPROVED)
                | (Q(decided_by__isnull=False) & ~Q(decided_by=F("requested_by"))),
                name="compliance_approval_second_officer",
            ),
            models.CheckConstraint(
                condition=~Q(status=ApprovalStatus.DECIDED_ALONE) | ~Q(four_eyes_note=""),
                name="compliance_decided_alone_says_why",
            ),
            # One request waits per subject at a time.
            models.UniqueConstraint(
                fields=["part"],
                condition=_PENDING & Q(part__isnull=False),
                name="compliance_one_pending_per_part",
            ),
            models.UniqueConstraint(
                fields=["shipment"],
                condition=_PENDING & Q(shipment__isnull=False),
                name="compliance_one_pending_per_shipment",
            ),
            models.UniqueConstraint(
                fields=["block"],
                condition=_PENDING & Q(block__isnull=False),
                name="compliance_one_pending_per_block",
            ),
            models.UniqueConstraint(
                fields=["hit"],
                condition=_PENDING & Q(hit__isnull=False),
                name="compliance_one_pending_per_hit",
            ),
            models.UniqueConstraint(
                fields=["organisation"],
                condition=_PENDING & Q(kind=ApprovalKind.POLICY_CHANGE),
                name="compliance_one_pending_policy_change",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.subject} ({self.get_status_display().lower()})"

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        return Q(organisation_id=organisation_id)

    @property
    def is_pending(self) -> bool:
        return self.status == ApprovalStatus.PENDING

    @property
    def subject(self) -> str:
        """What the decision is about, in words (reads the related rows: select them with it)."""
        if self.kind in (ApprovalKind.CLASSIFICATION_OVERRIDE, ApprovalKind.DEFAULT_CONFIRMATION):
            before = self.eccn_before or "unclassified"
            if self.kind == ApprovalKind.DEFAULT_CONFIRMATION:
                return f"{self.part}: confirm {self.eccn}"
            return f"{self.part}: {before} → {self.eccn}"
        if self.kind == ApprovalKind.HOLD_RELEASE:
            return f"{self.shipment}: release the compliance hold"
        if self.kind == ApprovalKind.BLOCK_LIFT:
            return f"{self.block.organisation}: lift the block" if self.block_id else "lift a block"
        if self.kind == ApprovalKind.HIT_CLEARANCE:
            if not self.hit_id:
                return "clear a possible match"
            return f"{self.hit.organisation}: clear the possible match with {self.hit.entry.name}"
        return f"four eyes {'on' if self.four_eyes else 'off'}"
