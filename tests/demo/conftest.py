"""The demo's data, loaded once for every test in this package.

`manage.py load_demo` takes seconds; each of these tests only needs the demo as it stands and
undoes what it changes. So the demo is loaded once per test process, inside a transaction that is
rolled back when the package's last test has run, and each test runs inside a savepoint of it
(pytest-django's `db`), rolled back after the test: every test starts from the same demo.

The tasks the demo queues (compliance checks, documents) run as they would under `make run`'s
worker: the callbacks a commit would fire are run at the end of the load.

All of the package runs in one pytest-xdist process (the `demo` group in tests/conftest.py), so
the demo is loaded once per run, not once per process that happens to get one of its tests.
"""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import transaction
from django.test import TestCase


@pytest.fixture(scope="package")
def _demo_database(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        try:
            with TestCase.captureOnCommitCallbacks(execute=True):
                call_command("load_demo", verbosity=0)
            yield
        finally:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


@pytest.fixture
def demo(_demo_database, db):
    """The demo's data; whatever the test changes is rolled back after it."""
