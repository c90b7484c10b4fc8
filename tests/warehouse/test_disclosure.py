"""One disclosure rule for the operator's people on stock pages, their exports and receipt pages,
as in the API (apps.core.disclosure): a partner reads "Rackpass staff", never the name of the
operator's warehouse hand who received, moved or resolved its goods; the operator's staff read the
name."""

from __future__ import annotations

import io

import openpyxl
import pytest
from django.urls import reverse

from apps.shipments import services as shipments
from apps.shipments.models import Shipment
from apps.warehouse import services
from apps.warehouse.models import Movement
from apps.warehouse.services import receipts
from tests.factories import UserFactory

from .conftest import BOND

pytestmark = pytest.mark.django_db

NAME = "Wei Tan"


@pytest.fixture
def wei(operator):
    return UserFactory(
        organisation=operator, role="warehouse_operator", username="wtan", first_name="Wei", last_name="Tan"
    )


@pytest.fixture
def handled(make_shipment, gpu_server, hub, dock, bin_a, wei):
    """The supplier's shipment received by Wei at the hub (one serial missing, then found), and the
    unit put away: ledger rows, a receipt and a resolved discrepancy, all Wei's."""
    shipment = make_shipment(destination=hub)
    shipments.line_add(shipment=shipment, part=gpu_server, quantity=2, serials=["WT1", "WT2"])
    Shipment.objects.filter(pk=shipment.pk).update(status="in_transit")
    receipt = receipts.receipt_record(
        shipment=shipment, location=dock, scanned=["WT1"], actor=wei, customs_reference=BOND
    )
    missing = receipt.discrepancies.get()
    receipts.discrepancy_resolve(discrepancy=missing, actor=wei, resolution="Behind the door", found=True)
    unit = missing.unit
    services.unit_move(unit=unit, to_location=bin_a, actor=wei, reason="Put away")
    return receipt, unit


def _xlsx_text(content: bytes) -> str:
    book = openpyxl.load_workbook(io.BytesIO(content), read_only=True)
    return " ".join(str(cell) for sheet in book for row in sheet.iter_rows(values_only=True) for cell in row)


def _pages(browser, receipt, unit) -> dict[str, str]:
    movements = reverse("warehouse:movement-list")
    return {
        "ledger": browser.get(movements).content.decode(),
        "ledger csv": b"".join(browser.get(movements, {"export": "csv"}).streaming_content).decode(),
        "ledger xlsx": _xlsx_text(b"".join(browser.get(movements, {"export": "xlsx"}).streaming_content)),
        "unit": browser.get(reverse("warehouse:unit-detail", args=[unit.pk])).content.decode(),
        "receipt": browser.get(receipt.get_absolute_url()).content.decode(),
    }


def test_a_partner_reads_rackpass_staff_where_the_operator_reads_the_name(
    handled, supplier_user, coordinator, client, browser_as, api_as
):
    receipt, unit = handled
    assert Movement.objects.filter(actor_label__startswith=NAME).exists()
    for where, text in _pages(browser_as(supplier_user), receipt, unit).items():
        assert NAME not in text, where
        assert "Rackpass staff" in text, where
    # The API said so already.
    history = api_as(supplier_user).get(f"/api/v1/units/{unit.pk}/history/").json()["results"]
    assert {row["actor"] for row in history} == {"Rackpass staff"}
    client.logout()
    for where, text in _pages(browser_as(coordinator), receipt, unit).items():
        assert NAME in text, where
