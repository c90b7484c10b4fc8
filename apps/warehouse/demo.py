"""The warehouse's demo data (issue 13): two warehouses — the Singapore bonded hub and a duty-paid
warehouse in Chennai — with locations and stock that match the demo shipments.

- Demo B's servers and switches pass through the Singapore hub: before the demo books B, they are
  received there in bond, put away, allocated to B's lines and picked (`through_hub`, registered
  with `shipments.demo.before_entering`); once B is under way this step ships them, so their pages
  show the whole path.
- The hub holds QCT's buffer of the same servers for the next pod (one quarantined after its tilt
  indicator tripped) and, in bond, Chennai AI Compute's cables for pod 2.
- The Chennai warehouse holds Chennai AI Compute's duty-paid spares: optics from Demo D's batch and
  cables.

Everything goes through the services, so the ledger and the stock agree; each step makes nothing
twice (a second `load_demo` finds the units and lots in place).
"""

from __future__ import annotations

from apps.accounts.models import Organisation, OrganisationKind, User
from apps.catalog.models import Part, Unit, UnitStatus
from apps.shipments.models import Shipment, Site

from . import services
from .engines.unit_flow import Status
from .models import Location, Lot, Movement, UnitPlacement

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
    """Before the demo books Demo B: its goods arrive at the Singapore hub on the two inbound legs,
    in bond, are put away, allocated to B's lines and picked for the flight to Chennai."""
    if not shipment.instructions.startswith("[Demo B]"):
        return shipment
    _hub_, where = _hub()
    operator = _operator_user()
    for line, put_away in zip(
        shipment.lines.select_related("part").order_by("line_number"),
        ("A-01-01-01", "A-01-01-02"),
        strict=False,
    ):
        serials = list(line.serials.values_list("unit__serial", flat=True))
        units = list(Unit.objects.filter(part=line.part, serial__in=serials).select_related("owner"))
        if not units or UnitPlacement.objects.filter(unit__in=units).exists():
            continue
        units = _receive_units(
            line.part,
            serials,
            owner=units[0].owner,
            dock=where["RCV"],
            put_away=where[put_away],
            bond=HUB_BOND,
            note=f"Inbound for {shipment.reference}",
            actor=operator,
            # Each unit's origin as its inbound leg's line declares it (servers: Taiwan's leg,
            # switches: Mexico's): the documents for Chennai state it per unit (issue 13).
            origin=line.country_of_origin,
        )
        if units:
            units = services.units_allocate(
                line=line, units=units, actor=actor, reason="Consolidation for SIN→MAA"
            )
            services.units_pick(units=units, actor=operator, reason="Staged for the SIN→MAA flight")
    return shipment


def _ship_demo_b() -> int:
    """Demo B has left the hub: what was picked for it leaves the warehouse."""
    shipment = Shipment.objects.filter(instructions__startswith="[Demo B]").first()
    if shipment is None or shipment.status not in services.SHIPPABLE:
        return 0
    shipped = 0
    for line in shipment.lines.order_by("line_number"):
        if UnitPlacement.objects.filter(line=line, unit__status=UnitStatus.PICKED).exists():
            result = services.line_ship(line=line, actor=_operator_user(), reason="Departed on SQ 7416")
            shipped += len(result.units)
    return shipped


def load(**_options) -> dict[str, int]:
    actor = _operator_user()
    qct, customer = Organisation.objects.get(legal_name=QCT), Organisation.objects.get(legal_name=CUSTOMER)
    _hub_site, hub = _hub()
    chennai = _locations(_chennai_warehouse(), CHENNAI_LOCATIONS)
    units = _ship_demo_b()

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
