"""Issue 13, "one identity per unit": a serial number is a `catalog.Unit` (part + serial, unique per
manufacturer), and one box is on one live shipment at a time."""

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from apps.catalog.models import Unit, UnitStatus
from apps.shipments import services
from apps.shipments.models import LineSerial
from tests.factories import OrganisationFactory, PartFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_serials_on_a_line_are_units_of_its_part_owned_by_the_shipper(make_shipment, gpu_server, supplier):
    shipment = make_shipment()
    line = services.line_add(shipment=shipment, part=gpu_server, quantity=2, serials=["QT0001", "QT0002"])
    units = Unit.objects.order_by("serial")
    assert [(u.serial, u.part, u.manufacturer, u.owner, u.status) for u in units] == [
        ("QT0001", gpu_server, gpu_server.manufacturer, supplier, UnitStatus.EXPECTED),
        ("QT0002", gpu_server, gpu_server.manufacturer, supplier, UnitStatus.EXPECTED),
    ]
    assert sorted(s.serial for s in line.serials.select_related("unit")) == ["QT0001", "QT0002"]


def test_the_same_box_cannot_be_on_two_live_shipments(make_shipment, gpu_server):
    first = make_shipment()
    services.line_add(shipment=first, part=gpu_server, quantity=1, serials=["QT0001"])
    second = make_shipment()
    with pytest.raises(ValidationError) as refused:
        services.line_add(shipment=second, part=gpu_server, quantity=1, serials=["qt0001"])  # any case
    assert refused.value.message_dict["serials"] == [
        f"Serial QT0001 is already on {first.reference} (line 1); remove it there first."
    ]
    assert not second.lines.exists()  # the line was not half-added
    # Once the first shipment is cancelled, the box is free again: the same unit, not a copy.
    services.shipment_transition(
        shipment=first,
        target="cancelled",
        actor=None,
        reason="Moved to another order",
        check_capability=False,
    )
    line = services.line_add(shipment=second, part=gpu_server, quantity=1, serials=["QT0001"])
    assert Unit.objects.count() == 1
    assert LineSerial.objects.filter(unit__serial="QT0001").count() == 2
    assert line.serials.get().unit == Unit.objects.get()


def test_another_organisations_shipment_is_not_named(make_shipment, gpu_server, supplier, customer):
    """A partner learns that the box is taken, not whose shipment it is on."""
    make_shipment_line = services.line_add
    make_shipment_line(shipment=make_shipment(), part=gpu_server, quantity=1, serials=["QT0009"])
    partner = UserFactory(organisation=supplier, role="partner")
    own = make_shipment(actor=partner, parties={"consignee": supplier})
    with pytest.raises(ValidationError) as refused:
        services.line_add(shipment=own, part=gpu_server, quantity=1, serials=["QT0009"])
    (message,) = refused.value.message_dict["serials"]
    assert message == "Serial QT0009 is already on another organisation's shipment; remove it there first."


def test_a_serial_the_maker_uses_for_another_part_is_refused(make_shipment, gpu_server):
    other = PartFactory(part_number="MQM9790", manufacturer=gpu_server.manufacturer)
    services.line_add(shipment=make_shipment(), part=other, quantity=1, serials=["X1"])
    with pytest.raises(ValidationError) as refused:
        services.line_add(shipment=make_shipment(), part=gpu_server, quantity=1, serials=["X1"])
    assert refused.value.message_dict["serials"] == [
        "Serial X1 is already known as a MQM9790, not a DGX-H100."
    ]


def test_another_maker_may_use_the_same_serial(make_shipment, gpu_server):
    from tests.factories import ManufacturerFactory

    other = PartFactory(part_number="CS-3", manufacturer=ManufacturerFactory(name="Cerebras"))
    services.line_add(shipment=make_shipment(), part=gpu_server, quantity=1, serials=["A1"])
    services.line_add(shipment=make_shipment(), part=other, quantity=1, serials=["A1"])
    assert Unit.objects.filter(serial="A1").count() == 2


def test_case_variants_in_one_list_are_one_box_repeated(make_shipment, gpu_server):
    with pytest.raises(ValidationError) as refused:
        services.line_add(shipment=make_shipment(), part=gpu_server, quantity=2, serials=["ab1", "AB1"])
    assert refused.value.message_dict["serials"] == ["Repeated serial numbers: AB1, ab1."]


