"""Recording a milestone (tracking event) from the shipment page."""

from __future__ import annotations

from django.core.exceptions import ValidationError

from .. import selectors, services
from ..forms import EventForm
from .detail import ShipmentPostView


class EventAddView(ShipmentPostView):
    capability = "shipments.track"
    form_class = EventForm
    form_name = "event_form"
    section = "timeline"

    def form_kwargs(self):
        return {"shipment": self.shipment}

    def save(self, form):
        data = form.cleaned_data
        try:
            event = services.event_record(
                shipment=self.shipment,
                actor=self.request.user,
                code=data["code"],
                occurred_at=data["occurred_at"],
                location=data["location"],
                remarks=data["remarks"],
                leg=data["leg"],
                eta=data["eta"],
            )
        except services.TransitionRefused as exc:
            # Refused whole (e.g. the compliance answer is not current): the form says why.
            raise ValidationError([exc.message, *exc.reasons]) from exc
        moved = (
            f"; status now {selectors.status_now(self.shipment).label.lower()}" if event.status_after else ""
        )
        return f"Event “{event.get_code_display()}” recorded{moved}."
