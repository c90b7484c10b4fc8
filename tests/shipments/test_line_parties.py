"""Issue 11: "A shipment has one organisation per party role: the Mexican exporter cannot be named,
and the exporter-of-record need is checked for the origin country only. Lines carry their shipper /
exporter where a shipment has several origins; the EOR assessment runs per origin country."

The consolidation here is the demo's: servers from a Taiwanese supplier (the shipment's shipper and
origin) and switches from a Mexican factory, each on an inbound leg to the Singapore hub, then one
main leg to Chennai. Mexico asks no special registration of exporters (record_parties.py), so a
Mexican company exports from Mexico itself; a Taiwanese one has no entity there.
"""

import json

import pytest
from django.core.exceptions import ValidationError

from apps.accounts.models import ServiceCoverage
from apps.accounts.roles import Role
from apps.accounts.services import connection_create
from apps.compliance import services as compliance_services
from apps.compliance.services.checks import compliance_check_run
from apps.shipments import selectors, services
from apps.shipments.models import Shipment, ShipmentStatus, Site
from tests.compliance.conftest import LIST
from tests.factories import OrganisationFactory, PartFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def mexican(db):
    return OrganisationFactory(
        kind="supplier", legal_name="Jabil Circuit de México", country="MX", city="Zapopan"
    )


@pytest.fixture
def switch(db):
    return PartFactory(
        part_number="MQM9700-NS2F", name="Quantum-2 switch", category="switch", hs_code="851762"
    )


@pytest.fixture
def consolidation(make_shipment, gpu_server, switch, hub, datacentre, factory_site, operator):
    """Two lines, two inbound legs (TW → hub carries line 1, MX → hub carries line 2), a main leg."""
    shipment = make_shipment(origin=factory_site)
    servers = services.line_add(shipment=shipment, part=gpu_server, quantity=2)
    switches = services.line_add(shipment=shipment, part=switch, quantity=4)
    mx_factory = Site.objects.create(
        owner=operator, name="Guadalajara factory", kind="factory", city="Zapopan", country="MX"
    )
    for origin, line in ((factory_site, servers), (mx_factory, switches)):
        services.leg_add(
            shipment=shipment,
            fields={"role": "inbound", "origin": origin, "destination": hub, "mode": "air"},
            lines=[line],
        )
    services.leg_add(
        shipment=shipment, fields={"role": "main", "origin": hub, "destination": datacentre, "mode": "air"}
    )
    return shipment


def review_problems(shipment) -> list[str]:
    return services.guard_problems(shipment, ShipmentStatus.COMPLIANCE_REVIEW)


def test_the_mexican_line_needs_an_exporter_in_mexico_not_only_the_origin_is_assessed(
    consolidation, supplier
):
    # Before: one exporter need, for TW (the shipment's origin) and the Taiwanese shipper, so the
    # shipment went to review with no one able to export the switches from Mexico.
    needs = [n for n in selectors.record_needs(consolidation) if n.need.role == "exporter"]
    assert [(n.need.country, n.need.lines, n.need.needed) for n in needs] == [
        ("TW", (1,), False),
        ("MX", (2,), True),
    ]
    assert review_problems(consolidation) == [
        f"{supplier.legal_name} has no registered entity in MX. Name an exporter of record for line 2."
    ]


def test_the_mexican_exporter_is_named_on_its_line_and_review_may_go_ahead(
    consolidation, mexican, coordinator, api_as
):
    line = consolidation.lines.get(line_number=2)
    response = api_as(coordinator).patch(
        f"/api/v1/shipments/{consolidation.reference}/lines/{line.pk}/",
        {"shipper": mexican.pk},
        format="json",
    )
    assert response.status_code == 200, response.json()
    assert response.json()["shipper"] == mexican.pk
    assert review_problems(consolidation) == []

    body = api_as(coordinator).get(f"/api/v1/shipments/{consolidation.reference}/record-parties/").json()
    exporters = [
        (e["country"], e["lines"], e["needed"], e["assessed_party"]["id"]) for e in body["exporters"]
    ]
    assert exporters == [
        ("TW", [1], False, consolidation.parties.get(role="shipper").organisation_id),
        ("MX", [2], False, mexican.pk),
    ]
    assert body["exporters"][1]["reasons"] == [
        f"{mexican.legal_name} has an entity in MX (no special registration) and can act as "
        "exporter of record."
    ]
    assert body["exporter"] == body["exporters"][0]


def test_an_exporter_of_record_that_does_not_cover_mexico_does_not_satisfy_the_need(
    consolidation, coordinator, operator
):
    # A Taiwanese EOR provider named on the switches' line is not an exporter in Mexico.
    taiwan_eor = OrganisationFactory(kind="eor_provider", legal_name="Formosa Export Services", country="TW")
    ServiceCoverage.objects.create(organisation=taiwan_eor, service="eor", country="TW")
    line = consolidation.lines.get(line_number=2)
    services.line_update(line=line, fields={"exporter_of_record": taiwan_eor}, actor=coordinator)
    problems = review_problems(consolidation)
    assert problems == [
        "Formosa Export Services, named exporter of record, neither covers MX as a provider nor has an "
        "entity there with the registrations exporters need; name one that does."
    ]
    # One that covers Mexico does.
    ServiceCoverage.objects.create(organisation=taiwan_eor, service="eor", country="MX")
    assert review_problems(consolidation) == []


