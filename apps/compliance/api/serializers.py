from decimal import Decimal

from django.urls import reverse
from rest_framework import serializers

from apps.accounts.models import Organisation, OrganisationKind
from apps.catalog.models import TPP_MAX, Part
from apps.core.api import ScopedPrimaryKeyRelatedField
from apps.core.countries import COUNTRY_CHOICES
from apps.core.disclosure import person_label
from apps.shipments.models import EndUseFlag, PartyRole, ShipmentStatus

from .. import disclosure
from ..engines.eccn import eccn_problem, normalise_eccn
from ..models import (
    ApprovalKind,
    CheckLineResult,
    CheckPartyResult,
    ComplianceApproval,
    ComplianceCheck,
    HoldReason,
    Licence,
    LicenceDrawdown,
    PartClassification,
    PartyBlock,
    Screening,
    ScreeningHit,
    ScreeningList,
)
from ..services.fingerprint import shipment_fingerprint
from ..services.licences import remaining


class EccnField(serializers.CharField):
    """An ECCN, normalised (4a090.A → 4A090.a) and checked against the real structure."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", 20)
        kwargs.setdefault("help_text", "An ECCN such as 4A090.a, 5A992.c or EAR99 (case is normalised).")
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        value = normalise_eccn(super().to_internal_value(data))
        if problem := eccn_problem(value):
            raise serializers.ValidationError(problem)
        return value


class ClassificationSerializer(serializers.ModelSerializer):
    part_number = serializers.CharField(source="part.part_number", read_only=True)
    created_by = serializers.CharField(
        source="created_by.username", default=None, allow_null=True, read_only=True
    )

    class Meta:
        model = PartClassification
        fields = [
            "id",
            "part",
            "part_number",
            "eccn",
            "is_complete",
            "needs_confirmation",
            "source",
            "reasoning",
            "figures_used",
            "missing",
            "rule_version",
            "override_reason",
            "is_current",
            "created_by",
            "created_at",
        ]
        read_only_fields = ["part"]

    def to_representation(self, instance):
        data = super().to_representation(instance)
        viewer = _viewer(self)
        if viewer is not None and instance.created_by_id:
            data["created_by"] = person_label(instance.created_by, viewer, own=data["created_by"])
        return data


def _viewer(serializer):
    request = serializer.context.get("request")
    return getattr(request, "user", None)


class OverrideSerializer(serializers.Serializer):
    part = ScopedPrimaryKeyRelatedField(queryset=Part.objects.all())
    eccn = EccnField()
    reason = serializers.CharField()


class ClassifyRunSerializer(serializers.Serializer):
    part = ScopedPrimaryKeyRelatedField(queryset=Part.objects.all())


class DeterminationRequestSerializer(serializers.Serializer):
    eccn = EccnField()
    destination = serializers.CharField(max_length=2, help_text="ISO 3166-1 alpha-2")
    end_user_name = serializers.CharField(required=False, allow_blank=True, default="")
    end_user_country = serializers.ChoiceField(choices=COUNTRY_CHOICES(), required=False)
    end_user_headquarters = serializers.ChoiceField(choices=COUNTRY_CHOICES(), required=False)
    entity_list = serializers.BooleanField(default=False)
    denied_persons = serializers.BooleanField(default=False)
    unverified_list = serializers.BooleanField(default=False)
    list_entry = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=300,
        help_text="The list entry the end user's listing rests on, as listed (name, list, Federal Register "
        "notice): required with `entity_list`, so the determination names what it is based on.",
    )
    end_use_flags = serializers.ListField(
        child=serializers.ChoiceField(choices=EndUseFlag.choices), default=list
    )
    temporary = serializers.BooleanField(default=False)
    data_centre = serializers.BooleanField(default=True)
    tpp = serializers.DecimalField(
        max_digits=12, decimal_places=2, required=False, min_value=Decimal("0"), max_value=TPP_MAX
    )

    def validate(self, attrs):
        listed = attrs["entity_list"] or attrs["denied_persons"] or attrs["unverified_list"]
        errors = {}
        if listed and not attrs["end_user_name"].strip():
            errors["end_user_name"] = "Name the listed end user: the determination names who it is about."
        if attrs["entity_list"] and not attrs["list_entry"].strip():
            errors["list_entry"] = (
                "Name the Entity List entry the listing rests on (as listed, with its notice)."
            )
        if errors:
            raise serializers.ValidationError(errors)
        return attrs


class DrawdownSerializer(serializers.ModelSerializer):
    shipment = serializers.CharField(source="line.shipment.reference")
    line_number = serializers.IntegerField(source="line.line_number")

    class Meta:
        model = LicenceDrawdown
        fields = [
            "shipment",
            "line_number",
            "quantity",
            "value",
            "created_at",
            "released_at",
            "released_reason",
        ]


class LicenceSerializer(serializers.ModelSerializer):
    licensee = ScopedPrimaryKeyRelatedField(
        queryset=Organisation.objects.all(), help_text="The exporter the licence was issued to."
    )
    consignee = ScopedPrimaryKeyRelatedField(queryset=Organisation.objects.all())
    end_user = ScopedPrimaryKeyRelatedField(
        queryset=Organisation.objects.all(), allow_null=True, required=False
    )
    remaining_quantity = serializers.SerializerMethodField()
    remaining_value = serializers.SerializerMethodField()
    is_expired = serializers.BooleanField(read_only=True)

    class Meta:
        model = Licence
        fields = [
            "id",
            "number",
            "issuing_authority",
            "eccns",
            "destination_countries",
            "licensee",
            "consignee",
            "end_user",
            "permitted_quantity",
            "permitted_value",
            "currency",
            "valid_from",
            "expires_on",
            "conditions",
            "remaining_quantity",
            "remaining_value",
            "is_expired",
        ]
        validators: list = []

    def _left(self, obj):
        # Lists and details are given the figures for the page in one query; a create or an update
        # answers for its one licence, still less what shipments have drawn (never `permitted`).
        known = self.context.get("remaining", {})
        if obj.pk not in known:
            known = remaining([obj])
        return known[obj.pk]

    def get_remaining_quantity(self, obj) -> int:
        return self._left(obj)[0]

    def get_remaining_value(self, obj) -> str:
        return f"{self._left(obj)[1]:.2f}"


class ScreeningListSerializer(serializers.ModelSerializer):
    class Meta:
        model = ScreeningList
        fields = [
            "id",
            "name",
            "source_format",
            "version",
            "published",
            "entry_count",
            "is_active",
            "imported_at",
        ]


class ScreeningListImportSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=120, default="US Consolidated Screening List")
    source_format = serializers.ChoiceField(choices=["csl_json", "csl_csv", "opensanctions"])
    version = serializers.CharField(max_length=60, required=False, allow_blank=True, default="")
    file = serializers.FileField()


class HitSerializer(serializers.ModelSerializer):
    entry_name = serializers.CharField(source="entry.name")
    entry_source = serializers.CharField(source="entry.source")
    entry_countries = serializers.ListField(source="entry.countries", child=serializers.CharField())
    entry_programs = serializers.ListField(source="entry.programs", child=serializers.CharField())
    license_requirement = serializers.CharField(source="entry.license_requirement")
    organisation = serializers.CharField(
        source="organisation.legal_name", default=None, allow_null=True, read_only=True
    )
    list_entry_id = serializers.CharField(
        read_only=True, help_text="The list's own id of the entry, the same in every edition of the list."
    )

    class Meta:
        model = ScreeningHit
        fields = [
            "id",
            "organisation",
            "organisation_id",
            "list_entry_id",
            "query_name",
            "matched_name",
            "score",
            "country_match",
            "reasons",
            "status",
            "entry_name",
            "entry_source",
            "entry_countries",
            "entry_programs",
            "license_requirement",
            "decision_reason",
            "decided_at",
            "created_at",
        ]


class PartyShipmentSerializer(serializers.Serializer):
    """A shipment under way that names the hit's organisation, and the organisation's roles in it."""

    reference = serializers.CharField()
    status = serializers.ChoiceField(choices=ShipmentStatus.choices)
    roles = serializers.ListField(child=serializers.ChoiceField(choices=PartyRole.choices))
    url = serializers.SerializerMethodField()

    def get_url(self, obj) -> str:
        path = reverse("api:shipment-detail", args=[obj.reference])
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request else path


class QueueHitSerializer(HitSerializer):
    """A hit in the review queue, with the shipments its organisation is named in (not delivered
    or cancelled ones)."""

    shipments = PartyShipmentSerializer(many=True, read_only=True)

    class Meta(HitSerializer.Meta):
        fields = [*HitSerializer.Meta.fields, "shipments"]


class ScreeningSerializer(serializers.ModelSerializer):
    hits = HitSerializer(many=True, read_only=True, source="hit_list")
    note = serializers.SerializerMethodField()

    class Meta:
        model = Screening
        fields = [
            "id",
            "names",
            "country",
            "threshold",
            "list_versions",
            "hit_count",
            "open_hit_count",
            "trigger",
            "created_at",
            "hits",
            "note",
        ]

    def get_note(self, obj) -> str:
        from ..screening.matcher import OWNERSHIP_NOTE

        return OWNERSHIP_NOTE


class AdHocScreeningSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=300)
    aliases = serializers.ListField(child=serializers.CharField(max_length=300), default=list)
    country = serializers.ChoiceField(choices=COUNTRY_CHOICES(), required=False, allow_blank=True, default="")
    threshold = serializers.DecimalField(
        max_digits=4, decimal_places=3, required=False, min_value=Decimal("0.5"), max_value=Decimal("1")
    )


class DecisionSerializer(serializers.Serializer):
    reason = serializers.CharField()


class PartyBlockSerializer(serializers.ModelSerializer):
    """A party blocked by a confirmed match, and where lifting it stands."""

    organisation_name = serializers.CharField(source="organisation.legal_name", read_only=True)
    list_kind_label = serializers.CharField(read_only=True)
    since = serializers.DateTimeField(source="created_at", read_only=True)
    list_entry_id = serializers.CharField(source="hit.list_entry_id", read_only=True)
    entry_name = serializers.CharField(source="hit.entry.name", read_only=True)
    entry_source = serializers.CharField(source="hit.entry.source", read_only=True)
    is_active = serializers.BooleanField(read_only=True)
    lift_requested_by = serializers.CharField(
        source="lift_requested_by.username", default=None, allow_null=True, read_only=True
    )
    lifted_by = serializers.CharField(
        source="lifted_by.username", default=None, allow_null=True, read_only=True
    )
    needs_second_officer = serializers.SerializerMethodField(
        help_text="Whether a lift needs a second officer's approval (the operator's four-eyes policy)."
    )

    class Meta:
        model = PartyBlock
        fields = [
            "id",
            "organisation",
            "organisation_name",
            "list_kind",
            "list_kind_label",
            "reason",
            "since",
            "hit",
            "list_entry_id",
            "entry_name",
            "entry_source",
            "is_active",
            "lift_requested_by",
            "lift_requested_at",
            "lift_reason",
            "lifted_by",
            "lifted_at",
            "needs_second_officer",
        ]
        read_only_fields = fields

    def get_needs_second_officer(self, obj) -> bool:
        if "needs_second_officer" not in self.context:
            # The operator's policy (on when there is no operator yet).
            self.context["needs_second_officer"] = not Organisation.objects.filter(
                kind=OrganisationKind.OPERATOR, compliance_four_eyes=False
            ).exists()
        return self.context["needs_second_officer"]


class BlockLiftRequestSerializer(serializers.Serializer):
    reason = serializers.CharField(help_text="Why the confirmed match is reversed.")


class BlockLiftWithdrawSerializer(serializers.Serializer):
    reason = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        help_text="Required when refusing another officer's request; optional when withdrawing your own.",
    )


def _licence_hidden(serializer, licence_id) -> bool:
    """A partner sees a licence's number and figures only where the licence names its organisation."""
    visible = serializer.context.get("visible_licences")
    return licence_id is not None and visible is not None and licence_id not in visible


