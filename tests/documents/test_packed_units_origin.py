"""Issue 13, consolidation: a unit's country of origin is the box's, recorded from the inbound line
it arrives on (else its part's), and an outbound shipment's commercial invoice and packing list
state it per unit — a line of units from several countries split by country, each package's
serials under their units' origins — with the quantities and the invoice total unchanged."""

# ruff: noqa: F811  (fixtures imported from the warehouse and shipments conftests are arguments)

from decimal import Decimal
from importlib import import_module

import pytest
from django.apps import apps as django_apps
from django.urls import reverse

from apps.catalog.models import Unit
from apps.compliance import services as compliance
from apps.documents import builder, services
from apps.documents.renderer import render_pdf
from apps.shipments import services as shipments
from apps.shipments.models import LineSerial, Shipment, Site
from apps.warehouse import services as warehouse
from apps.warehouse.services.packing import units_pack
from apps.warehouse.services.receipts import receipt_record
from tests.documents.test_documents import compact, text_of
from tests.shipments.conftest import crate
from tests.warehouse.conftest import (  # noqa: F401  (fixtures)
    BOND,
    bin_a,
    cable,
    customer,
    datacentre,
    dock,
    factory_site,
    gpu_server,
    hub,
    make_shipment,
)

pytestmark = pytest.mark.django_db


def origins(*serials: str) -> dict[str, str]:
    return dict(Unit.objects.filter(serial__in=serials).values_list("serial", "country_of_origin"))


@pytest.fixture
def mexican_plant(supplier):
    return Site.objects.create(
        owner=supplier, name="Zapopan plant", kind="factory", city="Zapopan", country="MX"
    )


@pytest.fixture
def received_at_hub(make_shipment, gpu_server, hub, dock, mexican_plant, warehouse_operator):
    """Two inbound shipments to the Singapore hub, both of the same server: QT1 and QT2 built in
    Taiwan, QM1 in Mexico (as their lines declare), received and put away in bond."""
    # The catalogue's origin for the part, neither inbound line's.
    gpu_server.country_of_origin = "US"
    gpu_server.save(update_fields=["country_of_origin"])
    for origin_site, country, serials in ((None, "TW", ["QT1", "QT2"]), (mexican_plant, "MX", ["QM1"])):
        inbound = make_shipment(destination=hub, **({"origin": origin_site} if origin_site else {}))
        shipments.line_add(
            shipment=inbound,
            part=gpu_server,
            quantity=len(serials),
            serials=serials,
            fields={"country_of_origin": country},
        )
        Shipment.objects.filter(pk=inbound.pk).update(status="in_transit")
        receipt_record(
            shipment=inbound, location=dock, scanned=serials, actor=warehouse_operator, customs_reference=BOND
        )
    return Unit.objects.filter(serial__in=["QT1", "QT2", "QM1"]).order_by("serial")


@pytest.fixture
def consolidated(received_at_hub, make_shipment, hub, gpu_server, bin_a, warehouse_operator):
    """One outbound shipment from the hub: a line of three servers (its declared origin the part's,
    US) of two origins, packed QM1 + QT1 in package 1 and QT2 in package 2."""
    units = {
        u.serial: warehouse.unit_move(unit=u, to_location=bin_a, actor=warehouse_operator)
        for u in received_at_hub
    }
    shipment = make_shipment(origin=hub)
    line = shipments.line_add(
        shipment=shipment, part=gpu_server, quantity=3, fields={"unit_value": Decimal("1000")}
    )
    warehouse.units_allocate(line=line, units=list(units.values()), actor=warehouse_operator)
    warehouse.units_pick(units=list(units.values()), actor=warehouse_operator)
    units_pack(
        shipment=shipment,
        units=[units["QM1"], units["QT1"]],
        fields=crate(marks="HUB/1"),
        actor=warehouse_operator,
    )
    units_pack(shipment=shipment, units=[units["QT2"]], fields=crate(marks="HUB/2"), actor=warehouse_operator)
    return shipment, line


def test_the_receipt_records_each_units_origin_from_its_inbound_line(received_at_hub):
    assert origins("QT1", "QT2", "QM1") == {"QT1": "TW", "QT2": "TW", "QM1": "MX"}
    assert [u.origin_country for u in received_at_hub] == ["MX", "TW", "TW"]


