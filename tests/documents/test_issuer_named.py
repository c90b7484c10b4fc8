"""The shipment's documents page names who issued a document as the API and the other pages name
people (apps.core.disclosure): the operator's people are "Rackpass staff" to a partner."""

from django.urls import reverse

from apps.documents import services
from tests.factories import UserFactory


def test_a_partner_reads_rackpass_staff_as_the_issuer(approved, indian_customer, operator, client):
    wei = UserFactory(
        organisation=operator, role="coordinator", username="wtan", first_name="Wei", last_name="Tan"
    )
    document = services.document_generate(shipment=approved, doc_type="commercial_invoice", actor=wei)
    services.document_issue(document=document, actor=wei)
    partner = UserFactory(organisation=indian_customer, role="partner", username="chennai-docs")
    client.force_login(partner)
    page = client.get(reverse("documents:shipment", args=[approved.reference]))
    assert page.status_code == 200
    text = page.content.decode()
    assert "wtan" not in text and "Wei Tan" not in text and "Rackpass staff" in text
    client.force_login(wei)
    assert "Wei Tan" in client.get(reverse("documents:shipment", args=[approved.reference])).content.decode()
