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
