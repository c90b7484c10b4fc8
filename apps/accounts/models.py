"""Organisations, their registrations and contacts, users with roles, and hashed API tokens."""

from __future__ import annotations

import hashlib
import secrets

from django.contrib.auth.models import AbstractUser, UserManager
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from apps.core.fields import CountryField
from apps.core.models import AuditedModel, OrgScopedQuerySet, TimeStampedModel

from . import registrations
from .roles import Role, has_capability


class OrganisationKind(models.TextChoices):
    OPERATOR = "operator", "Operator (Rackpass)"
    SUPPLIER = "supplier", "Supplier / manufacturer"
    FREIGHT_FORWARDER = "freight_forwarder", "Freight forwarder"
    CUSTOMS_BROKER = "customs_broker", "Customs broker"
    IOR_PROVIDER = "ior_provider", "Importer-of-record provider"
    EOR_PROVIDER = "eor_provider", "Exporter-of-record provider"
    CUSTOMER = "customer", "Customer / end user"


class OrganisationQuerySet(OrgScopedQuerySet):
    def nameable_by(self, user) -> OrganisationQuerySet:
        """The organisations `user` may name as a party (of a shipment, a licence …): for operator
        staff every active organisation; for a partner its own and the active organisations the
        operator has connected it with (`Connection`). Nobody else: naming must not reach them."""
        if not getattr(user, "is_authenticated", False) or not user.can_sign_in:
            return self.none()
        active = self.filter(is_active=True)
        if user.is_operator_staff:
            return active
        if user.organisation_id is None:
            return self.none()
        own = user.organisation_id
        return active.filter(Q(pk=own) | Q(pk__in=Connection.objects.partners_of(own)))


class Organisation(AuditedModel, TimeStampedModel):
    """A company Rackpass deals with; users belong to exactly one."""

    kind = models.CharField(max_length=20, choices=OrganisationKind.choices)
    legal_name = models.CharField(max_length=200, unique=True)
    trading_name = models.CharField(max_length=200, blank=True)
    address_line1 = models.CharField("address line 1", max_length=200)
    address_line2 = models.CharField("address line 2", max_length=200, blank=True)
    city = models.CharField(max_length=100)
    region = models.CharField("state / region", max_length=100, blank=True)
    postal_code = models.CharField(max_length=20, blank=True)
    country = CountryField()
    website = models.URLField(blank=True)
    notes = models.TextField(blank=True)
    is_active = models.BooleanField(default=True)
    compliance_four_eyes = models.BooleanField(
        "compliance four eyes",
        default=True,
        help_text=(
            "Four eyes: an override that lowers an export classification's control, confirming a default "
            "classification, releasing a compliance hold and lifting a blocked party each need a second "
            "compliance officer of this organisation. Changed only by two compliance officers (one asks, "
            "another approves, on the compliance pages); never in a form or the admin."
        ),
    )
    # Who last switched it, for the note every decision taken while it is off carries (written
    # with it by the compliance services' policy approval).
    four_eyes_changed_by = models.ForeignKey(
        "User", null=True, blank=True, on_delete=models.PROTECT, related_name="+", editable=False
    )
    four_eyes_approved_by = models.ForeignKey(
        "User", null=True, blank=True, on_delete=models.PROTECT, related_name="+", editable=False
    )
    four_eyes_changed_at = models.DateTimeField(null=True, blank=True, editable=False)

    objects = OrganisationQuerySet.as_manager()

    class Meta:
        ordering = ["legal_name"]
        constraints = [
            # Exactly one operator: "us". Everything operator-wide hangs off it.
            models.UniqueConstraint(
                fields=["kind"], condition=Q(kind="operator"), name="accounts_single_operator"
            )
        ]

    def __str__(self) -> str:
        return self.legal_name

    def get_absolute_url(self) -> str:
        return reverse("accounts:organisation-detail", args=[self.pk])

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        return Q(pk=organisation_id)

    @property
    def active_blocks(self) -> list:
        """The blocks in force on this party (compliance's PartyBlocks, through their `blocks`
        relation): those prefetched by `active_blocks_prefetch()`, else read now."""
        prefetched = self.__dict__.get("_active_blocks")
        if prefetched is not None:
            return prefetched
        return list(self.blocks.filter(lifted_at__isnull=True).select_related("lift_requested_by"))

    @classmethod
    def active_blocks_prefetch(cls, *related: str) -> models.Prefetch:
        """Prefetch each organisation's blocks in force (with `related` joined) into
        `active_blocks`. Reached through the reverse relation, so accounts imports nothing from
        compliance."""
        block_model = cls.blocks.rel.related_model
        blocks = block_model.objects.filter(lifted_at__isnull=True).select_related(*related)
        return models.Prefetch("blocks", queryset=blocks.order_by("created_at"), to_attr="_active_blocks")

    @property
    def is_blocked(self) -> bool:
        """A confirmed restricted-party match blocks the organisation until it is reversed."""
        return bool(self.active_blocks)

    @property
    def four_eyes_note(self) -> str:
        """Empty while four eyes is on; else what every decision taken alone records and shows:
        "four eyes off (policy changed by X, approved by Y on date)"."""
        if self.compliance_four_eyes:
            return ""
        if self.four_eyes_changed_at is None:
            return "four eyes off (switched off before policy changes were recorded)"
        changed, approved = (
            (user.get_full_name() or user.username) if user else "unknown"
            for user in (self.four_eyes_changed_by, self.four_eyes_approved_by)
        )
        return (
            f"four eyes off (policy changed by {changed}, approved by {approved} on "
            f"{timezone.localtime(self.four_eyes_changed_at):%Y-%m-%d})"
        )

    @property
    def address_lines(self) -> list[str]:
        city_line = " ".join(p for p in (self.postal_code, self.city) if p)
        return [
            p
            for p in (
                self.address_line1,
                self.address_line2,
                city_line,
                self.region,
                self.get_country_display(),
            )
            if p
        ]


