"""Issue 12: bulk actions on the shipments list. Tick shipments, then "Cancel selected drafts"
(shipments' own action) or "Generate required documents" (registered by the documents app through
`shipments.hooks.bulk_action`, so shipments never imports documents). Only ids the user may change
are acted on; each shipment left alone is named with why; one message sums it up."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from apps.core.models import TaskRecord
from apps.shipments import hooks
from apps.shipments.models import Shipment, ShipmentStatus
from tests.factories import OrganisationFactory

pytestmark = pytest.mark.django_db

URL = "/shipments/bulk/"


def _messages(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def _status(shipment) -> str:
    return Shipment.objects.values_list("status", flat=True).get(pk=shipment.pk)


def _cancel(client, *shipments, reason="Order withdrawn", **extra):
    data = {"action": "cancel_drafts", "shipment": [s.pk for s in shipments], "reason": reason} | extra
    return client.post(URL, data, follow=True)


def test_the_list_offers_ticks_and_the_actions_the_user_may_run(
    make_shipment, coordinator, compliance_officer, supplier_user, browser_as
):
    shipment = make_shipment()
    page = browser_as(coordinator).get("/shipments/").content.decode()
    assert f'name="shipment" value="{shipment.pk}"' in page and 'data-select-all="shipment"' in page
    assert 'value="cancel_drafts"' in page and 'value="generate_documents"' in page
    assert 'name="csrfmiddlewaretoken"' in page and "js/bulk-select.js" in page
    # A compliance officer may generate documents but not cancel.
    page = browser_as(compliance_officer).get("/shipments/").content.decode()
    assert 'value="generate_documents"' in page and 'value="cancel_drafts"' not in page
    # A partner holds neither capability: no ticks, no buttons.
    page = browser_as(supplier_user).get("/shipments/").content.decode()
    assert shipment.reference in page
    assert 'name="shipment"' not in page and 'id="bulk-form"' not in page


def test_an_action_the_role_may_not_run_is_refused(
    make_shipment, compliance_officer, supplier_user, browser_as
):
    shipment = make_shipment()
    assert _cancel(browser_as(compliance_officer), shipment).status_code == 403
    client = browser_as(supplier_user)
    assert _cancel(client, shipment).status_code == 403
    data = {"action": "generate_documents", "shipment": [shipment.pk]}
    assert client.post(URL, data).status_code == 403
    assert _status(shipment) == ShipmentStatus.DRAFT
    assert not TaskRecord.objects.filter(object_repr=shipment.reference).exists()


def test_drafts_are_cancelled_and_the_others_named_with_why(make_shipment, coordinator, browser_as):
    drafts = [make_shipment(), make_shipment()]
    booked = make_shipment()
    Shipment.objects.filter(pk=booked.pk).update(status=ShipmentStatus.BOOKED)
    response = _cancel(browser_as(coordinator), *drafts, booked, next="/shipments/?mode=air")
    assert response.redirect_chain[-1][0] == "/shipments/?mode=air"  # back to the same list
    assert _messages(response) == [f"2 drafts cancelled; {booked.reference} not cancelled: it is booked."]
    assert [_status(s) for s in drafts] == [ShipmentStatus.CANCELLED] * 2
    assert _status(booked) == ShipmentStatus.BOOKED
    # Through the transition service: the reason is in each shipment's trail.
    from apps.core.models import AuditEvent

    event = AuditEvent.objects.for_object(drafts[0]).filter(changes__has_key="status").last()
    assert event is not None and "Order withdrawn" in str(event.message or event.changes)


def test_a_cancel_must_say_why(make_shipment, coordinator, browser_as):
    shipment = make_shipment()
    response = _cancel(browser_as(coordinator), shipment, reason="  ")
    assert "the reason is recorded" in _messages(response)[0]
    assert _status(shipment) == ShipmentStatus.DRAFT


def test_nothing_ticked_or_an_unknown_action_is_said(make_shipment, coordinator, browser_as):
    client = browser_as(coordinator)
    assert _messages(client.post(URL, {"action": "cancel_drafts", "reason": "x"}, follow=True)) == [
        "Tick at least one shipment first."
    ]
    shipment = make_shipment()
    response = client.post(URL, {"action": "delete_everything", "shipment": [shipment.pk]}, follow=True)
    assert _messages(response) == ["Choose one of the actions under the list."]
    assert client.get(URL).status_code == 405


def test_the_post_needs_the_csrf_token(make_shipment, coordinator):
    shipment = make_shipment()
    client = Client(enforce_csrf_checks=True)
    client.force_login(coordinator)
    response = client.post(URL, {"action": "cancel_drafts", "shipment": [shipment.pk], "reason": "x"})
    assert response.status_code == 403
    assert _status(shipment) == ShipmentStatus.DRAFT


@pytest.fixture
def recording_action():
    """A bulk action partners may run, recording the shipments the view hands it: the view's door
    (visible_to) is what is tested, whatever the action."""
    received: list[list[str]] = []

    def run(*, shipments, actor, reason):
        received.append([s.reference for s in shipments])
        return hooks.BulkResult(done=[s.reference for s in shipments], refused=[])

    hooks.bulk_action(
        hooks.BulkAction(
            name="test_touch",
            label="Touch",
            capability="shipments.edit",
            run=run,
            done=("shipment touched", "shipments touched"),
            not_done="not touched",
        )
    )
    yield received
    hooks._bulk_actions.pop("test_touch")


def test_another_organisations_ids_are_never_acted_on(
    make_shipment, supplier_user, browser_as, recording_action
):
    ours = make_shipment()  # the supplier is its shipper
    theirs = make_shipment(parties={"shipper": OrganisationFactory(kind="supplier")})
    client = browser_as(supplier_user)
    assert f'value="{theirs.pk}"' not in client.get("/shipments/").content.decode()
    data = {"action": "test_touch", "shipment": [ours.pk, theirs.pk, 999999, "x; drop", "²", "9" * 40]}
    response = client.post(URL, data, follow=True)
    assert recording_action == [[ours.reference]]
    [message] = _messages(response)
    assert message.startswith("1 shipment touched.")
    assert "2 of the selected shipments were not found among those you may change" in message
    assert theirs.reference not in message  # not even named


def test_required_documents_are_queued_per_shipment_and_the_others_named(
    make_shipment, ready_to_book, coordinator, browser_as
):
    ready = ready_to_book()
    empty = make_shipment()
    cancelled = make_shipment()
    Shipment.objects.filter(pk=cancelled.pk).update(status=ShipmentStatus.CANCELLED)
    data = {"action": "generate_documents", "shipment": [ready.pk, empty.pk, cancelled.pk]}
    response = browser_as(coordinator).post(URL, data, follow=True)
    [message] = _messages(response)
    assert message.startswith("1 shipment's documents queued")
    # What could not be generated is named with why; the ready shipment's other documents are queued.
    assert f"{ready.reference}: commercial invoice not generated, no compliance check has run" in message
    assert "(the others are queued)" in message
    assert f"{empty.reference}: not generated, the shipment has no lines" in message
    assert f"{cancelled.reference}: not generated, it is cancelled" in message
    # The documents app's own task, queued once for the shipment that can have its documents.
    queued = TaskRecord.objects.filter(kind="document generation")
    assert [t.object_repr for t in queued] == [ready.reference]
    assert queued.get().kwargs["doc_types"]


def test_a_bulk_cancel_costs_a_fixed_number_of_queries_per_shipment(make_shipment, coordinator, browser_as):
    client = browser_as(coordinator)

    def queries(n: int) -> int:
        drafts = [make_shipment() for _ in range(n)]
        with CaptureQueriesContext(connection) as captured:
            response = _cancel(client, *drafts)
        assert _messages(response)[0].startswith(f"{n} draft")
        return len(captured)

    one, two, four = queries(1), queries(2), queries(4)
    per_shipment = two - one
    assert four - two == 2 * per_shipment  # linear in the selection, never in the list's size
    assert per_shipment <= 25, per_shipment
