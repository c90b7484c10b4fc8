"""Answers to one scan, at once, for the scan-as-you-go receiving and packing pages
(static/js/scan.js): `GET …/check/?serial=…` answers JSON saying what the serial is. Only reads:
the receipt or the package is recorded once, at the end, by the page's own form and its service."""

from __future__ import annotations

from django.http import Http404, JsonResponse
from django.views import View

from apps.core.access import CapabilityRequiredMixin

from ..selectors import ScanVerdict, pack_scan_verdict, receive_scan_verdict
from .receipts import _receivable


class _ScanCheckView(CapabilityRequiredMixin, View):
    capability = "stock.operate"

    def get(self, request, reference):
        shipment = _receivable(request, reference)  # another organisation's: 404
        serial = request.GET.get("serial", "").strip()
        if not serial or len(serial) > 100:
            return JsonResponse({"serial": serial, "error": "Scan or type a serial number."}, status=400)
        answer = self.verdict(request, shipment, serial)
        answer["label"] = ScanVerdict(answer["verdict"]).label
        return JsonResponse(answer)


class ReceiveScanCheckView(_ScanCheckView):
    def verdict(self, request, shipment, serial):
        leg = None
        if (wanted := request.GET.get("leg", "").strip()).isdigit():
            leg = shipment.legs.filter(pk=int(wanted)).first()
            if leg is None:
                raise Http404(f"No such leg of {shipment.reference}.")
        return receive_scan_verdict(request.user, shipment=shipment, leg=leg, serial=serial)


class PackScanCheckView(_ScanCheckView):
    def verdict(self, request, shipment, serial):
        return pack_scan_verdict(request.user, shipment=shipment, serial=serial)
