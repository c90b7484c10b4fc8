"""The demo's partners: the connections its shipments need, customers' data centres kept to
their customers, and the Entity List look-alike connected with nobody."""

from apps.accounts.models import Connection, Organisation, User
from apps.shipments.models import Shipment, Site


def test_demo_partners_reach_whom_they_work_with_and_nobody_else(demo):
    customer = User.objects.get(username="customer")
    forwarder = User.objects.get(username="forwarder")
    supplier = User.objects.get(username="supplier")
    nameable = {o.legal_name for o in Organisation.objects.nameable_by(customer)}
    assert {"Meridian Air & Ocean Freight Pte. Ltd.", "Quanta Cloud Technology Inc."} <= nameable
    lookalike = Shipment.objects.get(instructions__startswith="[Demo I]").parties.get(role="consignee")
    assert not Connection.objects.filter(organisation_a=lookalike.organisation_id).exists()
    assert not Connection.objects.filter(organisation_b=lookalike.organisation_id).exists()
    for user in (customer, forwarder, supplier):
        assert lookalike.organisation not in Organisation.objects.nameable_by(user)

    def sites(user):
        return set(Site.objects.visible_to(user).values_list("name", flat=True))

    assert "Chennai AI Compute — Siruseri DC1" in sites(customer)
    for user in (customer, forwarder):
        seen = sites(user)
        assert "Riyadh Compute — RUH1" not in seen and "Hanoi AI Research — HAN DC" not in seen
        assert not any(name.endswith("data centre") for name in seen)  # the look-alike's
        assert "Singapore Changi Airport" in seen
    # Every demo shipment is still seen by its parties.
    for shipment in Shipment.objects.filter(parties__organisation=forwarder.organisation):
        assert Shipment.objects.visible_to(forwarder).filter(pk=shipment.pk).exists()
