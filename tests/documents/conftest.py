import pytest

from apps.compliance import services as compliance
from tests.compliance.conftest import (  # noqa: F401  (shared fixtures)
    LIST,
    country_data,
    dgx,
    h100,
    indian_customer,
    saudi_customer,
    saudi_licence,
    screening_list,
    ship,
    sites,
    submitted,
    switch,
)
from tests.shipments.conftest import pack_all


@pytest.fixture
def approved(submitted, indian_customer, dgx, coordinator):  # noqa: F811 (the fixtures imported above)
    """A Taiwan → India shipment of one DGX, its compliance check passed, every unit packed."""
    shipment = submitted(indian_customer, "IN", "Chennai", [(dgx, 1)])
    compliance.compliance_check_run(shipment=shipment, actor=coordinator)
    shipment.refresh_from_db()
    assert shipment.status == "approved"
    pack_all(shipment)
    return shipment
