"""An audit trail names the objects a change points at, with a link to each, not their ids
("Owner: 1 Origin: 18" read as nothing to a person); what the viewer may not see stays unnamed;
a fixed number of queries however many rows the trail has."""

import re

from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.shipments import services
from apps.shipments.models import Site
from tests.factories import OrganisationFactory


def trail(page: str) -> str:
    return page.split("<h2>Audit trail</h2>", 1)[1]


def test_the_trail_names_the_owner_and_sites_with_links(make_shipment, coordinator, browser_as, operator):
    shipment = make_shipment()
    page = browser_as(coordinator).get(shipment.get_absolute_url()).content.decode()
    rows = trail(page)
    assert f'<a href="{shipment.origin.get_absolute_url()}">{shipment.origin}</a>' in rows
    assert f'<a href="{shipment.destination.get_absolute_url()}">{shipment.destination}</a>' in rows
    assert f'<a href="{operator.get_absolute_url()}">{operator}</a>' in rows
    # No bare id where a name belongs.
    for field in ("Owner", "Origin", "Destination"):
        assert not re.search(rf'field-name">{field}</span>: \d+<', rows), field


def test_a_change_of_site_reads_from_one_name_to_the_other(make_shipment, coordinator, browser_as, operator):
    shipment = make_shipment()
    hub = Site.objects.create(
        owner=operator, name="Changi hub", kind="warehouse", city="Singapore", country="SG"
    )
    services.shipment_update(shipment=shipment, fields={"destination": hub})
    rows = trail(browser_as(coordinator).get(shipment.get_absolute_url()).content.decode())
    assert f'{shipment.destination}</a> → <a href="{hub.get_absolute_url()}">{hub}</a>' in rows


def test_a_partner_sees_no_name_of_what_it_may_not_see(
    make_shipment, coordinator, supplier_user, browser_as, operator
):
    shipment = make_shipment()
    rival = OrganisationFactory(legal_name="Rival Logistics Ltd.")
    hidden = Site.objects.create(
        owner=rival, name="Secret operator yard", kind="warehouse", city="Singapore", country="SG"
    )
    services.shipment_update(shipment=shipment, fields={"destination": hidden})
    services.shipment_update(shipment=shipment, fields={"destination": shipment.destination})
    page = browser_as(supplier_user).get(shipment.get_absolute_url())
    rows = trail(page.content.decode())
    assert "Secret operator yard" not in rows and "not visible to you" in rows


def test_the_trail_costs_the_same_queries_with_more_rows(make_shipment, coordinator, browser_as, operator):
    shipment = make_shipment()
    client = browser_as(coordinator)
    client.get(shipment.get_absolute_url())
    with CaptureQueriesContext(connection) as before:
        client.get(shipment.get_absolute_url())
    for n in range(4):
        site = Site.objects.create(
            owner=operator, name=f"Hub {n}", kind="warehouse", city="Singapore", country="SG"
        )
        services.shipment_update(shipment=shipment, fields={"destination": site})
    with CaptureQueriesContext(connection) as after:
        client.get(shipment.get_absolute_url())
    assert len(after) == len(before)