def test_the_database_refuses_a_second_row_for_one_box(gpu_server):
    owner = OrganisationFactory()
    Unit.objects.create(part=gpu_server, manufacturer=gpu_server.manufacturer, serial="Z9", owner=owner)
    with pytest.raises(IntegrityError), transaction.atomic():
        Unit.objects.create(part=gpu_server, manufacturer=gpu_server.manufacturer, serial="z9", owner=owner)


def test_units_are_scoped_to_their_owner(gpu_server, supplier):
    Unit.objects.create(part=gpu_server, manufacturer=gpu_server.manufacturer, serial="S1", owner=supplier)
    stranger = UserFactory(organisation=OrganisationFactory(), role="partner")
    owner = UserFactory(organisation=supplier, role="partner")
    assert not Unit.objects.visible_to(stranger).exists()
    assert Unit.objects.visible_to(owner).count() == 1


@pytest.mark.django_db(transaction=True)
def test_the_migration_makes_units_of_the_serials_already_on_lines():
    """Serials typed before units existed: one unit per maker and serial (a box shipped twice is
    one unit), case variants on one line kept once, the packed row first."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor
    from django.db.migrations.loader import MigrationLoader

    def models_as_migrated():
        # Migrating catalog and shipments back leaves the other apps where they are (accounts, say,
        # at its latest): the models must be those of every migration the database has applied,
        # not only of the targets' ancestors, or they name columns since renamed.
        loader = MigrationLoader(connection)
        applied = [key for key in loader.applied_migrations if key in loader.graph.nodes]
        return loader.project_state(applied).apps

    before = [("catalog", "0008_part_lithium_batteries"), ("shipments", "0012_hub_handling")]
    after = [("catalog", "0009_units"), ("shipments", "0014_units_required")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old = models_as_migrated()
    Organisation, Manufacturer = (
        old.get_model("accounts", "Organisation"),
        old.get_model("catalog", "Manufacturer"),
    )
    Part, Shipment = old.get_model("catalog", "Part"), old.get_model("shipments", "Shipment")
    Line, Serial = old.get_model("shipments", "ShipmentLine"), old.get_model("shipments", "LineSerial")
    Package, Site = old.get_model("shipments", "Package"), old.get_model("shipments", "Site")
    owner = Organisation.objects.create(
        kind="operator", legal_name="Op", address_line1="1", city="X", country="SG"
    )
    maker = Manufacturer.objects.create(name="NVIDIA", country="US")
    part = Part.objects.create(
        owner=owner, manufacturer=maker, part_number="DGX", name="DGX", category="server",
        unit_weight_kg=1, length_cm=1, width_cm=1, height_cm=1, unit_value=1, currency="USD",
        country_of_origin="TW", hs_code="847150",
    )  # fmt: skip
    site = Site.objects.create(owner=owner, name="S", kind="factory", city="X", country="TW")
    dc = Site.objects.create(owner=owner, name="D", kind="data_centre", city="Y", country="IN")
    lines = []
    for n in (1, 2):
        shipment = Shipment.objects.create(
            reference=f"SHP-2026-00000{n}", owner=owner, origin=site, destination=dc, incoterm="DAP",
            mode="air", currency="USD", ready_date="2026-01-01", required_by="2026-02-01",
        )  # fmt: skip
        lines.append(
            Line.objects.create(shipment=shipment, part=part, line_number=1, quantity=3, unit_value=1)
        )
    crate = Package.objects.create(
        shipment=lines[0].shipment, number=1, package_type="crate", length_cm=1, width_cm=1, height_cm=1,
        gross_kg=1, net_kg=1,
    )  # fmt: skip
    Serial.objects.create(line=lines[0], serial="qt1")
    Serial.objects.create(line=lines[0], serial="QT1", package=crate)  # the same box, packed
    Serial.objects.create(line=lines[0], serial="QT2")
    Serial.objects.create(line=lines[1], serial="QT2")  # shipped again later

    executor = MigrationExecutor(connection)
    executor.migrate(after)
    new = models_as_migrated()
    Unit, Serial = new.get_model("catalog", "Unit"), new.get_model("shipments", "LineSerial")
    assert sorted(Unit.objects.values_list("serial", "owner_id", "part_id")) == [
        ("QT1", owner.pk, part.pk),
        ("QT2", owner.pk, part.pk),
    ]
    rows = sorted(Serial.objects.values_list("line_id", "unit__serial", "package_id"))
    assert rows == [(lines[0].pk, "QT1", crate.pk), (lines[0].pk, "QT2", None), (lines[1].pk, "QT2", None)]
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())  # the database as the other tests expect it
