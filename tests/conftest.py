import os
import shutil

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import OrganisationKind
from apps.accounts.roles import Role
from apps.accounts.services import api_token_create

from .factories import OperatorFactory, OrganisationFactory, UserFactory

# Playwright's sync API runs an event loop in the test thread; the ORM calls the tests make
# around it are still synchronous, so allow them.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def require(condition: bool, what: str) -> None:
    """Skip when a service is missing on a developer's machine; under CI=true, fail instead."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"{what} is required under CI=true but is not available")
    pytest.skip(f"{what} is not available")


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session", autouse=True)
def _flush_past_the_audit_truncate_guard():
    """Let the suite's flush empty the append-only tables on PostgreSQL.

    pytest-django empties the tables after each transactional test (the browser tests) with one
    TRUNCATE, which the audit log's and the movement ledger's triggers refuse (core/0006,
    warehouse/0005). Django's flush for PostgreSQL is wrapped here to switch those triggers off
    and on again in the same transaction, as the table's owner (the test database's owner,
    `postgres` in CI) may: no other session sees a table unguarded (apps/core/db_guards.py; the
    application never opens it).
    """
    from apps.core.db_guards import flush_past_truncate_guards

    with flush_past_truncate_guards():
        yield


# Where a document's PDF is what the test is about, or is seen as a person sees it, WeasyPrint
# renders it: the documents' own tests, the browser tests, the demo's. Elsewhere a document is a
# step on a shipment's way (a booked shipment has issued documents) and rendering it — about half
# a second each, a third of the time of the shipments' and compliance's tests — tests nothing
# those tests assert; they get a one-page PDF naming the document instead (`placeholder_pdf`).
# A test outside these directories that reads a document's pages is marked `real_pdfs`.
REAL_PDF_TESTS = ("tests/documents/", "tests/browser/", "tests/demo/", "tests/integration/")


def placeholder_pdf(context, **_options) -> tuple[bytes, int]:
    """A valid one-page PDF whose title names the document (type, number): what
    `renderer.render_pdf` returns, in milliseconds."""
    import io

    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.add_blank_page(width=595, height=842)  # A4 in points
    writer.add_metadata({"/Title": f"{context.doc_type} {context.number}"})
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue(), 1


def pytest_configure(config):
    config.addinivalue_line("markers", "real_pdfs: documents rendered by WeasyPrint (see REAL_PDF_TESTS)")


@pytest.fixture(autouse=True)
def _incidental_pdfs(request):
    path = str(request.node.path).replace(os.sep, "/")
    if any(part in path for part in REAL_PDF_TESTS) or request.node.get_closest_marker("real_pdfs"):
        yield
        return
    mp = pytest.MonkeyPatch()
    mp.setattr("apps.documents.services.render_pdf", placeholder_pdf)
    yield
    mp.undo()


@pytest.fixture
def operator(db):
    return OperatorFactory()


@pytest.fixture
def supplier(db):
    return OrganisationFactory(kind=OrganisationKind.SUPPLIER, legal_name="Taiwan Servers Co., Ltd.")


@pytest.fixture
def forwarder(db):
    return OrganisationFactory(
        kind=OrganisationKind.FREIGHT_FORWARDER,
        legal_name="Lion City Freight Pte. Ltd.",
        country="SG",
        city="Singapore",
    )


@pytest.fixture
def coordinator(operator):
    return UserFactory(organisation=operator, role=Role.COORDINATOR, username="coord")


@pytest.fixture
def compliance_officer(operator):
    return UserFactory(organisation=operator, role=Role.COMPLIANCE_OFFICER, username="compliance")


@pytest.fixture
def warehouse_operator(operator):
    return UserFactory(organisation=operator, role=Role.WAREHOUSE_OPERATOR, username="warehouse")


@pytest.fixture
def admin_user(operator):
    return UserFactory(
        organisation=operator, role=Role.ADMIN, username="boss", is_staff=True, is_superuser=True
    )


@pytest.fixture
def supplier_user(supplier):
    return UserFactory(organisation=supplier, role=Role.PARTNER, username="supplier-api")


@pytest.fixture
def forwarder_user(forwarder):
    return UserFactory(organisation=forwarder, role=Role.PARTNER, username="forwarder-api")


def token_client(user) -> APIClient:
    _, key = api_token_create(user=user, name="test")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


@pytest.fixture
def api_as():
    """`api_as(user)`: an API client authenticated with a fresh token of `user`."""
    return token_client


@pytest.fixture
def browser_as(client):
    def login(user):
        client.force_login(user)
        return client

    return login


# Tests that start real worker processes on the shared broker (Redis, or make run's file queue)
# run one after another in the same pytest-xdist process: two at once could take each other's
# tasks. `make test` runs `-n 2 --dist loadgroup`; everything else is spread over both processes.
WORKER_TESTS = (
    "tests/integration/",
    "tests/core/test_background_work.py",
    "tests/core/test_make_run.py",
    "tests/browser/test_make_run_progress.py",
)


@pytest.hookimpl(trylast=True)  # after pytest-xdist's own hook: see _name_the_group
def pytest_collection_modifyitems(config, items):
    for item in items:
        path = str(item.path).replace(os.sep, "/")
        if any(part in path for part in WORKER_TESTS):
            item.add_marker(pytest.mark.xdist_group("workers"))
        elif "tests/demo/" in path:  # one process loads the demo for all of them: tests/demo/conftest.py
            item.add_marker(pytest.mark.xdist_group("demo"))
    if getattr(config.option, "loadgroup", False):  # an xdist worker process under --dist loadgroup
        for item in items:
            _name_the_group(item)


def _name_the_group(item) -> None:
    """Append `@<group>` to the node id of a test marked `xdist_group`, as pytest-xdist does: its
    scheduler sends the tests whose ids end alike to one process. pytest-xdist 3.8 writes
    `item._nodeid`, which pytest 9.2 no longer reads (the id is `item._id`), so without this every
    group was spread over both processes like any other test."""
    names = sorted(
        {
            str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
            for mark in item.iter_markers("xdist_group")
        }
    )
    suffix = "@" + "_".join(names)
    if not names or item.nodeid.endswith(suffix):
        return
    if hasattr(item, "_id"):
        from _pytest.nodeid import NodeId

        item._id = NodeId.parse(item.nodeid + suffix)
    else:
        item._nodeid = item.nodeid + suffix
