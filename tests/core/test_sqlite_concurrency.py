"""`make run` uses SQLite: parallel writes must behave as on PostgreSQL (one winner, refusals for the
rest), never answer 'database is locked'."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]


def test_sqlite_is_configured_for_concurrent_use():
    options = settings.DATABASES["default"].get("OPTIONS", {})
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3":
        pytest.skip("not SQLite")
    assert options["transaction_mode"] == "IMMEDIATE" and options["timeout"] >= 10
    assert "journal_mode=WAL" in options["init_command"]


def test_ten_parallel_status_changes_on_a_sqlite_file_one_wins_the_rest_are_refused(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"} | {
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
    }
    env.pop("REDIS_URL", None)
    result = subprocess.run(
        [sys.executable, "-m", "tests.core.sqlite_writers", "10"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    outcomes = json.loads(result.stdout.strip().splitlines()[-1])
    assert sorted(outcomes) == ["moved"] + ["refused"] * 9, outcomes
