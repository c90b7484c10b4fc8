"""On the demo's data (what `make run` shows), every role's dashboard tile counts exactly the rows
of the list it links to, and each role finds its own work first."""

import pytest
from django.test import Client

from apps.accounts.models import User
from tests.dashboard_tiles import rows_behind, tiles

FIRST = {
    "compliance": "on compliance hold",
    "coordinator": "open shipments",
    "forwarder": "milestones to report",
    "supplier": "milestones to report",
}


@pytest.mark.parametrize(
    "username", ["compliance", "coordinator", "warehouse", "forwarder", "supplier", "customer"]
)
def test_every_tile_counts_the_rows_of_its_list(demo, username):
    client = Client()
    client.force_login(User.objects.get(username=username))
    found = tiles(client.get("/"))
    assert found
    if username in FIRST:
        assert next(iter(found)) == FIRST[username]
    for label, tile in found.items():
        rows = rows_behind(client, tile)
        assert rows is None or rows == tile.count, (username, label, tile.url, rows)


def test_the_demo_gives_the_officer_and_the_forwarder_work_to_land_on(demo):
    client = Client()
    client.force_login(User.objects.get(username="compliance"))
    officer = tiles(client.get("/"))
    assert officer["on compliance hold"].count >= 2  # Hanoi without a licence, the Entity List lookalike
    assert officer["restricted-party hits to review"].count >= 1
    client.force_login(User.objects.get(username="forwarder"))
    assert tiles(client.get("/"))["milestones to report"].count >= 1  # demo B in transit
