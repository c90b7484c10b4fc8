"""Screening hits keyed by party and listed entry: at most one open hit per organisation and the
list's own entry id (which survives a new edition of the list), enforced by the database."""

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import Count, Min, OuterRef, Q, Subquery


def fill_and_deduplicate(apps, schema_editor):
    """Copy the screening's organisation and the entry's list id onto each hit, then settle what
    the old code left: of several open hits for one party and entry the oldest stays open and the
    others become duplicates; open hits on an entry already confirmed for the party become
    'previously confirmed'."""
    ScreeningHit = apps.get_model("compliance", "ScreeningHit")
    Screening = apps.get_model("compliance", "Screening")
    ScreeningListEntry = apps.get_model("compliance", "ScreeningListEntry")
    ScreeningHit.objects.update(
        organisation_id=Subquery(
            Screening.objects.filter(pk=OuterRef("screening_id")).values("organisation_id")[:1]
        ),
        list_entry_id=Subquery(
            ScreeningListEntry.objects.filter(pk=OuterRef("entry_id")).values("entry_id")[:1]
        ),
    )
    party_hits = ScreeningHit.objects.filter(organisation__isnull=False)
    touched: set[int] = set()
    confirmed = set(
        party_hits.filter(status="confirmed").values_list("organisation_id", "list_entry_id").distinct()
    )
    for hit in party_hits.filter(status="open").only(
        "pk", "organisation_id", "list_entry_id", "screening_id"
    ):
        if (hit.organisation_id, hit.list_entry_id) in confirmed:
            ScreeningHit.objects.filter(pk=hit.pk).update(status="previously_confirmed")
            touched.add(hit.screening_id)
    repeated = (
        party_hits.filter(status="open")
        .values("organisation_id", "list_entry_id")
        .annotate(n=Count("id"), first=Min("id"))
        .filter(n__gt=1)
    )
    for group in repeated:
        later = party_hits.filter(
            status="open", organisation_id=group["organisation_id"], list_entry_id=group["list_entry_id"]
        ).exclude(pk=group["first"])
        touched.update(later.values_list("screening_id", flat=True))
        later.update(status="duplicate")
    for screening in Screening.objects.filter(pk__in=touched):
        screening.open_hit_count = ScreeningHit.objects.filter(screening=screening, status="open").count()
        screening.save(update_fields=["open_hit_count"])
    if schema_editor.connection.vendor == "postgresql":
        # Fire the deferred foreign-key checks of the updates now: PostgreSQL refuses to build the
        # index and constraint below on a table with pending trigger events.
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0002_servicecoverage"),
        ("compliance", "0004_licensee_required"),
    ]

    operations = [
        migrations.AddField(
            model_name="screeninghit",
            name="organisation",
            field=models.ForeignKey(
                blank=True,
                help_text="The screened organisation (the screening's); empty for an ad hoc name check.",
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="screening_hits",
                to="accounts.organisation",
            ),
        ),
        migrations.AddField(
            model_name="screeninghit",
            name="list_entry_id",
            field=models.CharField(
                default="",
                help_text="The list's own id of the entry, the same in every edition of the list.",
                max_length=100,
            ),
            preserve_default=False,
        ),
        migrations.RunPython(fill_and_deduplicate, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name="screeninghit",
            index=models.Index(
                fields=["organisation", "list_entry_id", "status"], name="compliance_hit_party_entry"
            ),
        ),
        migrations.AddConstraint(
            model_name="screeninghit",
            constraint=models.UniqueConstraint(
                condition=Q(status="open"),
                fields=("organisation", "list_entry_id"),
                name="compliance_one_open_hit_per_party_entry",
            ),
        ),
    ]
