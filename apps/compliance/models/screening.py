from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from apps.core.models import AuditedModel, OrgScopedQuerySet, TimeStampedModel


class ScreeningList(AuditedModel):
    """One imported edition of a restricted-party list (CSL, OpenSanctions …)."""

    name = models.CharField(max_length=120, help_text="e.g. 'US Consolidated Screening List'.")
    source_format = models.CharField(max_length=20)
    version = models.CharField(max_length=60)
    published = models.DateField(null=True, blank=True)
    entry_count = models.PositiveIntegerField(default=0)
    is_active = models.BooleanField(default=True)
    imported_at = models.DateTimeField(auto_now_add=True)
    imported_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        ordering = ["-imported_at"]
        constraints = [
            models.UniqueConstraint(fields=["name", "version"], name="compliance_list_version_unique")
        ]

    def __str__(self) -> str:
        return f"{self.name} {self.version}"


class ScreeningListEntry(models.Model):
    """A listed party, with its aliases and countries, as the list published it."""

    screening_list = models.ForeignKey(ScreeningList, on_delete=models.CASCADE, related_name="entries")
    entry_id = models.CharField(max_length=100)
    name = models.CharField(max_length=500)
    aliases = models.JSONField(default=list, blank=True)
    countries = models.JSONField(default=list, blank=True)
    source = models.CharField(max_length=200)
    entity_type = models.CharField(max_length=40, blank=True)
    programs = models.JSONField(default=list, blank=True)
    entity_number = models.CharField(max_length=60, blank=True)
    license_requirement = models.TextField(blank=True)
    remarks = models.TextField(blank=True)
    fingerprint = models.CharField(max_length=64, help_text="Changes when the entry's content changes.")

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["screening_list", "entry_id"], name="compliance_entry_unique")
        ]
        indexes = [models.Index(fields=["entry_id"])]

    def __str__(self) -> str:
        return f"{self.name} ({self.source})"

    @property
    def list_kind(self) -> str:
        """Entity List, Denied Persons, Unverified, MEU or other: decides what a confirmed hit means."""
        source = self.source.lower()
        for needle, kind in (
            ("entity list", "entity_list"),
            ("denied", "denied_persons"),
            ("unverified", "unverified_list"),
            ("military end user", "military_end_user"),
        ):
            if needle in source:
                return kind
        return "sanctions"

    @property
    def as_listed(self) -> str:
        """The entry as a determination names it: its name as listed, its list and entity number."""
        where = ", ".join(part for part in (self.source.split(" - ")[0], self.entity_number) if part)
        return f"{self.name} — {where}" if where else self.name


# What `ScreeningListEntry.list_kind` returns, as people write it.
LIST_KIND_LABELS = {
    "entity_list": "Entity List",
    "denied_persons": "Denied Persons List",
    "unverified_list": "Unverified List",
    "military_end_user": "Military End-User List",
    "sanctions": "Sanctions list",
}