class Registration(AuditedModel, TimeStampedModel):
    """A tax or trade registration of an organisation (EORI, IEC, GSTIN, EIN …)."""

    class Scheme(models.TextChoices):
        EORI = registrations.Scheme.EORI.value, registrations.LABELS[registrations.Scheme.EORI]
        IEC = registrations.Scheme.IEC.value, registrations.LABELS[registrations.Scheme.IEC]
        GSTIN = registrations.Scheme.GSTIN.value, registrations.LABELS[registrations.Scheme.GSTIN]
        EIN = registrations.Scheme.EIN.value, registrations.LABELS[registrations.Scheme.EIN]
        VAT = registrations.Scheme.VAT.value, registrations.LABELS[registrations.Scheme.VAT]
        UEN = registrations.Scheme.UEN.value, registrations.LABELS[registrations.Scheme.UEN]
        OTHER = registrations.Scheme.OTHER.value, registrations.LABELS[registrations.Scheme.OTHER]

    organisation = models.ForeignKey(Organisation, on_delete=models.CASCADE, related_name="registrations")
    scheme = models.CharField(max_length=10, choices=Scheme.choices)
    number = models.CharField(max_length=40)
    country = CountryField(help_text="Country that issued the registration.")
    valid_until = models.DateField(null=True, blank=True)

    objects = OrgScopedQuerySet.as_manager()

    class Meta:
        ordering = ["scheme", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["scheme", "country", "number"], name="accounts_registration_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_scheme_display().split(' (')[0]} {self.number}"

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        return Q(organisation_id=organisation_id)

    def clean(self) -> None:
        self.number = registrations.normalise(self.scheme, self.number)
        problem = registrations.format_problem(self.scheme, self.number)
        if problem:
            raise ValidationError({"number": problem})

    @property
    def is_expired(self) -> bool:
        return self.valid_until is not None and self.valid_until < timezone.localdate()


class ConnectionQuerySet(OrgScopedQuerySet):
    def between(self, organisation, other) -> ConnectionQuerySet:
        """The connection of two organisations (whichever order they are given in)."""
        a, b = sorted((_pk(organisation), _pk(other)))
        return self.filter(organisation_a_id=a, organisation_b_id=b)

    def partners_of(self, organisation) -> models.QuerySet:
        """Ids of the organisations connected with `organisation`, as a subquery."""
        org_id = _pk(organisation)
        return (
            self.filter(Q(organisation_a_id=org_id) | Q(organisation_b_id=org_id))
            .annotate(
                partner=models.Case(
                    models.When(organisation_a_id=org_id, then=models.F("organisation_b_id")),
                    default=models.F("organisation_a_id"),
                )
            )
            .values("partner")
        )


def _pk(value) -> int:
    return value if isinstance(value, int) else value.pk


class Connection(AuditedModel):
    """Two organisations the operator has recorded as working together (a supplier and its customer,
    a customer and its forwarder …). Symmetric: stored once, the lower id first.

    A partner names as parties only its own organisation and those it is connected with, and a
    party reaches a partner's shipment only while the two stay connected. Operator staff keep
    connections (`connections.manage`); the operator itself works with everyone and is never
    connected."""

    organisation_a = models.ForeignKey(Organisation, on_delete=models.CASCADE, related_name="+")
    organisation_b = models.ForeignKey(Organisation, on_delete=models.CASCADE, related_name="+")
    note = models.CharField(
        max_length=300,
        blank=True,
        help_text="Why they work together, e.g. 'forwarder for pod 2'. Read by operator staff only.",
    )
    created_by = models.ForeignKey(
        "accounts.User", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    audit_exclude = ("created_at",)

    objects = ConnectionQuerySet.as_manager()

    class Meta:
        ordering = ["organisation_a__legal_name", "organisation_b__legal_name"]
        constraints = [
            models.UniqueConstraint(
                fields=["organisation_a", "organisation_b"], name="accounts_connection_unique"
            ),
            # One row per pair: the lower id first, never an organisation with itself.
            models.CheckConstraint(
                condition=Q(organisation_a__lt=models.F("organisation_b")), name="accounts_connection_ordered"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.organisation_a} ↔ {self.organisation_b}"

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        return Q(organisation_a_id=organisation_id) | Q(organisation_b_id=organisation_id)

    def clean(self) -> None:
        if self.organisation_a_id is None or self.organisation_b_id is None:
            return
        if self.organisation_a_id == self.organisation_b_id:
            raise ValidationError({"organisation_b": "An organisation is not connected with itself."})
        if OrganisationKind.OPERATOR in (self.organisation_a.kind, self.organisation_b.kind):
            raise ValidationError(
                {
                    "organisation_b": "The operator works with every organisation; "
                    "connect two other organisations."
                }
            )
        if self.organisation_a_id > self.organisation_b_id:  # stored once per pair, lower id first
            self.organisation_a, self.organisation_b = self.organisation_b, self.organisation_a

    def other_than(self, organisation) -> Organisation:
        return self.organisation_b if self.organisation_a_id == _pk(organisation) else self.organisation_a


class RecordService(models.TextChoices):
    IMPORTER_OF_RECORD = "ior", "Importer of record"
    EXPORTER_OF_RECORD = "eor", "Exporter of record"


class ServiceCoverage(AuditedModel, TimeStampedModel):
    """A country where an IOR or EOR provider acts as importer or exporter of record."""

    organisation = models.ForeignKey(Organisation, on_delete=models.CASCADE, related_name="coverage")
    service = models.CharField(max_length=3, choices=RecordService.choices)
    country = CountryField()

    objects = OrgScopedQuerySet.as_manager()

    class Meta:
        ordering = ["service", "country"]
        constraints = [
            models.UniqueConstraint(
                fields=["organisation", "service", "country"], name="accounts_coverage_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_service_display()} in {self.country}"

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        return Q(organisation_id=organisation_id)


class Contact(AuditedModel, TimeStampedModel):
    """A person to talk to at an organisation."""

    organisation = models.ForeignKey(Organisation, on_delete=models.CASCADE, related_name="contacts")
    name = models.CharField(max_length=200)
    job_title = models.CharField(max_length=200, blank=True)
    email = models.EmailField()
    phone = models.CharField(max_length=40, blank=True)
    is_primary = models.BooleanField(default=False)
    is_signatory = models.BooleanField(
        "authorised signatory",
        default=False,
        help_text=(
            "Signs trade documents for the organisation: the declarations it makes (commercial "
            "invoice, packing list, certificate of origin, SLI, end-user statement) and the IOR/EOR "
            "authorisations it gives. Needs a job title."
        ),
    )

    objects = OrgScopedQuerySet.as_manager()

    class Meta:
        ordering = ["-is_primary", "name"]
        constraints = [
            # A document prints the signatory's name and title: no signatory without a title.
            models.CheckConstraint(
                condition=Q(is_signatory=False) | ~Q(job_title=""), name="accounts_signatory_has_title"
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} <{self.email}>"

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        return Q(organisation_id=organisation_id)

    def clean(self) -> None:
        self.job_title = self.job_title.strip()
        if self.is_signatory and not self.job_title:
            raise ValidationError(
                {"job_title": "An authorised signatory needs a job title: documents print it under the name."}
            )


class RackpassUserManager(UserManager):
    def get_queryset(self):
        # The organisation decides scoping on every request; load it with the user.
        return super().get_queryset().select_related("organisation")


class User(AuditedModel, AbstractUser):
    """A person who signs in. Belongs to one organisation and holds one role."""

    audit_exclude = ("password", "last_login")

    organisation = models.ForeignKey(Organisation, on_delete=models.PROTECT, related_name="users", null=True)
    role = models.CharField(max_length=20, choices=Role.choices, default=Role.PARTNER)

    objects = RackpassUserManager()

    class Meta(AbstractUser.Meta):
        swappable = "AUTH_USER_MODEL"

    @property
    def is_operator_staff(self) -> bool:
        """Staff of the operator organisation: they see every organisation's objects."""
        if self.is_superuser:
            return True
        return (
            self.organisation_id is not None
            and self.organisation.kind == OrganisationKind.OPERATOR
            and self.role != Role.PARTNER
        )

    @property
    def can_sign_in(self) -> bool:
        """Active, and so is the organisation: a deactivated organisation's users are refused by
        the login form, their sessions and their API tokens (and see and may do nothing)."""
        if not self.is_active:
            return False
        return self.organisation_id is None or self.organisation.is_active

    def can(self, capability: str) -> bool:
        return self.can_sign_in and has_capability(self.role, capability, is_superuser=self.is_superuser)

    def clean(self) -> None:
        super().clean()
        staff_role_outside_operator = (
            self.organisation_id
            and self.role != Role.PARTNER
            and not self.is_superuser
            and self.organisation.kind != OrganisationKind.OPERATOR
        )
        if staff_role_outside_operator:
            raise ValidationError({"role": "Users of a partner organisation hold the partner role."})


class ApiTokenQuerySet(OrgScopedQuerySet):
    def active(self):
        now = timezone.now()
        return self.filter(revoked_at__isnull=True).filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now))


class ApiToken(AuditedModel):
    """A partner's API key. Only its SHA-256 digest is stored; the key is shown once, at creation."""

    PREFIX = "rp_"
    audit_exclude = ("digest", "last_used_at")

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100, help_text="What the token is for, e.g. 'TMS integration'.")
    key_prefix = models.CharField(max_length=12, help_text="First characters of the key, to recognise it.")
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.key_prefix}…)"

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        return Q(user__organisation_id=organisation_id)

    @staticmethod
    def hash_key(key: str) -> str:
        # Keys carry 256 bits of randomness, so a fast hash is enough: nothing to brute-force.
        return hashlib.sha256(key.encode()).hexdigest()

    @classmethod
    def generate_key(cls) -> str:
        return cls.PREFIX + secrets.token_urlsafe(32)

    @property
    def status(self) -> str:
        if self.revoked_at:
            return "revoked"
        if self.expires_at and self.expires_at <= timezone.now():
            return "expired"
        return "active"
