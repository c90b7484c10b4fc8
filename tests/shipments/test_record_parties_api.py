"""`GET /api/v1/shipments/{reference}/record-parties/`: the importer/exporter-of-record assessment
and the providers covering the country, read before a transition is refused for it (issue 11)."""

import pytest

from apps.accounts.models import ServiceCoverage
from apps.accounts.roles import Role
from apps.accounts.services import connection_create
from tests.factories import OrganisationFactory, UserFactory

QUERIES = 6  # token, shipment, its parties, their registrations, its lines, providers' coverage


def url(shipment) -> str:
    return f"/api/v1/shipments/{shipment.reference}/record-parties/"


def ior_provider(name: str, *services: str):
    provider = OrganisationFactory(kind="ior_provider", legal_name=name, country="IN", city="Mumbai")
    for service in services or ("ior",):
        ServiceCoverage.objects.create(organisation=provider, service=service, country="IN")
    return provider


@pytest.fixture
def india_provider(db):
    return ior_provider("IOR India Pvt. Ltd.", "ior", "eor")


@pytest.fixture
def needs_ior(make_shipment, forwarder):
    # A Singapore consignee has no entity in India: an importer of record is needed.
    return make_shipment(parties={"consignee": forwarder, "freight_forwarder": forwarder})


def test_an_indian_destination_without_an_importer_names_the_need_and_the_providers(
    needs_ior, india_provider, coordinator, api_as, forwarder, supplier
):
    ior_provider("EOR Only India", "eor")  # covers India, but not as importer
    response = api_as(coordinator).get(url(needs_ior))
    assert response.status_code == 200, response.json()
    body = response.json()
    importer = body["importer"]
    assert importer["needed"] is True
    assert importer["country"] == "IN"
    assert importer["assessed_party"] == {"id": forwarder.pk, "legal_name": forwarder.legal_name}
    assert importer["named"] is None
    assert importer["reasons"] == [
        f"{forwarder.legal_name} has no registered entity in IN.",
        "An importer of record covering IN is needed.",
    ]
    assert importer["providers"] == [
        {
            "id": india_provider.pk,
            "legal_name": "IOR India Pvt. Ltd.",
            "country": "IN",
            "services": ["eor", "ior"],
        }
    ]
    exporter = body["exporter"]
    assert exporter["needed"] is False
    assert exporter["country"] == "TW"
    assert exporter["assessed_party"] == {"id": supplier.pk, "legal_name": supplier.legal_name}
    assert exporter["providers"] == []  # nobody covers Taiwan


def test_a_consignee_registered_in_india_needs_no_importer_of_record(
    make_shipment, india_provider, coordinator, api_as, customer
):
    shipment = make_shipment()
    importer = api_as(coordinator).get(url(shipment)).json()["importer"]
    assert importer["needed"] is False
    assert importer["reasons"] == [
        f"{customer.legal_name} has an entity in IN (IEC, GSTIN) and can act as importer of record."
    ]
    # The providers covering the country are still listed: a choice, not a requirement.
    assert [p["id"] for p in importer["providers"]] == [india_provider.pk]


def test_the_named_importer_of_record_is_returned(needs_ior, india_provider, coordinator, api_as):
    from apps.shipments import services

    services.party_set(
        shipment=needs_ior, role="importer_of_record", organisation=india_provider, actor=coordinator
    )
    importer = api_as(coordinator).get(url(needs_ior)).json()["importer"]
    assert importer["named"] == {"id": india_provider.pk, "legal_name": india_provider.legal_name}


def test_another_organisations_shipment_is_not_found(needs_ior, api_as):
    stranger = OrganisationFactory(kind="customer", legal_name="Someone Else Ltd")
    user = UserFactory(organisation=stranger, role=Role.PARTNER, username="stranger")
    assert api_as(user).get(url(needs_ior)).status_code == 404


def test_a_partner_on_the_shipment_sees_only_providers_it_may_name(
    needs_ior, india_provider, coordinator, forwarder, forwarder_user, api_as
):
    stranger = ior_provider("Stranger IOR")
    connection_create(actor=coordinator, organisation=forwarder, other=india_provider)
    response = api_as(forwarder_user).get(url(needs_ior))
    assert response.status_code == 200, response.json()
    assert [p["id"] for p in response.json()["importer"]["providers"]] == [india_provider.pk]
    staff = api_as(coordinator).get(url(needs_ior)).json()
    assert {p["id"] for p in staff["importer"]["providers"]} == {india_provider.pk, stranger.pk}


def test_the_query_count_does_not_grow_with_providers(
    needs_ior, india_provider, coordinator, forwarder, forwarder_user, api_as, django_assert_num_queries
):
    connection_create(actor=coordinator, organisation=forwarder, other=india_provider)
    api = api_as(forwarder_user)
    api.get("/api/v1/me/")  # the token's first use is written once; later uses are not
    with django_assert_num_queries(QUERIES):
        assert len(api.get(url(needs_ior)).json()["importer"]["providers"]) == 1
    for n in range(5):
        provider = ior_provider(f"IOR {n}", "ior", "eor")
        connection_create(actor=coordinator, organisation=forwarder, other=provider)
    with django_assert_num_queries(QUERIES):
        assert len(api.get(url(needs_ior)).json()["importer"]["providers"]) == 6


def test_a_transition_refused_for_a_missing_importer_of_record_links_the_assessment(
    needs_ior, gpu_server, coordinator, api_as
):
    from apps.shipments import services

    services.line_add(shipment=needs_ior, part=gpu_server, quantity=1, serials=["S1"])
    response = api_as(coordinator).post(
        f"/api/v1/shipments/{needs_ior.reference}/transition/", {"to": "compliance_review"}, format="json"
    )
    assert response.status_code == 409
    body = response.json()
    assert any("importer of record" in reason for reason in body["reasons"])
    assert body["record_parties"] == f"http://testserver{url(needs_ior)}"


def test_other_refusals_carry_no_link(make_shipment, coordinator, api_as):
    shipment = make_shipment()  # no lines: refused, but not for a record party
    response = api_as(coordinator).post(
        f"/api/v1/shipments/{shipment.reference}/transition/", {"to": "compliance_review"}, format="json"
    )
    assert response.status_code == 409
    assert "record_parties" not in response.json()
