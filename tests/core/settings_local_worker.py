"""`make run`'s settings (config.settings.local: no Redis, tasks queued in files for a worker) for
the test that runs in a process of its own (local_worker_scenario.py): its test database is a
SQLite file, which the worker it starts opens too."""

from config.settings.local import *  # noqa: F401,F403
from config.settings.local import DATABASES, env

DATABASES["default"]["TEST"] = {"NAME": env("RACKPASS_TEST_DB")}
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