def test_packing_onto_an_outbound_line_keeps_each_units_own_origin(consolidated):
    shipment, line = consolidated
    assert line.country_of_origin == "US"  # what the outbound line declares by default
    assert origins("QT1", "QT2", "QM1") == {"QT1": "TW", "QT2": "TW", "QM1": "MX"}
    assert LineSerial.objects.filter(line=line).count() == 3


def test_a_mixed_line_is_split_by_origin_with_its_quantity_and_value_unchanged(consolidated):
    shipment, line = consolidated
    context = builder.build_context(shipment, "commercial_invoice", number="CI-T", version=1, watermark="")
    (doc_line,) = context.lines
    assert doc_line.country_of_origin == "MX, TW"
    assert [(o.label, o.country, o.quantity, o.value, o.serials) for o in doc_line.origins] == [
        ("1.1", "MX", 1, Decimal("1000"), ("QM1",)),
        ("1.2", "TW", 2, Decimal("2000"), ("QT1", "QT2")),
    ]
    assert sum(o.quantity for o in doc_line.origins) == doc_line.quantity == 3
    assert (
        sum(o.value for o in doc_line.origins)
        == doc_line.line_value
        == context.goods_total
        == Decimal("3000")
    )
    assert context.invoice_total == Decimal("3000")

    text = compact(text_of(render_pdf(context)[0]))
    shown = ("1.1", "1.2", "units of origin MX — S/N QM1", "units of origin TW — S/N QT1, QT2")
    for expected in (*shown, "1 pcs", "2 pcs", "1,000.00", "2,000.00", "3,000.00", "per country of origin"):
        assert expected in text, expected


def test_the_packing_list_lists_each_packages_serials_under_their_origin(consolidated):
    shipment, _line = consolidated
    context = builder.build_context(shipment, "packing_list", number="PL-T", version=1, watermark="")
    assert [(p.number, p.serial_origins) for p in context.packages] == [
        (1, (("MX", ("QM1",)), ("TW", ("QT1",)))),
        (2, (("TW", ("QT2",)),)),
    ]
    assert [p.serials for p in context.packages] == [("QM1", "QT1"), ("QT2",)]
    text = compact(text_of(render_pdf(context)[0]))
    first, second = text.index("HUB/1"), text.index("HUB/2")
    assert first < text.index("S/N, origin MX: QM1") < text.index("S/N, origin TW: QT1") < second
    assert second < text.index("S/N, origin TW: QT2")
    assert text.count("QT2") == 1 and text.count("QM1") == 1  # exactly what was packed, once


def test_a_single_origin_line_is_not_split_and_states_its_units_origin(
    received_at_hub, make_shipment, hub, gpu_server, bin_a, warehouse_operator
):
    taiwanese = [
        warehouse.unit_move(unit=u, to_location=bin_a, actor=warehouse_operator)
        for u in received_at_hub
        if u.serial.startswith("QT")
    ]
    shipment = make_shipment(origin=hub)
    line = shipments.line_add(shipment=shipment, part=gpu_server, quantity=2)
    warehouse.units_allocate(line=line, units=taiwanese, actor=warehouse_operator)
    warehouse.units_pick(units=taiwanese, actor=warehouse_operator)
    units_pack(shipment=shipment, units=taiwanese, fields=crate(), actor=warehouse_operator)
    context = builder.build_context(shipment, "commercial_invoice", number="CI-T", version=1, watermark="")
    (doc_line,) = context.lines
    assert (doc_line.country_of_origin, doc_line.origins) == ("TW", ())
    assert not context.split_by_origin


def test_receiving_without_a_line_takes_the_parts_origin_and_keeps_a_declared_one(
    dock, hub, supplier, warehouse_operator, gpu_server, make_shipment
):
    # A serial first named on a shipment line carries that line's origin into the warehouse: QK1 is
    # on an inbound notice to the hub (a unit on a live notice is received only against it, where
    # its leg ends); QN1 is on no line. Neither receipt states an origin.
    inbound = make_shipment(destination=hub)
    shipments.line_add(
        shipment=inbound, part=gpu_server, quantity=1, serials=["QK1"], fields={"country_of_origin": "KR"}
    )
    Shipment.objects.filter(pk=inbound.pk).update(status="in_transit")
    warehouse.units_receive(
        location=dock, part=gpu_server, serials=["QN1", "QK1"], owner=supplier, actor=warehouse_operator,
        customs_reference=BOND, arriving_on=inbound,
    )  # fmt: skip
    assert origins("QN1", "QK1") == {"QN1": gpu_server.country_of_origin, "QK1": "KR"}


