"""Run by test_sqlite_concurrency.py in a process of its own: a file-based SQLite database, the
project's settings, and N threads making the same status change to one shipment at once.

Prints one JSON line: the outcome of each thread ("moved", "refused" or the database error)."""

import datetime as dt
import json
import sys
import threading

import django

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import OperationalError, connection  # noqa: E402
from django.utils import timezone  # noqa: E402

WRITERS = int(sys.argv[1]) if len(sys.argv) > 1 else 10


def main() -> None:
    call_command("migrate", verbosity=0)
    from apps.accounts.roles import Role
    from apps.shipments import services
    from apps.shipments.models import Site
    from tests.factories import OperatorFactory, OrganisationFactory, UserFactory

    operator = OperatorFactory()
    coordinator = UserFactory(organisation=operator, role=Role.COORDINATOR, username="coord")
    supplier = OrganisationFactory(kind="supplier", legal_name="Taiwan Servers")
    customer = OrganisationFactory(kind="customer", legal_name="Chennai AI", country="IN", city="Chennai")
    origin = Site.objects.create(owner=supplier, name="Factory", kind="factory", city="Taoyuan", country="TW")
    destination = Site.objects.create(
        owner=operator, name="DC1", kind="data_centre", city="Chennai", country="IN"
    )
    today = timezone.localdate()
    shipment = services.shipment_create(
        actor=coordinator,
        fields={
            "origin": origin, "destination": destination, "incoterm": "DAP", "incoterm_place": "DC1",
            "mode": "air", "ready_date": today, "required_by": today + dt.timedelta(days=30),
        },
        parties={"shipper": supplier, "consignee": customer},
    )  # fmt: skip
    connection.close()
    start = threading.Barrier(WRITERS)
    outcomes: list[str] = []

    def write(n: int) -> None:
        try:
            start.wait()
            services.shipment_transition(
                shipment=shipment, target="cancelled", actor=coordinator, reason=f"writer {n}"
            )
            outcomes.append("moved")
        except services.TransitionRefused:
            outcomes.append("refused")
        except OperationalError as exc:
            outcomes.append(f"error: {exc}")
        finally:
            connection.close()

    threads = [threading.Thread(target=write, args=(n,)) for n in range(WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(json.dumps(outcomes))


main()
