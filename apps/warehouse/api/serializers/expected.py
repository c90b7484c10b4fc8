"""What a warehouse expects, as the API answers it (`api/expected.py`): one row per inbound leg or
shipment, with its ETA, units, packages, weight, and the receipt once it has arrived."""

from __future__ import annotations

from rest_framework import serializers


class ExpectedReceiptSerializer(serializers.Serializer):
    reference = serializers.CharField()
    received_at = serializers.DateTimeField()
    received_by = serializers.SerializerMethodField()
    status = serializers.CharField()

    def get_received_by(self, receipt) -> str:
        user = receipt.received_by
        return (user.get_full_name() or user.username) if user else ""


class ExpectedArrivalSerializer(serializers.Serializer):
    bucket = serializers.CharField(help_text="overdue, today, week, undated or received.")
    shipment = serializers.CharField(source="shipment.reference")
    shipment_status = serializers.CharField(source="shipment.status")
    leg = serializers.IntegerField(source="leg.sequence", allow_null=True, default=None)
    leg_id = serializers.IntegerField(source="leg.pk", allow_null=True, default=None)
    origin = serializers.CharField(source="origin.name")
    eta = serializers.DateField(allow_null=True)
    units = serializers.IntegerField()
    packages = serializers.IntegerField()
    weight_kg = serializers.DecimalField(max_digits=12, decimal_places=2, coerce_to_string=True)
    receipt = ExpectedReceiptSerializer(allow_null=True)
