from tests.compliance.conftest import (  # noqa: F401  (fixtures for the compliance worker test)
    country_data,
    dgx,
    h100,
    indian_customer,
    ship,
    sites,
    submitted,
    switch,
)
