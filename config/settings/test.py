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

# `make test` runs the suite in two processes (pytest-xdist): each keeps its own cache keys when
# the cache is a shared Redis, so one process clearing or filling the cache never meets the other's.
import os  # noqa: E402

from .base import CACHES  # noqa: E402

if "KEY_PREFIX" not in CACHES["default"]:
    CACHES["default"]["KEY_PREFIX"] = f"test-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"