class HoldReasonSerializer(serializers.ModelSerializer):
    resolved_by = serializers.CharField(
        source="resolved_by.username", default=None, allow_null=True, read_only=True
    )
    text = serializers.SerializerMethodField()
    resolution = serializers.SerializerMethodField()
    organisation = serializers.CharField(
        source="organisation.legal_name", default=None, allow_null=True, read_only=True
    )

    class Meta:
        model = HoldReason
        fields = [
            "id",
            "kind",
            "text",
            "line",
            "organisation",
            "hit",
            "resolved_by",
            "resolved_at",
            "resolved_via",
            "resolution",
        ]
        read_only_fields = ["line", "hit"]

    def get_text(self, obj) -> str:
        if obj.kind == "licence" and _licence_hidden(self, obj.licence_id):
            number = obj.line.line_number if obj.line else "?"
            return f"A licence is required for line {number}; the exporter's licence does not cover it."
        return disclosure.hold_text(obj, _viewer(self)) or obj.text

    def get_resolution(self, obj) -> str:
        if _licence_hidden(self, obj.licence_id):
            return "Covered by a licence held by the exporter." if obj.resolved_at else ""
        shown = disclosure.hold_resolution(obj, _viewer(self))
        return obj.resolution if shown is None else shown

    def to_representation(self, instance):
        data = super().to_representation(instance)
        viewer = _viewer(self)
        if disclosure.is_partner(viewer):
            # Which party a restricted-party reason concerns, and its hit, stay with the operator.
            if instance.kind in disclosure.RESTRICTED_PARTY_KINDS:
                data.update(organisation=None, hit=None)
            if instance.resolved_by_id:
                data["resolved_by"] = person_label(instance.resolved_by, viewer, own=data["resolved_by"])
        return data


