#!/usr/bin/env python
"""Run the benchmarks (`bench/bench_*.py`) against a throwaway test database and print their tables.

    python bench/run.py                 # every benchmark
    python bench/run.py parts_api       # only bench/bench_parts_api.py (several names allowed)
    python bench/run.py freight         # a 3,000-line, 3-leg consolidation's freight options and page
    python bench/run.py stock_import    # 100,000 serials imported from CSV, beside COPY and a save() loop
    python bench/run.py stock_list      # the stock lists (API, page, CSV export) at 1,000 and 100,000 units
    python bench/run.py sizing          # the cluster sizing engine alone at 8 to 131,072 GPUs
    python bench/run.py --list          # the benchmarks there are

SQLite by default (an in-memory test database); PostgreSQL when DATABASE_URL is set. Timings are
only printed, never asserted. The exit code is non-zero only when a benchmark's own correctness
check fails (say, the query count of a page grows with the rows) or a benchmark raises.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import os
import platform
import sys
import time
import traceback
import warnings
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent


def discover() -> list[str]:
    return sorted(p.stem.removeprefix("bench_") for p in BENCH_DIR.glob("bench_*.py"))


def main(argv: list[str] | None = None) -> int:
    available = discover()
    parser = argparse.ArgumentParser(description="Run Rackpass's benchmarks and print a table.")
    parser.add_argument(
        "names", nargs="*", metavar="NAME", help=f"benchmarks to run (default: all: {', '.join(available)})"
    )
    parser.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    args = parser.parse_args(argv)

    unknown = [n for n in args.names if n.removeprefix("bench_") not in available]
    if unknown:
        parser.error(f"no such benchmark: {', '.join(unknown)} (there are: {', '.join(available)})")
    selected = [n.removeprefix("bench_") for n in args.names] or available

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    # WhiteNoise warns that collectstatic has not run; irrelevant here (as in pytest's settings).
    warnings.filterwarnings("ignore", "No directory at", UserWarning)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import django

    django.setup()

    from django.core.cache import cache
    from django.core.management import call_command
    from django.db import connection
    from django.test.utils import setup_test_environment, teardown_test_environment

    from bench.harness import Report, format_table

    modules = {name: importlib.import_module(f"bench.bench_{name}") for name in selected}
    if args.list:
        for name, module in modules.items():
            print(f"{name:20} {_title(module)}")
        return 0

    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    if connection.vendor != "sqlite":
        # Not the test suite's test_<name>: a run of `make test` beside us must not be clobbered.
        test_settings = connection.settings_dict.setdefault("TEST", {})
        test_settings["NAME"] = (test_settings.get("NAME") or f"test_{old_name}") + "_bench"
    started = time.perf_counter()
    failed: list[str] = []
    try:
        # serialize=False: no benchmark needs the serialized_rollback snapshot of the fresh database.
        connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False, serialize=False)
        print(_environment(connection))
        for name, module in modules.items():
            report = Report(name)
            print(f"\n== {name}: {_title(module)}", flush=True)
            began = time.perf_counter()
            try:
                module.run(report)
            except Exception:
                traceback.print_exc()
                report.failures.append("the benchmark raised an exception (traceback above)")
            finally:
                # The next benchmark starts from an empty, migrated database and an empty cache.
                with _audit_truncate_allowed():
                    call_command("flush", verbosity=0, interactive=False)
                cache.clear()
            for title, rows in report.tables.items():
                if title:
                    print(f"\n{title}:")
                print(format_table(rows))
            for note in report.notes:
                print(f"  note: {note}")
            for failure in report.failures:
                print(f"  FAILED: {failure}")
            print(f"  ({time.perf_counter() - began:.1f} s)", flush=True)
            if report.failures:
                failed.append(name)
    finally:
        if connection.settings_dict["NAME"] != old_name:  # the test database got created
            connection.creation.destroy_test_db(old_name, verbosity=0)
        teardown_test_environment()

    print(f"\n{len(modules)} benchmark(s) in {time.perf_counter() - started:.1f} s", end="")
    if failed:
        print(f"; correctness check FAILED in: {', '.join(failed)}")
        return 1
    print("; all correctness checks passed")
    return 0


def _audit_truncate_allowed():
    """Let flush empty the append-only tables (the audit log, the movement ledger) on PostgreSQL,
    as the test suite's flush does: a benchmark that writes through the services (load_demo)
    leaves audit events and stock movements behind."""
    from apps.core.db_guards import flush_past_truncate_guards

    return flush_past_truncate_guards()


def _title(module) -> str:
    return ((module.__doc__ or "").strip().splitlines() or [""])[0]


def _environment(connection) -> str:
    import django

    vendor = connection.vendor
    if vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SHOW server_version")
            database = f"PostgreSQL {cursor.fetchone()[0]} ({connection.settings_dict['NAME']})"
    elif vendor == "sqlite":
        import sqlite3

        database = f"SQLite {sqlite3.sqlite_version} (in-memory test database)"
    else:
        database = vendor
    return (
        f"Rackpass benchmarks, {dt.date.today():%Y-%m-%d}: {database}; Python {platform.python_version()}, "
        f"Django {django.get_version()}, {os.cpu_count()} CPU(s), {platform.machine()}; "
        f"settings {os.environ['DJANGO_SETTINGS_MODULE']}"
    )


if __name__ == "__main__":
    sys.exit(main())
