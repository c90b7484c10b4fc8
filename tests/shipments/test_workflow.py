"""The status flow: every allowed and refused move, the guards, holds and releases, roles, audit."""

import itertools

import pytest

from apps.core.models import AuditEvent
from apps.shipments import services
from apps.shipments.engines import workflow
from apps.shipments.models import Shipment, ShipmentStatus
from apps.shipments.services import TransitionRefused
from apps.shipments.services import status as status_flow

from .conftest import crate

ALL = list(ShipmentStatus)


def _force(shipment, status, held_from=""):
    Shipment.objects.filter(pk=shipment.pk).update(
        status=status,
        held_from=held_from or ("booked" if status == "on_hold" else ""),
        hold_kind="customs" if status == "on_hold" else "",
    )


@pytest.mark.parametrize("current, target", list(itertools.product(ALL, ALL)))
def test_every_pair_of_states(make_shipment, admin_user, monkeypatch, current, target):
    """Flow only (guards are tested below): allowed pairs move, every other pair is refused."""
    monkeypatch.setattr(status_flow, "guard_problems", lambda shipment, target: [])
    shipment = make_shipment()
    _force(shipment, current)
    allowed = workflow.can_move(workflow.Status(current), workflow.Status(target))
    kwargs = {"reason": "because", "hold_kind": "customs"}
    if allowed:
        moved = services.shipment_transition(shipment=shipment, target=target, actor=admin_user, **kwargs)
        assert moved.status == target
        event = AuditEvent.objects.for_object(shipment).filter(action="transition").latest("id")
        assert event.changes == {"status": [current, target]} and event.actor_id == admin_user.pk
    else:
        with pytest.raises(TransitionRefused) as excinfo:
            services.shipment_transition(shipment=shipment, target=target, actor=admin_user, **kwargs)
        assert "cannot go from" in excinfo.value.message
        assert Shipment.objects.get(pk=shipment.pk).status == current


def approve(shipment, coordinator):
    """Submit for review and run the compliance check, whose pass approves the shipment."""
    from apps.compliance.services import compliance_check_run

    shipment = services.shipment_transition(shipment=shipment, target="compliance_review", actor=coordinator)
    compliance_check_run(shipment=shipment, actor=coordinator)
    shipment.refresh_from_db()
    assert shipment.status == "approved", shipment.hold_reason
    return shipment


def test_the_forward_path_with_guards(ready_to_book, coordinator, compliance_officer):
    from apps.documents.services import documents_issue_required

    shipment = approve(ready_to_book(), coordinator)
    with pytest.raises(TransitionRefused) as excinfo:
        services.shipment_transition(shipment=shipment, target="booked", actor=coordinator)
    assert any("commercial invoice is not issued" in r for r in excinfo.value.reasons)
    documents_issue_required(shipment=shipment, actor=coordinator)
    for target in ("booked", "in_transit", "at_customs", "cleared", "delivered"):
        shipment = services.shipment_transition(shipment=shipment, target=target, actor=coordinator)
        assert shipment.status == target
    transitions = AuditEvent.objects.for_object(shipment).filter(action="transition")
    assert transitions.count() == 7


def test_review_needs_lines_and_parties(make_shipment, coordinator, supplier):
    shipment = make_shipment(parties={"consignee": None})
    with pytest.raises(TransitionRefused) as excinfo:
        services.shipment_transition(shipment=shipment, target="compliance_review", actor=coordinator)
    assert "The shipment has no lines." in excinfo.value.reasons
    assert "No consignee is named." in excinfo.value.reasons


def test_review_needs_an_importer_of_record_when_the_consignee_cannot_import(
    make_shipment, coordinator, forwarder, gpu_server
):
    # A Singapore company cannot import into India without an Indian entity, IEC and GSTIN.
    shipment = make_shipment(parties={"consignee": forwarder})
    services.line_add(shipment=shipment, part=gpu_server, quantity=1)
    with pytest.raises(TransitionRefused) as excinfo:
        services.shipment_transition(shipment=shipment, target="compliance_review", actor=coordinator)
    assert any("no registered entity in IN" in r and "importer of record" in r for r in excinfo.value.reasons)
    from tests.factories import OrganisationFactory

    ior = OrganisationFactory(kind="ior_provider", legal_name="IOR India", country="IN", city="Mumbai")
    # Naming just anyone is not enough (issue 11): the one named must act in India.
    services.party_set(shipment=shipment, role="importer_of_record", organisation=ior, actor=coordinator)
    with pytest.raises(TransitionRefused) as excinfo:
        services.shipment_transition(shipment=shipment, target="compliance_review", actor=coordinator)
    assert excinfo.value.reasons == [
        "IOR India, named importer of record, neither covers IN as a provider nor has an entity there "
        "with the registrations importers need; name one that does."
    ]
    from apps.accounts.models import ServiceCoverage

    ServiceCoverage.objects.create(organisation=ior, service="ior", country="IN")
    services.party_set(shipment=shipment, role="importer_of_record", organisation=ior, actor=coordinator)
    assert services.shipment_transition(shipment=shipment, target="compliance_review", actor=coordinator)


