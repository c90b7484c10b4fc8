"""What the dashboards' tests share: the tiles of a dashboard and the rows of the list a tile
links to."""


def tiles(page) -> dict[str, object]:
    return {tile.label: tile for tile in page.context["tiles"]}


def rows_behind(client, tile) -> int | None:
    """How many objects the page a tile links to lists (every page of it); None for a page that is
    not a filtered list (the API tokens page)."""
    page = client.get(tile.url)
    assert page.status_code == 200, tile.url
    if tile.url.endswith("#hits"):  # the review queue's hits section
        return len(page.context["hits"])
    if "page_obj" not in page.context:
        return None
    assert not page.context["filter_errors"], page.context["filter_errors"]
    return page.context["page_obj"].paginator.count
