from rest_framework import serializers

from ..models import ApiToken, Contact, Organisation, Registration, User


class RegistrationSerializer(serializers.ModelSerializer):
    organisation = serializers.PrimaryKeyRelatedField(queryset=Organisation.objects.all())
    is_expired = serializers.BooleanField(read_only=True)

    class Meta:
        model = Registration
        fields = ["id", "organisation", "scheme", "number", "country", "valid_until", "is_expired"]
        validators: list = []  # the model's full_clean reports duplicates against `number`


class ContactSerializer(serializers.ModelSerializer):
    organisation = serializers.PrimaryKeyRelatedField(queryset=Organisation.objects.all())

    class Meta:
        model = Contact
        fields = ["id", "organisation", "name", "job_title", "email", "phone", "is_primary"]


class OrganisationSerializer(serializers.ModelSerializer):
    registrations = RegistrationSerializer(many=True, read_only=True)
    contacts = ContactSerializer(many=True, read_only=True)

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
            "registrations",
            "contacts",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["created_at", "updated_at"]


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
