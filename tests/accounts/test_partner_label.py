"""Issue 12: partners work in the browser too; their header does not call them "API user"."""

import pytest

pytestmark = pytest.mark.django_db


def test_a_partners_header_names_the_role_plainly(supplier_user, browser_as):
    page = browser_as(supplier_user).get("/").content.decode()
    assert "API user" not in page
    assert f"· Partner · {supplier_user.organisation}" in page
