"""What `make run` shows after loading the demo: no activity of anybody (the loader is a command,
not a person), and every approval credited to a compliance officer or to the check itself, never to
the coordinator who submitted."""

from django.contrib.contenttypes.models import ContentType

from apps.accounts.models import User
from apps.accounts.roles import Role
from apps.core.dashboard import people_activity
from apps.core.models import AuditEvent
from apps.shipments.models import Shipment


def test_the_demo_loader_is_nobodys_activity(demo):
    admin = User.objects.get(username="admin")
    assert people_activity(admin) == []


def test_demo_approvals_are_credited_to_an_officer_or_to_the_check(demo):
    approvals = AuditEvent.objects.filter(
        content_type=ContentType.objects.get_for_model(Shipment),
        action="transition",
        changes__status__1="approved",
    ).select_related("actor")
    assert approvals.exists()
    for event in approvals:
        assert event.actor is None or event.actor.role == Role.COMPLIANCE_OFFICER, (
            event.object_repr,
            event.actor_label,
        )
    demo_f = Shipment.objects.get(instructions__startswith="[Demo F]")
    assert demo_f.status == "approved"
    credited = approvals.filter(object_id=str(demo_f.pk)).get()
    assert credited.actor is None and credited.message.startswith("Compliance check passed")
