"""The test settings with a 2-second visibility timeout, swept every second: a worker started with
them takes over, within seconds, the unacknowledged task of a worker that was killed."""

from config.settings.test import *  # noqa: F401,F403
from config.settings.test import CELERY_BROKER_TRANSPORT_OPTIONS

CELERY_BROKER_TRANSPORT_OPTIONS = {
    **CELERY_BROKER_TRANSPORT_OPTIONS,
    "visibility_timeout": 2,
    "unacked_restore_interval": 1,
    "unacked_restore_throttle": 1,
}
