import datetime as dt
import json
from decimal import Decimal

import pytest
from django.utils import timezone

from apps.accounts.models import Registration
from apps.compliance import services
from apps.compliance.models import Licence
from apps.shipments import services as shipment_services
from apps.shipments.models import Site
from tests.factories import OrganisationFactory, PartFactory

LIST = {
    "sources_used": [{"source": "Entity List (EL) - Bureau of Industry and Security"}],
    "total": 4,
    "results": [
        {
            "id": "el-1",
            "source": "Entity List (EL) - Bureau of Industry and Security",
            "entity_number": "",
            "type": "Entity",
            "name": "SHENZHEN DEMO AI TECHNOLOGY CO., LTD.",
            "alt_names": ["DEMO AI SHENZHEN"],
            "addresses": [{"country": "CN"}],
            "programs": [],
            "license_requirement": "For all items subject to the EAR.",
            "license_policy": "Presumption of denial.",
            "federal_register_notice": "89 FR 1",
            "source_list_url": "",
        },
        {
            "id": "dpl-1",
            "source": "Denied Persons List (DPL) - Bureau of Industry and Security",
            "entity_number": "",
            "type": "Individual",
            "name": "IVANOV, Pyotr",
            "alt_names": [],
            "addresses": [{"country": "RU"}],
            "programs": [],
            "license_requirement": None,
            "license_policy": None,
            "federal_register_notice": None,
            "source_list_url": "",
        },
        {
            "id": "sdn-1",
            "source": "Specially Designated Nationals (SDN) - Treasury Department",
            "entity_number": "123",
            "type": "Entity",
            "name": "NORTHERN STAR SHIPPING LLC",
            "alt_names": [],
            "addresses": [{"country": "AE"}],
            "programs": ["IRAN"],
            "license_requirement": None,
            "license_policy": None,
            "federal_register_notice": None,
            "source_list_url": "",
        },
        {
            "id": "uvl-1",
            "source": "Unverified List (UVL) - Bureau of Industry and Security",
            "entity_number": "",
            "type": "Entity",
            "name": "BLUE LOTUS ELECTRONICS TRADING",
            "alt_names": [],
            "addresses": [{"country": "HK"}],
            "programs": [],
            "license_requirement": None,
            "license_policy": None,
            "federal_register_notice": None,
            "source_list_url": "",
        },
    ],
}


@pytest.fixture
def country_data(db):
    return services.country_data_load_default()


@pytest.fixture
def screening_list(db):
    return services.screening_list_import(
        name="CSL", source_format="csl_json", data=json.dumps(LIST).encode(), version="test-1", rescreen=False
    )


@pytest.fixture
def h100(db):
    return PartFactory(
        part_number="H100-SXM5",
        name="H100 SXM5",
        category="accelerator",
        hs_code="847330",
        dense_tops={"8": "1979", "16": "989.5"},
        die_area_mm2=Decimal("814"),
        unit_value=Decimal("30000"),
        power_draw_w=700,
    )


@pytest.fixture
def dgx(h100):
    return PartFactory(
        part_number="DGX-H100",
        name="DGX H100",
        category="server",
        hs_code="847150",
        accelerator=h100,
        gpus_per_server=8,
        unit_value=Decimal("373000"),
        unit_weight_kg=Decimal("130"),
        length_cm=Decimal("130"),
        width_cm=Decimal("85"),
        height_cm=Decimal("110"),
    )


@pytest.fixture
def switch(db):
    return PartFactory(
        part_number="QM9700",
        name="Quantum-2",
        category="network_switch",
        hs_code="851762",
        encryption=True,
        mass_market=True,
    )


@pytest.fixture
def sites(operator, supplier):
    factory = Site.objects.create(
        owner=supplier, name="Factory", kind="factory", city="Taoyuan", country="TW"
    )

    def dc(country, city):
        return Site.objects.get_or_create(
            owner=operator, name=f"DC {country}", kind="data_centre", city=city, country=country
        )[0]

    return factory, dc


@pytest.fixture
def indian_customer(db):
    org = OrganisationFactory(kind="customer", legal_name="Chennai AI Compute", country="IN", city="Chennai")
    for scheme, number in (("iec", "AAKCC5521M"), ("gstin", "33AAKCC5521M1Z2")):
        Registration.objects.create(organisation=org, scheme=scheme, number=number, country="IN")
    return org


@pytest.fixture
def ship(coordinator, supplier, sites, country_data):
    """`ship(parties, country, city, lines, actor=coordinator, submit=True, **fields)`: a shipment
    from the supplier's factory with the given parties (the supplier is the shipper unless named)
    and lines, submitted for review unless `submit=False` (the check is run by the test)."""

    def make(parties, country, city, lines, actor=None, submit=True, **fields):
        factory, dc = sites
        today = timezone.localdate()
        shipment = shipment_services.shipment_create(
            actor=actor or coordinator,
            fields={
                "origin": factory,
                "destination": dc(country, city),
                "incoterm": "DAP",
                "incoterm_place": city,
                "mode": "air",
                "end_use": "AI training cluster",
                "ready_date": today,
                "required_by": today + dt.timedelta(days=30),
                **fields,
            },
            parties={"shipper": supplier, **parties},
        )
        for part, quantity in lines:
            shipment_services.line_add(shipment=shipment, part=part, quantity=quantity)
        if not submit:
            return shipment
        return shipment_services.shipment_transition(
            shipment=shipment, target="compliance_review", actor=coordinator
        )

    return make


@pytest.fixture
def submitted(ship):
    """A shipment to `consignee` with given lines, submitted for review."""

    def make(consignee, country, city, lines, **fields):
        return ship({"consignee": consignee}, country, city, lines, **fields)

    return make


@pytest.fixture
def saudi_customer(db):
    return OrganisationFactory(kind="customer", legal_name="Riyadh Compute", country="SA", city="Riyadh")


@pytest.fixture
def saudi_licence(saudi_customer, supplier):
    """Issued to the supplier, the exporter (shipper) of the `submitted` shipments."""
    return services.licence_save(
        licence=Licence(),
        fields={
            "number": "D1234567",
            "licensee": supplier,
            "eccns": "4A090.a",
            "destination_countries": "SA",
            "consignee": saudi_customer,
            "permitted_quantity": 6,
            "permitted_value": Decimal("3000000"),
            "valid_from": dt.date(2026, 1, 1),
            "expires_on": dt.date(2027, 12, 31),
        },
    )


@pytest.fixture
def indian_lookalike(db):
    """An Indian importer (IEC and GSTIN on file) whose name resembles an Entity List entry of
    the test list: a possible match that an officer clears or confirms."""
    org = OrganisationFactory(
        kind="customer",
        legal_name="Shenzhen Demo AI Technology Company Limited",
        country="IN",
        city="Chennai",
    )
    for scheme, number in (("iec", "AAKCS5521M"), ("gstin", "33AAKCS5521M1Z2")):
        Registration.objects.create(organisation=org, scheme=scheme, number=number, country="IN")
    return org
