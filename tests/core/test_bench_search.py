"""The search benchmark (bench/bench_search.py) at a tiny size, so that it cannot rot: its seeding
runs, every search it makes answers as it checks (exact identifiers open their shipment, the
partner finds no other shipment's AWB), and each search's query count is the same at 20 and 40
shipments (the property the benchmark checks at 1,000 and 10,000)."""

import pytest

from bench.bench_search import measure_sizes
from bench.harness import Report

pytestmark = pytest.mark.django_db


def test_the_searches_run_a_constant_number_of_queries():
    report = Report("search")
    queries = measure_sizes(report, (20, 40), repeat=1)

    assert report.failures == []
    assert len(queries) == 38  # 18 searches and the baseline, for each of the two callers
    for (caller, request), by_size in queries.items():
        assert by_size[20] == by_size[40], (caller, request, by_size)
