"""The warehouse's demo data: two warehouses — the Singapore bonded hub and a duty-paid
warehouse in Chennai — with locations and stock that match the demo shipments.

- Demo B's servers and switches pass through the Singapore hub as a user's would: each inbound leg
  is received there against its notice, in bond; the units are put away, allocated to B's lines,
  picked and shipped on the main carriage before it departs (`through_hub`, registered with
  `shipments.demo.at_hub`), so their pages and the receipts show the whole path.
- The hub holds QCT's buffer of the same servers for the next pod (one quarantined after its tilt
  indicator tripped) and, in bond, Chennai AI Compute's cables for pod 2.
- The Chennai warehouse holds Chennai AI Compute's duty-paid spares: optics from Demo D's batch and
  cables.

Everything goes through the services, so the ledger and the stock agree; each step makes nothing
twice (a second `load_demo` finds the units and lots in place).
"""

from __future__ import annotations

import datetime as dt

from django.utils import timezone

from apps.accounts.models import Organisation, OrganisationKind, User
from apps.catalog.models import Part, Unit
from apps.shipments.models import LegRole, LineSerial, Shipment, Site

from . import services
from .engines.unit_flow import Action, Status
from .models import Location, Lot, Movement, UnitPlacement
from .services.receipts import receipt_record

HUB = "Rackpass Bonded Hub Singapore"
CHENNAI = "Rackpass Warehouse Chennai — Sriperumbudur"
HUB_BOND = "SG-TWH-2026-0117"  # the bonded warehouse's receipt for the consolidation
HUB_BUFFER_BOND = "SG-TWH-2026-0121"
CHENNAI_ENTRY = "BE-2026-4471823"  # the bill of entry the duty was paid under
# zone, aisle, rack, bin
HUB_LOCATIONS = [
    ("RCV", "", "", ""),
    ("A", "01", "01", "01"),
    ("A", "01", "01", "02"),
    ("A", "01", "02", "01"),
    ("A", "01", "02", "02"),
    ("B", "01", "01", ""),
    ("B", "01", "02", ""),
    ("QC", "", "", ""),
]
CHENNAI_LOCATIONS = [
    ("RCV", "", "", ""),
    ("A", "01", "01", "01"),
    ("A", "01", "01", "02"),
    ("B", "01", "01", ""),
    ("B", "01", "02", ""),
    ("QC", "", "", ""),
]
QCT = "Quanta Cloud Technology Inc."
CUSTOMER = "Chennai AI Compute Pvt. Ltd."


def _part(number: str) -> Part:
    return Part.objects.get(part_number=number, owner__kind=OrganisationKind.OPERATOR)


def _serials(prefix: str, first: int, last: int) -> list[str]:
    return [f"{prefix}{n:05d}" for n in range(first, last + 1)]


def _operator_user() -> User:
    return User.objects.get(username="warehouse")


def _chennai_warehouse() -> Site:
    operator = Organisation.objects.get(kind=OrganisationKind.OPERATOR)
    site = Site.objects.filter(owner=operator, name=CHENNAI).first()
    if site is None:
        site = Site(
            owner=operator,
            name=CHENNAI,
            kind="warehouse",
            address_line1="Plot 14, SIPCOT Industrial Park",
            city="Sriperumbudur",
            postal_code="602105",
            country="IN",
            is_bonded=False,
        )
        site.full_clean()
        site.save()
    return site


def _locations(site: Site, rows) -> dict[str, Location]:
    found = {}
    for zone, aisle, rack, bin_ in rows:
        location = Location.objects.filter(site=site, zone=zone, aisle=aisle, rack=rack, bin=bin_).first()
        if location is None:
            location = services.location_create(site=site, zone=zone, aisle=aisle, rack=rack, bin=bin_)
        found[location.code] = location
    return found


def _hub() -> tuple[Site, dict[str, Location]]:
    hub = Site.objects.get(name=HUB, owner__kind=OrganisationKind.OPERATOR)
    return hub, _locations(hub, HUB_LOCATIONS)


def _new_serials(part: Part, serials: list[str]) -> list[str]:
    """Those of `serials` the warehouse has not handled yet (a second run receives nothing)."""
    handled = set(
        Movement.objects.filter(unit__part=part, unit__serial__in=serials).values_list(
            "unit__serial", flat=True
        )
    )
    return [s for s in serials if s not in handled]


def _receive_units(part, serials, *, owner, dock, put_away, bond, note, actor, origin="") -> list[Unit]:
    serials = _new_serials(part, serials)
    if not serials:
        return []
    units = services.units_receive(
        location=dock,
        part=part,
        serials=serials,
        owner=owner,
        actor=actor,
        customs_reference=bond,
        reason=note,
        country_of_origin=origin,
    )
    return [
        services.unit_move(unit=unit, to_location=put_away, actor=actor, reason="Put away") for unit in units
    ]