class LineResultSerializer(serializers.ModelSerializer):
    line_number = serializers.IntegerField(source="line.line_number")
    licence = serializers.SerializerMethodField()

    def get_licence(self, obj) -> str | None:
        if obj.licence_id is None:
            return None
        if _licence_hidden(self, obj.licence_id):
            return "held by the exporter"
        return obj.licence.number

    class Meta:
        model = CheckLineResult
        fields = [
            "line_number",
            "eccn",
            "classification_source",
            "outcome",
            "licence_exception",
            "licence",
            "rules",
            "result",
            "reasons",
        ]


class PartyResultSerializer(serializers.ModelSerializer):
    organisation = serializers.CharField(source="organisation.legal_name")

    class Meta:
        model = CheckPartyResult
        fields = ["role", "organisation", "result", "reasons", "screening"]
        read_only_fields = ["screening"]

    def to_representation(self, instance):
        data = super().to_representation(instance)
        if disclosure.is_partner(_viewer(self)):
            data.update(reasons=[], screening=None)  # the screening's reasoning is the operator's
        return data


class ComplianceCheckSerializer(serializers.ModelSerializer):
    shipment = serializers.CharField(source="shipment.reference")
    line_results = LineResultSerializer(many=True)
    party_results = PartyResultSerializer(many=True)
    hold_reasons = HoldReasonSerializer(many=True)
    current = serializers.SerializerMethodField(
        help_text="Whether this is a check of the shipment as it is now and not gone stale: only such a "
        "check counts for approval, booking, departure and issuing documents (a change since makes a new "
        "version to check; a changed list, country data, classification, licence or party marks it stale "
        "with `stale_reason`). "
        "Answered for one check and for the list filtered by `shipment__reference`; null in a list "
        "across shipments (working it out reads each shipment)."
    )

    def get_current(self, obj) -> bool | None:
        if not self.context.get("answer_current"):
            return None
        # One fingerprint per shipment however many of its checks are listed.
        versions = self.context.setdefault("_shipment_versions", {})
        if obj.shipment_id not in versions:
            versions[obj.shipment_id] = shipment_fingerprint(obj.shipment)
        return obj.shipment_version == versions[obj.shipment_id] and obj.stale_since is None

    class Meta:
        model = ComplianceCheck
        fields = [
            "id",
            "shipment",
            "shipment_version",
            "current",
            "stale_since",
            "stale_reason",
            "result",
            "summary",
            "rule_versions",
            "list_versions",
            "task_id",
            "started_at",
            "finished_at",
            "line_results",
            "party_results",
            "hold_reasons",
        ]

    def to_representation(self, instance):
        data = super().to_representation(instance)
        viewer = _viewer(self)
        if disclosure.is_partner(viewer):
            # A partner reads its own organisation's party result only.
            own = disclosure.party_results_for(instance.party_results.all(), viewer)
            data["party_results"] = PartyResultSerializer(own, many=True, context=self.context).data
        return data


