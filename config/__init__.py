"""Project configuration (cookiecutter-django's layout): settings, the Celery app, the URL map, WSGI and ASGI.

Importing the Celery app here makes ``@shared_task`` bind to it in every process that loads Django.
"""

from config.celery import app as celery_app

__all__ = ("celery_app",)
