"""Demo sites, rate and tariff tables, IOR/EOR coverage and shipments in several states.

Safe to run again: every record is looked up by a natural key first. It stays one module past
800 lines because most of it is data (sites, lanes, rates, tariffs, the demo shipments) read top
to bottom as one story, written through the services like any user's records.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Callable
from decimal import Decimal

from django.utils import timezone

from apps.accounts.models import Organisation, OrganisationKind, RecordService, ServiceCoverage, User
from apps.catalog.models import Part
from apps.core.audit import audit_context

from . import services
from .models import (
    DestinationTax,
    ExchangeRate,
    FreightRate,
    HubHandlingRate,
    LegRole,
    Shipment,
    ShipmentStatus,
    Site,
    TariffRate,
)

D = Decimal
OPERATOR_SITES = [
    # name, kind, city, country, iata, unlocode, bonded
    ("Taiwan Taoyuan International Airport", "airport", "Taoyuan", "TW", "TPE", "TWTPE", False),
    ("Chennai International Airport", "airport", "Chennai", "IN", "MAA", "INMAA", False),
    ("Singapore Changi Airport", "airport", "Singapore", "SG", "SIN", "SGSIN", False),
    ("Guadalajara International Airport", "airport", "Guadalajara", "MX", "GDL", "MXGDL", False),
    ("San Francisco International Airport", "airport", "San Francisco", "US", "SFO", "USSFO", False),
    ("Port of Kaohsiung", "seaport", "Kaohsiung", "TW", "", "TWKHH", False),
    ("Port of Chennai", "seaport", "Chennai", "IN", "", "INMAA", False),
    ("Port of Singapore", "seaport", "Singapore", "SG", "", "SGSIN", False),
    ("Rackpass Bonded Hub Singapore", "warehouse", "Singapore", "SG", "", "", True),
    ("Chennai AI Compute — Siruseri DC1", "data_centre", "Chennai", "IN", "", "", False),
    ("Jabil Guadalajara (NVIDIA networking)", "factory", "Zapopan", "MX", "", "", False),
    # Where the demo clusters' other parts leave from (every proposal of a cluster's shipment
    # plan needs an origin site; the planner matches a site by the part's maker, by name,
    # in the part's country of origin). Kept by the operator, as the Jabil plant is: the makers
    # are not demo organisations.
    # NVIDIA's LinkX optical transceivers are built under contract by Fabrinet in Thailand; its
    # Chonburi campus is one of its plants (which plant ships these modules is an estimate [E]).
    ("Fabrinet Chonburi (NVIDIA optics)", "factory", "Chonburi", "TH", "", "", False),
    # NVIDIA's LinkX fibre cables made by a contract cable assembler in Guangdong [E]: the
    # assembler is not named, the city is an estimate.
    ("LinkX cable assembly Dongguan (NVIDIA cables)", "factory", "Dongguan", "CN", "", "", False),
    # US makers' shipping points [E]: Cerebras's Sunnyvale headquarters, DDN's Chatsworth
    # headquarters, a Schneider Electric distribution centre (Memphis) for the racks, and Vertiv's
    # Lincoln, Nebraska plant (where Geist rack PDUs are built; the CDUs are assumed to ship from
    # there too).
    ("Cerebras Systems Sunnyvale", "factory", "Sunnyvale", "US", "", "", False),
    ("DDN Chatsworth (storage appliances)", "supplier_warehouse", "Chatsworth", "US", "", "", False),
    ("Schneider Electric Memphis (racks)", "supplier_warehouse", "Memphis", "US", "", "", False),
    ("Vertiv Lincoln (Geist PDUs, CoolChip CDUs)", "factory", "Lincoln", "US", "", "", False),
]
# Operator-kept sites of a customer: its data centre.
CUSTOMER_SITES = {"Chennai AI Compute — Siruseri DC1": "Chennai AI Compute Pvt. Ltd."}
SUPPLIER_SITES = [
    ("Quanta Cloud Technology Inc.", "QCT Guishan Factory", "factory", "Taoyuan", "TW"),
    ("Super Micro Computer, Inc.", "Supermicro San Jose Campus", "factory", "San Jose", "US"),
]
VALID = (dt.date(2026, 1, 1), dt.date(2027, 12, 31))
HUB_HANDLING = (D("0.18"), D("95.00"))  # USD per gross kg, minimum per shipment
# origin, destination, mode, service, carrier, per kg, 20GP, 40GP, 40HC, LCL/cbm, LCL/t, minimum, days
RATES = [
    (
        "TW",
        "IN",
        "air",
        "Air general cargo",
        "China Airlines Cargo",
        "4.20",
        None,
        None,
        None,
        None,
        None,
        "250",
        5,
    ),
    ("TW", "IN", "ocean", "Ocean FCL/LCL", "Evergreen", None, "1400", "2200", "2400", "65", "45", "150", 18),
    ("TW", "SG", "air", "Air general cargo", "EVA Air Cargo", "2.10", None, None, None, None, None, "150", 3),
    ("TW", "SG", "ocean", "Ocean FCL", "Evergreen", None, "650", "1100", "1200", "40", "30", "100", 7),
    (
        "MX",
        "SG",
        "air",
        "Air general cargo",
        "Lufthansa Cargo",
        "5.80",
        None,
        None,
        None,
        None,
        None,
        "300",
        6,
    ),
    ("MX", "SG", "ocean", "Ocean FCL", "CMA CGM", None, "2900", "4000", "4200", "85", "60", "200", 35),
    (
        "SG",
        "IN",
        "air",
        "Air general cargo",
        "Singapore Airlines Cargo",
        "1.90",
        None,
        None,
        None,
        None,
        None,
        "150",
        2,
    ),
    ("SG", "IN", "ocean", "Ocean FCL/LCL", "ONE", None, "600", "850", "900", "40", "30", "100", 7),
    ("US", "IN", "air", "Air general cargo", "Atlas Air", "5.50", None, None, None, None, None, "300", 6),
    ("US", "IN", "ocean", "Ocean FCL", "Maersk", None, "2600", "3500", "3800", "90", "60", "200", 32),
    (
        "MX",
        "IN",
        "air",
        "Air general cargo",
        "Lufthansa Cargo",
        "6.40",
        None,
        None,
        None,
        None,
        None,
        "300",
        7,
    ),
    # Lanes for the demo clusters' Thai optics and Chinese cables, to the site and to the
    # Singapore hub (demo figures [E], in line with the lanes above: short intra-Asian hops to
    # Singapore cost less than the long lanes to India). With Thailand and Mexico both able to
    # reach the hub by air, the clusters' air goods from those countries consolidate there. There
    # is deliberately no US → SG lane: the US servers and systems (tonnes of them) fly straight to
    # Chennai rather than detour through Singapore.
    (
        "TH",
        "SG",
        "air",
        "Air general cargo",
        "Thai Airways Cargo",
        "1.60",
        None,
        None,
        None,
        None,
        None,
        "120",
        2,
    ),
    (
        "TH",
        "IN",
        "air",
        "Air general cargo",
        "Thai Airways Cargo",
        "2.40",
        None,
        None,
        None,
        None,
        None,
        "150",
        3,
    ),
    ("TH", "SG", "ocean", "Ocean FCL/LCL", "RCL", None, "350", "600", "650", "30", "22", "80", 4),
    ("TH", "IN", "ocean", "Ocean FCL/LCL", "RCL", None, "700", "1150", "1250", "45", "32", "100", 12),
    (
        "CN",
        "SG",
        "air",
        "Air general cargo",
        "China Cargo Airlines",
        "2.30",
        None,
        None,
        None,
        None,
        None,
        "150",
        3,
    ),
    (
        "CN",
        "IN",
        "air",
        "Air general cargo",
        "China Southern Cargo",
        "3.60",
        None,
        None,
        None,
        None,
        None,
        "200",
        5,
    ),
    ("CN", "SG", "ocean", "Ocean FCL/LCL", "COSCO Shipping", None, "450", "800", "850", "35", "25", "100", 6),
    (
        "CN",
        "IN",
        "ocean",
        "Ocean FCL/LCL",
        "COSCO Shipping",
        None,
        "900",
        "1500",
        "1600",
        "50",
        "35",
        "120",
        18,
    ),
]
# India's basic customs duty by HS prefix (estimates for planning; check the current schedule).
TARIFF_IN = [
    ("8471", "0", "ITA: computers duty-free"),
    ("847330", "0", "ITA: parts of ADP machines"),
    ("8517", "0.20", "Telecom/network equipment outside India's ITA concessions"),
    ("8544", "0.10", "Insulated wire and cable"),
    ("8504", "0.15", "Static converters / UPS"),
    ("8537", "0.10", "Boards and panels for electric control"),
    ("8419", "0.075", "Heat-exchange equipment"),
    ("9403", "0.25", "Metal furniture (racks)"),
]
TAXES = [
    # country, basis, VAT name, rate, levy on duty, brokerage, handling
    ("IN", "CIF", "IGST", "0.18", "0.10", "350", "120"),
    ("SG", "CIF", "GST", "0.09", "0", "150", "80"),
    ("US", "FOB", "None", "0", "0", "250", "100"),
]
# What the customs value counts of freight and insurance: air freight cap and insurance when not
# known, both as fractions of FOB, and the rule cited in the landed-cost explanation.
VALUATION_RULES = {
    "IN": (
        "0.20",
        "0.01125",
        "India, Customs Valuation (Determination of Value of Imported Goods) Rules 2007, rule 10(2)",
    ),
}
# base, quote, rate, valid on, source. Demo figures for planning: replace them with the day's
# published reference rates (ECB for EUR; CBIC's customs rates for the bill of entry in India).
EXCHANGE_RATES = [
    ("EUR", "USD", "1.08000000", dt.date(2026, 11, 27), "Demo figure after the ECB euro reference rate"),
    ("USD", "INR", "84.50000000", dt.date(2026, 11, 27), "Demo figure after the CBIC customs exchange rate"),
]


# What higher apps do before the demo moves a shipment into a status: compliance
# approves through a passing check, as in real use; documents issues the required documents
# before booking. They register here in their `AppConfig.ready()`; this module imports neither.
# A preparation takes the shipment and who moves it, and returns the shipment (refreshed if it
# changed); when it has already moved the shipment into the status, the demo does not move it.
Preparation = Callable[[Shipment, User], Shipment]
_preparations: dict[str, list[Preparation]] = defaultdict(list)


def before_entering(status: str, prepare: Preparation) -> None:
    """Register `prepare` to run before the demo moves a shipment into `status` (idempotent)."""
    if prepare not in _preparations[str(status)]:
        _preparations[str(status)].append(prepare)


# What higher apps do while a demo consolidation's goods are at its hub, between the inbound legs'
# arrival and the main carriage's departure: the warehouse receives each inbound leg against its
# notice, picks and ships the goods, through the services a user calls.
_at_hub: list[Preparation] = []


def at_hub(prepare: Preparation) -> None:
    """Register `prepare` to run while the demo's consolidation is at its hub (idempotent)."""
    if prepare not in _at_hub:
        _at_hub.append(prepare)


