import datetime as dt
from decimal import Decimal

import pytest
from django.utils import timezone

from apps.accounts.models import Registration
from apps.shipments import services
from apps.shipments.models import DestinationTax, FreightRate, Site, TariffRate
from tests.factories import OrganisationFactory, PartFactory

TODAY = dt.date(2026, 12, 2)


@pytest.fixture
def customer(db):
    org = OrganisationFactory(kind="customer", legal_name="Chennai AI Compute", country="IN", city="Chennai")
    for scheme, number in (("iec", "AAKCC5521M"), ("gstin", "33AAKCC5521M1Z2")):
        Registration.objects.create(organisation=org, scheme=scheme, number=number, country="IN")
    return org


@pytest.fixture
def factory_site(supplier):
    return Site.objects.create(
        owner=supplier, name="Guishan factory", kind="factory", city="Taoyuan", country="TW"
    )


@pytest.fixture
def datacentre(operator):
    return Site.objects.create(
        owner=operator, name="Siruseri DC1", kind="data_centre", city="Chennai", country="IN"
    )


@pytest.fixture
def hub(operator):
    return Site.objects.create(
        owner=operator, name="SG bonded hub", kind="warehouse", city="Singapore", country="SG", is_bonded=True
    )


@pytest.fixture
def gpu_server(db):
    h100 = PartFactory(
        part_number="H100-SXM5",
        name="H100",
        category="accelerator",
        hs_code="847330",
        dense_tops={"8": "1979"},
        die_area_mm2=Decimal("814"),
    )
    return PartFactory(
        part_number="DGX-H100",
        name="DGX H100",
        category="server",
        unit_weight_kg=Decimal("130"),
        length_cm=Decimal("130"),
        width_cm=Decimal("85"),
        height_cm=Decimal("110"),
        unit_value=Decimal("373000"),
        hs_code="847150",
        country_of_origin="TW",
        contains_lithium_batteries=True,
        gpus_per_server=8,
        accelerator=h100,
    )


@pytest.fixture
def cable(db):
    return PartFactory(
        part_number="MCP4Y10-N002",
        name="NDR DAC 2 m",
        category="cable",
        unit_weight_kg=Decimal("0.6"),
        length_cm=Decimal("30"),
        width_cm=Decimal("20"),
        height_cm=Decimal("5"),
        unit_value=Decimal("180"),
        hs_code="854442",
        is_serialised=False,
        country_of_origin="CN",
    )


def tw_in_rates(
    *, air_service: str = "Air", air_carrier: str = "", valid_to: dt.date = dt.date(2027, 12, 31)
) -> tuple[FreightRate, FreightRate]:
    """Taiwan → India by air and by ocean, India's tariff on servers and cables and its IGST: what
    the freight options price a TW → IN shipment with (the browser days use it too)."""
    valid = {"valid_from": dt.date(2026, 1, 1), "valid_to": valid_to}
    air = FreightRate.objects.create(
        origin_country="TW",
        destination_country="IN",
        mode="air",
        service=air_service,
        carrier=air_carrier,
        price_per_kg=Decimal("4.20"),
        minimum_charge=Decimal("250"),
        transit_days=5,
        **valid,
    )
    ocean = FreightRate.objects.create(
        origin_country="TW",
        destination_country="IN",
        mode="ocean",
        service="Ocean",
        price_20gp=Decimal("1400"),
        price_40gp=Decimal("2200"),
        price_40hc=Decimal("2400"),
        price_per_cbm=Decimal("65"),
        price_per_tonne=Decimal("45"),
        minimum_charge=Decimal("150"),
        transit_days=18,
        **valid,
    )
    TariffRate.objects.create(destination_country="IN", hs_prefix="8471", duty_rate=Decimal("0"))
    TariffRate.objects.create(destination_country="IN", hs_prefix="8544", duty_rate=Decimal("0.10"))
    DestinationTax.objects.create(
        country="IN",
        valuation_basis="CIF",
        vat_name="IGST",
        vat_rate=Decimal("0.18"),
        levy_on_duty_rate=Decimal("0.10"),
        brokerage_fee=Decimal("350"),
    )
    return air, ocean


@pytest.fixture
def rates(db):
    return tw_in_rates()


@pytest.fixture
def make_shipment(coordinator, supplier, customer, factory_site, datacentre):
    """A draft TW → IN shipment with shipper and consignee; override fields and parties as needed."""

    def make(actor=None, parties=None, **fields):
        today = timezone.localdate()
        values = {
            "origin": factory_site,
            "destination": datacentre,
            "incoterm": "DAP",
            "incoterm_place": "Siruseri DC1",
            "mode": "air",
            "end_use": "AI training cluster",
            "ready_date": today,
            "required_by": today + dt.timedelta(days=30),
        } | fields
        return services.shipment_create(
            actor=actor or coordinator,
            fields=values,
            parties={"shipper": supplier, "consignee": customer} | (parties or {}),
        )

    return make


@pytest.fixture
def ready_to_book(make_shipment, gpu_server, hub, datacentre):
    """An approved shipment: one serialised line, fully packed, with a main leg."""

    def build(**fields):
        shipment = make_shipment(**fields)
        line = services.line_add(shipment=shipment, part=gpu_server, quantity=2, serials=["S1", "S2"])
        services.package_add(shipment=shipment, fields=crate(), items=[(line, 2)], serials=["S1", "S2"])
        services.leg_add(
            shipment=shipment,
            fields={"role": "main", "origin": hub, "destination": datacentre, "mode": "air"},
        )
        return shipment

    return build


def crate(**overrides):
    return {
        "package_type": "crate",
        "length_cm": Decimal("130"),
        "width_cm": Decimal("90"),
        "height_cm": Decimal("120"),
        "gross_kg": Decimal("300"),
        "net_kg": Decimal("260"),
    } | overrides


def pack_all(shipment, **fields):
    """One crate holding every unit of the shipment, with every serial (numbered if a serialised line
    has none): what a document stating packages and weights needs."""
    lines = list(shipment.lines.select_related("part"))
    for line in lines:
        if line.part.is_serialised and not line.serials.exists():
            services.serials_set(
                line=line,
                serials=[
                    f"SN-{shipment.reference[-6:]}-{line.line_number}-{n}"
                    for n in range(1, line.quantity + 1)
                ],
            )
    serials = [s.serial for line in lines for s in line.serials.all()]
    # Weighed as a packer would: the contents' catalogue weight plus the crate.
    weighed = services.package_suggestion([(line, line.quantity) for line in lines], "crate")
    weights = {"gross_kg": weighed["gross_kg"], "net_kg": weighed["net_kg"]}
    return services.package_add(
        shipment=shipment,
        fields=crate(**{"marks": "RACK/1", **weights, **fields}),
        items=[(line, line.quantity) for line in lines],
        serials=serials or None,
    )