class Screening(TimeStampedModel):
    """Names screened against the active lists at one moment, with the hits found."""

    organisation = models.ForeignKey(
        "accounts.Organisation",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="screenings",
        help_text="Empty for an ad-hoc name check.",
    )
    requested_by_organisation = models.ForeignKey(
        "accounts.Organisation", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    names = models.JSONField(help_text="The name and aliases screened.")
    country = models.CharField(max_length=2, blank=True)
    threshold = models.DecimalField(max_digits=4, decimal_places=3)
    list_versions = models.JSONField(default=list, blank=True, help_text="Which list editions were searched.")
    hit_count = models.PositiveIntegerField(default=0)
    open_hit_count = models.PositiveIntegerField(default=0)
    screened_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    trigger = models.CharField(
        max_length=20, default="manual", help_text="manual, ad_hoc, list_update, compliance_check"
    )

    objects = OrgScopedQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Screening of {self.names[0] if self.names else '?'} ({self.created_at:%Y-%m-%d})"

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        return Q(requested_by_organisation_id=organisation_id)

    @property
    def hit_list(self) -> list[ScreeningHit]:
        """The hits, best first: those just recorded (kept in memory, so answering the request
        that made them reads nothing back), else the prefetched or queried ones."""
        recorded = self.__dict__.get("_recorded_hits")
        return recorded if recorded is not None else list(self.hits.all())


class HitStatus(models.TextChoices):
    OPEN = "open", "Open: awaiting review"
    CLEARED = "cleared", "Cleared: false positive"
    CONFIRMED = "confirmed", "Confirmed: party blocked"
    PREVIOUSLY_CLEARED = "previously_cleared", "Cleared earlier for this entry"
    PREVIOUSLY_CONFIRMED = "previously_confirmed", "Confirmed earlier: party already blocked"
    DUPLICATE = "duplicate", "Already awaiting review for this entry"
    REVERSED = "reversed", "Confirmed, then reversed"


class ScreeningHit(TimeStampedModel):
    """A potential match, reviewed by a compliance officer.

    A party's hits are keyed by the organisation and the list's own id of the entry
    (`list_entry_id`), which stays the same across editions of the list while the entry rows do
    not: an organisation has at most one open hit per listed entry (a database constraint), and
    a decision on it stands for the later screenings of that organisation (see the statuses).
    Ad hoc screenings' hits (no organisation) are never reviewed.
    """

    screening = models.ForeignKey(Screening, on_delete=models.CASCADE, related_name="hits")
    entry = models.ForeignKey(ScreeningListEntry, on_delete=models.PROTECT, related_name="hits")
    organisation = models.ForeignKey(
        "accounts.Organisation",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="screening_hits",
        help_text="The screened organisation (the screening's); empty for an ad hoc name check.",
    )
    list_entry_id = models.CharField(
        max_length=100, help_text="The list's own id of the entry, the same in every edition of the list."
    )
    entry_fingerprint = models.CharField(max_length=64)
    matched_name = models.CharField(max_length=500)
    query_name = models.CharField(max_length=500)
    score = models.DecimalField(max_digits=5, decimal_places=4)
    country_match = models.BooleanField(null=True)
    reasons = models.JSONField(default=list, blank=True)
    status = models.CharField(max_length=20, choices=HitStatus.choices, default=HitStatus.OPEN)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["-score", "id"]
        indexes = [
            models.Index(fields=["status"]),
            models.Index(
                fields=["organisation", "list_entry_id", "status"], name="compliance_hit_party_entry"
            ),
        ]
        constraints = [
            # Never two open hits for one party and listed entry: a second screening records a
            # duplicate instead (screening_record), and concurrent ones cannot both insert one.
            models.UniqueConstraint(
                fields=["organisation", "list_entry_id"],
                condition=Q(status="open"),
                name="compliance_one_open_hit_per_party_entry",
            )
        ]

    def __str__(self) -> str:
        return f"{self.query_name} ~ {self.matched_name} ({self.score})"


class PartyBlock(AuditedModel):
    """An organisation blocked by a confirmed screening hit; shipments naming it are held."""

    organisation = models.ForeignKey("accounts.Organisation", on_delete=models.CASCADE, related_name="blocks")
    hit = models.ForeignKey(ScreeningHit, on_delete=models.PROTECT, related_name="+")
    list_kind = models.CharField(max_length=30)
    reason = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)
    # Reversing a confirmed match: one officer asks with a reason, a second approves (four eyes,
    # unless the operator organisation has switched that off).
    lift_requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    lift_requested_at = models.DateTimeField(null=True, blank=True)
    lift_reason = models.TextField(blank=True)
    lifted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    lifted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.organisation} blocked ({self.list_kind})"

    @property
    def is_active(self) -> bool:
        return self.lifted_at is None

    @property
    def lift_pending(self) -> bool:
        """A lift was requested and waits for a second officer's approval."""
        return self.is_active and self.lift_requested_at is not None

    @property
    def list_kind_label(self) -> str:
        return LIST_KIND_LABELS.get(self.list_kind, self.list_kind.replace("_", " ").capitalize())
