"""Shipments' part of the dashboard (apps/core/dashboard.py): open, on hold and late for everyone
who sees shipments, and for a partner what it owes: as forwarder, the milestones of the shipments
under way; as shipper, the serial numbers of its serialised lines not departed yet (the packing
list and the invoice name every unit; they are not generated without them).

Every tile links to the shipments list filtered to exactly what it counts: the count is taken
with the list's own condition (`OPEN_Q`, `late_q`, the `needs=` conditions of `hooks.NEEDS`), on
the same `visible_to` queryset, so the number on the tile is the number of rows on the list.
"""

from django.db.models import Count, Exists, F, IntegerField, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce
from django.urls import reverse

from apps.accounts.roles import Role
from apps.core.dashboard import Tile

from . import hooks
from .models import LineSerial, PartyRole, Shipment, ShipmentLine, ShipmentParty, ShipmentStatus
from .selectors import OPEN_Q, late_q, need_counts

# A forwarder reports milestones (departed, arrived, at customs, released, delivered) from booking
# until delivery.
MILESTONE_STATUSES = (
    ShipmentStatus.BOOKED,
    ShipmentStatus.IN_TRANSIT,
    ShipmentStatus.AT_CUSTOMS,
    ShipmentStatus.CLEARED,
)


def milestones_owed_q(user) -> Q:
    """Shipments under way on which the user's organisation is the freight forwarder."""
    if user is None or getattr(user, "organisation_id", None) is None:
        return Q(pk__in=[])
    forwarding = ShipmentParty.objects.filter(
        shipment=OuterRef("pk"), role=PartyRole.FREIGHT_FORWARDER, organisation_id=user.organisation_id
    )
    return Q(status__in=MILESTONE_STATUSES) & Q(Exists(forwarding))


# Until the goods leave, a shipper can still give the serials its lines lack.
SERIALS_STATUSES = (
    ShipmentStatus.DRAFT,
    ShipmentStatus.COMPLIANCE_REVIEW,
    ShipmentStatus.APPROVED,
    ShipmentStatus.BOOKED,
)


def serials_owed_q(user) -> Q:
    """Shipments not departed with a serialised line of the user's organisation (its own shipper,
    or the shipment's shipper when the line names none) short of serial numbers."""
    organisation_id = getattr(user, "organisation_id", None) if user is not None else None
    if organisation_id is None:
        return Q(pk__in=[])
    serials = (
        LineSerial.objects.filter(line=OuterRef("pk")).values("line").annotate(n=Count("pk")).values("n")
    )
    shipment_shipper = ShipmentParty.objects.filter(
        shipment=OuterRef("shipment"), role=PartyRole.SHIPPER, organisation_id=organisation_id
    )
    short = (
        ShipmentLine.objects.filter(shipment=OuterRef("pk"), part__is_serialised=True)
        .filter(Q(shipper_id=organisation_id) | (Q(shipper__isnull=True) & Q(Exists(shipment_shipper))))
        .annotate(given=Coalesce(Subquery(serials, output_field=IntegerField()), Value(0)))
        .filter(given__lt=F("quantity"))
    )
    return Q(status__in=SERIALS_STATUSES) & Q(Exists(short))


def compliance_hold_q(user) -> Q:
    """Shipments held by compliance (not by customs)."""
    return Q(status=ShipmentStatus.ON_HOLD, hold_kind="compliance")


hooks.need_condition("milestones", milestones_owed_q)
hooks.need_condition("serials", serials_owed_q)
hooks.need_condition("compliance_hold", compliance_hold_q)


def shipment_tiles(user) -> list[Tile]:
    if not user.can("shipments.view"):
        return []
    url = reverse("shipments:shipment-list")
    conditions = {
        "open": OPEN_Q,
        "on_hold": Q(status=ShipmentStatus.ON_HOLD),
        "late": OPEN_Q & late_q(),
    }
    partner = user.role == Role.PARTNER and not user.is_operator_staff
    if partner:
        conditions["milestones"] = hooks.need_q("milestones", user)
        conditions["serials"] = hooks.need_q("serials", user)
    counts = need_counts(Shipment.objects.visible_to(user), conditions)
    tiles = []
    if partner:
        # A partner's own work first: what it owes.
        tiles += [
            Tile(counts["milestones"], "milestones to report", f"{url}?needs=milestones"),
            Tile(counts["serials"], "shipments waiting for your serial numbers", f"{url}?needs=serials"),
        ]
    return tiles + [
        Tile(counts["open"], "open shipments", f"{url}?open=true"),
        Tile(counts["on_hold"], "on hold", f"{url}?status=on_hold"),
        Tile(counts["late"], "late against their required date", f"{url}?open=true&late=true"),
    ]
