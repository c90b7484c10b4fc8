"""Issue 10: an organisation names its authorised signatories (contacts with a job title), who sign
the trade documents it makes; through the admin, the API and the browser."""

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from apps.accounts import demo
from apps.accounts.models import Contact, Organisation, OrganisationKind
from apps.accounts.services import contact_create, contact_update
from tests.factories import OrganisationFactory


def test_a_signatory_needs_a_job_title(supplier):
    with pytest.raises(ValidationError) as excinfo:
        contact_create(
            organisation=supplier,
            fields={"name": "A", "email": "a@x.example", "is_signatory": True, "job_title": " "},
        )
    assert list(excinfo.value.message_dict) == ["job_title"]
    # The database refuses it too.
    with pytest.raises(IntegrityError), transaction.atomic():
        Contact.objects.create(organisation=supplier, name="B", email="b@x.example", is_signatory=True)
    contact = contact_create(
        organisation=supplier, fields={"name": "C", "email": "c@x.example", "job_title": "Director"}
    )
    contact = contact_update(contact=contact, fields={"is_signatory": True})
    assert contact.is_signatory and contact.job_title == "Director"


def test_contacts_api_names_signatories_and_refuses_another_organisations(
    coordinator, supplier, supplier_user, forwarder, api_as
):
    api = api_as(coordinator)
    untitled = api.post(
        "/api/v1/contacts/",
        {"organisation": supplier.pk, "name": "A", "email": "a@x.example", "is_signatory": True},
        format="json",
    )
    assert untitled.status_code == 400 and list(untitled.json()) == ["job_title"]
    made = api.post(
        "/api/v1/contacts/",
        {"organisation": supplier.pk, "name": "A", "email": "a@x.example", "job_title": "CFO"},
        format="json",
    )
    assert made.status_code == 201 and made.json()["is_signatory"] is False
    marked = api.patch(f"/api/v1/contacts/{made.json()['id']}/", {"is_signatory": True}, format="json")
    assert marked.status_code == 200 and marked.json()["is_signatory"] is True
    names = [
        c["name"]
        for c in api.get(f"/api/v1/contacts/?organisation={supplier.pk}&is_signatory=true").json()["results"]
    ]
    assert "A" in names
    # A contact stays with its organisation.
    moved = api.patch(f"/api/v1/contacts/{made.json()['id']}/", {"organisation": forwarder.pk}, format="json")
    assert moved.status_code == 400 and Contact.objects.get(pk=made.json()["id"]).organisation == supplier

    # Partners do not name signatories (the operator's coordinators keep organisations), and
    # another organisation's contact is not even found.
    partner = api_as(supplier_user)
    theirs = forwarder.contacts.get(is_signatory=True)
    assert partner.get(f"/api/v1/contacts/{theirs.pk}/").status_code == 404
    assert partner.patch(
        f"/api/v1/contacts/{theirs.pk}/", {"is_signatory": False}, format="json"
    ).status_code in (
        403,
        404,
    )
    own = supplier.contacts.get(name="A")
    assert partner.get(f"/api/v1/contacts/{own.pk}/").json()["is_signatory"] is True
    assert Contact.objects.get(pk=theirs.pk).is_signatory
    refused = partner.post(
        "/api/v1/contacts/",
        {
            "organisation": forwarder.pk,
            "name": "X",
            "email": "x@x.example",
            "job_title": "CEO",
            "is_signatory": True,
        },
        format="json",
    )
    assert refused.status_code in (400, 403) and not forwarder.contacts.filter(name="X").exists()


def test_browser_contact_form_and_organisation_page(coordinator, browser_as):
    org = OrganisationFactory(legal_name="No Signer Ltd", with_signatory=False)
    client = browser_as(coordinator)
    page = client.get(org.get_absolute_url()).content.decode()
    assert "none is named yet" in page
    response = client.post(
        f"/organisations/{org.pk}/contacts/new/",
        {"name": "Mei Chen", "job_title": "", "email": "mei@x.example", "is_signatory": "on"},
    )
    assert response.status_code == 200 and "job title" in response.content.decode()
    client.post(
        f"/organisations/{org.pk}/contacts/new/",
        {"name": "Mei Chen", "job_title": "Director", "email": "mei@x.example", "is_signatory": "on"},
    )
    assert org.contacts.get().is_signatory
    page = client.get(org.get_absolute_url()).content.decode()
    assert "authorised signatory" in page and "none is named yet" not in page


def test_admin_edits_signatories_inline(admin_user, supplier, client):
    client.force_login(admin_user)
    page = client.get(f"/admin/accounts/organisation/{supplier.pk}/change/").content.decode()
    assert "is_signatory" in page


def test_demo_organisations_name_signatories(db):
    demo.load(password="x")
    for org in Organisation.objects.exclude(kind=OrganisationKind.OPERATOR):
        signatory = org.contacts.filter(is_signatory=True).first()
        assert signatory is not None and signatory.job_title, org