def test_the_shipment_level_exporter_of_record_must_cover_the_origin_too(make_shipment, gpu_server):
    # The same class of gap on a one-origin shipment: naming any organisation as EOR passed.
    stranger = OrganisationFactory(kind="customer", legal_name="Anyone Ltd", country="GB")
    shipment = make_shipment(parties={"exporter_of_record": stranger})
    services.line_add(shipment=shipment, part=gpu_server, quantity=1)
    assert review_problems(shipment) == [
        "Anyone Ltd, named exporter of record, neither covers TW as a provider nor has an entity there "
        "with the registrations exporters need; name one that does."
    ]


def test_a_partner_names_only_organisations_it_is_connected_with_on_a_line(
    make_shipment, gpu_server, supplier, supplier_user, customer, mexican, api_as
):
    connection_create(actor=None, organisation=supplier, other=customer, note="test")
    shipment = make_shipment(actor=supplier_user)
    line = services.line_add(shipment=shipment, part=gpu_server, quantity=1)
    client = api_as(supplier_user)
    path = f"/api/v1/shipments/{shipment.reference}/lines/{line.pk}/"
    response = client.patch(path, {"shipper": mexican.pk}, format="json")
    assert response.status_code == 400
    assert "shipper" in response.json()
    line.refresh_from_db()
    assert line.shipper_id is None

    connection_create(actor=None, organisation=supplier, other=mexican, note="test")
    response = client.patch(path, {"shipper": mexican.pk}, format="json")
    assert response.status_code == 200, response.json()


def test_the_service_refuses_a_deactivated_line_shipper_naming_the_field(consolidation, mexican, coordinator):
    mexican.is_active = False
    mexican.save()
    with pytest.raises(ValidationError) as caught:
        services.line_update(
            line=consolidation.lines.get(line_number=2), fields={"shipper": mexican}, actor=coordinator
        )
    assert list(caught.value.message_dict) == ["shipper"]


def test_the_line_shipper_sees_the_shipment_and_an_unrelated_partner_does_not(
    consolidation, mexican, coordinator, api_as
):
    services.line_update(
        line=consolidation.lines.get(line_number=2), fields={"shipper": mexican}, actor=coordinator
    )
    mexican_user = UserFactory(organisation=mexican, role=Role.PARTNER)
    other = UserFactory(organisation=OrganisationFactory(legal_name="Elsewhere Ltd"), role=Role.PARTNER)
    assert Shipment.objects.visible_to(mexican_user).filter(pk=consolidation.pk).exists()
    assert not Shipment.objects.visible_to(other).filter(pk=consolidation.pk).exists()
    assert api_as(mexican_user).get(f"/api/v1/shipments/{consolidation.reference}/").status_code == 200
    assert api_as(other).get(f"/api/v1/shipments/{consolidation.reference}/").status_code == 404


def test_the_line_shipper_is_screened_and_a_match_holds_the_shipment(consolidation, coordinator):
    # Before, only the shipment's parties were screened: a consolidation's other exporter was not.
    compliance_services.country_data_load_default()
    compliance_services.screening_list_import(
        name="CSL", source_format="csl_json", data=json.dumps(LIST).encode(), version="t-1", rescreen=False
    )
    lookalike = OrganisationFactory(kind="supplier", legal_name="Northern Star Shipping LLC", country="MX")
    line = consolidation.lines.get(line_number=2)
    services.line_update(line=line, fields={"shipper": lookalike}, actor=coordinator)
    check = compliance_check_run(shipment=consolidation)
    assert ("shipper", lookalike.pk) in {(p.role, p.organisation_id) for p in check.party_results.all()}
    assert check.result == "hold"
    texts = [h.text for h in check.hold_reasons.filter(kind="screening")]
    assert len(texts) == 1 and "Northern Star Shipping LLC" in texts[0], texts


def test_record_needs_read_a_fixed_number_of_queries(
    consolidation, mexican, coordinator, django_assert_num_queries, gpu_server
):
    line = consolidation.lines.get(line_number=2)
    services.line_update(line=line, fields={"shipper": mexican}, actor=coordinator)
    shipment = selectors.record_party_queryset().get(pk=consolidation.pk)
    # Lines, the inbound legs' lines, the line's organisation and its registrations (the parties'
    # come prefetched).
    with django_assert_num_queries(4):
        selectors.record_needs(shipment)
    for _ in range(10):
        services.line_add(shipment=consolidation, part=gpu_server, quantity=1, fields={"shipper": mexican})
    shipment = selectors.record_party_queryset().get(pk=consolidation.pk)
    with django_assert_num_queries(4):
        assert len(selectors.record_needs(shipment)) == 4  # importer; TW; MX line 2; TW lines 3–12 by Jabil
