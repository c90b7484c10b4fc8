"""`safe_next`: the one helper for redirects to an address taken from the request."""

import pytest

from apps.core.views import safe_next


@pytest.mark.parametrize(
    "target",
    [
        "https://evil.example/",
        "//evil.example",
        "/\\evil.example",
        "https:evil.example",
        "javascript:alert(1)",
    ],
)
def test_foreign_or_odd_targets_fall_back_to_the_default(rf, target):
    assert safe_next(rf.post("/x/", {"next": target}), "/home/") == "/home/"
    assert safe_next(rf.get("/x/", {"next": target}), "/home/") == "/home/"


def test_a_page_of_this_site_is_followed(rf):
    assert safe_next(rf.post("/x/", {"next": "/parts/?q=osfp"}), "/home/") == "/parts/?q=osfp"
    assert (
        safe_next(rf.get("/x/", {"next": "http://testserver/parts/"}), "/home/") == "http://testserver/parts/"
    )
    assert safe_next(rf.post("/x/"), "/home/") == "/home/"


def test_over_https_plain_http_is_refused(rf):
    request = rf.post("/x/", {"next": "http://testserver/parts/"}, secure=True)
    assert safe_next(request, "/home/") == "/home/"
