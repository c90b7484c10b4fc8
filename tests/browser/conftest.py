import pytest

from tests.compliance.conftest import (  # noqa: F401  (fixtures the document flow uses)
    country_data,
    dgx,
    h100,
    indian_customer,
    indian_lookalike,
    screening_list,
    ship,
    sites,
    submitted,
)


@pytest.hookimpl(hookwrapper=True)
def pytest_pyfunc_call(pyfuncitem):
    """Close the database connections the test body opened.

    Playwright's sync API runs the test body in another context (greenlet) than the fixtures,
    so the body gets a connection of its own that fixture teardown cannot see; left open, it
    would keep PostgreSQL from dropping the test database.
    """
    yield
    from django.db import connections

    connections.close_all()


def draft_to_chennai():
    """Coordinator "sam" (tests.factories.PASSWORD) of a new operator, and a draft air shipment of
    his from a Taiwanese factory to a Chennai data centre (shipper Taiwan Servers Co., consignee
    Chennai AI Compute), with no lines yet: the start of the browser flows."""
    import datetime as dt

    from django.utils import timezone

    from apps.accounts.roles import Role
    from apps.shipments import services
    from apps.shipments.models import Site
    from tests.factories import OperatorFactory, OrganisationFactory, UserFactory

    operator = OperatorFactory()
    coordinator = UserFactory(username="sam", role=Role.COORDINATOR, organisation=operator)
    supplier = OrganisationFactory(legal_name="Taiwan Servers Co.", country="TW")
    customer = OrganisationFactory(kind="customer", legal_name="Chennai AI Compute", country="IN")
    factory = Site.objects.create(
        owner=operator, name="Guishan", kind="factory", city="Taoyuan", country="TW"
    )
    dc = Site.objects.create(
        owner=operator, name="Siruseri DC1", kind="data_centre", city="Chennai", country="IN"
    )
    today = timezone.localdate()
    return services.shipment_create(
        actor=coordinator,
        fields={
            "origin": factory,
            "destination": dc,
            "incoterm": "DAP",
            "incoterm_place": "Siruseri DC1",
            "mode": "air",
            "end_use": "AI training cluster",
            "ready_date": today,
            "required_by": today + dt.timedelta(days=30),
        },
        parties={"shipper": supplier, "consignee": customer},
    )
