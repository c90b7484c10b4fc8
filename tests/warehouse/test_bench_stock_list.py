"""The stock-list benchmark (bench/bench_stock_list.py) at a tiny size, so that it cannot rot: its
seeding runs, every request it makes answers, and the query count of each is the same at 50 and
200 units (the property the benchmark checks at 1,000 and 100,000)."""

import pytest

from bench.bench_stock_list import measure_sizes
from bench.harness import Report

pytestmark = pytest.mark.django_db


def test_stock_lists_run_a_constant_number_of_queries():
    report = Report("stock_list")
    queries = measure_sizes(report, (50, 200), repeat=1, export_repeat=1)

    assert report.failures == []
    assert len(queries) == 40  # 20 requests, for each of the two callers
    for (caller, request), by_size in queries.items():
        assert by_size[50] == by_size[200], (caller, request, by_size)
        assert by_size[50] > 0
    names = {row["request"] for row in report.tables[""]}
    assert {"units API page 1", "on-hand API page 1", "/stock/ page 1", "CSV export, all units"} <= names


def test_a_query_count_that_grows_fails_the_run(monkeypatch):
    # The check itself: a count that differs between the sizes is reported, not ignored.
    import bench.bench_stock_list as bench

    real = bench._requests
    calls = {"n": 0}

    def growing(world, caller, visible):
        requests = real(world, caller, visible)
        call, expected = requests["units API page 1"]

        def with_extra_queries():
            from apps.catalog.models import Unit

            calls["n"] += 1
            for _ in range(world.size // 10):
                Unit.objects.exists()
            return call()

        requests["units API page 1"] = (with_extra_queries, expected)
        return requests

    monkeypatch.setattr(bench, "_requests", growing)
    report = Report("stock_list")
    measure_sizes(report, (10, 20), repeat=1, export_repeat=1)  # the smallest sizes that seed every list
    assert any("units API page 1: the queries differ" in failure for failure in report.failures)
