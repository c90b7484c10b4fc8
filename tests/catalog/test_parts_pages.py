"""The parts pages in the browser: search, htmx partials, query counts, forms with field errors."""

import pytest

from apps.catalog.models import Part
from tests.factories import ManufacturerFactory, PartFactory


def test_login_required(client, db):
    response = client.get("/parts/")
    assert response.status_code == 302 and response.url.startswith("/login/")


def test_list_page_queries_do_not_grow_with_rows(coordinator, browser_as, django_assert_num_queries):
    client = browser_as(coordinator)
    PartFactory.create_batch(3)
    # session, user, count, page, manufacturers (filter select); nothing per row
    with django_assert_num_queries(5):
        client.get("/parts/")
    PartFactory.create_batch(60)
    with django_assert_num_queries(5):
        response = client.get("/parts/")
    assert len(response.context["object_list"]) == 50
    assert "Page 1 of 2" in response.content.decode()


def test_search_and_htmx_partial(coordinator, browser_as):
    PartFactory(part_number="MMA4Z00-NS", name="800G OSFP SR8 transceiver", category="optical_transceiver")
    PartFactory(part_number="SN2201", name="Out-of-band switch")
    client = browser_as(coordinator)
    full = client.get("/parts/?q=osfp").content.decode()
    assert "MMA4Z00-NS" in full and "SN2201" not in full and "<html" in full
    partial = client.get("/parts/?q=osfp", HTTP_HX_REQUEST="true").content.decode()
    assert "MMA4Z00-NS" in partial and "<html" not in partial


def test_detail_page_shows_figures(coordinator, browser_as, django_assert_max_num_queries):
    gpu = PartFactory(
        category="accelerator",
        name="H100 SXM5",
        dense_tops={"8": "1979"},
        die_area_mm2="814",
        hs_code="847330",
    )
    client = browser_as(coordinator)
    with django_assert_max_num_queries(8):
        page = client.get(f"/parts/{gpu.pk}/").content.decode()
    assert "15,832" in page and "19.45" in page and "847330" in page


def test_create_form_shows_field_errors_and_saves_nothing(coordinator, browser_as):
    nvidia = ManufacturerFactory(name="NVIDIA")
    client = browser_as(coordinator)
    data = {
        "manufacturer": nvidia.pk,
        "part_number": "Q3400",
        "name": "Quantum-X800",
        "category": "network_switch",
        "unit_weight_kg": "-3",
        "length_cm": "80",
        "width_cm": "60",
        "height_cm": "17",
        "unit_value": "90000",
        "currency": "XXY",
        "country_of_origin": "QQ",
        "hs_code": "85176",
        "dense_tops": "{}",
        "attributes": "{}",
        "is_active": "on",
    }
    response = client.post("/parts/new/", data)
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert {"unit_weight_kg", "currency", "country_of_origin", "hs_code"} <= set(errors)
    assert 'class="error"' in response.content.decode()
    assert not Part.objects.exists()
    data |= {"unit_weight_kg": "30", "currency": "USD", "country_of_origin": "MX", "hs_code": "8517.62"}
    response = client.post("/parts/new/", data)
    assert response.status_code == 302
    part = Part.objects.get()
    assert part.hs_code == "851762" and part.owner.kind == "operator"
    duplicate = client.post("/parts/new/", data | {"part_number": "q3400"})
    assert duplicate.context["form"].errors["part_number"] == ["NVIDIA already has a part numbered q3400."]


@pytest.mark.parametrize("role_fixture", ["compliance_officer", "warehouse_operator"])
def test_create_page_refused_for_roles_without_the_capability(request, role_fixture, browser_as):
    client = browser_as(request.getfixturevalue(role_fixture))
    assert client.get("/parts/new/").status_code == 403
    assert client.get("/parts/").status_code == 200


def test_partner_cannot_edit_master_catalogue_or_see_foreign_parts(supplier_user, forwarder, browser_as):
    master = PartFactory()
    foreign = PartFactory(owner=forwarder)
    client = browser_as(supplier_user)
    assert client.get(f"/parts/{master.pk}/").status_code == 200
    assert "Edit</a>" not in client.get(f"/parts/{master.pk}/").content.decode()
    assert client.get(f"/parts/{master.pk}/edit/").status_code == 404
    assert client.get(f"/parts/{foreign.pk}/").status_code == 404


def test_dashboard_and_navigation_follow_the_role(coordinator, supplier_user, browser_as, client):
    PartFactory(category="accelerator")
    page = browser_as(coordinator).get("/").content.decode()
    assert "Recent activity" in page and "Organisations" in page and "Accelerator / GPU" in page
    assert "open shipments" in page and "late=true" in page
    client.logout()
    page = browser_as(supplier_user).get("/").content.decode()
    assert "Recent activity" not in page and "API tokens" in page
