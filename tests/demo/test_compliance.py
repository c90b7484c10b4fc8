"""Every demo shipment checked again after a list import and after a licence edit: no crash, no
false hold, no licence counted twice."""

import json

from apps.accounts.models import User
from apps.compliance import services
from apps.compliance.models import ComplianceCheck, Licence, LicenceDrawdown, ScreeningList
from apps.core.shared_data import shared_path
from apps.shipments.models import Shipment
from tests.compliance.conftest import LIST

REAL = shared_path("data/csl/consolidated-2026-07-31.json")


def _latest_results() -> dict[str, tuple[str, str]]:
    """Result and status of every demo shipment that has been checked."""
    results = {}
    for shipment in Shipment.objects.order_by("pk"):
        check = shipment.compliance_checks.order_by("-finished_at", "-id").first()
        if check is not None:
            results[shipment.reference] = (check.result, shipment.status)
    return results


def _licence_use() -> list:
    return sorted(
        LicenceDrawdown.objects.filter(released_at__isnull=True).values_list(
            "licence_id", "line_id", "quantity"
        )
    )


def test_demo_shipments_recheck_cleanly_after_a_list_import_and_a_licence_edit(demo):
    officer = User.objects.get(username="compliance")
    before, use_before = _latest_results(), _licence_use()
    assert use_before, "the demo draws on a licence"
    assert {"pass", "hold"} <= {result for result, _ in before.values()}
    checked = Shipment.objects.filter(compliance_checks__isnull=False).distinct().order_by("pk")

    # A new edition of the list: the real list when it is beside the repository, else the test list.
    if REAL.exists():
        data, fmt_version = REAL.read_bytes(), "2026-07-31-full"
    else:
        data, fmt_version = json.dumps(LIST).encode(), "test-edition"
    services.screening_list_import(
        name=ScreeningList.objects.filter(is_active=True).values_list("name", flat=True).first()
        or "US Consolidated Screening List",
        source_format="csl_json",
        data=data,
        version=fmt_version,
        actor=officer,
        rescreen=False,
    )
    services.rescreen_all(actor=officer)
    for shipment in checked:
        services.compliance_check_run(shipment=shipment, actor=officer)
    assert _latest_results() == before
    assert _licence_use() == use_before

    licence = Licence.objects.get(number="D1234567")
    services.licence_save(licence=licence, fields={"conditions": licence.conditions + " Annual report."})
    checks_before = ComplianceCheck.objects.count()
    for shipment in checked:
        services.compliance_check_run(shipment=shipment, actor=officer)
    assert ComplianceCheck.objects.count() > checks_before  # the licence's shipments were checked anew
    assert _latest_results() == before
    assert _licence_use() == use_before