def _site(owner, name, kind, city, country, iata="", unlocode="", bonded=False):
    site = Site.objects.filter(owner=owner, name=name).first()
    if site is None:
        site = Site(
            owner=owner,
            name=name,
            kind=kind,
            city=city,
            country=country,
            iata_code=iata,
            unlocode=unlocode,
            is_bonded=bonded,
        )
        site.full_clean()
        site.save()
    return site


def _reference_data() -> None:
    operator = Organisation.objects.get(kind=OrganisationKind.OPERATOR)
    for name, kind, city, country, iata, unlocode, bonded in OPERATOR_SITES:
        site = _site(
            operator,
            name,
            kind,
            city,
            country,
            iata if kind == "airport" else "",
            unlocode if kind != "airport" else "",
            bonded,
        )
        customer = CUSTOMER_SITES.get(name)
        if customer and site.customer_id is None:
            # Where a customer's cluster stands is the customer's: seen by it, those
            # connected with it and its shipments' parties, not by every partner.
            site.customer = Organisation.objects.get(legal_name=customer)
            site.full_clean()
            site.save()
    for org_name, name, kind, city, country in SUPPLIER_SITES:
        _site(Organisation.objects.get(legal_name=org_name), name, kind, city, country)
    for org_name, service, country in [
        ("Bharat IOR Services Pvt. Ltd.", RecordService.IMPORTER_OF_RECORD, "IN"),
        ("Formosa Export Services Co., Ltd.", RecordService.EXPORTER_OF_RECORD, "TW"),
        ("Meridian Air & Ocean Freight Pte. Ltd.", RecordService.IMPORTER_OF_RECORD, "SG"),
    ]:
        ServiceCoverage.objects.get_or_create(
            organisation=Organisation.objects.get(legal_name=org_name), service=service, country=country
        )
    # The Singapore hub's handling (receive, hold under bond, re-load): per gross kg, a minimum.
    hub = Site.objects.get(name="Rackpass Bonded Hub Singapore", owner=operator)
    if not HubHandlingRate.objects.filter(site=hub).exists():
        handling = HubHandlingRate(
            site=hub,
            currency="USD",
            price_per_kg=HUB_HANDLING[0],
            minimum_charge=HUB_HANDLING[1],
            valid_from=VALID[0],
            valid_to=VALID[1],
        )
        handling.full_clean()
        handling.save()
    load_rates()
    for prefix, rate, note in TARIFF_IN:
        TariffRate.objects.get_or_create(
            destination_country="IN", hs_prefix=prefix, defaults={"duty_rate": D(rate), "note": note}
        )
    for country, basis, vat_name, vat, levy, brokerage, handling in TAXES:
        DestinationTax.objects.get_or_create(
            country=country,
            defaults={
                "valuation_basis": basis,
                "vat_name": vat_name,
                "vat_rate": D(vat),
                "levy_on_duty_rate": D(levy),
                "brokerage_fee": D(brokerage),
                "handling_fee": D(handling),
            },
        )
    for country, (cap, insurance, citation) in VALUATION_RULES.items():
        tax = DestinationTax.objects.get(country=country)
        if tax.air_freight_cap_of_fob is None and not tax.valuation_rules_citation:  # keep edits
            tax.air_freight_cap_of_fob = D(cap)
            tax.insurance_of_fob_when_unknown = D(insurance)
            tax.valuation_rules_citation = citation
            tax.full_clean()
            tax.save()
    for base, quote, rate, valid_on, source in EXCHANGE_RATES:
        if not ExchangeRate.objects.filter(base=base, quote=quote, valid_on=valid_on).exists():
            fx = ExchangeRate(base=base, quote=quote, rate=D(rate), valid_on=valid_on, source=source)
            fx.full_clean()
            fx.save()


