"""Who acts on a shipment: its parties, and the shippers and exporters of record named on its
lines (a consolidation's suppliers), with each line's exporter."""

from __future__ import annotations

from django.db.models import Q

from ..models import PartyRole, Shipment


def parties_queryset():
    from ..models import ShipmentParty

    return ShipmentParty.objects.select_related("organisation").prefetch_related(
        "organisation__registrations"
    )


def line_exporter_ids(shipment: Shipment, parties=None) -> dict[int, int | None]:
    """The exporter (principal party for export control: the exporter of record, else the shipper)
    of each line, by line id: a line's own, else the shipment's. One query given the parties."""
    parties = {p.role: p.organisation_id for p in (shipment.parties.all() if parties is None else parties)}
    default = parties.get(PartyRole.EXPORTER_OF_RECORD) or parties.get(PartyRole.SHIPPER)
    return {
        pk: (line_eor or line_shipper) if line_shipper else (line_eor or default)
        for pk, line_shipper, line_eor in shipment.lines.values_list(
            "pk", "shipper_id", "exporter_of_record_id"
        )
    }


def acting_parties(shipment: Shipment) -> list:
    """Every organisation acting on the shipment in a role: its parties, then the shippers and
    exporters of record named on its lines (unsaved `ShipmentParty` rows in those roles). Screening
    and the compliance answer read these, so a consolidation's Mexican exporter is screened too."""
    from ..models import ShipmentParty

    parties = list(shipment.parties.select_related("organisation").order_by("role"))
    seen = {(p.role, p.organisation_id) for p in parties}
    extra = []
    rows = (
        shipment.lines.filter(Q(shipper__isnull=False) | Q(exporter_of_record__isnull=False))
        .select_related("shipper", "exporter_of_record")
        .order_by("line_number")
    )
    for line in rows:
        for role, organisation in (
            (PartyRole.SHIPPER, line.shipper),
            (PartyRole.EXPORTER_OF_RECORD, line.exporter_of_record),
        ):
            if organisation is not None and (role, organisation.pk) not in seen:
                seen.add((role, organisation.pk))
                extra.append(ShipmentParty(shipment=shipment, role=role, organisation=organisation))
    return parties + extra
