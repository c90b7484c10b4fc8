"""Developer settings: `make run`. SQLite and eager Celery unless DATABASE_URL/REDIS_URL are set."""

from .base import *  # noqa: F401,F403
from .base import env

DEBUG = env.bool("DJANGO_DEBUG", default=True)
SECRET_KEY = env("DJANGO_SECRET_KEY", default="insecure-local-development-key-not-for-production")

# The SQLite file and generated documents live under var/ (git-ignored).
from .base import VAR_DIR  # noqa: E402

VAR_DIR.mkdir(exist_ok=True)