def _part(number: str) -> Part:
    return Part.objects.get(part_number=number, owner__kind="operator")


def _org(name: str) -> Organisation:
    return Organisation.objects.get(legal_name=name)


def _s(name: str) -> Site:
    return Site.objects.get(name=name)


def _serials(prefix: str, count: int) -> list[str]:
    return [f"{prefix}{n:05d}" for n in range(1, count + 1)]


def _pack(shipment, package_type, dims_cm, weights_kg, items, serials=None, **fields):
    """A package of the demo: dimensions (L, W, H cm) and weights (gross, net kg) as numbers."""
    length, width, height = (D(str(v)) for v in dims_cm)
    gross, net = (D(str(v)) for v in weights_kg)
    return services.package_add(
        shipment=shipment,
        fields={
            "package_type": package_type,
            "length_cm": length,
            "width_cm": width,
            "height_cm": height,
            "gross_kg": gross,
            "net_kg": net,
            **fields,
        },
        items=items,
        serials=serials,
    )


def _leg(shipment, lines=None, **fields):
    return services.leg_add(shipment=shipment, fields=fields, lines=lines)


def load_rates() -> int:
    """The demo's rate table (`RATES`), each lane and mode once; the number of rates made. Tests
    and benchmarks price on the same table."""
    made = 0
    for o, d, mode, service, carrier, kg, p20, p40, p40hc, cbm, tonne, minimum, days in RATES:
        if FreightRate.objects.filter(
            origin_country=o, destination_country=d, mode=mode, valid_from=VALID[0]
        ).exists():
            continue
        rate = FreightRate(
            origin_country=o,
            destination_country=d,
            mode=mode,
            service=service,
            carrier=carrier,
            price_per_kg=kg and D(kg),
            price_20gp=p20 and D(p20),
            price_40gp=p40 and D(p40),
            price_40hc=p40hc and D(p40hc),
            price_per_cbm=cbm and D(cbm),
            price_per_tonne=tonne and D(tonne),
            minimum_charge=D(minimum),
            transit_days=days,
            valid_from=VALID[0],
            valid_to=VALID[1],
        )
        rate.full_clean()
        rate.save()
        made += 1
    return made


