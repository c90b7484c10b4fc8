"""`make run` behaves like production: the web server and a worker side by side, stopped together,
tasks in the background on a queue that needs no server."""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_make_run_generates_documents_in_the_background_and_ctrl_c_stops_web_and_worker(tmp_path):
    """The scenario runs in a pytest of its own (local_worker_scenario.py) with `make run`'s
    settings, whatever database and broker this suite runs on: no Redis, a SQLite file."""
    dropped = {"DJANGO_ALLOW_ASYNC_UNSAFE", "DJANGO_SETTINGS_MODULE", "DATABASE_URL", "REDIS_URL",
               "CELERY_TASK_ALWAYS_EAGER"}  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k not in dropped} | {
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "RACKPASS_TEST_DB": str(tmp_path / "test.sqlite3"),
        "RACKPASS_TASK_DIR": str(tmp_path / "tasks"),
        "RACKPASS_MEDIA_ROOT": str(tmp_path / "media"),
    }
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/core/local_worker_scenario.py", "--ds",
         "tests.core.settings_local_worker", "--no-migrations", "-q", "-p", "no:cacheprovider",
         # Plugins this test does not use: their imports cost seconds.
         "-p", "no:schemathesis", "-p", "no:hypothesispytest", "-p", "no:anyio"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert re.search(r"\b1 passed\b", result.stdout), result.stdout[-2000:]
