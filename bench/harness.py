"""What a benchmark module gets from the runner: a `Report` to fill and a way to time things.

A benchmark is a module `bench/bench_<name>.py` whose docstring's first line says what it
measures and which defines `run(report: Report) -> None`. It starts from a fresh, migrated and
otherwise empty test database and an empty cache, in autocommit as a web request would (the runner
flushes the database afterwards). It adds rows to the report's table(s), may add notes, and calls
`report.check(...)` for its own correctness conditions, never for timings: a failed check makes
`bench/run.py` exit non-zero.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Timing:
    """Wall-clock samples of one measurement, in seconds (time.perf_counter)."""

    samples: list[float]

    @property
    def median_ms(self) -> float:
        return statistics.median(self.samples) * 1000

    @property
    def min_ms(self) -> float:
        return min(self.samples) * 1000

    def __str__(self) -> str:
        return f"{self.median_ms:.2f}, {self.min_ms:.2f}"


def measure(fn: Callable[[], Any], *, repeat: int, setup: Callable[[], Any] | None = None) -> Timing:
    """Call `fn` `repeat` times and time each call; `setup` runs before each call, untimed."""
    gc.collect()
    samples: list[float] = []
    for _ in range(repeat):
        samples_of(fn, samples, setup)
    return Timing(samples)


def interleaved(
    first: list[Callable[[], Any]], second: list[Callable[[], Any]], *, setup: Callable[[], Any] | None = None
) -> tuple[Timing, Timing]:
    """Time two equally long lists of calls alternately (a, b, a, b …), one sample per call,
    so that drift and noise hit both alike. `setup` runs, untimed, before every call."""
    gc.collect()
    samples: tuple[list[float], list[float]] = ([], [])
    for pair in zip(first, second, strict=True):
        for call, into in zip(pair, samples, strict=True):
            samples_of(call, into, setup)
    return Timing(samples[0]), Timing(samples[1])


def round_robin(
    calls: dict[str, Callable[[], Any]], *, repeat: int, setup: Callable[[], Any] | None = None
) -> dict[str, Timing]:
    """Time several calls `repeat` times each, taking turns (a, b, c, a, b, c …) for the same reason."""
    gc.collect()
    samples: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(repeat):
        for name, call in calls.items():
            samples_of(call, samples[name], setup)
    return {name: Timing(values) for name, values in samples.items()}


def samples_of(call: Callable[[], Any], into: list[float], setup: Callable[[], Any] | None = None) -> None:
    """Run `setup` (untimed), then time one `call` and append its duration to `into`."""
    if setup is not None:
        setup()
    start = time.perf_counter()
    call()
    into.append(time.perf_counter() - start)


@dataclass
class Report:
    """One benchmark's results: tables (a row is a dict of column → cell), notes and failures."""

    name: str
    tables: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def row(self, table: str = "", /, **cells: Any) -> None:
        """Add a row to the main table, or to the table titled `table` (printed after it)."""
        self.tables.setdefault(table, []).append(cells)

    def note(self, text: str) -> None:
        self.notes.append(text)

    def check(self, ok: bool, message: str) -> bool:
        """A correctness condition of the benchmark (not a timing); failing it fails the run."""
        if not ok:
            self.failures.append(message)
        return ok


def format_table(rows: list[dict[str, Any]]) -> str:
    """Plain-text table; columns in first-seen order, first column left-aligned, the rest right."""
    columns: list[str] = []
    for row in rows:
        columns.extend(c for c in row if c not in columns)
    cells = [[_cell(row.get(c, "")) for c in columns] for row in rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]

    def line(values: list[str]) -> str:
        pairs = enumerate(zip(values, widths, strict=True))
        return "  ".join(v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in pairs).rstrip()

    out = [line(columns), line(["-" * w for w in widths])]
    out.extend(line(r) for r in cells)
    return "\n".join(out)


def _cell(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def api_client_for(user, name: str = "bench"):
    """A REST client that authenticates as `user` with a fresh API token named `name`."""
    from rest_framework.test import APIClient

    from apps.accounts.services import api_token_create

    _, key = api_token_create(user=user, name=name)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client