class ResolveSerializer(serializers.Serializer):
    resolution = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=1000,
        help_text="For an import or end-use reason (or to confirm a default classification): how it was "
        "resolved and on what evidence.",
    )
    licence_number = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=60,
        help_text="For a licence-required reason: the number of a licence held by the shipment's exporter.",
    )


class ApprovalSerializer(serializers.ModelSerializer):
    """A four-eyes decision: asked for by one compliance officer, decided by another."""

    kind_label = serializers.CharField(source="get_kind_display", read_only=True)
    status_label = serializers.CharField(
        source="get_status_display",
        read_only=True,
        help_text="'Awaiting second officer' until a second compliance officer approves or rejects it.",
    )
    subject = serializers.CharField(read_only=True)
    requested_by = serializers.CharField(source="requested_by.username", read_only=True)
    decided_by = serializers.CharField(
        source="decided_by.username", default=None, allow_null=True, read_only=True
    )
    part_number = serializers.CharField(
        source="part.part_number", default=None, allow_null=True, read_only=True
    )
    shipment = serializers.CharField(
        source="shipment.reference", default=None, allow_null=True, read_only=True
    )

    class Meta:
        model = ComplianceApproval
        fields = [
            "id",
            "kind",
            "kind_label",
            "status",
            "status_label",
            "subject",
            "reason",
            "requested_by",
            "requested_at",
            "decided_by",
            "decided_at",
            "decision_note",
            "four_eyes_note",
            "part",
            "part_number",
            "eccn_before",
            "eccn",
            "control_change",
            "hold_reason",
            "shipment",
            "block",
            "four_eyes",
            "classification",
            "hit",
        ]
        read_only_fields = fields


