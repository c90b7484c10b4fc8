"""The shipment page's lines: adding one, removing one."""

from __future__ import annotations

from django.contrib import messages

from .. import readiness, services
from ..forms import LineForm
from ..models import ShipmentLine
from .detail import RemoveView, ShipmentPostView


class LineAddView(ShipmentPostView):
    form_class = LineForm
    form_name = "line_form"
    section = "lines"

    def form_kwargs(self):
        return {"user": self.request.user}

    def save(self, form):
        data = form.cleaned_data
        fields = {
            k: data[k]
            for k in ("unit_value", "hs_code", "country_of_origin", "shipper", "exporter_of_record")
            if data.get(k) not in (None, "")
        }
        line = services.line_add(
            shipment=self.shipment,
            part=data["part"],
            quantity=data["quantity"],
            fields=fields,
            serials=data["serials"] or None,
            actor=self.request.user,
        )
        for warning in readiness.line_warnings(line, line.serials.count()):
            messages.warning(self.request, warning)
        return f"Line {line.line_number} added: {line.quantity} × {line.part}."


def _remove_line(line: ShipmentLine) -> str:
    services.line_remove(line=line)
    return f"Line {line.line_number} removed."


class LineRemoveView(RemoveView):
    queryset = ShipmentLine.objects.all()
    removal = _remove_line
