"""What the documents API reads and writes."""

from rest_framework import serializers

from ..models import Document, DocumentType


class DocumentSerializer(serializers.ModelSerializer):
    shipment = serializers.CharField(source="shipment.reference")
    download_url = serializers.SerializerMethodField()

    class Meta:
        model = Document
        fields = [
            "id",
            "shipment",
            "doc_type",
            "number",
            "version",
            "status",
            "watermark",
            "sha256",
            "size",
            "page_count",
            "created_at",
            "issued_at",
            "voided_at",
            "void_reason",
            "download_url",
        ]

    def get_download_url(self, obj) -> str:
        return f"/api/v1/documents/{obj.pk}/download/"


class GenerateSerializer(serializers.Serializer):
    doc_types = serializers.ListField(
        child=serializers.ChoiceField(choices=DocumentType.choices),
        required=False,
        help_text="Defaults to every document the shipment needs.",
    )


class VoidSerializer(serializers.Serializer):
    reason = serializers.CharField()
