"""Developer settings: `make run`. SQLite, and tasks queued in files for the worker that `make run`
starts beside the web server, unless DATABASE_URL/REDIS_URL are set."""

from pathlib import Path

from .base import *  # noqa: F401,F403
from .base import CELERY_BROKER_TRANSPORT_OPTIONS, REDIS_URL, env

DEBUG = env.bool("DJANGO_DEBUG", default=True)
SECRET_KEY = env("DJANGO_SECRET_KEY", default="insecure-local-development-key-not-for-production")

# The SQLite file and generated documents live under var/ (git-ignored).
from .base import VAR_DIR  # noqa: E402

VAR_DIR.mkdir(exist_ok=True)

# Background work is background here too: a request queues its task and returns, a worker runs it
# (`manage.py run_local`, which `make run` calls, starts one beside runserver) and the page polls
# the task's record for progress. Without Redis the queue needs no server: kombu's filesystem
# transport keeps one file per message under var/tasks/queue/ (the web process writes there, the
# worker takes from there), and results go to files in var/tasks/results/ (Celery's file backend).
# The progress people read comes from the TaskRecord table, not from results (docs/architecture.md).
# CELERY_TASK_ALWAYS_EAGER=true runs tasks in the request again, with no worker.
if not REDIS_URL:
    TASK_DIR = Path(env("RACKPASS_TASK_DIR", default=str(VAR_DIR / "tasks")))
    for _folder in ("queue", "control", "results"):
        (TASK_DIR / _folder).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_URL = "filesystem://localhost/"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        **CELERY_BROKER_TRANSPORT_OPTIONS,
        # One folder: what the web process writes (out) is what the worker reads (in).
        "data_folder_in": str(TASK_DIR / "queue"),
        "data_folder_out": str(TASK_DIR / "queue"),
        "control_folder": str(TASK_DIR / "control"),
        # The worker looks for new files this often (seconds): a task starts within a blink.
        "polling_interval": 0.25,
    }
    CELERY_RESULT_BACKEND = f"file://{TASK_DIR / 'results'}"
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
