from tests.compliance.conftest import (  # noqa: F401  (shipments to check, for the background-work tests)
    country_data,
    dgx,
    h100,
    indian_customer,
    ship,
    sites,
    submitted,
)
