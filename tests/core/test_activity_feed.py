"""The dashboard's activity feed shows what people did — in the browser, the API or the admin
site — named, with the object linked; what commands (the demo loader) and background work did is
not anybody's activity."""

import pytest

from apps.core.audit import audit_context, record
from apps.core.dashboard import people_activity
from tests.factories import OrganisationFactory, PartFactory, UserFactory


@pytest.mark.django_db
def test_a_persons_change_in_the_browser_is_in_the_feed_by_name(coordinator, browser_as):
    coordinator.first_name, coordinator.last_name = "Priya", "Raman"
    coordinator.save()
    client = browser_as(coordinator)
    part = PartFactory()
    with audit_context(channel="browser", actor=coordinator):
        record(part, action="update", message="Checked the datasheet")
    feed = client.get("/").context["panels"][-1]
    assert feed.title == "Recent activity"
    events = feed.context["events"]
    assert events and all(e.person == "Priya Raman" for e in events)
    page = client.get("/").content.decode()
    assert "Priya Raman" in page and f'href="{part.get_absolute_url()}"' in page


@pytest.mark.django_db
def test_commands_and_background_work_are_not_a_persons_activity(coordinator, operator):
    part = PartFactory()
    # The demo loader runs as a command, acting for its people: the "system" channel.
    with audit_context(channel="system", actor=coordinator):
        record(part, action="update", message="Loaded by the demo")
    with audit_context(channel="task", actor=coordinator):
        record(part, action="update", message="A background check")
    assert people_activity(coordinator) == []
    with audit_context(channel="api", actor=coordinator):
        record(part, action="update", message="Posted through the API")
    assert [e.message for e in people_activity(coordinator)] == ["Posted through the API"]


@pytest.mark.django_db
def test_a_partner_sees_no_feed_and_the_feed_costs_bounded_queries(
    coordinator, supplier_user, browser_as, django_assert_max_num_queries
):
    assert "Recent activity" not in browser_as(supplier_user).get("/").content.decode()
    org = OrganisationFactory()
    for n in range(20):
        person, part = UserFactory(organisation=coordinator.organisation), PartFactory()
        with audit_context(channel="browser", actor=person):
            record(part, action="update", message=f"edit {n}")
            record(org, action="update", message=f"edit {n}")
    # The events and one query per kind of object among them (parts, organisations).
    with django_assert_max_num_queries(3):
        events = people_activity(coordinator)
    assert len(events) == 12 and all(e.person.startswith("Test User") for e in events)
    assert all(e.object_url for e in events), [(e.content_type.model, e.object_id) for e in events]