class ApprovalRequestSerializer(serializers.Serializer):
    """Ask for a four-eyes decision. Which fields are needed depends on `kind`."""

    kind = serializers.ChoiceField(choices=ApprovalKind.choices)
    reason = serializers.CharField(help_text="Why: the second officer decides on it.")
    part = ScopedPrimaryKeyRelatedField(
        queryset=Part.objects.all(), required=False, help_text="classification_override: the part."
    )
    eccn = EccnField(required=False, help_text="classification_override: the ECCN proposed.")
    hold_reason = serializers.IntegerField(
        required=False, help_text="default_confirmation: the hold reason asking for the confirmation."
    )
    shipment = serializers.CharField(
        required=False, max_length=30, help_text="hold_release: the reference of the held shipment."
    )
    block = serializers.IntegerField(required=False, help_text="block_lift: the block to lift.")
    hit = serializers.IntegerField(required=False, help_text="hit_clearance: the possible match to clear.")
    four_eyes = serializers.BooleanField(
        required=False, allow_null=True, default=None, help_text="policy_change: the policy asked for."
    )

    NEEDS = {
        ApprovalKind.CLASSIFICATION_OVERRIDE: ("part", "eccn"),
        ApprovalKind.DEFAULT_CONFIRMATION: ("hold_reason",),
        ApprovalKind.HOLD_RELEASE: ("shipment",),
        ApprovalKind.BLOCK_LIFT: ("block",),
        ApprovalKind.POLICY_CHANGE: ("four_eyes",),
        ApprovalKind.HIT_CLEARANCE: ("hit",),
    }

    def validate(self, attrs):
        missing = {
            name: f"Required for {ApprovalKind(attrs['kind']).label.lower()}."
            for name in self.NEEDS[attrs["kind"]]
            if attrs.get(name) in (None, "")
        }
        if missing:
            raise serializers.ValidationError(missing)
        return attrs


class ApprovalRejectSerializer(serializers.Serializer):
    reason = serializers.CharField(help_text="Why the request is rejected.")