def _shipments() -> int:
    coordinator = User.objects.get(username="coordinator")
    forwarder = User.objects.get(username="forwarder")
    qct, chennai = _org("Quanta Cloud Technology Inc."), _org("Chennai AI Compute Pvt. Ltd.")
    meridian, broker = (
        _org("Meridian Air & Ocean Freight Pte. Ltd."),
        _org("Coromandel Customs Brokers Pvt. Ltd."),
    )
    today = timezone.localdate()
    created = 0

    def make(marker: str, fields: dict, parties: dict):
        nonlocal created
        existing = Shipment.objects.filter(instructions__startswith=marker).first()
        if existing:
            return None
        created += 1
        fields["instructions"] = f"{marker} {fields.get('instructions', '')}".strip()
        fields.setdefault("end_use", "AI training cluster for Chennai AI Compute (pod 2)")
        return services.shipment_create(actor=coordinator, fields=fields, parties=parties)

    def move(shipment, *targets, actor=coordinator, **kwargs):
        for target in targets:
            for prepare in _preparations.get(str(target), ()):
                shipment = prepare(shipment, actor)
            if shipment.status != target:  # a preparation may have moved it (compliance approves)
                shipment = services.shipment_transition(
                    shipment=shipment, target=target, actor=actor, **kwargs
                )
        return shipment

    base_parties = {
        "shipper": qct,
        "consignee": chennai,
        "ultimate_consignee": chennai,
        "freight_forwarder": meridian,
        "customs_broker": broker,
    }

    # A: draft, air from Taiwan to the Chennai data centre.
    shipment = make(
        "[Demo A]",
        {
            "origin": _s("QCT Guishan Factory"),
            "destination": _s("Chennai AI Compute — Siruseri DC1"),
            "incoterm": "DAP",
            "incoterm_place": "Siruseri DC1, Chennai",
            "mode": "air",
            "ready_date": today + dt.timedelta(days=7),
            "required_by": today + dt.timedelta(days=21),
            "insurance_value": D("1650000"),
            "instructions": "Four DGX H100 systems and NICs for pod 2.",
        },
        base_parties,
    )
    if shipment:
        services.line_add(shipment=shipment, part=_part("DGXH-G640F+P2CMI36"), quantity=4)
        services.line_add(shipment=shipment, part=_part("MCX75310AAS-NEAT"), quantity=32)

    # B: consolidated multi-origin — servers from Taiwan and switches from Mexico meet in the
    # Singapore bonded hub, then fly to Chennai. In transit, with milestones from the forwarder.
    shipment = make(
        "[Demo B]",
        {
            "origin": _s("QCT Guishan Factory"),
            "destination": _s("Chennai AI Compute — Siruseri DC1"),
            "incoterm": "DAP",
            "incoterm_place": "Siruseri DC1, Chennai",
            "buyer_order_reference": "CAIC-PO-2026-0117",
            "mode": "multimodal",
            "ready_date": today - dt.timedelta(days=12),
            "required_by": today + dt.timedelta(days=4),
            "insurance_value": D("2400000"),
            "instructions": "Consolidate at the Singapore bonded hub; fly SIN→MAA on one AWB.",
        },
        base_parties,
    )
    if shipment:
        servers = services.line_add(
            shipment=shipment,
            part=_part("SYS-821GE-TNHR"),
            quantity=4,
            serials=_serials("QTSM821", 4),
            # Built under contract at QCT's Taiwanese plant: the units' origin is Taiwan, not the
            # US of the brand's catalogue entry.
            fields={"country_of_origin": "TW"},
        )
        switches = services.line_add(
            shipment=shipment,
            part=_part("MQM9700-NS2F"),
            quantity=4,
            serials=_serials("MT24QM", 4),
            # The switches leave Mexico exported by their maker, not by the Taiwanese shipper.
            fields={"shipper": _org("Jabil Circuit de México, S. de R.L. de C.V.")},
        )
        for i, serial in enumerate(_serials("QTSM821", 4), start=1):
            _pack(
                shipment,
                "crate",
                (130, 90, 85),
                (165, 135),
                items=[(servers, 1)],
                serials=[serial],
                tilt_indicator=True,
                shock_indicator=True,
                marks=f"CHN-AIC/POD2/{i}",
            )
        _pack(
            shipment,
            "pallet",
            (120, 100, 60),
            (96, 58),
            items=[(switches, 4)],
            serials=_serials("MT24QM", 4),
            marks="CHN-AIC/POD2/5",
        )
        hub, maa = _s("Rackpass Bonded Hub Singapore"), _s("Chennai AI Compute — Siruseri DC1")
        inbound_tw = _leg(
            shipment,
            role=LegRole.INBOUND,
            origin=_s("QCT Guishan Factory"),
            destination=hub,
            mode="air",
            carrier="EVA Air Cargo",
            transport_document="695-12345675",
            planned_departure=today - dt.timedelta(days=10),
            planned_arrival=today - dt.timedelta(days=8),
            lines=[servers],
        )
        _leg(
            shipment,
            role=LegRole.INBOUND,
            origin=_s("Jabil Guadalajara (NVIDIA networking)"),
            destination=hub,
            mode="air",
            carrier="Lufthansa Cargo",
            transport_document="020-45678905",
            planned_departure=today - dt.timedelta(days=11),
            planned_arrival=today - dt.timedelta(days=6),
            lines=[switches],
        )
        main = _leg(
            shipment,
            role=LegRole.MAIN,
            origin=hub,
            destination=maa,
            mode="air",
            carrier="Singapore Airlines Cargo",
            transport_document="618-20240010",
            planned_departure=today - dt.timedelta(days=1),
            planned_arrival=today + dt.timedelta(days=2),
        )
        shipment = move(
            shipment, ShipmentStatus.COMPLIANCE_REVIEW, ShipmentStatus.APPROVED, ShipmentStatus.BOOKED
        )
        now = timezone.now()
        # The loader posts the forwarder's milestones for it: recorded as the forwarder's, through
        # a command ("system"), so they are not shown as anybody's activity.
        with audit_context(channel="system", actor=forwarder):
            services.event_record(
                shipment=shipment,
                actor=forwarder,
                code="picked_up",
                leg=inbound_tw,
                occurred_at=now - dt.timedelta(days=10),
                location="QCT Guishan, Taoyuan",
            )
        for prepare in _at_hub:  # each receipt records its leg's arrival at the hub
            shipment = prepare(shipment, coordinator)
        with audit_context(channel="system", actor=forwarder):
            if not _at_hub:
                services.event_record(
                    shipment=shipment,
                    actor=forwarder,
                    code="received_at_warehouse",
                    occurred_at=now - dt.timedelta(days=5),
                    location="Rackpass Bonded Hub Singapore",
                    remarks="Both inbound legs received; consolidated under bond.",
                )
            services.event_record(
                shipment=shipment,
                actor=forwarder,
                code="departed",
                leg=main,
                occurred_at=now - dt.timedelta(hours=20),
                location="SIN",
                remarks="SQ 7416",
                eta=today + dt.timedelta(days=2),
            )

    # C: Supermicro from the US, held by Indian customs.
    shipment = make(
        "[Demo C]",
        {
            "origin": _s("Supermicro San Jose Campus"),
            "destination": _s("Chennai AI Compute — Siruseri DC1"),
            "incoterm": "CIP",
            "incoterm_place": "Chennai (MAA)",
            "mode": "air",
            "ready_date": today - dt.timedelta(days=9),
            "required_by": today + dt.timedelta(days=1),
            # CIP: the invoice adds the air freight and the all-risks premium to the goods (13,000),
            # and the cover is at least 110% of the 13,395 invoice value.
            "freight_charge": D("350"),
            "insurance_charge": D("45"),
            "insurance_value": D("14750"),
        },
        base_parties | {"shipper": _org("Super Micro Computer, Inc.")},
    )
    if shipment:
        line = services.line_add(
            shipment=shipment, part=_part("MSN2201-CB2FC"), quantity=2, serials=["MT2411X0001", "MT2411X0002"]
        )
        _pack(
            shipment,
            "carton",
            (60, 50, 25),
            (18, 14.82),  # two 7.41 kg switches and their carton
            items=[(line, 2)],
            serials=["MT2411X0001", "MT2411X0002"],
        )
        _leg(
            shipment,
            role=LegRole.MAIN,
            origin=_s("San Francisco International Airport"),
            destination=_s("Chennai International Airport"),
            mode="air",
            carrier="Atlas Air",
            planned_departure=today - dt.timedelta(days=7),
            planned_arrival=today - dt.timedelta(days=2),
        )
        shipment = move(
            shipment, ShipmentStatus.COMPLIANCE_REVIEW, ShipmentStatus.APPROVED, ShipmentStatus.BOOKED
        )
        now = timezone.now()
        services.event_record(
            shipment=shipment,
            actor=forwarder,
            code="departed",
            occurred_at=now - dt.timedelta(days=6),
            location="SFO",
        )
        services.event_record(
            shipment=shipment,
            actor=forwarder,
            code="arrived",
            occurred_at=now - dt.timedelta(days=2),
            location="MAA",
        )
        services.event_record(
            shipment=shipment,
            actor=forwarder,
            code="customs_hold",
            occurred_at=now - dt.timedelta(days=1),
            location="Chennai Air Cargo Complex",
            remarks="BIS CRS registration number requested for the switches.",
            eta=today + dt.timedelta(days=3),
        )

    # D: a small delivered shipment of optics.
    shipment = make(
        "[Demo D]",
        {
            "origin": _s("QCT Guishan Factory"),
            "destination": _s("Chennai AI Compute — Siruseri DC1"),
            "incoterm": "DAP",
            "incoterm_place": "Siruseri DC1, Chennai",
            "mode": "air",
            "ready_date": today - dt.timedelta(days=30),
            "required_by": today - dt.timedelta(days=18),
        },
        base_parties,
    )
    if shipment:
        optics = _part("MMA4Z00-NS")
        serials = _serials("MMA4Z", 16)
        line = services.line_add(shipment=shipment, part=optics, quantity=16, serials=serials)
        _pack(shipment, "carton", (40, 30, 20), (6, 4), items=[(line, 16)], serials=serials)
        _leg(
            shipment,
            role=LegRole.MAIN,
            origin=_s("Taiwan Taoyuan International Airport"),
            destination=_s("Chennai International Airport"),
            mode="air",
            planned_departure=today - dt.timedelta(days=28),
            planned_arrival=today - dt.timedelta(days=24),
        )
        shipment = move(
            shipment, ShipmentStatus.COMPLIANCE_REVIEW, ShipmentStatus.APPROVED, ShipmentStatus.BOOKED
        )
        now = timezone.now()
        for code, days in (("departed", 27), ("arrived", 24), ("customs_released", 22), ("delivered", 21)):
            services.event_record(
                shipment=shipment,
                actor=forwarder,
                code=code,
                occurred_at=now - dt.timedelta(days=days),
                location="MAA",
            )

    # J: spare optics flying from Taiwan into the Singapore hub, landing today: what the hub's
    # "Expected" page lists for the warehouse operator to receive (by scanning, box by box).
    shipment = make(
        "[Demo J]",
        {
            "origin": _s("QCT Guishan Factory"),
            "destination": _s("Rackpass Bonded Hub Singapore"),
            "incoterm": "DAP",
            "incoterm_place": "Rackpass Bonded Hub Singapore",
            "mode": "air",
            "ready_date": today - dt.timedelta(days=2),
            "required_by": today + dt.timedelta(days=3),
            "instructions": "Spare optics for pod 3, held in bond at the hub.",
        },
        # Into Singapore under bond: the forwarder imports them there for the customer.
        base_parties | {"importer_of_record": meridian},
    )
    if shipment:
        serials = _serials("MMA4Y", 8)
        line = services.line_add(shipment=shipment, part=_part("MMA4Z00-NS"), quantity=8, serials=serials)
        _pack(
            shipment,
            "carton",
            (40, 30, 20),
            (4, 0.8),
            items=[(line, 4)],
            serials=serials[:4],
            marks="POD3/OPT/1",
        )
        _pack(
            shipment,
            "carton",
            (40, 30, 20),
            (4, 0.8),
            items=[(line, 4)],
            serials=serials[4:],
            marks="POD3/OPT/2",
        )
        _leg(
            shipment,
            role=LegRole.MAIN,
            origin=_s("QCT Guishan Factory"),
            destination=_s("Rackpass Bonded Hub Singapore"),
            mode="air",
            carrier="EVA Air Cargo",
            transport_document="695-12345760",
            planned_departure=today - dt.timedelta(days=1),
            planned_arrival=today,
        )
        shipment = move(
            shipment, ShipmentStatus.COMPLIANCE_REVIEW, ShipmentStatus.APPROVED, ShipmentStatus.BOOKED
        )
        services.event_record(
            shipment=shipment,
            actor=forwarder,
            code="departed",
            occurred_at=timezone.now() - dt.timedelta(hours=18),
            location="TPE",
        )

    # E: cancelled before review.
    shipment = make(
        "[Demo E]",
        {
            "origin": _s("QCT Guishan Factory"),
            "destination": _s("Chennai AI Compute — Siruseri DC1"),
            "incoterm": "FCA",
            "incoterm_place": "TPE",
            "mode": "air",
            "ready_date": today + dt.timedelta(days=3),
            "required_by": today + dt.timedelta(days=10),
        },
        base_parties,
    )
    if shipment:
        services.line_add(shipment=shipment, part=_part("MMS4X00-NS"), quantity=64)
        move(shipment, ShipmentStatus.CANCELLED, reason="Customer moved the order to the next pod.")

    # F: a Singapore buyer for an Indian site — no Indian entity, so an importer of record is
    # named; ocean for racks and CDUs; submitted for review (the worker's check approves it).
    shipment = make(
        "[Demo F]",
        {
            "origin": _s("QCT Guishan Factory"),
            "destination": _s("Chennai AI Compute — Siruseri DC1"),
            "incoterm": "DDP",
            "incoterm_place": "Siruseri DC1, Chennai",
            "mode": "ocean",
            "ready_date": today + dt.timedelta(days=5),
            "required_by": today + dt.timedelta(days=40),
        },
        base_parties | {"consignee": meridian, "importer_of_record": _org("Bharat IOR Services Pvt. Ltd.")},
    )
    if shipment:
        racks = services.line_add(
            shipment=shipment, part=_part("VX-IT-48U-600x1200"), quantity=8, serials=_serials("VXR48U", 8)
        )
        cdus = services.line_add(
            shipment=shipment, part=_part("CoolChip-CDU-100"), quantity=2, serials=_serials("CDU100", 2)
        )
        systems = services.line_add(
            shipment=shipment, part=_part("DGXH-G640F+P2CMI36"), quantity=2, serials=_serials("DGXF", 2)
        )
        for i, serial in enumerate(_serials("VXR48U", 8), start=1):
            _pack(
                shipment,
                "crate",
                (135, 75, 235),
                (210, 155),
                items=[(racks, 1)],
                serials=[serial],
                tilt_indicator=True,
                marks=f"CHN-AIC/RACK/{i}",
            )
        _pack(
            shipment,
            "pallet",
            (120, 100, 60),
            (215, 180),
            items=[(cdus, 2)],
            serials=_serials("CDU100", 2),
            keep_dry=True,
            marks="CHN-AIC/CDU/1",
        )
        for i, serial in enumerate(_serials("DGXF", 2), start=1):
            _pack(
                shipment,
                "crate",
                (110, 70, 60),
                (168, 130.45),
                items=[(systems, 1)],
                serials=[serial],
                tilt_indicator=True,
                shock_indicator=True,
                marks=f"CHN-AIC/DGX/{i}",
            )
        move(shipment, ShipmentStatus.COMPLIANCE_REVIEW)
    return created


def load(**_options) -> dict[str, int]:
    _reference_data()
    return {"shipments": _shipments()}