def _receive_lot(part, quantity, *, owner, location, bond, note, actor) -> int:
    if Lot.objects.filter(part=part, location__site=location.site, owner=owner).exists():
        return 0
    services.lot_receive(
        location=location,
        part=part,
        quantity=quantity,
        owner=owner,
        actor=actor,
        customs_reference=bond,
        reason=note,
    )
    return 1


def through_hub(shipment: Shipment, actor: User) -> Shipment:
    """Demo B at the Singapore hub, through the services a user calls: each inbound leg received
    against its notice, in bond, on the day it landed; the units put away, allocated to B's lines
    and picked; then shipped on the main carriage (its packages came packed from the factories).
    Registered with `shipments.demo.at_hub`, which runs it once, while B is in transit and before
    the flight to Chennai departs."""
    if not shipment.instructions.startswith("[Demo B]"):
        return shipment
    _hub_site, where = _hub()
    operator = _operator_user()
    now, today = timezone.now(), timezone.localdate()
    inbound = shipment.legs.filter(role=LegRole.INBOUND, destination=_hub_site).order_by("sequence")
    for leg in inbound.prefetch_related("lines"):
        landed = (today - leg.planned_arrival).days if leg.planned_arrival else 0
        receipt_record(
            shipment=shipment,
            location=where["RCV"],
            leg=leg,
            scanned=list(
                LineSerial.objects.filter(line__in=leg.lines.all()).values_list("unit__serial", flat=True)
            ),
            actor=operator,
            customs_reference=HUB_BOND,
            received_at=now - dt.timedelta(days=max(landed, 0)),
        )
    for line, put_away in zip(
        shipment.lines.order_by("line_number"), ("A-01-01-01", "A-01-01-02"), strict=False
    ):
        units = [
            services.unit_move(unit=p.unit, to_location=where[put_away], actor=operator, reason="Put away")
            for p in UnitPlacement.objects.filter(
                unit__line_serials__line=line, location=where["RCV"]
            ).select_related("unit")
        ]
        if units:
            units = services.units_allocate(
                line=line, units=units, actor=actor, reason="Consolidation for SIN→MAA"
            )
            services.units_pick(units=units, actor=operator, reason="Staged for the SIN→MAA flight")
            services.line_ship(line=line, actor=operator, reason="Departed on SQ 7416")
    shipment.refresh_from_db()
    return shipment


def load(**_options) -> dict[str, int]:
    actor = _operator_user()
    qct, customer = Organisation.objects.get(legal_name=QCT), Organisation.objects.get(legal_name=CUSTOMER)
    _hub_site, hub = _hub()
    chennai = _locations(_chennai_warehouse(), CHENNAI_LOCATIONS)
    units = 0

    # The hub: QCT's buffer of B's servers for pod 3, in bond; one quarantined on arrival.
    server = _part("SYS-821GE-TNHR")
    buffer = _receive_units(
        server,
        _serials("QTSM821", 5, 8),
        owner=qct,
        dock=hub["RCV"],
        put_away=hub["A-01-02-01"],
        bond=HUB_BUFFER_BOND,
        note="QCT buffer stock for pod 3 (AWB 695-12345712)",
        actor=actor,
    )
    units += len(buffer)
    if buffer:
        services.unit_transition(
            unit=buffer[-1],
            target=Status.QUARANTINED,
            actor=actor,
            reason="Tilt indicator tripped on arrival; awaiting QCT's inspection",
            action=Action.QUARANTINE,
            to_location=hub["QC"],
        )
    optics = _part("MMS4X00-NS")
    units += len(
        _receive_units(
            optics,
            _serials("MMS4X", 1, 8),
            owner=qct,
            dock=hub["RCV"],
            put_away=hub["A-01-02-02"],
            bond=HUB_BUFFER_BOND,
            note="QCT buffer stock for pod 3",
            actor=actor,
        )
    )
    lots = 0
    for number, quantity, location in (
        ("MCP4Y10-N001", 240, "B-01-01"),
        ("MFP7E10-N030", 120, "B-01-02"),
        ("OSFP-400G-AOC-10M", 64, "B-01-02"),
    ):
        lots += _receive_lot(
            _part(number),
            quantity,
            owner=customer,
            location=hub[location],
            bond=HUB_BOND,
            note="Pod 2 cabling, held in bond for consolidation",
            actor=actor,
        )

    # Chennai: the customer's duty-paid spares — optics of Demo D's batch, and cables.
    units += len(
        _receive_units(
            _part("MMA4Z00-NS"),
            _serials("MMA4Z", 17, 24),
            owner=customer,
            dock=chennai["RCV"],
            put_away=chennai["A-01-01-01"],
            bond=CHENNAI_ENTRY,
            note="Spares from Demo D's batch",
            actor=actor,
        )
    )
    for number, quantity, location in (("MCP4Y10-N002", 96, "B-01-01"), ("MFP7E10-N010", 200, "B-01-02")):
        lots += _receive_lot(
            _part(number),
            quantity,
            owner=customer,
            location=chennai[location],
            bond=CHENNAI_ENTRY,
            note="Pod 2 spares, duty paid",
            actor=actor,
        )
    return {"stock units": units, "stock lots": lots}
