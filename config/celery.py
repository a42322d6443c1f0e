"""The Celery app, configured from Django settings under the ``CELERY_`` namespace.

In the embedded mode (no REDIS_URL) settings make tasks run in-process, so the same ``.delay()`` calls work with
or without a broker.
"""

import os

from celery import Celery
from celery.signals import task_postrun, task_prerun

from infra import task_log

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("arena")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# One log line per task run (infra/task_log.py), in workers and in the embedded mode.
task_prerun.connect(task_log.run_started, weak=False)
task_postrun.connect(task_log.run_finished, weak=False)
