"""The Celery app, configured from Django settings under the ``CELERY_`` namespace.

In the embedded mode (no REDIS_URL) settings make tasks run in-process, so the same ``.delay()`` calls work with
or without a broker.
"""
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("arena")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
