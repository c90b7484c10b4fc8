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
