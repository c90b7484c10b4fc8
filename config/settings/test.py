"""Settings for the test suite (`make test`)."""

from .base import *  # noqa: F401,F403
from .base import REST_FRAMEWORK, env

SECRET_KEY = "test-secret-key-with-enough-length-for-hmac-0123456789"
DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# Tests run tasks eagerly unless a test starts a worker itself.
CELERY_TASK_ALWAYS_EAGER = True
REST_FRAMEWORK = {
    **REST_FRAMEWORK,
    "DEFAULT_THROTTLE_RATES": {
        "token": env("RACKPASS_API_TOKEN_RATE", default="10000/minute"),
        # The cache outlives a test: tests that meet the shipped rate set it themselves.
        "token_failure": "10000/minute",
    },
}

# Generated documents go to a throwaway directory, not the developer's var/media.
import tempfile  # noqa: E402

MEDIA_ROOT = tempfile.mkdtemp(prefix="rackpass-test-media-")

# `make test` runs the suite in two processes (pytest-xdist). On Redis each process keeps its cache
# in a database of its own (1, 2, …; the broker stays on the URL's own): a test that clears the
# cache (FLUSHDB) never empties the other process's cache, nor the queue of a worker test.
import os  # noqa: E402
import re  # noqa: E402

from .base import CACHES, REDIS_URL  # noqa: E402

if REDIS_URL:
    _worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    _db = 1 + int(re.sub(r"\D", "", _worker) or 0)
    CACHES["default"]["LOCATION"] = re.sub(r"(/\d*)?$", f"/{_db}", REDIS_URL.rstrip("/"), count=1)
