"""The Celery application. Workers: `celery -A config worker`; scheduler: `celery -A config beat`."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

# Every task records its progress on its TaskRecord (apps/core/task_base.py).
app = Celery("rackpass", task_cls="apps.core.task_base:RecordedTask")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
