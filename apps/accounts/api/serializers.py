from rest_framework import serializers

from apps.core.api import ScopedPrimaryKeyRelatedField
from apps.core.disclosure import person_label

from ..models import ApiToken, Connection, Contact, Organisation, Registration, User


class RegistrationSerializer(serializers.ModelSerializer):
    organisation = ScopedPrimaryKeyRelatedField(queryset=Organisation.objects.all())
    is_expired = serializers.BooleanField(read_only=True)

    class Meta:
        model = Registration
        fields = ["id", "organisation", "scheme", "number", "country", "valid_until", "is_expired"]
        validators: list = []  # the model's full_clean reports duplicates against `number`


class ContactSerializer(serializers.ModelSerializer):
    organisation = ScopedPrimaryKeyRelatedField(queryset=Organisation.objects.all())

    class Meta:
        model = Contact
        fields = ["id", "organisation", "name", "job_title", "email", "phone", "is_primary", "is_signatory"]


class OrganisationBlockSerializer(serializers.Serializer):
    """A block in force on the organisation: a confirmed restricted-party match. The officers'
    reasons and the lift request are shown to the operator's staff only."""

    id = serializers.IntegerField()
    list_kind = serializers.CharField(
        help_text="entity_list, denied_persons, unverified_list, military_end_user, sanctions"
    )
    list_kind_label = serializers.CharField()
    reason = serializers.CharField(
        help_text="Why the match was confirmed (operator staff only; empty otherwise)."
    )
    since = serializers.DateTimeField(source="created_at")
    lift_requested_by = serializers.CharField(
        source="lift_requested_by.username", default=None, allow_null=True
    )
    lift_requested_at = serializers.DateTimeField(allow_null=True)
    lift_reason = serializers.CharField(help_text="Why a lift was requested, while it awaits approval.")

    def to_representation(self, instance):
        data = super().to_representation(instance)
        request = self.context.get("request")
        if not (request and request.user.is_operator_staff):
            data.update(reason="", lift_requested_by=None, lift_requested_at=None, lift_reason="")
        return data


class OrganisationSerializer(serializers.ModelSerializer):
    registrations = RegistrationSerializer(many=True, read_only=True)
    contacts = ContactSerializer(many=True, read_only=True)
    four_eyes_note = serializers.SerializerMethodField(
        help_text="Empty while four eyes is on; else 'four eyes off (policy changed by X, approved by Y on "
        "date)', which every compliance decision taken alone records (operator staff only)."
    )
    is_blocked = serializers.BooleanField(
        read_only=True, help_text="A confirmed restricted-party match blocks the organisation's shipments."
    )
    blocks = OrganisationBlockSerializer(many=True, read_only=True, source="active_blocks")

    class Meta:
        model = Organisation
        fields = [
            "id",
            "kind",
            "legal_name",
            "trading_name",
            "address_line1",
            "address_line2",
            "city",
            "region",
            "postal_code",
            "country",
            "website",
            "notes",
            "is_active",
            "compliance_four_eyes",
            "four_eyes_note",
            "is_blocked",
            "blocks",
            "registrations",
            "contacts",
            "created_at",
            "updated_at",
        ]
        # The four-eyes policy is changed by two compliance officers (a request and its approval
        # under /api/v1/compliance-approvals/), never by saving the organisation.
        read_only_fields = ["compliance_four_eyes", "created_at", "updated_at"]

    def get_four_eyes_note(self, obj) -> str:
        request = self.context.get("request")
        if not (request and request.user.is_operator_staff):
            return ""
        return obj.four_eyes_note


class ConnectionSerializer(serializers.ModelSerializer):
    """Two organisations that work together (either order on input). The note and who recorded
    it are the operator's: a partner reads "Rackpass staff" and no note."""

    organisation_a = ScopedPrimaryKeyRelatedField(queryset=Organisation.objects.filter(is_active=True))
    organisation_b = ScopedPrimaryKeyRelatedField(queryset=Organisation.objects.filter(is_active=True))
    organisation_a_name = serializers.CharField(source="organisation_a.legal_name", read_only=True)
    organisation_b_name = serializers.CharField(source="organisation_b.legal_name", read_only=True)
    created_by = serializers.SerializerMethodField()

    class Meta:
        model = Connection
        fields = [
            "id",
            "organisation_a",
            "organisation_a_name",
            "organisation_b",
            "organisation_b_name",
            "note",
            "created_by",
            "created_at",
        ]
        read_only_fields = ["created_at"]
        validators: list = []  # the service refuses a pair connected already, in either order

    def get_created_by(self, obj) -> str:
        request = self.context.get("request")
        return person_label(obj.created_by, getattr(request, "user", None))

    def to_representation(self, instance):
        data = super().to_representation(instance)
        request = self.context.get("request")
        if not (request and request.user.is_operator_staff):
            data["note"] = ""
        return data


class UserSerializer(serializers.ModelSerializer):
    organisation = serializers.StringRelatedField()

    class Meta:
        model = User
        fields = ["id", "username", "first_name", "last_name", "email", "organisation", "role"]


class ApiTokenSerializer(serializers.ModelSerializer):
    status = serializers.CharField(read_only=True)

    class Meta:
        model = ApiToken
        fields = [
            "id",
            "name",
            "key_prefix",
            "created_at",
            "expires_at",
            "last_used_at",
            "revoked_at",
            "status",
        ]
        read_only_fields = ["key_prefix", "created_at", "last_used_at", "revoked_at"]


class ApiTokenCreatedSerializer(ApiTokenSerializer):
    key = serializers.CharField(read_only=True, help_text="Shown once. Store it now: only its hash is kept.")

    class Meta(ApiTokenSerializer.Meta):
        fields = [*ApiTokenSerializer.Meta.fields, "key"]