def test_approval_is_for_compliance_officers(ready_to_book, coordinator, compliance_officer, monkeypatch):
    monkeypatch.setattr(status_flow, "guard_problems", lambda shipment, target: [])
    shipment = ready_to_book()
    services.shipment_transition(shipment=shipment, target="compliance_review", actor=coordinator)
    with pytest.raises(TransitionRefused) as excinfo:
        services.shipment_transition(shipment=shipment, target="approved", actor=coordinator)
    assert "Your role may not" in excinfo.value.message
    assert services.shipment_transition(shipment=shipment, target="approved", actor=compliance_officer)


def test_booking_needs_everything_packed_with_serials(
    make_shipment, gpu_server, coordinator, compliance_officer
):
    shipment = make_shipment()
    line = services.line_add(shipment=shipment, part=gpu_server, quantity=2, serials=["S1"])
    services.package_add(shipment=shipment, fields=crate(), items=[(line, 1)], serials=["S1"])
    approve(shipment, coordinator)
    with pytest.raises(TransitionRefused) as excinfo:
        services.shipment_transition(shipment=shipment, target="booked", actor=coordinator)
    assert set(excinfo.value.reasons) == {
        "Line 1: 1 of 2 units packed.",
        "Line 1: 1 serial numbers for 2 units.",
        "No main-carriage leg is planned.",
        "The commercial invoice is not issued. "
        "Every international shipment is declared on a commercial invoice.",
        "The packing list is not issued. Customs and the carrier check packages, weights and serial numbers.",
        "The end-user statement is not issued. Lines need a licence or are advanced-computing items "
        "(3A090/4A090): collect the end user's statement.",
    }


def test_hold_returns_to_where_it_came_from(ready_to_book, coordinator, compliance_officer):
    shipment = ready_to_book()
    services.shipment_transition(shipment=shipment, target="compliance_review", actor=coordinator)
    with pytest.raises(TransitionRefused, match="reason is required"):
        services.shipment_transition(
            shipment=shipment, target="on_hold", actor=coordinator, hold_kind="compliance"
        )
    held = services.shipment_transition(
        shipment=shipment,
        target="on_hold",
        actor=compliance_officer,
        reason="Possible Entity List match",
        hold_kind="compliance",
    )
    assert (held.status, held.held_from, held.hold_kind) == ("on_hold", "compliance_review", "compliance")
    with pytest.raises(TransitionRefused, match="Your role"):
        services.shipment_transition(shipment=shipment, target="release", actor=coordinator)
    # A compliance hold is released by a compliance decision: two officers (four eyes).
    with pytest.raises(TransitionRefused, match="compliance page"):
        services.shipment_transition(shipment=shipment, target="release", actor=compliance_officer)
    from apps.compliance import services as compliance
    from tests.four_eyes import second_officer_of

    asked = compliance.compliance_hold_release_request(
        shipment=shipment, actor=compliance_officer, reason="Not the listed entity"
    )
    compliance.approval_approve(approval=asked, actor=second_officer_of(compliance_officer))
    released = Shipment.objects.get(pk=shipment.pk)
    assert (released.status, released.held_from, released.hold_reason) == ("compliance_review", "", "")


def test_cancel_needs_a_reason_and_is_final(make_shipment, coordinator):
    shipment = make_shipment()
    with pytest.raises(TransitionRefused, match="reason"):
        services.shipment_transition(shipment=shipment, target="cancelled", actor=coordinator)
    services.shipment_transition(
        shipment=shipment, target="cancelled", actor=coordinator, reason="Order moved"
    )
    with pytest.raises(TransitionRefused):
        services.shipment_transition(shipment=shipment, target="draft", actor=coordinator)


def test_release_when_not_held_and_unknown_status(make_shipment, coordinator):
    shipment = make_shipment()
    with pytest.raises(TransitionRefused, match="not on hold"):
        services.shipment_transition(shipment=shipment, target="release", actor=coordinator)
    with pytest.raises(TransitionRefused, match="Unknown status"):
        services.shipment_transition(shipment=shipment, target="teleported", actor=coordinator)


def test_lines_change_only_in_draft(ready_to_book, coordinator, cable):
    from django.core.exceptions import ValidationError

    shipment = ready_to_book()
    services.shipment_transition(shipment=shipment, target="compliance_review", actor=coordinator)
    with pytest.raises(ValidationError) as excinfo:
        services.line_add(shipment=shipment, part=cable, quantity=1)
    assert "only in draft" in excinfo.value.message_dict["shipment"][0]