def test_correcting_a_lines_origin_moves_the_units_it_declared_not_received_ones(
    received_at_hub, make_shipment, gpu_server
):
    draft = make_shipment()
    line = shipments.line_add(shipment=draft, part=gpu_server, quantity=2, serials=["NEW1", "NEW2"])
    assert origins("NEW1", "NEW2") == {"NEW1": "US", "NEW2": "US"}
    shipments.line_update(line=line, fields={"country_of_origin": "TW"})
    assert origins("NEW1", "NEW2") == {"NEW1": "TW", "NEW2": "TW"}

    # A received unit's origin is its inbound line's: another line's declaration does not move it.
    other = shipments.line_add(shipment=draft, part=gpu_server, quantity=1)
    Unit.objects.filter(serial="QM1").update(status="expected")  # even once back out of stock
    LineSerial.objects.create(line=other, unit=Unit.objects.get(serial="QM1"))
    shipments.line_update(line=other, fields={"country_of_origin": "TW"})
    assert origins("QM1") == {"QM1": "MX"}


def test_the_data_migration_fills_units_from_their_first_line_else_the_part(
    make_shipment, gpu_server, supplier
):
    draft = make_shipment()
    shipments.line_add(
        shipment=draft, part=gpu_server, quantity=1, serials=["OLD1"], fields={"country_of_origin": "MX"}
    )
    Unit.objects.create(part=gpu_server, manufacturer=gpu_server.manufacturer, serial="OLD2", owner=supplier)
    Unit.objects.filter(serial__in=["OLD1", "OLD2"]).update(country_of_origin="")
    import_module("apps.catalog.migrations.0011_unit_country_of_origin_fill").fill(django_apps, None)
    assert origins("OLD1", "OLD2") == {"OLD1": "MX", "OLD2": gpu_server.country_of_origin}


def test_issued_documents_state_the_origins_and_another_organisation_cannot_read_them(
    submitted, indian_customer, dgx, coordinator, browser_as
):
    from tests.factories import OrganisationFactory, UserFactory

    shipment = submitted(indian_customer, "IN", "Chennai", [(dgx, 3)])
    compliance.compliance_check_run(shipment=shipment, actor=coordinator)
    shipment.refresh_from_db()
    assert shipment.status == "approved"
    (line,) = shipment.lines.all()
    assert line.country_of_origin == "MX"
    shipments.serials_set(line=line, serials=["DX1", "DX2", "DX3"])
    Unit.objects.filter(serial="DX3").update(country_of_origin="KR")  # received from a Korean line
    shipments.package_add(
        shipment=shipment, fields=crate(marks="P/1"), items=[(line, 2)], serials=["DX1", "DX3"]
    )
    shipments.package_add(shipment=shipment, fields=crate(marks="P/2"), items=[(line, 1)], serials=["DX2"])
    invoice = services.document_generate(shipment=shipment, doc_type="commercial_invoice", actor=coordinator)
    packing = services.document_generate(shipment=shipment, doc_type="packing_list", actor=coordinator)

    shares = invoice.data["lines"][0]["origins"]
    assert [(s["country"], s["quantity"], s["serials"]) for s in shares] == [
        ("KR", 1, ["DX3"]),
        ("MX", 2, ["DX1", "DX2"]),
    ]
    assert Decimal(invoice.data["goods_total"]) == line.line_value
    text = compact(text_of(services.document_read(invoice)))
    assert "units of origin KR — S/N DX3" in text
    packed = compact(text_of(services.document_read(packing)))
    assert (
        "S/N, origin KR: DX3" in packed
        and "S/N, origin MX: DX1" in packed
        and "S/N, origin MX: DX2" in packed
    )

    outsider = UserFactory(organisation=OrganisationFactory(legal_name="Elsewhere Ltd"), role="partner")
    for document in (invoice, packing):
        url = reverse("documents:download", args=[document.pk])
        assert browser_as(outsider).get(url).status_code == 404
