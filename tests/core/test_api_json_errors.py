"""The API answers JSON always, DEBUG on or off: an address no route matches (a word where an id
goes, an unknown path), a refusal before any view ran. Django's HTML pages (under DEBUG the
technical 404 lists every URL pattern) never reach an API client."""

import pytest
from django.test import override_settings

from apps.core.models import TaskRecord


@pytest.fixture(params=[True, False], ids=["debug", "no-debug"])
def debug(request):
    with override_settings(DEBUG=request.param):
        yield request.param


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/shipments/SHP-X/lines/not-a-number/",  # a word where an integer id goes
        "/api/v1/clusters/abc/coverage/",
        "/api/v1/no-such-thing/",
        "/api/v1/shipments/SHP-X/lines/1/history/extra/",
        "/api/nothing-here/",
    ],
)
def test_an_unmatched_api_address_answers_json_404(debug, coordinator, api_as, path):
    response = api_as(coordinator).get(path)
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")
    assert response.json() == {"detail": "Not found."}
    assert b"URLconf" not in response.content and b"urlpatterns" not in response.content


def test_unauthenticated_unmatched_api_address_answers_json_too(debug, db, client):
    response = client.post("/api/v1/shipments/SHP-X/lines/x/", data="{}", content_type="application/json")
    assert response.status_code in (403, 404)
    assert response["Content-Type"].startswith("application/json") and "detail" in response.json()


def test_a_missing_slash_still_redirects(debug, coordinator, api_as):
    response = api_as(coordinator).get("/api/v1/parts")
    assert response.status_code == 301 and response["Location"].endswith("/api/v1/parts/")


def test_pages_keep_their_html_404(debug, coordinator, browser_as):
    response = browser_as(coordinator).get("/shipments/not-a-reference/nothing/")
    assert response.status_code == 404 and response["Content-Type"].startswith("text/html")


def test_a_json_404_of_a_view_is_left_as_it_is(debug, coordinator, api_as):
    assert not TaskRecord.objects.exists()
    response = api_as(coordinator).get("/api/v1/tasks/no-such-task/")
    assert response.status_code == 404 and response["Content-Type"].startswith("application/json")
