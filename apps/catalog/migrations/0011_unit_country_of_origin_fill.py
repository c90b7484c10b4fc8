"""Fill the country of origin of the units that exist: the one declared on the first shipment line
that carried the unit (the supplier's inbound line: a unit is on a shipment before a warehouse can
receive it, and an outbound line comes later), else the part's."""

from django.db import migrations
from django.db.models import OuterRef, Subquery
from django.db.models.functions import Coalesce


def fill(apps, schema_editor):
    Unit = apps.get_model("catalog", "Unit")
    Part = apps.get_model("catalog", "Part")
    LineSerial = apps.get_model("shipments", "LineSerial")
    first_line = (
        LineSerial.objects.filter(unit_id=OuterRef("pk")).order_by("pk").values("line__country_of_origin")
    )
    part = Part.objects.filter(pk=OuterRef("part_id")).values("country_of_origin")
    Unit.objects.filter(country_of_origin="").update(
        country_of_origin=Coalesce(Subquery(first_line[:1]), Subquery(part[:1]))
    )


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0010_unit_country_of_origin"),
        ("shipments", "0014_units_required"),
    ]

    operations = [migrations.RunPython(fill, migrations.RunPython.noop)]
